"""``Tensor``: a backend array plus what autograd needs (requires_grad, grad, grad_fn).

The array's device is its backend's. Methods are thin: each calls the op of the same name
in ``ops`` (through ``functional``), so a method and ``minitorch_meta.<name>`` never differ.
"""

from __future__ import annotations

import math
import weakref
from numbers import Number

from . import dtypes, random_fills
from .autograd import AccumulateGrad, is_grad_enabled
from .autograd import backward as _run_backward
from .backends.base import is_basic_index
from .caller_warnings import warn_at_caller
from .device import device as Device
from .device import to_device
from .errors import ShapeError
from .functions import add as _add
from .functions import div as _div
from .functions import mul as _mul
from .functions import scaled_by_alpha as _scaled_by_alpha
from .functions import sub as _sub
from .hooks import HookDict, add_hook
from .inplace_autograd import assigned, follows_graph, recorded_inplace
from .memory_formats import contiguous_format
from .ops import float8_shell, unsigned_shell
from .ops.function import _observers as _op_observers  # a list, changed in place only
from .ops.layout import Clone, GetItem
from .ops.masked import fill_number
from .ops.shapes import broadcasts_to, fmt, indexing_shape, normalize_dim, torch_index_axes
from .random import generator_for
from .size import Size
from .tensor_arguments import require_tensor
from .tensor_grad import grad_property
from .tensor_methods import TensorMethods
from .versions import VersionCounter

# Read by ``Tensor._make`` for every op's output: module-level names save two lookups.
_new_object = object.__new__
_DTYPE_OF_NUMPY = dtypes.BY_NUMPY


#: NumPy's scalar types: what NumPy gives, instead of a 0-d array, for an op on 0-d arrays.
#: A NumPy scalar can be neither written into nor shared with views (``detach()``,
#: ``.data``, ``view``), so a tensor stores a 0-d array of it instead (``Tensor._make``
#: and ``Tensor._store`` test this inline: a set lookup, and no call, on every op).
_NUMPY_SCALARS = frozenset(numpy_dtype.type for numpy_dtype in _DTYPE_OF_NUMPY)


class Tensor(TensorMethods):
    """A multi-dimensional array on a device, tracked by autograd when ``requires_grad``.

    Arithmetic, comparisons, reductions, shape ops and products come from
    ``TensorMethods``, each a one-line call of the function of the same name.
    """

    # ``_grad`` backs the ``grad`` property: the library reads and writes the slot, so only
    # a user's read of ``.grad`` pays for the non-leaf check (tensor_grad.py).
    __slots__ = ("_data", "_backend", "_dtype", "requires_grad", "_grad", "grad_fn",
                 "_grad_accumulator", "_version_counter", "__weakref__")

    grad = grad_property

    # -- construction ----------------------------------------------------------------
    def __init__(self, *args, **kwargs):
        """``Tensor(data)`` or ``Tensor(*sizes)`` (uninitialised), as torch.Tensor: of the
        default floating-point dtype (``get_default_dtype()``)."""
        from .factories import empty, tensor

        if len(args) == 1 and not isinstance(args[0], int):
            made = tensor(args[0], dtype=dtypes.get_default_dtype(), **kwargs)
        else:
            made = empty(*args, **kwargs)
        _copy_slots(made, self)

    @classmethod
    def _make(cls, data, backend, requires_grad=False, grad_fn=None):
        """Wrap a backend array (internal: no copy, no checks)."""
        t = _new_object(cls)
        if data.__class__ in _NUMPY_SCALARS:  # see _NUMPY_SCALARS
            data = backend.asarray(data, None)
        t._data = data
        t._backend = backend
        t._dtype = _DTYPE_OF_NUMPY.get(data.dtype) or dtypes.from_numpy(data.dtype)
        t.requires_grad = requires_grad
        t._grad = None
        t.grad_fn = grad_fn
        t._grad_accumulator = None
        t._version_counter = None  # made on first need (a view, a save for backward)
        return t

    def _wrap(self, data):
        """A new tensor on this tensor's backend around ``data``."""
        return Tensor._make(data, self._backend)

    def _counter(self) -> VersionCounter:
        """This storage's version counter (shared with views), made on first use."""
        if self._version_counter is None:
            self._version_counter = VersionCounter()
        return self._version_counter

    def _shared_counter(self) -> VersionCounter:
        """This storage's version counter, for a second tensor that looks into it."""
        counter = self._counter()
        counter.shared = True
        return counter

    @property
    def output_nr(self) -> int:
        """Which output of its ``grad_fn`` this tensor is (PyTorch's ``output_nr``): 0 for
        a leaf, a tensor without a graph node and the result of a single-output op."""
        grad_fn = self.grad_fn
        return 0 if grad_fn is None else grad_fn._output_nr

    @property
    def _version(self) -> int:
        """How many in-place writes this storage has had (PyTorch's ``_version``)."""
        return 0 if self._version_counter is None else self._version_counter.value

    def _store(self, index, value, same_value_everywhere: bool = False, inputs=()) -> None:
        """Write ``value`` into ``self[index]``: every in-place write goes through here, so
        that each one bumps the version counter.

        ``inputs``, the operands of an elementwise op writing into this tensor (``add_``'s
        other, ``copy_``'s source, an ``out=`` call's inputs), are refused when one partly
        overlaps this tensor's memory (``x.add_(x.t())``), as PyTorch refuses them; the
        same elements (``x.add_(x)``) are fine.

        A write into an ``expand`` view, where several elements share one memory
        location, is refused as PyTorch refuses it, unless ``same_value_everywhere``
        (``fill_``, ``zero_``: then the shared locations cannot disagree), or unless the
        index has tensors (``x[mask] = 0``): PyTorch deprecates those writes, with a
        warning, but performs them.
        """
        backend = self._backend
        data = self._data
        if data.__class__ in _NUMPY_SCALARS:  # _data may have been rebound to one
            data = self._data = backend.asarray(data, None)
        if not same_value_everywhere and backend.has_internal_overlap(data):
            _check_overlapping_write(backend, data, index)
        if inputs and backend.stores_data:  # meta keeps no offsets: not decided there
            _refuse_partial_overlap(backend, data, index, inputs)
        if _op_observers:
            _before_write(self)
        backend.setitem(data, index, value)
        self._counter().value += 1
        if _op_observers and (level := _dual_level()) is not None:
            level.written(self)  # the tangents sharing this memory are stale now

    def _accumulator(self):
        if self._grad_accumulator is None:
            self._grad_accumulator = AccumulateGrad(self)
        return self._grad_accumulator

    # -- metadata --------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        """The shape, or the length of dimension ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        if not self._data.shape:  # normalize_dim lets reductions take dim 0 or -1 of a 0-d
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions: a "
                             "0-d tensor has no size along any dim (size() gives torch.Size([]))")
        return self._data.shape[normalize_dim("size", dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    ndim = property(dim)

    def numel(self) -> int:
        return math.prod(self._data.shape)

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def dtype(self) -> dtypes.dtype:
        return self._dtype

    @property
    def device(self) -> Device:
        return self._backend.device

    @property
    def is_cuda(self) -> bool:
        return self._backend.device.type == "cuda"

    @property
    def is_meta(self) -> bool:
        return self._backend.device.type == "meta"

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def __len__(self) -> int:
        if not self._data.shape:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    # -- data access -----------------------------------------------------------------
    @property
    def data(self) -> Tensor:
        """The same storage, detached from autograd."""
        return Tensor._make(self._data, self._backend)

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data, self._backend, self._dtype = value._data, value._backend, value._dtype

    def numpy(self):
        """The data as a NumPy array (shares memory on the CPU)."""
        if self.requires_grad and is_grad_enabled():
            raise RuntimeError("Can't call numpy() on a tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self.is_cuda:
            raise TypeError("can't convert a cuda tensor to numpy: use tensor.cpu() first to copy "
                            "it to host memory")
        if self._dtype in dtypes.CPU_ONLY:  # PyTorch's refusal: NumPy itself has no such type
            name = dtypes.SCALAR_TYPE_NAMES[self._dtype]
            raise TypeError(f"Got unsupported ScalarType {name}: NumPy has no {self._dtype.name} "
                            "type; convert first, e.g. tensor.float().numpy()")
        return self._backend.to_numpy(self._data)

    def _host(self):
        return self._backend.to_numpy(self._data)

    def item(self) -> Number:
        """The value of a one-element tensor as a Python number."""
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to "
                               "Scalar; item() needs exactly one element")
        return self._host().reshape(()).item()

    def tolist(self):
        return self._host().tolist()

    def _python_scalar(self) -> Number:
        """The value behind ``float(t)``/``int(t)``, which raise ValueError where ``item``
        raises RuntimeError, as in PyTorch."""
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __float__(self) -> float:
        self._warn_if_leaving_the_graph()
        return float(self._python_scalar())

    def __complex__(self) -> complex:
        self._warn_if_leaving_the_graph()
        return complex(self._python_scalar())

    def _warn_if_leaving_the_graph(self) -> None:
        """PyTorch's note for ``float(t)``/``complex(t)`` of a tensor that requires grad with
        grad mode on: the number is no longer differentiable (``item()``, ``int()`` and
        ``bool()`` do not warn, as in PyTorch)."""
        if self.requires_grad and is_grad_enabled():
            warn_at_caller("Converting a tensor with requires_grad=True to a scalar may lead to "
                           "unexpected behavior.\nConsider using tensor.detach() first.")

    def __int__(self) -> int:
        return int(self._python_scalar())

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self._dtype.is_complex:
            raise TypeError("only integer tensors of a single element can be used as an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self.numel()} values is ambiguous")
        return bool(self.item())

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        array = self.detach().numpy() if not self.is_cuda else self._host()
        # ``x[k]`` of a vector holds a NumPy scalar, which ``__array__`` may not return
        array = np.asarray(array)
        return array if dtype is None else array.astype(dtype)

    def __iter__(self):
        if not self._data.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __hash__(self) -> int:
        return id(self)

    def __deepcopy__(self, memo):
        """A copy with its own data on the same device (leaves only, as in PyTorch)."""
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol; call .detach() first")
        import copy

        new = object.__new__(type(self))
        memo[id(self)] = new
        new._data = self._backend.copy(self._data)
        new._backend, new._dtype = self._backend, self._dtype
        new.requires_grad, new.grad_fn, new._grad_accumulator = self.requires_grad, None, None
        new._version_counter = None  # its own storage
        grad = self._grad
        new._grad = copy.deepcopy(grad, memo) if grad is not None else None
        return new

    def __reduce_ex__(self, protocol):
        """Pickling (``pickle``, ``multiprocessing`` queues): the values (a host copy),
        dtype, device and ``requires_grad``. As in PyTorch, ``.grad`` and the graph are not
        kept: a non-leaf comes back as a leaf. Unpickling rebuilds it on its device."""
        values = self._backend.to_numpy(self._data) if self._backend.stores_data else None
        return (_unpickle, (type(self), values, tuple(self._data.shape), self._dtype.name,
                            str(self.device), self.requires_grad))

    def __repr__(self) -> str:
        from .formatting import tensor_repr

        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self.dim() == 0 and not self.is_meta:
            return format(self.item(), spec)
        return format(repr(self), spec)

    # -- autograd --------------------------------------------------------------------
    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs=None) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (weighted by ``gradient``),
        or only into the ``.grad`` of ``inputs`` when given; see ``autograd.backward``."""
        _run_backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self) -> Tensor:
        detached = Tensor._make(self._data, self._backend)
        detached._version_counter = self._shared_counter()  # same storage, as in PyTorch
        return detached

    def detach_(self) -> Tensor:
        self.grad_fn = None
        self.requires_grad = False
        return self

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if requires_grad and not (self._dtype.is_floating_point or self._dtype.is_complex):
            # (complex ones can too; the words are kept as tests and users match them)
            raise RuntimeError(f"only Tensors of floating point dtype can require gradients, "
                               f"this one is {self._dtype}")
        if not requires_grad and self.grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables; use "
                               "detach() to get a tensor that does not require grad")
        self.requires_grad = requires_grad
        return self

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; the hook may return a
        replacement gradient. Returns a handle whose ``remove()`` takes the hook off."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        node = self.grad_fn if self.grad_fn is not None else self._accumulator()
        if node._tensor_hooks is None:
            node._tensor_hooks = HookDict()
        return add_hook(node._tensor_hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after a backward pass has added this leaf's gradient into
        its ``.grad`` (not for ``autograd.grad``, which writes no ``.grad``); ``hook`` must
        return None. Returns a handle whose ``remove()`` takes the hook off."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors: register it on a leaf, or use register_hook")
        node = self._accumulator()
        if node._post_hooks is None:
            node._post_hooks = HookDict()
        return add_hook(node._post_hooks, hook)

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` after ``backward()``."""
        if self.grad_fn is None:
            if not self.requires_grad:
                raise RuntimeError("can't retain_grad on a Tensor that has requires_grad=False")
            return  # leaves keep their gradient anyway
        if self.retains_grad:
            return
        tensor = weakref.ref(self)

        def keep(grad):
            owner = tensor()
            if owner is not None:
                kept = owner._grad
                owner._grad = grad.clone() if kept is None else kept + grad

        keep.retains_grad = True  # how ``retains_grad`` recognises it
        self.register_hook(keep)

    @property
    def retains_grad(self) -> bool:
        hooks = self.grad_fn._tensor_hooks if self.grad_fn is not None else None
        return bool(hooks) and any(getattr(h, "retains_grad", False) for h in hooks.values())

    # -- moves and conversions -------------------------------------------------------
    def to(self, *args, **kwargs) -> Tensor:
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)`` or ``to(other_tensor)``;
        ``memory_format=`` lays the copy out so (``preserve_format`` by default: a copy
        keeps a non-C-ordered tensor's layout); ``copy=True`` copies even when nothing
        changes (else this tensor itself is returned then)."""
        memory_format = kwargs.pop("memory_format", None) if kwargs else None
        device, dtype, copy = _parse_to(args, kwargs)
        device = self.device if device is None else to_device(device)
        dtype = self._dtype if dtype is None else dtypes.to_dtype(dtype)
        if dtype in dtypes.CPU_ONLY:
            dtypes.refuse_on_device(dtype, device)
        from .backends.registry import get_backend

        if memory_format is not None or not c_ordered(self):
            from .memory_format_functions import copy_to

            return copy_to(self, get_backend(device), dtype, memory_format, copy)
        if device == self.device and dtype is self._dtype and not copy:
            return self
        from .ops.layout import ToCopy

        return ToCopy(target=get_backend(device), dtype=dtype)(self)

    def cpu(self) -> Tensor:
        return self.to("cpu")

    def cuda(self, device: int | str | None = None) -> Tensor:
        if device is None:
            return self.to("cuda")
        return self.to(device if isinstance(device, (str, Device)) else Device("cuda", device))

    def float(self) -> Tensor:
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        return self.to(dtypes.float64)

    def half(self) -> Tensor:
        return self.to(dtypes.float16)

    def bfloat16(self) -> Tensor:
        return self.to(dtypes.bfloat16)

    def cfloat(self) -> Tensor:
        return self.to(dtypes.complex64)

    def cdouble(self) -> Tensor:
        return self.to(dtypes.complex128)

    def chalf(self) -> Tensor:
        raise TypeError(dtypes.COMPLEX32_UNSUPPORTED)

    def long(self) -> Tensor:
        return self.to(dtypes.int64)

    def int(self) -> Tensor:
        return self.to(dtypes.int32)

    def bool(self) -> Tensor:
        return self.to(dtypes.bool_)

    def type(self, dtype=None, non_blocking: bool = False):
        """The type name (``'torch.FloatTensor'``, ``'torch.cuda.FloatTensor'``) without an
        argument, else this tensor converted to ``dtype`` (a dtype, a type name or a legacy
        constructor such as ``torch.DoubleTensor``; see ``tensor_type.py``)."""
        from . import tensor_type

        if dtype is None:
            return tensor_type.type_name(self._dtype, self.device)
        return tensor_type.convert(self, dtype)

    def clone(self, *, memory_format=None) -> Tensor:
        """A copy (``CloneBackward0``) laid out as ``memory_format``: by default
        ``preserve_format``, which keeps the strides of a dense tensor (a channels-last one
        stays channels-last) and the order of the dims of others."""
        if memory_format is None and c_ordered(self):
            return Clone()(self)  # the common case, without looking at formats
        from .memory_format_functions import clone

        return clone(self, memory_format)

    def is_contiguous(self, *, memory_format=contiguous_format) -> bool:
        """Whether the data is C-contiguous in the logical order of the dimensions, or laid
        out as ``memory_format`` (``torch.channels_last``: NHWC memory of an NCHW tensor).

        False for views such as ``t()`` or ``x[:, ::2]``, and for the convolution and
        pooling outputs, which are NCHW views of channels-last memory (as PyTorch's
        ``channels_last`` tensors are). On meta, True unless the tensor was made in another
        memory format (docs/differences.md).
        """
        if memory_format is contiguous_format:
            return self._backend.is_contiguous(self._data)
        from .memory_format_functions import is_contiguous

        return is_contiguous(self, memory_format)

    def stride(self, dim: int | None = None):
        """The step in memory, in elements, between neighbours along each dimension (a
        tuple), or along ``dim`` (an int).

        Convolution and pooling outputs are NCHW views of channels-last memory, so their
        strides are channels-last ones, ``(H*W*C, 1, W*C, C)``; meta tensors, which have no
        storage, report a C-ordered array's (docs/differences.md).

        Raises:
            IndexError for a ``dim`` out of range (any ``dim`` of a 0-d tensor); TypeError
            for a ``dim`` that is not an int.
        """
        strides = self._backend.strides(self._data)
        if dim is None:
            return strides
        if isinstance(dim, bool) or not hasattr(dim, "__index__"):
            raise TypeError(f"stride(): argument 'dim' must be int, not {type(dim).__name__}")
        if not strides:
            raise IndexError(f"stride: dimension specified as {dim} but the tensor has no "
                             "dimensions")
        return strides[normalize_dim("stride", int(dim), len(strides))]

    def contiguous(self, *, memory_format=contiguous_format) -> Tensor:
        """This tensor if ``is_contiguous(memory_format=...)``, else a copy laid out so
        (``CloneBackward0``): C-ordered by default, channels-last for ``channels_last``.

        Raises:
            RuntimeError: ``channels_last`` for a tensor that is not 4-D
                (``channels_last_3d``: 5-D), ``preserve_format`` for a tensor that is not
                contiguous (PyTorch's messages).
        """
        if memory_format is contiguous_format:
            return self if self._backend.is_contiguous(self._data) else Clone()(self)
        from .memory_format_functions import contiguous

        return contiguous(self, memory_format)

    def dim_order(self, *, ambiguity_check=False) -> tuple:
        """The dims from the outermost to the innermost in memory: ``(0, 1, 2, 3)`` for a
        C-ordered 4-D tensor, ``(0, 2, 3, 1)`` for a channels-last one.

        Raises:
            RuntimeError: ``ambiguity_check=True`` and several orders fit (a size-1 dim,
                equal strides), or a list of formats and not exactly one of them fits.
        """
        from .memory_format_functions import dim_order

        return dim_order(self, ambiguity_check=ambiguity_check)

    @property
    def layout(self):
        """``torch.strided``: every tensor here is dense (there are no sparse tensors)."""
        from .memory_formats import strided

        return strided

    def data_ptr(self) -> int:
        """The memory address of the first element (0 on meta). A view's is its base's plus
        ``storage_offset() * element_size()`` bytes."""
        return self._backend.data_ptr(self._data)

    def storage_offset(self) -> int:
        """How many elements the first element lies after the start of the memory this
        tensor views (0 for a tensor that owns its memory, and on meta)."""
        return self._backend.storage_offset(self._data)

    # -- in-place updates (no autograd) ----------------------------------------------
    def _check_inplace(self, op: str) -> None:
        if (self.requires_grad or self.grad_fn is not None) and is_grad_enabled():
            if self.grad_fn is None:
                raise RuntimeError(f"{op}: a leaf Variable that requires grad is being used in an "
                                   "in-place operation; wrap the update in "
                                   "'with torch.no_grad():'")
            raise RuntimeError(f"{op}: in-place operations on tensors that are part of an "
                               "autograd graph are not supported by minitorch_meta; use the "
                               "out-of-place form (x = x + y)")

    def _write(self, op: str, result: Tensor, positions=None, inputs=()) -> Tensor:
        """Store ``result`` into this tensor's memory (shape and dtype must fit).
        ``inputs``: the operands PyTorch checks for a partial overlap (``_store``).

        ``positions``, for the ops PyTorch lets write into an ``expand`` view with a
        deprecation warning (``masked_fill_``, ``index_fill_``, ``index_put_``), makes the
        bool tensor of the elements the op writes; it is called only for such a view, whose
        shared locations then take the written elements' values (elements that are not
        written must not overwrite a shared location with its old value).
        """
        if tuple(result._data.shape) != tuple(self._data.shape):
            from .ops.shapes import ShapeError, fmt

            raise ShapeError(op, f"the result of shape {fmt(result.shape)} cannot be written "
                                 f"in place into a tensor of shape {fmt(self.shape)}")
        # PyTorch's casting rule: never to a lower kind (complex -> real, float -> integer,
        # anything -> bool)
        wanted, got = self._dtype, result._dtype
        if got is not wanted and (wanted is dtypes.bool_ or (
                got.is_floating_point and not (wanted.is_floating_point or wanted.is_complex))
                or (got.is_complex and not wanted.is_complex)):
            names = dtypes.SCALAR_TYPE_NAMES  # PyTorch's words: "Float", "Long"
            raise RuntimeError(f"{op}: result type {names[got]} can't be cast to the desired "
                               f"output type {names[wanted]}")
        if positions is not None and self._backend.has_internal_overlap(self._data):
            warn_at_caller(_overlapping_write_deprecated(op))
            written = positions()._data
            _before_write(self)
            self._backend.setitem(self._data, written,
                                  self._backend.getitem(result._data, written))
            self._counter().value += 1
            if _op_observers and (level := _dual_level()) is not None:
                level.written(self)  # a partial write into shared locations: not followed
            return self
        self._store(Ellipsis, result._data, inputs=inputs)
        self._carry_tangent(result)
        return self

    def _carry_tangent(self, source, index=None) -> None:
        """Inside a forward-mode dual level: after ``self[index] = source`` (all of
        ``self`` for None), ``self``'s tangent follows ``source``'s (autograd/forward_ad.py).
        ``source`` None: a constant was written."""
        if _op_observers and (level := _dual_level()) is not None:
            level.carry(self, source, index)

    def _inplace(self, op: str, function, *args, inputs=None) -> Tensor:
        """``self = function(self, *args)`` written into this tensor's memory; ``inputs``
        (``args`` unless given) are the operands checked for a partial overlap. Recorded
        by autograd when the tensor or an operand requires grad (``inplace_autograd.py``)."""
        inputs = args if inputs is None else inputs
        if (self.requires_grad or inputs) and follows_graph(self, args):
            return recorded_inplace(self, op, function, args, inputs)
        self._check_inplace(op)
        return self._write(op, function(self, *args), inputs=inputs)

    def add_(self, other, alpha: Number = 1) -> Tensor:
        return self._inplace("add_", _add, _scaled_by_alpha("add_", self, other, alpha),
                             inputs=(other,))

    def sub_(self, other, alpha: Number = 1) -> Tensor:
        return self._inplace("sub_", _sub, _scaled_by_alpha("sub_", self, other, alpha),
                             inputs=(other,))

    def mul_(self, other) -> Tensor:
        return self._inplace("mul_", _mul, other)

    def div_(self, other) -> Tensor:
        return self._inplace("div_", _div, other)

    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_

    def zero_(self) -> Tensor:
        return self._fill("zero_", 0)

    def fill_(self, value: Number) -> Tensor:
        return self._fill("fill_", value)

    def _fill(self, op: str, value: Number) -> Tensor:
        self._check_inplace(op)
        value = fill_number(op, value, self._dtype)  # -1 wraps in uint8, 300 is refused
        if op == "fill_" and self._dtype in dtypes.FLOAT8:  # (zero_ writes zero bits)
            float8_shell.check_fill(op, value, self._dtype, self.numel())
        self._store(Ellipsis, value, same_value_everywhere=True)
        self._carry_tangent(None)
        return self

    def copy_(self, source: Tensor) -> Tensor:
        """Copy ``source``'s values (any device, broadcastable shape, or a number, as
        PyTorch takes it) into this tensor; recorded by autograd when this tensor or the
        source requires grad (``inplace_autograd.py``)."""
        from .ops.shapes import broadcasts_to

        if isinstance(source, Number) and not isinstance(source, Tensor):
            from .factories import tensor

            source = tensor(source)
        require_tensor("copy_", "other", source, position=1)
        if not broadcasts_to(source.shape, self.shape):
            from .ops.shapes import ShapeError, fmt

            raise ShapeError("copy_", f"source of shape {fmt(source.shape)} cannot be broadcast "
                                      f"to the destination shape {fmt(self.shape)}")
        if (self.requires_grad or source.requires_grad) and follows_graph(self, (source,)):
            return recorded_inplace(self, "copy_", assigned, (Ellipsis, source.to(self.device)),
                                    (source,))  # PyTorch's CopyBackwards
        self._check_inplace("copy_")
        if not self._backend.stores_data:
            return self
        moved = source.to(self.device, self._dtype)
        self._store(Ellipsis, moved._data, inputs=(source,))
        self._carry_tangent(moved)
        return self

    def normal_(self, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
        self._check_inplace("normal_")
        random_fills.require_real_samples("normal_", self)
        values = self._backend.normal(tuple(self.shape), mean, std, self._dtype,
                                      _rng(generator, self))
        self._store(Ellipsis, values)
        return self

    def uniform_(self, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
        self._check_inplace("uniform_")
        random_fills.require_real_samples("uniform_", self)
        values = self._backend.uniform(tuple(self.shape), a, b, self._dtype, _rng(generator, self))
        self._store(Ellipsis, values)
        return self

    # -- indexing --------------------------------------------------------------------
    def __getitem__(self, index) -> Tensor:
        if type(index) is int and not self.requires_grad and self._backend.stores_data \
                and not _op_observers:
            # ``x[k]`` in a Python loop (EE-559's batch vs loop). With no graph to record, no
            # shape-only backend and no observer, dispatch would only run the shape rule and
            # the kernel: do just that, without building a GetItem node (~3 µs of such a
            # loop's ~8 µs of Python). An index out of range takes the general path (error).
            shape = self._data.shape
            if shape and -shape[0] <= index < shape[0]:
                row = Tensor._make(self._backend.getitem(self._data, index), self._backend)
                row._version_counter = self._shared_counter()  # a view: writes to it are ours
                return row
        if type(index) is int or type(index) is slice:  # the common case: nothing to prepare
            return GetItem(index, index)(self)
        real, stand_in = _prepare_index(index, self)
        return GetItem(real, stand_in)(self)

    def __setitem__(self, index, value) -> None:
        if (self.requires_grad or isinstance(value, Tensor) and value.requires_grad) \
                and follows_graph(self, (value,)):  # recorded, as PyTorch's CopySlices
            recorded_inplace(self, "__setitem__", assigned, (index, value),
                             (value,) if isinstance(value, Tensor) else ())
            return
        self._check_inplace("__setitem__")
        if type(index) is int or type(index) is slice:  # the common case: nothing to prepare
            real = stand_in = index
            basic = True
        else:
            if self._dtype in dtypes.UNSIGNED_SHELL:
                unsigned_shell.check_setitem(self, index)
            elif self._dtype in dtypes.FLOAT8:
                float8_shell.check_setitem(self, index, value)
            real, stand_in = _prepare_index(index, self)
            basic = is_basic_index(stand_in)
        target = indexing_shape(self._data.shape, self._dtype.numpy, stand_in)
        axes = None if basic else torch_index_axes(stand_in, self._data.ndim, len(target))
        if axes is not None:  # PyTorch's selection has its dims in another order
            target = tuple(target[a] for a in axes)
        if isinstance(value, Tensor):
            if value._backend is not self._backend:
                from .errors import DeviceError

                raise DeviceError(f"__setitem__: value is on '{value.device}' but the tensor is on "
                                  f"'{self.device}'; move it with .to({str(self.device)!r})")
            if value._data.shape != target and not broadcasts_to(value._data.shape, target):
                raise ShapeError("__setitem__", f"cannot assign a value of shape "
                                                f"{fmt(value.shape)} to a selection of shape "
                                                f"{fmt(target)}")
            if value._dtype is not self._dtype and type(index) is not bool and not basic:
                _require_index_put_dtype(self, value, stand_in)
            source, value = value, value._data
            if axes is not None:  # into NumPy's order (a broadcast dim stays broadcast)
                value = self._backend.transpose(
                    self._backend.reshape(value, (1,) * (len(axes) - value.ndim) + value.shape),
                    tuple(sorted(range(len(axes)), key=axes.__getitem__)))
        else:
            source = None
        if 0 in target and not basic:  # no index value is read (getitem)
            self._counter().value += 1
            return
        self._store(real, value, inputs=() if source is None else (source,))
        if _op_observers:  # (the test ``_carry_tangent`` makes first, saving a call here)
            self._carry_tangent(source, index)


def _before_write(tensor) -> None:
    """Tell the op observers that listen (``allow_mutation_on_saved_tensors``, which clones
    what a write would change) that ``tensor``'s memory is about to be written in place."""
    for observer in tuple(_op_observers):
        before_write = getattr(observer, "before_write", None)
        if before_write is not None:
            before_write(tensor)


def _dual_level():
    """The open forward-mode dual level, unless none is open or it is computing a tangent
    (looked up only while some op observer exists; forward_ad loads on first use)."""
    from .autograd.forward_ad import current_level

    level = current_level()
    return None if level is None or level._busy else level


def _unpickle(cls, values, shape, dtype_name, device_name, requires_grad):
    """The tensor ``Tensor.__reduce_ex__`` describes (``values`` None on meta)."""
    from .backends.registry import get_backend

    backend = get_backend(Device(device_name))
    dtype = dtypes.from_name(dtype_name)
    data = backend.empty(shape, dtype) if values is None else backend.asarray(values, dtype)
    return cls._make(data, backend, requires_grad)


def _check_overlapping_write(backend, data, index) -> None:
    """PyTorch's rule for writing ``data[index]`` when ``data`` has elements that share
    memory (an ``expand`` view).

    ``x.expand(3, 4)[0] = 1`` writes four distinct elements and is allowed; ``[:, 0]``
    would write one location three times, and raises PyTorch's error. An index with
    tensors (``x[mask] = 0``, ``x[:, idx] = 1``) is PyTorch's ``index_put_``, which
    deprecates such writes with a warning but performs them.
    """
    if not is_basic_index(index):
        warn_at_caller(_overlapping_write_deprecated("index_put_"))
        return
    if not backend.has_internal_overlap(backend.getitem(data, index)):
        return
    raise RuntimeError("unsupported operation: more than one element of the written-to "
                       "tensor refers to a single memory location (it is an expand() view, "
                       "or a view of one). Please clone() the tensor before performing the "
                       "operation.")


def _refuse_partial_overlap(backend, data, index, inputs) -> None:
    """PyTorch's error for an operand (a Tensor; numbers are skipped) that partly overlaps
    the memory written by ``data[index] = ...``.

    Asked of the backend only for an operand viewing the same memory block: the usual
    write (a parameter and its gradient, ``v[k] = y`` in a loop: arrays each owning its
    memory) costs one identity comparison per operand, and no view is made. A view's
    ``.base`` is the array owning its memory (NumPy and CuPy make it so), or None for that
    owner itself; ``data[index]`` has the same owner as ``data``.
    """
    root = data.base
    if root is None:
        root = data
    for other in inputs:
        if other.__class__ is not Tensor and not isinstance(other, Tensor):
            continue  # a number
        other = other._data
        if other.base is not root and other is not root:
            continue
        # a plain selection is compared alone (``x[0] = x[1]`` is fine); an index with
        # tensors is PyTorch's ``index_put_``, which compares all of this tensor
        written = data if index is Ellipsis or not is_basic_index(index) \
            else backend.getitem(data, index)
        if backend.partially_overlaps(written, other):
            raise RuntimeError("unsupported operation: some elements of the input tensor and "
                               "the written-to tensor refer to a single memory location. "
                               "Please clone() the tensor before performing the operation.")


def _overlapping_write_deprecated(op: str) -> str:
    """PyTorch's warning for a write into an expanded tensor that it still performs."""
    example = "tensor[indices] = tensor" if op == "index_put_" else "tensor[mask] = scalar"
    return (f"Use of {op} on expanded tensors is deprecated. Please clone() the tensor before "
            "performing this operation. This also applies to advanced indexing e.g. "
            f"{example}")


def c_ordered(tensor: Tensor) -> bool:
    """Whether ``tensor``'s strides are surely C-ordered ones, so that a copy kernel's
    result keeps them (``preserve_format``): contiguous, with no size-1 or empty dim, whose
    strides may be others in a contiguous tensor (a channels-last ``(N, C, 1, 1)`` one)."""
    data = tensor._data
    shape = data.shape
    return tensor._backend.is_contiguous(data) and 1 not in shape and 0 not in shape


def is_tensor(obj) -> bool:
    """Whether ``obj`` is a ``Tensor`` (a ``Parameter`` is one too)."""
    return isinstance(obj, Tensor)


def tensors_in(values):
    """Every Tensor among ``values``, in order, also inside (nested) lists and tuples, as a
    function's arguments hold them (``cat``'s list)."""
    for value in values:
        if isinstance(value, Tensor):
            yield value
        elif isinstance(value, (tuple, list)):
            yield from tensors_in(value)


def _copy_slots(source: Tensor, target: Tensor) -> None:
    for name in Tensor.__slots__[:-1]:
        setattr(target, name, getattr(source, name))


def _rng(generator, tensor):
    """The backend generator for drawing into ``tensor`` (random.generator_for)."""
    return generator_for(generator, tensor._backend)


def _parse_to(args, kwargs):
    """``Tensor.to``'s arguments: ``(device, dtype, copy)``. After the device, dtype or
    tensor, PyTorch takes ``non_blocking`` and ``copy`` positionally too (bools)."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    flags = [kwargs.pop("non_blocking", False), kwargs.pop("copy", False)]
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    if args and isinstance(args[-1], bool):  # (..., non_blocking[, copy]) given in order
        given = [a for a in args if isinstance(a, bool)]
        args = args[:len(args) - len(given)]
        flags[:len(given)] = given
    for arg in args:
        if isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, dtypes.dtype) or arg in (float, int, bool):
            dtype = arg
        elif isinstance(arg, (str, Device, int)):
            device = arg if not isinstance(arg, int) else Device("cuda", arg)
        else:
            raise TypeError(f"to() expects a device, a dtype or a tensor, got {arg!r}")
    return device, dtype, bool(flags[1])


def _prepare_index(index, tensor):
    """Turn tensors inside an index into arrays: (index for the kernel, index for the rule)."""
    if type(index) is int or type(index) is slice:  # the common case, checked cheaply
        return index, index
    items = index if isinstance(index, tuple) else (index,)
    if isinstance(index, tuple) and sum(i is Ellipsis for i in items) > 1:
        index = items = _without_ellipses(items, tensor._data.ndim)
    if not any(isinstance(i, (Tensor, list)) for i in items):
        return index, index
    import numpy as np

    real, stand_in = [], []
    for item in items:
        if isinstance(item, list):
            item = np.asarray(item)
            if not item.size:  # ``x[[]]`` selects nothing (NumPy would read a float index)
                item = item.astype(np.int64)
            real.append(tensor._backend.asarray(item, None))
            stand_in.append(item)
        elif isinstance(item, Tensor) and not item._data.ndim and item._dtype in _INT_INDEX:
            # PyTorch reads a 0-d integer tensor as an int: ``x[t]`` is a view, as ``x[k]``
            # (on meta the value is unknown; any int gives the shape)
            value = int(item._host()) if item._backend.stores_data else 0
            real.append(value)
            stand_in.append(value)
        elif isinstance(item, Tensor):
            # (a 0-d int8/int16 tensor is an int to PyTorch; one with dims is refused)
            if item._dtype.is_floating_point or (item._data.ndim and (
                    item._dtype in (dtypes.int8, dtypes.int16)
                    or item._dtype in dtypes.UNSIGNED_SHELL)):
                raise IndexError("tensors used as indices must be long, int or bool tensors, got "
                                 f"{item._dtype}")
            if item._backend is not tensor._backend:
                item, host = _index_on_device(item, tensor), item._host()
            else:
                host = item._host() if item._backend.stores_data else None
            real.append(item._data)
            if host is not None:
                stand_in.append(host)
            elif item._dtype is dtypes.bool_:
                raise IndexError("a boolean mask on meta has no values, so the result's size is "
                                 "unknown; index meta tensors with ints, slices or int tensors")
            else:  # a meta index: its values are unknown, its shape is what matters
                stand_in.append(np.zeros(tuple(item.shape), np.int64))
        else:
            real.append(item)
            stand_in.append(item)
    if isinstance(index, tuple):
        return tuple(real), tuple(stand_in)
    return real[0], stand_in[0]


def _without_ellipses(items: tuple, ndim: int) -> tuple:
    """PyTorch's reading of an index with several Ellipses (``x[..., 0, ...]``): each stands
    for the dims no other item takes (``ndim`` minus those the items index), so a later one
    steps past the last dim, where a full slice does nothing; here every Ellipsis becomes
    that many full slices and the full slices beyond the last dim are dropped (anything
    else beyond it stays, and raises as too many indices)."""
    def indexed(item) -> int:
        if item is None or item is Ellipsis or type(item) is bool:
            return 0
        if isinstance(item, Tensor) and item._dtype is dtypes.bool_:
            return item._data.ndim
        return 1

    spread = max(ndim - sum(indexed(i) for i in items), 0)
    full = slice(None)
    expanded = []
    for item in items:
        expanded.extend([full] * spread if item is Ellipsis else [item])
    excess = sum(indexed(i) for i in expanded) - ndim
    while excess > 0 and expanded and isinstance(expanded[-1], slice) and expanded[-1] == full:
        expanded.pop()
        excess -= 1
    return tuple(expanded)


def _require_index_put_dtype(tensor: Tensor, value: Tensor, index) -> None:
    """PyTorch's ``x[indices] = value`` with index tensors is ``index_put_``, which wants
    ``value`` in ``x``'s dtype; one boolean mask with a one-element value is its
    ``masked_fill_``, which casts. A bool inside a tuple index is an index tensor to
    PyTorch too (an integer one); a bare ``x[True] = v`` is a ``copy_``."""
    items = index if isinstance(index, tuple) else (index,)
    indices = [i for i in items if type(i) is bool or (
        getattr(i, "ndim", None) is not None and (i.ndim or i.dtype.kind == "b"))]
    if not indices or (value.numel() == 1 and len(indices) == 1
                       and type(indices[0]) is not bool and indices[0].dtype.kind == "b"):
        return
    raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                       f"{tensor._dtype} for the destination and {value._dtype} for the source; "
                       f"convert the value with .to({tensor._dtype})")


# the dtypes whose 0-d tensors index as an int (a 0-d bool or uint8 tensor is a mask)
_INT_INDEX = frozenset((dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64))


def _index_on_device(index: Tensor, tensor: Tensor) -> Tensor:
    """An index tensor on ``tensor``'s device. As in PyTorch, indices may come from the CPU
    whatever the indexed tensor's device (they are copied there); from another device they
    are an error."""
    if index.device.type != "cpu":
        from .errors import DeviceError

        raise DeviceError(f"indices should be either on cpu or on the same device as the "
                          f"indexed tensor ({tensor.device}), but they are on '{index.device}'")
    return index.to(tensor.device)


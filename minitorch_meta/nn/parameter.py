"""``Parameter``: a tensor that a ``Module`` registers as learnable state; ``Buffer``: one it
registers as state that is not learned.

``UninitializedParameter`` and ``UninitializedBuffer`` are the placeholders a lazy module
holds until its first call tells it the shape (``materialize``); they then become a plain
``Parameter`` or tensor.
"""

from __future__ import annotations

from ..factories import empty
from ..tensor import Tensor, _parse_to, _unpickle


class Parameter(Tensor):
    """A tensor that is a module's parameter: assigning one to a module attribute registers it.

    It shares ``data``'s storage and requires grad by default, as ``torch.nn.Parameter``.

    Raises:
        TypeError: ``data`` is not a tensor.
        RuntimeError: ``requires_grad=True`` on a non-floating-point tensor.
    """

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor as data, got {type(data).__name__}")
        parameter = cls._make(data._data, data._backend)
        if requires_grad:
            parameter.requires_grad_(True)
        return parameter

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        # ``__new__`` built the parameter; Tensor.__init__ would build a second tensor.
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


class Buffer(Tensor):
    """A tensor that is a module's buffer: assigning one to a module attribute registers it
    (``module.x = nn.Buffer(t, persistent=False)`` is ``register_buffer("x", t, False)``).

    It shares ``data``'s storage and version counter, outside the graph (``requires_grad``
    kept), as ``torch.nn.Buffer``; ``persistent`` says whether it belongs in the module's
    ``state_dict``. Results of ops on it are plain tensors.

    Raises:
        TypeError: ``data`` is not a tensor.
    """

    __slots__ = ("persistent",)

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer expects a Tensor as data, got {type(data).__name__}")
        buffer = cls._make(data._data, data._backend, data.requires_grad)
        buffer._version_counter = data._shared_counter()  # ``detach``'s sharing, as PyTorch's
        buffer.persistent = persistent
        return buffer

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True):
        pass  # ``__new__`` built it; Tensor.__init__ would build a second tensor

    # ``persistent`` is a slot, which Tensor's copy and pickling do not know of
    def __deepcopy__(self, memo):
        copied = super().__deepcopy__(memo)
        copied.persistent = self.persistent
        return copied

    def __reduce_ex__(self, protocol):
        _, arguments = super().__reduce_ex__(protocol)
        return _unpickle_buffer, (arguments, self.persistent)


def _unpickle_buffer(arguments: tuple, persistent: bool) -> Buffer:
    """The buffer ``Buffer.__reduce_ex__`` describes."""
    buffer = _unpickle(*arguments)
    buffer.persistent = persistent
    return buffer


_SHAPE_UNKNOWN = ("Can't access the shape of an uninitialized parameter or buffer. This error "
                  "usually happens in `load_state_dict` when trying to load an uninitialized "
                  "parameter into an initialized one. Call `forward` to initialize the "
                  "parameters before accessing their attributes.")


class UninitializedTensorMixin:
    """What the placeholders of lazy modules share: a zero-element tensor that remembers the
    device and dtype to materialise on, and refuses to tell a shape it does not have yet.

    Raises:
        RuntimeError: its shape, size or number of elements is read before ``materialize``.
    """

    __slots__ = ()
    cls_to_become: type = Tensor

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the placeholder storage of ``shape`` (uninitialised) and make it its
        ``cls_to_become`` (a ``Parameter``, or a plain tensor for a buffer)."""
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        self.data = empty(tuple(shape), device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_SHAPE_UNKNOWN)

    def size(self, dim: int | None = None):
        raise RuntimeError(_SHAPE_UNKNOWN)

    def numel(self) -> int:
        raise RuntimeError(_SHAPE_UNKNOWN)

    def to(self, *args, **kwargs) -> Tensor:
        """A placeholder of the same kind on another device or dtype (no data to copy), so
        that ``Module.to`` / ``double()`` / ``to_empty`` keep a lazy module lazy."""
        device, dtype, _ = _parse_to(args, dict(kwargs))
        return type(self)(self.requires_grad,
                          device=device if device is not None else self.device,
                          dtype=dtype if dtype is not None else self.dtype)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (held by lazy modules until their first call).

    Raises:
        RuntimeError: as ``UninitializedTensorMixin``.
    """

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return super().__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        pass  # ``__new__`` built it; Parameter.__init__ takes other arguments


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (the running statistics of the lazy norm
    layers until their first call); ``materialize`` makes it a plain tensor.

    Raises:
        RuntimeError: as ``UninitializedTensorMixin``.
    """

    __slots__ = ()

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None):
        placeholder = empty(0, device=device, dtype=dtype)
        buffer = cls._make(placeholder._data, placeholder._backend)
        if requires_grad:
            buffer.requires_grad_(True)
        return buffer

    def __init__(self, requires_grad: bool = False, device=None, dtype=None):
        pass  # ``__new__`` built it; Tensor.__init__ would build a second tensor


def is_lazy(value) -> bool:
    """Whether ``value`` is a parameter or buffer still waiting for its shape."""
    return isinstance(value, UninitializedTensorMixin)


def add_weight_and_bias(module, weight_shape: tuple, bias: bool, device=None, dtype=None,
                        bias_size: int | None = None) -> None:
    """Register ``module.weight`` (uninitialised, ``weight_shape``) and ``module.bias``
    (``bias_size`` values, by default ``weight_shape[0]``, or registered as None), as
    Linear and Conv2d have them."""
    module.weight = Parameter(empty(tuple(weight_shape), device=device, dtype=dtype))
    if bias:
        size = weight_shape[0] if bias_size is None else bias_size
        module.bias = Parameter(empty(size, device=device, dtype=dtype))
    else:
        module.register_parameter("bias", None)

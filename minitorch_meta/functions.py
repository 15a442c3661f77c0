"""Module-level tensor functions (``minitorch_meta.add``, ``.mm``, ``.flatten``, ...).

Each is a thin wrapper over one op's ``Function``; the Tensor methods of the same name
call these, so a method and a function never differ.
"""

from __future__ import annotations

from numbers import Number

from . import dtypes
from .autocasting import autocast_op
from .autograd.graph_node import show_as_op
from .number_arguments import as_float
from .ops import (
    activations,
    division,
    layout,
    linalg,
    masked,
    norms,
    reduction,
    reorder,
    sorting,
    triangular,
)
from .ops import diagonal as diagonal_ops
from .ops import elementwise as ew
from .ops import gather as gathering
from .ops import split as splitting
from .ops.clamp_tensor import ClampMaxTensor, ClampMinTensor, ClampTensor
from .ops.function import common_backend
from .ops.shapes import fmt
from .tensor_arguments import require_tensor_list, require_tensor_sequence
from .variance import std, var  # noqa: F401 - functions of this module

# ``Tensor``, looked up on the first binary op: ``tensor.py`` imports this module, so it
# cannot be imported here at load time, and an import inside ``_binary`` would cost ~1 µs
# on every ``a + b``.
_tensor_type = None


def _find_tensor_type() -> type:
    global _tensor_type
    from .tensor import Tensor

    _tensor_type = Tensor
    return Tensor


def _binary(op_class, a, b):
    """``a op b`` where ``a`` or ``b`` is a Tensor and the other a Tensor or a scalar;
    NotImplemented for an operand of another type (what Python's operators need)."""
    tensor = _tensor_type or _find_tensor_type()
    if isinstance(b, tensor):
        if isinstance(a, tensor):
            return op_class()(a, b)
        if _is_scalar(a):
            return op_class(scalar=a, reflected=True)(b)
        return NotImplemented
    if _is_scalar(b):
        return op_class(scalar=b)(a)
    return NotImplemented


def _is_scalar(value) -> bool:
    # float and int first: isinstance against the Number ABC costs ~7x more.
    return type(value) in (float, int) or isinstance(value, Number) or _is_numpy_scalar(value)


def _is_numpy_scalar(value) -> bool:
    return hasattr(value, "dtype") and getattr(value, "shape", None) == ()


def call_binary(op: str, op_class, input, other, scalar_first: bool = True):
    """``op(input, other)`` through ``_binary`` as a function call: a number may stand
    for ``input`` (where PyTorch takes one: ``scalar_first``) or ``other``, and anything
    else raises ``TypeError`` (an operator returns NotImplemented instead)."""
    tensor = _tensor_type or _find_tensor_type()
    if not isinstance(input, tensor) and not (scalar_first and isinstance(other, tensor)):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    result = _binary(op_class, input, other)
    if result is NotImplemented:
        # ``input`` is a tensor, or a number with ``other`` a tensor (checked above)
        wrong, name, position = (other, "other", 2) if isinstance(input, tensor) else (
            input, "input", 1)
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor or "
                        f"Number, not {type(wrong).__name__}")
    return result


def add(input, other, alpha: Number = 1):
    """``input + alpha * other`` with broadcasting."""
    return call_binary("add", ew.Add, input, scaled_by_alpha("add", input, other, alpha))


def sub(input, other, alpha: Number = 1):
    """``input - alpha * other`` with broadcasting."""
    return call_binary("sub", ew.Sub, input, scaled_by_alpha("sub", input, other, alpha))


def scaled_by_alpha(op: str, input, scaled, alpha):
    """``alpha * scaled`` (``scaled`` itself when ``alpha`` is 1) for ``add``, ``sub`` and
    their in-place and reversed forms, whose result dtype is that of ``input`` and
    ``scaled``. An int ``alpha`` (the common case) needs no check.

    Raises:
        RuntimeError, as PyTorch, for a floating-point ``alpha`` with an integer or bool
        result (it would be truncated), a bool ``alpha`` with a non-bool result, and an int
        ``alpha`` the integer result's dtype cannot hold (256 for uint8).
    """
    if alpha.__class__ is not int:
        _check_alpha(op, input, scaled, alpha)
    if alpha == 1:
        return scaled
    if alpha.__class__ is int:
        _check_int_alpha(op, input, scaled, alpha)
    if getattr(input, "dtype", None) is dtypes.bool_ is getattr(scaled, "dtype", None):
        return scaled * bool(alpha)  # bool arithmetic, as PyTorch: alpha counts as a bool
    if getattr(scaled, "dtype", None) is dtypes.bool_:
        if op.startswith(("sub", "rsub")):
            return scaled  # left bool for the subtraction to refuse, as PyTorch does
        # bool * int would be int64 and widen the result; PyTorch keeps the dtype of
        # ``input`` and ``scaled`` (int8 + bool, alpha=2: int8)
        from .promotion import result_type

        scaled = scaled.to(result_type(input, scaled))
    return scaled * alpha


def _check_alpha(op: str, input, other, alpha) -> None:
    from numbers import Integral, Real

    from .promotion import result_type

    try:
        result = result_type(input, other)
    except TypeError:
        return  # not a tensor or a number: the op itself says so
    if isinstance(alpha, bool) or getattr(getattr(alpha, "dtype", None), "kind", "") == "b":
        if result is not dtypes.bool_:
            raise RuntimeError(f"{op}: Boolean alpha only supported for Boolean results; got "
                               f"alpha={alpha} for a {result} result, pass a number instead")
    elif isinstance(alpha, Real) and not isinstance(alpha, Integral):
        if not result.is_floating_point:
            raise RuntimeError(f"{op}: For integral input tensors, argument alpha must not be "
                               f"a floating point number; got alpha={alpha} for a {result} "
                               "result, pass an integer alpha or convert the input with "
                               ".float()")


def _check_int_alpha(op: str, input, other, alpha: int) -> None:
    """PyTorch converts an int ``alpha`` to an integer result's dtype with its overflow check
    (that of ``tensor()``: an unsigned dtype also takes negative ints down to ``-max``),
    where a scalar operand would wrap."""
    from .promotion import result_type

    try:
        result = result_type(input, other)
    except TypeError:
        return  # not a tensor or a number: the op itself says so
    if result.is_floating_point or result is dtypes.bool_:
        return
    low, high = ew._finite_range(result)
    if result.numpy.kind == "u":
        low = -high
    if not low <= alpha <= high:
        raise RuntimeError(f"{op}: value cannot be converted to type {result} without "
                           f"overflow (alpha={alpha} is outside [{low}, {high}]); pass a smaller "
                           "alpha or use a wider dtype")


def mul(input, other):
    return call_binary("mul", ew.Mul, input, other)


def div(input, other, *, rounding_mode: str | None = None):
    """True division (integers give floats), with broadcasting; ``rounding_mode='trunc'``
    or ``'floor'`` rounds the quotient (integers then stay integers)."""
    if rounding_mode is None:
        return call_binary("div", ew.Div, input, other)
    return call_binary("div", division.rounding_class(rounding_mode), input, other)


@autocast_op("pow")
def pow(input, exponent):  # noqa: A001 - PyTorch's name
    return call_binary("pow", ew.Pow, input, exponent)


def eq(input, other):
    return call_binary("eq", ew.Eq, input, other, scalar_first=False)


def ne(input, other):
    return call_binary("ne", ew.Ne, input, other, scalar_first=False)


def lt(input, other):
    return call_binary("lt", ew.Lt, input, other, scalar_first=False)


def le(input, other):
    return call_binary("le", ew.Le, input, other, scalar_first=False)


def gt(input, other):
    return call_binary("gt", ew.Gt, input, other, scalar_first=False)


def ge(input, other):
    return call_binary("ge", ew.Ge, input, other, scalar_first=False)


def neg(input):
    return ew.Neg()(input)


def abs(input):  # noqa: A001 - PyTorch's name
    return ew.Abs()(input)


@autocast_op("exp")
def exp(input):
    return ew.Exp()(input)


@autocast_op("log")
def log(input):
    return ew.Log()(input)


def sqrt(input):
    return ew.Sqrt()(input)


def relu(input):
    return ew.Relu()(input)


def where(condition, input=None, other=None):  # noqa: A002 - PyTorch's names
    """``input`` where ``condition`` holds, else ``other`` (tensors or numbers, broadcast
    together); ``where(condition)`` is ``nonzero(condition, as_tuple=True)``
    (``broadcast_functions.py``)."""
    from .broadcast_functions import where as full_where

    return full_where(condition, input, other)


def maximum(input, other):
    """The larger of ``input`` and ``other`` elementwise (tensors, broadcast; NaN propagates)."""
    return ew.Maximum()(*_tensor_operands("maximum", input, other))


def minimum(input, other):
    """The smaller of ``input`` and ``other`` elementwise (tensors, broadcast; NaN propagates)."""
    return ew.Minimum()(*_tensor_operands("minimum", input, other))


def _tensor_operands(op: str, input, other) -> tuple:
    """``(input, other)``, both Tensors: as in PyTorch, maximum/minimum take no scalar."""
    tensor = _tensor_type or _find_tensor_type()
    for name, value in (("input", input), ("other", other)):
        if not isinstance(value, tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not "
                            f"{type(value).__name__}; for a number use clamp_min/clamp_max")
    return input, other


def clamp(input, min=None, max=None):  # noqa: A002 - PyTorch's names
    """``input`` limited to ``[min, max]`` elementwise; either bound may be None. Bounds
    are numbers, or tensors that broadcast with ``input`` (``ops/clamp_tensor.py``)."""
    if _is_tensor(min) or _is_tensor(max):
        return ClampTensor()(input, *_bound_tensors(input, min, max))
    return ew.Clamp(min, max)(input)


clip = clamp


def clamp_min(input, min):  # noqa: A002 - PyTorch's name
    """``input`` raised to at least ``min`` elementwise (a number or a tensor)."""
    if _is_tensor(min):
        return ClampMinTensor()(input, min, None)
    return ew.ClampMin(min)(input)


def clamp_max(input, max):  # noqa: A002 - PyTorch's name
    """``input`` lowered to at most ``max`` elementwise (a number or a tensor)."""
    if _is_tensor(max):
        return ClampMaxTensor()(input, None, max)
    return ew.ClampMax(max)(input)


def _is_tensor(value) -> bool:
    return isinstance(value, _tensor_type or _find_tensor_type())


def _bound_tensors(input, *bounds) -> tuple:
    """The bounds as tensors (or None), a number beside a tensor bound as a 0-d tensor of
    the dtype it would give ``input`` (so it promotes as the number would)."""
    from .factories import tensor

    return tuple(bound if bound is None or _is_tensor(bound) else
                 tensor(bound, dtype=dtypes.scalar_result(input.dtype, bound),
                        device=input.device) for bound in bounds)


@autocast_op("sum")
def sum(input, dim=None, keepdim: bool = False, *, dtype=None):  # noqa: A001 - PyTorch's
    """The sum over ``dim`` (None: every dim), in ``dtype`` when given."""
    if dtype is None:
        return reduction.Sum(dim=dim, keepdim=keepdim)(input)
    return reduction.Sum(dim=dim, keepdim=keepdim, dtype=dtype)(input)


def mean(input, dim=None, keepdim: bool = False, *, dtype=None):
    """The mean over ``dim`` (None: every dim), in ``dtype`` (a floating one) when given."""
    if dtype is None:
        return reduction.Mean(dim=dim, keepdim=keepdim)(input)
    return reduction.Mean(dim=dim, keepdim=keepdim, dtype=dtype)(input)


def max(input, dim=None, keepdim: bool = False, *, other=None):  # noqa: A001
    """The largest element, or ``(values, indices)`` along ``dim``; with a tensor in place
    of ``dim`` (or ``other=``), ``maximum(input, other)``, as PyTorch's overload."""
    if _tensor_overload("max", dim, keepdim, other):
        return maximum(input, dim if other is None else other)
    if dim is None:
        return reduction.MaxAll()(input)
    from .return_types import MaxResult

    return MaxResult(*reduction.MaxDim(dim=dim, keepdim=keepdim)(input))


def argmax(input, dim=None, keepdim: bool = False):
    return reduction.Argmax(dim=dim, keepdim=keepdim)(input)


def amax(input, dim=(), keepdim: bool = False):
    """The largest values over ``dim`` (an int, a tuple of ints; empty: every dim), without
    indices; tied maxima share the gradient evenly."""
    return reduction.Amax(dim=dim, keepdim=keepdim)(input)


def amin(input, dim=(), keepdim: bool = False):
    """The smallest values over ``dim`` (see ``amax``)."""
    return reduction.Amin(dim=dim, keepdim=keepdim)(input)


@autocast_op("norm")
def norm(input, p="fro", dim=None, keepdim: bool = False, dtype=None):
    """The vector ``p``-norm of ``input``'s elements over ``dim`` (None: all of them).

    ``p='fro'`` (the default) and ``2`` are the Euclidean norm; any real ``p`` works,
    ``float('inf')`` included. As in PyTorch, this is ``linalg.vector_norm``; another
    string ``p`` (``'nuc'``), or ``'fro'`` over more than two dims, is ``linalg.matrix_norm``
    over ``dim`` (None: every dim), which raises for other than two dims.
    """
    from .matrix_functions import matrix_norm, norm_input

    if isinstance(p, str) and not (p == "fro" and (dim is None or _at_most_two(dim))):
        dims = tuple(range(input.dim())) if dim is None else dim
        return matrix_norm(input, p, dims, keepdim, dtype=dtype)
    order = norms.norm_order(p)
    input = norm_input("linalg.vector_norm", input, dtype)
    return norms.LinalgVectorNorm(ord=order, dim=dim, keepdim=keepdim)(input)


def _at_most_two(dim) -> bool:
    return isinstance(dim, int) or len(dim) <= 2


def min(input, dim=None, keepdim: bool = False, *, other=None):  # noqa: A001
    """The smallest element, or ``(values, indices)`` along ``dim``; with a tensor in place
    of ``dim`` (or ``other=``), ``minimum(input, other)``, as PyTorch's overload."""
    if _tensor_overload("min", dim, keepdim, other):
        return minimum(input, dim if other is None else other)
    if dim is None:
        return reduction.MinAll()(input)
    from .return_types import MinResult

    return MinResult(*reduction.MinDim(dim=dim, keepdim=keepdim)(input))


def _tensor_overload(op: str, dim, keepdim, other) -> bool:
    """Whether ``max``/``min`` was called as ``op(input, other)`` with a second tensor.

    Raises:
        TypeError for a second tensor together with ``keepdim`` or a ``dim``.
    """
    tensor = _tensor_type or _find_tensor_type()
    if other is None and not isinstance(dim, tensor):
        return False
    if keepdim or (other is not None and dim is not None):
        raise TypeError(f"{op}(): received an invalid combination of arguments: with a second "
                        f"tensor it is {op}(input, other), the elementwise "
                        f"{op}imum, which takes no dim or keepdim")
    return True


def _composed(output, backward_name: str, *inputs):
    """``output`` of an op built from other ops, its last node named as PyTorch's op is
    (``Function.show_as``); given the op's tensor ``inputs`` (PyTorch's, in order), the
    node also shows edges to them in place of the inner nodes, PyTorch's one node
    (``graph_node.show_as_op``). The node was made by this call, so nothing else sees it."""
    if inputs:
        show_as_op(output, backward_name, inputs)
    elif output.grad_fn is not None:
        output.grad_fn.show_as(backward_name)
    return output


def argmin(input, dim=None, keepdim: bool = False):
    return reduction.Argmin(dim=dim, keepdim=keepdim)(input)


def all(input, dim=None, keepdim: bool = False):  # noqa: A001 - PyTorch's name
    """Whether every element (along ``dim``) is nonzero."""
    return reduction.AllAny(kind="all", dim=dim, keepdim=keepdim)(input)


def any(input, dim=None, keepdim: bool = False):  # noqa: A001 - PyTorch's name
    """Whether some element (along ``dim``) is nonzero."""
    return reduction.AllAny(kind="any", dim=dim, keepdim=keepdim)(input)


def tanh(input):
    return ew.Tanh()(input)


def sigmoid(input):
    return ew.Sigmoid()(input)


@autocast_op("cat")
def cat(tensors, dim: int = 0):
    """Join ``tensors`` along the existing dimension ``dim``."""
    require_tensor_sequence("cat", tensors)
    try:
        return layout.Cat(dim=dim)(*tensors)
    except TypeError:  # checked only on failure: cat is on training paths
        require_tensor_list("cat", tensors)
        raise


concat = cat


@autocast_op("stack")
def stack(tensors, dim: int = 0):
    """Join ``tensors`` (all of one shape) along a new dimension ``dim``."""
    require_tensor_sequence("stack", tensors)
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    require_tensor_list("stack", tensors)
    dim = dim if dim >= 0 else dim + tensors[0].dim() + 1
    return _composed(cat([unsqueeze(t, dim) for t in tensors], dim), "StackBackward0",
                     *tensors)


def split(tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Views of ``tensor`` along ``dim``: pieces of ``split_size_or_sections`` elements (an
    int; the last piece may be smaller), or of the listed lengths (which must add up to the
    dim's length)."""
    return splitting.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks: int, dim: int = 0) -> tuple:
    """At most ``chunks`` views of ``input`` along ``dim``, each ``ceil(length / chunks)``
    long (the last may be shorter; there may be fewer than ``chunks``)."""
    return splitting.chunk(input, chunks, dim)


def unbind(input, dim: int = 0) -> tuple:
    """Every slice of ``input`` along ``dim`` (views without that dim)."""
    return splitting.unbind(input, dim)


def masked_fill(input, mask, value):
    """``input`` with ``value`` (a number or a 0-d tensor) where the bool ``mask`` is True;
    ``mask`` broadcasts with ``input``. The gradient of ``input`` is zero where masked."""
    number, tensor = masked.fill_value("masked_fill", value)
    if tensor is None:
        return masked.MaskedFill(fill=number)(input, mask)
    return masked.MaskedFill()(input, mask, tensor)


def sort(input, dim: int = -1, descending: bool = False, *, stable: bool | None = None):
    """``(values, indices)`` of ``input`` ordered along ``dim``. The sort is always stable
    (equal values keep their order); ``stable`` is accepted for PyTorch's signature."""
    from .return_types import SortResult

    return SortResult(*sorting.Sort(dim=dim, descending=descending, stable=stable)(input))


def topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) elements
    along ``dim``, largest first (smallest first), whatever ``sorted`` says."""
    from .return_types import TopkResult

    k = splitting.as_int("topk", "k", k)
    return TopkResult(*sorting.Topk(k=k, dim=dim, largest=largest, sorted=sorted)(input))


@autocast_op("mm")
def mm(input, mat2):
    """Matrix product ``(n, k) @ (k, m) -> (n, m)``."""
    return linalg.Mm()(input, mat2)


@autocast_op("mv")
def mv(input, vec):
    """Matrix-vector product ``(n, k) @ (k,) -> (n,)``."""
    return linalg.Mv()(input, vec)


@autocast_op("dot")
def dot(input, tensor):
    """Inner product of two 1-D tensors of one length: ``(n,) . (n,) -> ()``."""
    return linalg.Dot()(input, tensor)


@autocast_op("matmul")
def matmul(input, other):
    """``input @ other`` for 1-D, 2-D and batched operands."""
    return linalg.Matmul()(input, other)


@autocast_op("addmm")
def addmm(input, mat1, mat2, *, beta: Number = 1, alpha: Number = 1):
    """``beta * input + alpha * (mat1 @ mat2)``: the row-vector ``x @ W.T + b`` of Linear."""
    return linalg.Addmm(beta=beta, alpha=alpha)(input, mat1, mat2)


def reshape(input, shape):
    return layout.Reshape(shape=tuple(shape))(input)


def flatten(input, start_dim: int = 0, end_dim: int = -1):
    """Merge dimensions ``start_dim..end_dim`` into one."""
    return layout.Flatten(start_dim=start_dim, end_dim=end_dim)(input)


def transpose(input, dim0: int, dim1: int):
    return layout.Transpose(dim0=dim0, dim1=dim1)(input)


def t(input):
    return layout.T()(input)


def permute(input, dims):
    return layout.Permute(dims=tuple(dims))(input)


def unsqueeze(input, dim: int):
    return layout.Unsqueeze(dim=dim)(input)


def squeeze(input, dim: int | tuple | None = None):
    return layout.Squeeze(dim=dim)(input)


def clone(input, *, memory_format=None):
    """A copy of ``input`` (``CloneBackward0``) laid out as ``memory_format``
    (``preserve_format`` by default); see ``Tensor.clone``."""
    return input.clone(memory_format=memory_format)


def equal(input, other) -> bool:
    """Whether ``input`` and ``other`` have the same shape and equal elements (a Python bool).

    Elements are compared after type promotion, as in PyTorch: ``tensor([1])`` equals
    ``tensor([1.0])``, a float32 0.1 is not the float64 0.1, and NaN equals nothing.

    Raises:
        TypeError: an argument is not a Tensor.
        DeviceError: the tensors are on different devices.
        MetaDataError: the tensors are on meta, which has no values to compare (even when
            the shapes differ: PyTorch refuses meta tensors too).
    """
    tensor = _tensor_type or _find_tensor_type()
    for position, (name, value) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(value, tensor):
            raise TypeError(f"equal(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")
    if not common_backend("equal", (input, other)).stores_data:
        from .backends.meta import HOW_TO_GET_DATA
        from .errors import MetaDataError

        raise MetaDataError(f"equal: cannot compare the values of meta tensors (shapes "
                            f"{fmt(input.shape)} and {fmt(other.shape)}): {HOW_TO_GET_DATA}")
    if input._data.shape != other._data.shape:
        return False
    return bool(all(eq(input, other)).item())


def numel(input) -> int:
    return input.numel()


@autocast_op("softmax")
def softmax(input, dim: int, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (computed as ``exp(log_softmax)``); ``dtype``:
    the input is converted first, as PyTorch's."""
    from .ops import shapes
    from .ops.loss import check_softmax_dtype

    checked = input if dtype is None else input.to(dtype)
    axis = shapes.normalize_dim("softmax", dim, checked.dim())
    check_softmax_dtype("softmax", checked.dtype, axis, checked.dim())
    return _composed(exp(log_softmax(checked, dim)), "SoftmaxBackward0", checked)


@autocast_op("log_softmax")
def log_softmax(input, dim: int, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably (``dtype``: converted first)."""
    from .ops.loss import LogSoftmax

    if dtype is not None:
        input = input.to(dtype)
    return LogSoftmax(dim=dim)(input)


def flip(input, dims):
    """A copy of ``input`` with the order of elements reversed along each of ``dims`` (a
    tuple or list of ints)."""
    return reorder.Flip(dims=reorder.int_tuple("flip", "dims", dims, single=False))(input)


def roll(input, shifts, dims=None):
    """``input`` with elements moved ``shifts`` places forward along ``dims`` (ints, or
    tuples of ints of one length), wrapping around; with ``dims=None``, along the flattened
    tensor (one shift), keeping the shape."""
    shifts = reorder.int_tuple("roll", "shifts", shifts)
    dims = () if dims is None else reorder.int_tuple("roll", "dims", dims)
    return reorder.Roll(shifts=shifts, dims=dims)(input)


def repeat(input, repeats):
    """``input`` tiled ``repeats[i]`` times along dim ``i`` (a tuple or list with at least
    one int per dim; extra leading ones add dims). PyTorch has this only as
    ``Tensor.repeat``."""
    repeats = reorder.int_tuple("repeat", "repeats", repeats, single=False)
    return reorder.Repeat(repeats=repeats)(input)


def tril(input, diagonal: int = 0):
    """The lower triangle (on and below the ``diagonal``-th diagonal) of each matrix in the
    last two dims of ``input``, zeros above."""
    diagonal = splitting.as_int("tril", "diagonal", diagonal)
    return triangular.Tril(diagonal=diagonal)(input)


def triu(input, diagonal: int = 0):
    """The upper triangle (on and above the ``diagonal``-th diagonal) of each matrix in the
    last two dims of ``input``, zeros below."""
    diagonal = splitting.as_int("triu", "diagonal", diagonal)
    return triangular.Triu(diagonal=diagonal)(input)


def diag(input, diagonal: int = 0):
    """A 1-D ``input`` as the ``diagonal``-th diagonal of a square zero matrix, or a 2-D
    ``input``'s ``diagonal``-th diagonal as a vector (0: the main one, > 0 above it)."""
    diagonal = splitting.as_int("diag", "diagonal", diagonal)
    return diagonal_ops.Diag(diagonal=diagonal)(input)


@autocast_op("trace")
def trace(input):
    """The sum of the main diagonal of a 2-D ``input`` (0-d; integers sum to int64)."""
    return diagonal_ops.Trace()(input)


def index_select(input, dim: int, index):
    """The slices of ``input`` along ``dim`` at the positions of ``index`` (a vector of
    int64 or int32), in its order; repeated positions are repeated."""
    dim = splitting.as_int("index_select", "dim", dim)
    return gathering.IndexSelect(dim=dim)(input, _index_tensor("index_select", index))


def gather(input, dim: int, index, *, sparse_grad: bool = False):
    """The elements of ``input`` at ``index``'s positions along ``dim`` (and at the index's
    own positions along the other dims): ``out[i][j] = input[i][index[i][j]]`` for dim 1."""
    dim = splitting.as_int("gather", "dim", dim)
    if sparse_grad:
        raise NotImplementedError("gather(): sparse_grad=True is not supported (minitorch_meta "
                                  "has no sparse tensors); leave it False for a dense gradient")
    return gathering.Gather(dim=dim)(input, _index_tensor("gather", index))


def _index_tensor(op: str, index):
    """``index`` if it is a Tensor (PyTorch takes no list here), else a TypeError."""
    tensor = _tensor_type or _find_tensor_type()
    if not isinstance(index, tensor):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}; "
                        "make one with torch.tensor(..., dtype=torch.long)")
    return index


@autocast_op("cumsum")
def cumsum(input, dim: int, *, dtype=None):
    """The running sum of ``input`` along ``dim``; integer and bool inputs sum in int64
    unless ``dtype`` (converted to first) says otherwise."""
    from .ops.cumulative import Cumsum

    return Cumsum(dim=splitting.as_int("cumsum", "dim", dim), dtype=dtype)(input)


@autocast_op("prod")
def prod(input, dim: int | None = None, keepdim: bool = False, *, dtype=None):
    """The product of all elements of ``input`` (``dim=None``) or along ``dim``; integer and
    bool inputs multiply in int64 unless ``dtype`` says otherwise. The gradient is right at
    zeros too (the product of the other elements)."""
    from .ops.prod import Prod

    if dim is not None:
        dim = splitting.as_int("prod", "dim", dim)
    return Prod(dim=dim, keepdim=keepdim, dtype=dtype)(input)


@autocast_op("logsumexp")
def logsumexp(input, dim, keepdim: bool = False):
    """``log(sum(exp(input)))`` over ``dim`` (an int or a tuple of ints), computed without
    overflow; integer inputs give float32."""
    from .ops.logsumexp import Logsumexp

    if dim is None:  # PyTorch requires the dims: None is no tuple of ints
        raise TypeError("logsumexp(): argument 'dim' (position 2) must be tuple of ints, not "
                        "NoneType")
    return Logsumexp(dim=dim, keepdim=keepdim)(input)


@autocast_op("einsum")
def einsum(*args):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)``, ``einsum("ij,jk", [a, b])`` or the
    sublist form ``einsum(a, [0, 1], b, [1, 2])``, with PyTorch's equations (``...``
    broadcasting, implicit output without ``->``, repeated subscripts for diagonals)."""
    from .ops import einsum_equation
    from .ops.einsum import Einsum

    tensor = _tensor_type or _find_tensor_type()
    if args and isinstance(args[0], tensor):
        equation, operands = einsum_equation.from_sublists(args)
    else:
        equation, operands = (args[0], list(args[1:])) if args else (None, [])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one "
                         "operand, or at least one operand and its subscripts list")
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type(equation).__name__}")
    for k, operand in enumerate(operands):
        if not isinstance(operand, tensor):
            raise TypeError(f"einsum(): expected Tensor as element {k} in argument 1 (the "
                            f"operands), but got {type(operand).__name__}")
    return Einsum(equation=equation)(*operands)


def erf(input):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t²) dt``, elementwise (integer
    inputs give float32)."""
    return activations.Erf()(input)


def selu(input):
    """Scaled ELU with PyTorch's fixed ``alpha`` and ``scale`` (``grad_fn``: ``EluBackward0``)."""
    from .ops.activations import SELU_ALPHA, SELU_SCALE, Elu

    return Elu(SELU_ALPHA, SELU_SCALE)(input)


@autocast_op("prelu")
def prelu(input, weight):
    """``input`` where positive, else ``weight * input``, one slope per channel (dim 1)."""
    from .ops.prelu import Prelu, check_weight_is_tensor

    check_weight_is_tensor(weight)
    return Prelu()(input, weight)


@autocast_op("cosine_similarity")
def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """``<x1, x2> / (max(|x1|, eps) * max(|x2|, eps))`` along ``dim``, after broadcasting."""
    from .ops.cosine_similarity import CosineSimilarity

    return CosineSimilarity(dim=dim, eps=eps)(x1, x2)


@autocast_op("cdist")
def cdist(x1, x2, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of ``x1`` ``(*B, P, M)`` and each row of ``x2``
    ``(*B, R, M)``: ``(*B, P, R)``. ``compute_mode`` is checked and otherwise ignored: the
    distances are always computed from the differences, never as a matrix product."""
    from .ops.cdist import Cdist

    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode; expected one "
                         f"of {', '.join(_CDIST_MODES)}")
    return Cdist(p=as_float("cdist", "p", p))(x1, x2)


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist")


def pixel_shuffle(input, upscale_factor: int):
    """``(*, C * r * r, H, W)`` -> ``(*, C, H * r, W * r)`` (``nn.functional.pixel_shuffle``)."""
    from .nn.pixel_shuffle import pixel_shuffle as shuffle

    return shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor: int):
    """``(*, C, H * r, W * r)`` -> ``(*, C * r * r, H, W)`` (``nn.functional.pixel_unshuffle``)."""
    from .nn.pixel_shuffle import pixel_unshuffle as unshuffle

    return unshuffle(input, downscale_factor)


def adaptive_max_pool1d(input, output_size):
    """``(output, indices)`` of adaptive max pooling over sequences, as PyTorch's
    ``torch.adaptive_max_pool1d`` (``nn.functional.adaptive_max_pool1d_with_indices``)."""
    from .nn.adaptive_max_pooling import adaptive_max_pool1d_with_indices

    return adaptive_max_pool1d_with_indices(input, output_size)


def celu(input, alpha: float = 1.0):
    """``input`` where positive, else ``alpha * (exp(input / alpha) - 1)`` (``CeluBackward0``)."""
    return activations.Celu(alpha)(input)


def threshold(input, threshold: float, value: float):
    """``value`` where ``input <= threshold``, else ``input`` (``ThresholdBackward0``)."""
    from .ops.shrink import Threshold

    return Threshold(threshold, value)(input)


def hardshrink(input, lambd: float = 0.5):
    """``input`` where ``|input| > lambd``, else 0 (``HardshrinkBackward0``)."""
    from .ops.shrink import Hardshrink

    return Hardshrink(lambd)(input)


def rrelu(input, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, training: bool = False):
    """The randomized leaky ReLU (``nn.functional.rrelu``)."""
    from .nn.extra_activation_functions import rrelu as randomized

    return randomized(input, lower, upper, training)


@autocast_op("pdist")
def pdist(input, p: float = 2):
    """The p-norm distance between every pair of rows ``i < j`` of ``input`` ``(N, M)``, in
    the order ``(0, 1), (0, 2), ..., (1, 2), ...``: ``(N * (N - 1) / 2,)``
    (``PdistBackward0``; also ``nn.functional.pdist``)."""
    from .ops.pdist import Pdist

    return Pdist(p=as_float("pdist", "p", p))(input)


def channel_shuffle(input, groups: int):
    """Interleave the channels of ``groups`` groups (``nn.functional.channel_shuffle``)."""
    from .nn.channel_shuffle import channel_shuffle as shuffle

    return shuffle(input, groups)

"""Memory formats and layouts: ``torch.memory_format`` (``contiguous_format``,
``channels_last``, ``channels_last_3d``, ``preserve_format``), ``torch.layout``
(``strided`` and the sparse layouts, which nothing here can make) and the stride rules
behind them.

Every entry point that lays a tensor out in a format (``contiguous``, ``clone``, ``to``,
the ``*_like`` factories, ``empty``, ``Module.to``) asks ``strides_for`` for the strides:
the one place where a format becomes strides. The rules are pure functions of sizes and
strides (in elements), so they read the same on every backend.
"""

from __future__ import annotations

from .backends.base import contiguous_strides

# -- the objects ----------------------------------------------------------------------


class _Singleton:
    """A named constant of PyTorch's (``torch.channels_last``): compared by identity,
    printed as ``torch.<name>``, kept by pickle and copy, never made by the user."""

    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"cannot create 'torch.{cls.__name__}' instances")

    @classmethod
    def _make(cls, name: str):
        made = object.__new__(cls)
        made._name = name
        return made

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name  # pickled as this module's global of that name

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class memory_format(_Singleton):  # noqa: N801 (PyTorch's class name)
    """How a tensor's elements are ordered in memory (``torch.memory_format``)."""

    __slots__ = ()


class layout(_Singleton):  # noqa: N801 (PyTorch's class name)
    """How a tensor's memory is organised (``torch.layout``): only ``strided`` exists here."""

    __slots__ = ()


contiguous_format = memory_format._make("contiguous_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
preserve_format = memory_format._make("preserve_format")

strided = layout._make("strided")
# The sparse layouts exist so that code can compare ``x.layout`` with them; a factory given
# one raises (``check_layout``): minitorch_meta has no sparse tensors.
sparse_coo = layout._make("sparse_coo")
sparse_csr = layout._make("sparse_csr")
sparse_csc = layout._make("sparse_csc")
sparse_bsr = layout._make("sparse_bsr")
sparse_bsc = layout._make("sparse_bsc")

#: the order of the dimensions in memory, outermost first, of the formats with a rank
_ORDERS = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


# -- checking arguments ---------------------------------------------------------------

def check_memory_format(function: str, value, default=None) -> memory_format:
    """``value`` as a memory format (None gives ``default`` where PyTorch allows None).

    Raises:
        TypeError: ``value`` is not a ``torch.memory_format`` (PyTorch's message).
    """
    if value is None and default is not None:
        return default
    if not isinstance(value, memory_format):
        raise TypeError(f"{function}(): argument 'memory_format' must be torch.memory_format, "
                        f"not {type(value).__name__}")
    return value


def check_layout(function: str, value) -> None:
    """Accept ``layout=None`` or ``torch.strided``: the only layout minitorch_meta has.

    Raises:
        TypeError: ``value`` is not a ``torch.layout`` (PyTorch's message).
        NotImplementedError: a sparse layout (a RuntimeError, as PyTorch's errors for
            layouts a backend lacks).
    """
    if value is None or value is strided:
        return
    if not isinstance(value, layout):
        raise TypeError(f"{function}(): argument 'layout' must be torch.layout, not "
                        f"{type(value).__name__}")
    raise NotImplementedError(f"{function}(): layout={value!r} asks for a sparse tensor, but "
                              "sparse tensors are not supported by minitorch_meta; use the "
                              "default layout=torch.strided (dense tensors)")


# -- the stride rules -----------------------------------------------------------------

def strides_for(format: memory_format, shape: tuple, strides: tuple | None = None) -> tuple:
    """The strides, in elements, of a tensor of ``shape`` laid out in ``format``:
    ``strides`` (the input's) are kept for ``preserve_format`` when they are dense and
    non-overlapping, else their order of dimensions is kept (PyTorch's ``empty_like``).

    Raises:
        RuntimeError: ``channels_last`` for a tensor that is not 4-D, ``channels_last_3d``
            for one that is not 5-D (PyTorch's messages).
    """
    if format is preserve_format:
        if is_non_overlapping_and_dense(shape, strides):
            return tuple(strides)
        return dense_strides_like(shape, strides)
    if format is contiguous_format:
        return contiguous_strides(shape)
    rank, order = _ORDERS[format]
    if len(shape) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {format._name} format")
    # PyTorch multiplies the sizes as they are here (a size 0 gives strides 0 outside it),
    # unlike the contiguous strides, which step over a size 0 as over a 1.
    out, step = [0] * rank, 1
    for d in reversed(order):
        out[d] = step
        step *= shape[d]
    return tuple(out)


def copy_with_strides(backend, array, strides: tuple, dtype):
    """A copy of ``array`` whose memory steps ``strides`` (the ``empty_strided`` kernel
    filled by ``setitem``; on meta only the strides are kept)."""
    out = backend.empty_strided(tuple(array.shape), strides, dtype)
    if backend.stores_data:
        backend.setitem(out, Ellipsis, array)
    return out


def permuted_strides(shape: tuple, physical_layout: tuple) -> tuple:
    """The strides of ``empty_permuted(shape, physical_layout)``: the contiguous strides of
    the dims taken in ``physical_layout``'s order (outermost first), given back to them."""
    physical = contiguous_strides(tuple(shape[d] for d in physical_layout))
    out = [0] * len(shape)
    for d, step in zip(physical_layout, physical):
        out[d] = step
    return tuple(out)


def is_contiguous_as(format: memory_format, shape: tuple, strides: tuple) -> bool:
    """Whether ``strides`` are those of ``format`` for ``shape`` (sizes 1 ignored, as in
    PyTorch). ``preserve_format`` asks the same as ``contiguous_format``; a format of another
    rank than the tensor's is never matched."""
    if format is contiguous_format or format is preserve_format:
        order = range(len(shape))
        if 0 in shape:  # no elements: nothing out of place
            return True
    else:
        rank, order = _ORDERS[format]
        if len(shape) != rank:
            return False
    expected = 1
    for d in reversed(order):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def is_non_overlapping_and_dense(shape: tuple, strides: tuple) -> bool:
    """Whether some order of the dimensions makes ``strides`` contiguous ones: the elements
    fill a block of memory, each once."""
    if _numel(shape) < 2:
        return True
    if len(shape) == 1:
        return strides[0] == 1
    expected = 1
    for stride, size in sorted(zip(strides, shape)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def dense_strides_like(shape: tuple, strides: tuple) -> tuple:
    """Dense strides whose order of dimensions is that of ``strides`` (PyTorch's
    ``infer_dense_strides``): a sliced channels-last tensor is cloned channels-last."""
    perm = inner_to_outer(shape, strides)
    out, step = [0] * len(shape), 1
    for d in perm:
        out[d] = step
        step *= max(shape[d], 1)
    return tuple(out)


def inner_to_outer(shape: tuple, strides: tuple) -> list:
    """The dimensions ordered from the innermost (smallest stride) out, by PyTorch's
    insertion sort: a stride 0 is incomparable (its dim stays where it is), equal strides
    put the smaller size inside, and ties keep the logical order (last dim innermost)."""
    perm = list(reversed(range(len(shape))))
    for i in range(1, len(perm)):
        d1 = i
        for d0 in reversed(range(i)):
            order = _compare(shape, strides, perm[d0], perm[d1])
            if order > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif order < 0:
                break
    return perm


def _compare(shape, strides, a, b) -> int:
    """1 when dim ``a`` lies outside dim ``b``, -1 inside, 0 when the strides cannot tell."""
    if strides[a] == 0 or strides[b] == 0:
        return 0
    if strides[a] != strides[b]:
        return -1 if strides[a] < strides[b] else 1
    return 1 if shape[a] > shape[b] else 0


def dim_order(shape: tuple, strides: tuple, ambiguity_check) -> tuple:
    """The dims from the outermost to the innermost in memory (``Tensor.dim_order``).

    ``ambiguity_check``: False (any valid order), True (raise when several orders are
    valid: a size-1 dim, or two neighbouring dims with equal strides), or a list of
    memory formats (raise unless the tensor is in exactly one of them when ambiguous).

    Raises:
        TypeError: ``ambiguity_check`` is neither a bool nor a list of memory formats.
        RuntimeError: ambiguous as asked (PyTorch's messages).
    """
    if not isinstance(ambiguity_check, bool) and not (
            isinstance(ambiguity_check, list)
            and all(isinstance(f, memory_format) for f in ambiguity_check)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                        "formats.")
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    ambiguous = 1 in shape or any(a == b for a, b in zip(strides, strides[1:]))
    if (ambiguity_check is not False and ambiguous
            and sum(is_contiguous_as(f, shape, strides) for f in formats) != 1):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact "
                           "one of the given memory formats.")
    ndim = len(shape)
    if ndim < 2:
        return tuple(range(ndim))
    contiguous = is_contiguous_as(contiguous_format, shape, strides)
    last = is_contiguous_as(channels_last, shape, strides)  # (only the 4-D one, as torch)
    if contiguous != last:  # PyTorch's short cut, before any sorting
        return tuple(range(ndim)) if contiguous else (0, *range(2, ndim), 1)
    perm = inner_to_outer(shape, strides)
    if ambiguity_check and any(  # an empty list checks nothing here (as in PyTorch)
            _compare(shape, strides, a, b) != -1 for a, b in zip(perm, perm[1:])):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(perm))


def _numel(shape) -> int:
    n = 1
    for size in shape:
        n *= size
    return n

"""Layout functions PyTorch users expect beyond ``functions.py`` and ``shape_functions.py``:
diagonals (``diagonal``, ``diag_embed``, ``diagflat``), writes into views
(``diagonal_scatter``, ``select_scatter``, ``slice_scatter``), tiling (``tile``,
``repeat_interleave``), splits (``tensor_split``, ``hsplit``/``vsplit``/``dsplit``,
``split_with_sizes``), ``atleast_{1,2,3}d``, ``column_stack``/``row_stack``, turns and flips
(``rot90``, ``fliplr``, ``flipud``), ``ravel``, ``broadcast_to`` and ``Tensor.unfold``.

Each is one op (``ops/diagonal_view.py``, ``ops/view_scatter.py``, ``ops/rotation.py``,
``ops/sliding_window.py``) or PyTorch's own composition of existing ops, so that values,
views and ``grad_fn`` names are PyTorch's.
"""

from __future__ import annotations

from . import dtypes
from . import functions as F
from . import shape_functions as SF
from .errors import DataDependentShapeError
from .int_arguments import as_int
from .ops import layout, shapes
from .ops.diagonal_view import DiagEmbed, Diagonal
from .ops.layout import GetItem
from .ops.reorder import int_tuple
from .ops.rotation import Rot90
from .ops.sliding_window import SlidingWindows
from .ops.split import _first_axis, _named, check_sections, narrow_pieces
from .ops.view_scatter import DiagonalScatter, SelectScatter, SliceScatter
from .tensor_arguments import require_tensor, require_tensor_list, require_tensor_sequence


# -- diagonals --------------------------------------------------------------------------
def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """The ``offset``-th diagonal of the matrices over ``dim1`` (rows) and ``dim2``
    (columns), as a view, in a last dim after the others."""
    return Diagonal(offset=as_int("diagonal", "offset", offset),
                    dim1=as_int("diagonal", "dim1", dim1),
                    dim2=as_int("diagonal", "dim2", dim2))(input)


def diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1):
    """Zero matrices over the new dims ``dim1`` and ``dim2`` whose ``offset``-th diagonal
    holds ``input``'s last dim."""
    return DiagEmbed(offset=as_int("diag_embed", "offset", offset),
                     dim1=as_int("diag_embed", "dim1", dim1),
                     dim2=as_int("diag_embed", "dim2", dim2))(input)


def diagflat(input, offset: int = 0):
    """``input``'s elements, flattened, on the ``offset``-th diagonal of a square zero
    matrix (PyTorch's ``diag_embed`` of the flattened input)."""
    offset = as_int("diagflat", "offset", offset)
    return DiagEmbed(offset=offset)(F.reshape(input, (-1,)))


def diagonal_scatter(input, src, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """A copy of ``input`` with ``src`` written over its ``diagonal(offset, dim1, dim2)``."""
    return DiagonalScatter(offset=as_int("diagonal_scatter", "offset", offset),
                           dim1=as_int("diagonal_scatter", "dim1", dim1),
                           dim2=as_int("diagonal_scatter", "dim2", dim2))(input, src)


def select_scatter(input, src, dim: int, index: int):
    """A copy of ``input`` with ``src`` written over ``input.select(dim, index)``."""
    return SelectScatter(dim=as_int("select_scatter", "dim", dim),
                         position=as_int("select_scatter", "index", index))(input, src)


def slice_scatter(input, src, dim: int = 0, start=None, end=None, step: int = 1):
    """A copy of ``input`` with ``src`` written over ``input[start:end:step]`` along
    ``dim``."""
    start = None if start is None else as_int("slice_scatter", "start", start)
    end = None if end is None else as_int("slice_scatter", "end", end)
    return SliceScatter(dim=as_int("slice_scatter", "dim", dim), start=start, end=end,
                        step=as_int("slice_scatter", "step", step))(input, src)


def unfold(self, dimension: int, size: int, step: int):
    """``Tensor.unfold``: every window of ``size`` elements, ``step`` apart, along
    ``dimension``, as a view with the windows in a new last dim."""
    return SlidingWindows(dimension=as_int("unfold", "dimension", dimension),
                          size=as_int("unfold", "size", size),
                          step=as_int("unfold", "step", step))(self)


# -- tiling -----------------------------------------------------------------------------
def tile(input, dims):
    """``input`` tiled ``dims[i]`` times along dim ``i``; fewer dims than the input's are
    padded with leading 1s (``Tensor.repeat`` otherwise)."""
    dims = int_tuple("tile", "dims", dims)
    dims = (1,) * (input.dim() - len(dims)) + dims
    return F.repeat(input, dims)


def repeat_interleave(input, repeats=None, dim: int | None = None, *, output_size=None):
    """Each element (``dim=None``: of the flattened input) or each slice along ``dim``
    repeated ``repeats`` times: an int, or a tensor of one count per element or slice.
    ``repeat_interleave(counts)`` alone gives ``i`` repeated ``counts[i]`` times. On meta,
    tensor counts need ``output_size`` (the total), since their values are unknown."""
    if repeats is None:  # torch.repeat_interleave(repeats): the positions, repeated
        length = _length(input)
        return _repeated_positions(_arange_like(input, length), input, output_size, length)
    if dim is None:
        input, dim = F.reshape(input, (-1,)), 0
    axis = shapes.normalize_dim("repeat_interleave", as_int("repeat_interleave", "dim", dim),
                                max(input.dim(), 1))
    if not hasattr(repeats, "_data"):
        return _repeat_each(input, as_int("repeat_interleave", "repeats", repeats), axis,
                            output_size)
    length = input.shape[axis] if input.dim() else 1
    index = _repeated_positions(_arange_like(repeats, length), repeats, output_size, length)
    # counts read on the host may serve a meta input: then only the index's shape is used
    return F.index_select(input, axis, index.to(input.device))


def _length(counts) -> int:
    if counts.dim() > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return counts.numel()


def _arange_like(counts, length: int):
    from .factories import arange

    return arange(length, dtype=dtypes.int64, device=counts.device)


def _repeat_each(input, repeats: int, axis: int, output_size):
    """Every slice along ``axis`` ``repeats`` times: a new dim after it, expanded, merged."""
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = tuple(input.shape) or (1,)
    total = shape[axis] * repeats
    if output_size is not None and output_size != total:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {total} but got "
                           f"{output_size}")
    spread = shape[:axis + 1] + (repeats,) + shape[axis + 1:]
    expanded = layout.Expand(shape=spread)(F.unsqueeze(F.reshape(input, shape), axis + 1))
    return F.reshape(expanded, shape[:axis] + (total,) + shape[axis + 1:])


def _repeated_positions(positions, counts, output_size, length: int):
    """``positions[i]`` repeated ``counts[i]`` times (one count for all of them, or one
    each), as an int64 vector: a 1 marks where each position's run starts, and a running
    sum of the marks numbers the runs."""
    from .factories import empty, ones, zeros

    if counts._dtype not in (dtypes.int64, dtypes.int32):
        raise NotImplementedError(f"repeat_interleave: repeats must be an integer tensor, but "
                                  f"got {counts._dtype}; convert it with .long()")
    count = _length(counts)
    if count == 1 and length != 1:
        counts = F.reshape(counts, (1,)).expand(length)
    elif count != length:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {count} and input.size(0) = {length}")
    counts = F.reshape(counts, (-1,))
    if not counts._backend.stores_data:
        if output_size is None:
            raise DataDependentShapeError(
                "repeat_interleave: with a meta tensor of repeats the output's size is "
                "unknown (it is their sum); give output_size=, or repeat a number of times")
        return empty(as_int("repeat_interleave", "output_size", output_size),
                     dtype=dtypes.int64, device=counts.device)
    if counts.numel() and counts.min().item() < 0:
        raise RuntimeError("repeats can not be negative")
    total = counts.sum().item()
    if output_size is not None and output_size != total:
        raise RuntimeError(f"repeat_interleave: allocated size does not match required size: "
                           f"output_size={output_size} but the repeats add up to {total}")
    starts = F.cumsum(counts, 0)[:-1]  # where runs 1, 2, ... begin (equal for empty runs)
    marks = zeros(total + 1, dtype=dtypes.int64, device=counts.device).index_add(
        0, starts, ones(length - 1, dtype=dtypes.int64, device=counts.device))
    return F.index_select(positions, 0, F.cumsum(marks, 0)[:total])


# -- splits -----------------------------------------------------------------------------
def split_with_sizes(input, split_sizes, dim: int = 0) -> tuple:
    """Views of ``input`` along ``dim`` of the listed lengths (which add up to the dim's)."""
    sizes = list(shapes.int_tuple_argument("split_with_sizes", "split_sizes", 2, split_sizes))
    axis = _first_axis("split_with_sizes", input, dim)
    return narrow_pieces(input, axis, check_sections(input.shape[axis], axis, sizes),
                         "SplitWithSizesBackward0")


def tensor_split(input, indices_or_sections=None, dim: int = 0, *, sections=None,
                 indices=None, tensor_indices_or_sections=None) -> tuple:
    """Views of ``input`` along ``dim``: ``n`` pieces as equal as can be (the first
    ``length % n`` one longer), or cut before each listed index (a list, or a tensor).
    The second argument may be given by any of the names of PyTorch's overloads."""
    cuts = _sections_or_indices(_one_split_argument(
        "tensor_split", indices_or_sections=indices_or_sections, sections=sections,
        indices=indices, tensor_indices_or_sections=tensor_indices_or_sections))
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    axis = shapes.normalize_dim("tensor_split", as_int("tensor_split", "dim", dim), input.dim())
    length = input.shape[axis]
    if isinstance(cuts, int):
        if cuts <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {cuts}")
        small, extra = divmod(length, cuts)
        sizes = [small + 1] * extra + [small] * (cuts - extra)
        cuts = [sum(sizes[:i]) for i in range(1, cuts)]
    bounds = [0] + [min(max(c + length if c < 0 else c, 0), length) for c in cuts] + [length]
    lead = (slice(None),) * axis
    pieces = []
    for start, end in zip(bounds, bounds[1:]):
        index = lead + (slice(start, max(start, end)),)
        pieces.append(GetItem(index, index)(input))
    return _named(pieces, "SliceBackward0")


def _sections_or_indices(value):
    """``tensor_split``'s second argument: an int (sections) or a list of ints (indices);
    a 0-d long tensor is an int, a 1-d one a list."""
    if hasattr(value, "_data"):
        if value._dtype is not dtypes.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {value._dtype}")
        if value.dim() > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {value.dim()} dims")
        value = value.tolist()  # a meta tensor has no values, and says so
    if isinstance(value, (list, tuple)):
        return [as_int("tensor_split", "indices", v) for v in value]
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"tensor_split(): argument 'indices_or_sections' must be an int, a "
                        f"sequence of ints or a long tensor, not {type(value).__name__}")
    return value.__index__()


def _one_split_argument(op: str, **given):
    """The one of ``given`` (the names PyTorch's overloads give the split's second
    argument: ``sections``, ``indices``, ...) that was passed."""
    passed = [name for name, value in given.items() if value is not None]
    if len(passed) != 1:
        names = " or ".join(f"'{name}'" for name in given)
        raise TypeError(f"{op}() expected exactly one of the arguments {names}, got "
                        f"{len(passed)}" + (f" ({', '.join(passed)})" if passed else ""))
    return given[passed[0]]


def _split_along(op: str, input, sections, min_dims: int, axis: int) -> tuple:
    """``hsplit``/``vsplit``/``dsplit``: ``tensor_split`` along ``axis``, an int of
    sections having to divide the dim."""
    if input.dim() < min_dims:
        raise RuntimeError(f"torch.{op} requires a tensor with at least {min_dims} dimension, "
                           f"but got a tensor with {input.dim()} dimensions!")
    if not isinstance(sections, (list, tuple)) and not hasattr(sections, "_data"):
        sections = as_int(op, "sections", sections)
        length = input.shape[axis]
        if sections == 0 or length % sections:
            raise RuntimeError(f"torch.{op} attempted to split along dimension {axis}, but the "
                               f"size of the dimension {length} is not divisible by the "
                               f"split_size {sections}!")
    return tensor_split(input, sections, axis)


def hsplit(input, indices_or_sections=None, *, sections=None, indices=None) -> tuple:
    """``tensor_split`` along dim 1 (dim 0 for a vector); sections must divide it."""
    split = _one_split_argument("hsplit", indices_or_sections=indices_or_sections,
                                sections=sections, indices=indices)
    return _split_along("hsplit", input, split, 1, 0 if input.dim() == 1 else 1)


def vsplit(input, indices_or_sections=None, *, sections=None, indices=None) -> tuple:
    """``tensor_split`` along dim 0 of a tensor of at least 2 dims; sections must divide it."""
    split = _one_split_argument("vsplit", indices_or_sections=indices_or_sections,
                                sections=sections, indices=indices)
    return _split_along("vsplit", input, split, 2, 0)


def dsplit(input, indices_or_sections=None, *, sections=None, indices=None) -> tuple:
    """``tensor_split`` along dim 2 of a tensor of at least 3 dims; sections must divide it."""
    split = _one_split_argument("dsplit", indices_or_sections=indices_or_sections,
                                sections=sections, indices=indices)
    return _split_along("dsplit", input, split, 3, 2)


# -- at least n dims, stacks --------------------------------------------------------------
def _at_least_each(rank: int, tensors):
    """One tensor for one tensor given, a tuple for several or for a list/tuple of them."""
    op = f"atleast_{rank}d"
    if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)):
        require_tensor(op, "input", tensors[0], position=1)
        return SF._at_least(tensors[0], rank)
    items = tensors[0] if len(tensors) == 1 else tensors
    require_tensor_list(op, items)
    return tuple(SF._at_least(t, rank) for t in items)


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (a 0-d one becomes ``(1,)``); others unchanged."""
    return _at_least_each(1, tensors)


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims (a vector of ``n`` becomes ``(1, n)``)."""
    return _at_least_each(2, tensors)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims (``(n,)`` -> ``(1, n, 1)``, ``(m, n)`` ->
    ``(m, n, 1)``)."""
    return _at_least_each(3, tensors)


def column_stack(tensors):
    """Tensors side by side as columns: 0-d and 1-d ones become ``(n, 1)`` columns, then
    ``hstack``."""
    require_tensor_sequence("column_stack", tensors)
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    require_tensor_list("column_stack", tensors)
    return SF.hstack([F.reshape(t, (t.numel(), 1)) if t.dim() <= 1 else t for t in tensors])


row_stack = SF.vstack


# -- turns, flips, flat views, broadcasts -----------------------------------------------------
def rot90(input, k: int = 1, dims=(0, 1)):
    """``input`` turned ``k`` quarter turns in the plane of ``dims``, from the first dim
    toward the second (a copy)."""
    return Rot90(k=as_int("rot90", "k", k), dims=int_tuple("rot90", "dims", dims,
                                                           single=False))(input)


def fliplr(input):
    """``input`` reversed along dim 1 (left-right), a copy; it needs at least 2 dims."""
    if input.dim() < 2:
        raise RuntimeError(f"Input must be >= 2-d. (got a tensor of shape "
                           f"{shapes.fmt(input.shape)})")
    return F.flip(input, (1,))


def flipud(input):
    """``input`` reversed along dim 0 (up-down), a copy; it needs at least 1 dim."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d. (got a 0-d tensor)")
    return F.flip(input, (0,))


def ravel(input):
    """``input`` flattened: a view when its memory is C-ordered, else a flat copy."""
    return F.reshape(input.contiguous(), (-1,))


def broadcast_to(input, size):
    """``input`` expanded to ``size`` (a tuple of ints, or one int; ``expand``: -1 keeps
    a dim)."""
    return layout.Expand(shape=int_tuple("broadcast_to", "size", size))(input)


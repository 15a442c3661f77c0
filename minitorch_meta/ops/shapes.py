"""Shape rules: pure functions of shapes, dtypes and hyper-parameters.

Every backend runs these before any kernel, so a mistake reads the same on cpu, cuda and
meta. Each raises ``ShapeError`` naming the op, what it expected and what it got. One
formula per concept: ``conv_out_size`` serves convolution and pooling alike.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import DtypeMismatchError, ShapeError, ShapeRuntimeError
from ..int_arguments import as_int


def fmt(shape) -> str:
    """A shape as users read it: ``(2, 3, 32, 32)``."""
    return str(tuple(shape))


def conv_out_size(size: int, kernel: int, stride: int, padding: int, dilation: int = 1,
                  ceil_mode: bool = False, padding_after: int | None = None) -> int:
    """Output length of a sliding window: PyTorch's formula for conv and pooling.

    ``padding`` is added before the input and ``padding_after`` (default: the same) after.
    With ``ceil_mode`` the last, partial window counts if it starts inside the input or
    the left padding (PyTorch's pooling rule).
    """
    after = padding if padding_after is None else padding_after
    span = size + padding + after - dilation * (kernel - 1) - 1
    if ceil_mode:
        out = -(-span // stride) + 1
        if (out - 1) * stride >= size + padding:
            out -= 1
        return out
    return span // stride + 1


def broadcast(op: str, a, b) -> tuple:
    """NumPy/PyTorch broadcasting of two shapes (plain Python: it runs on every binary op)."""
    a, b = original = tuple(a), tuple(b)
    if a == b:
        return a
    if len(a) < len(b):
        a = (1,) * (len(b) - len(a)) + a
    elif len(b) < len(a):
        b = (1,) * (len(a) - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            # PyTorch raises RuntimeError here: ``except RuntimeError`` must catch it too
            raise ShapeRuntimeError(op, f"shapes {fmt(original[0])} and {fmt(original[1])} "
                                        "cannot be broadcast together: trailing dimensions "
                                        "must be equal or 1")
    return tuple(out)


def broadcasts_to(shape, target) -> bool:
    """Whether ``shape`` broadcasts to exactly ``target`` (PyTorch's ``expand`` rule)."""
    shape, target = tuple(shape), tuple(target)
    if len(shape) > len(target):
        return False
    if shape == target[len(target) - len(shape):]:  # fast path, e.g. a bias (C,) to (N, C)
        return True
    return all(s == t or s == 1 for s, t in zip(shape[::-1], target[::-1]))


def normalize_dim(op: str, dim: int, ndim: int) -> int:
    """A dimension index in ``range(ndim)``, accepting negative indices.

    Raises:
        TypeError: ``dim`` is not an integer (a bool or a float is not, as in PyTorch).
        IndexError: ``dim`` is out of range.
    """
    if dim.__class__ is not int:
        dim = _dim_index(op, dim)
    low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not low <= dim <= high:
        raise IndexError(f"{op}: Dimension out of range (expected to be in range of "
                         f"[{low}, {high}], but got {dim})")
    return dim % ndim if ndim else 0


def _dim_index(op: str, dim) -> int:
    """A ``dim`` given as another integer type (a NumPy integer, a 0-d integer tensor) as a
    Python int; a bool or a float is PyTorch's TypeError."""
    if isinstance(dim, bool) or not hasattr(dim, "__index__"):
        raise TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")
    return dim.__index__()


def int_tuple_argument(op: str, name: str, position: int, value) -> tuple:
    """``value`` (a tuple, list or Size of ints; not bools) as a tuple of ints, with
    PyTorch's TypeError for anything else (``layer_norm``'s ``normalized_shape``,
    ``pad``'s ``pad``)."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be tuple of "
                        f"ints, not {type(value).__name__}")
    for i, item in enumerate(value):
        if isinstance(item, bool) or not hasattr(item, "__index__"):
            raise TypeError(f"{op}(): argument '{name}' (position {position}) must be tuple of "
                            f"ints, but found element of type {type(item).__name__} at pos {i}")
    return tuple(item.__index__() for item in value)


def given_dims(op: str, dim) -> tuple:
    """A reduction's ``dim`` as the tuple of ints it lists (None: none), refusing non-ints."""
    dims = () if dim is None else tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"{op}(): argument 'dim' must be an int or a tuple of ints, but got "
                            f"{type(d).__name__} ({d!r})")
    return dims


def reduction_dims(op: str, dim, ndim: int, ranges_first: bool = False) -> tuple:
    """The sorted axes a reduction over ``dim`` covers, PyTorch's way: ``None`` and an empty
    tuple or list mean every dimension; an int or a tuple/list of ints, negative ones too,
    each at most once. A 0-d tensor has no axes, so it gives ``()`` (its dim may be 0 or -1).

    With several mistakes, the first reported is PyTorch's: one dim at a time (range, then
    repeat), or with ``ranges_first`` (amax, amin) every range before any repeat.

    Raises:
        IndexError for a dim out of range, RuntimeError for a dim listed twice and
        TypeError for a dim that is not an int.
    """
    dims = given_dims(op, dim)
    if not dims:
        return tuple(range(ndim))
    if ranges_first:
        for d in dims:
            normalize_dim(op, int(d), ndim)
    seen = set()
    for d in dims:
        axis = normalize_dim(op, int(d), ndim)
        if axis in seen:
            raise RuntimeError(f"{op}(): dim {axis} appears multiple times in the list of dims "
                               f"{dims}")
        seen.add(axis)
    return tuple(sorted(seen)) if ndim else ()


def reduce_shape(op: str, shape, dim, keepdim: bool) -> tuple:
    """Output shape of a reduction over ``dim`` (None: all, int or tuple of ints)."""
    if dim is None:
        return (1,) * len(shape) if keepdim else ()
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    axes = {normalize_dim(op, d, len(shape)) for d in dims}
    if keepdim:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def view_shape(op: str, shape, new_shape) -> tuple:
    """Resolve one ``-1`` in ``new_shape`` and check the element count is unchanged."""
    numel = math.prod(shape)
    # Fast path (views run on every forward): plain ints, at most one -1, a valid count.
    # Anything else, errors included, takes the general code below.
    known, inferred = 1, 0
    for s in new_shape:
        if type(s) is not int or s < -1:
            break
        if s == -1:
            inferred += 1
        else:
            known *= s
    else:
        if inferred == 0 and known == numel:
            return tuple(new_shape)
        if inferred == 1 and known and numel % known == 0:
            return tuple([numel // known if s == -1 else s for s in new_shape])
    new_shape = tuple(as_int(op, "shape", s) for s in new_shape)  # (a str: TypeError)
    unknown = [i for i, s in enumerate(new_shape) if s == -1]
    if len(unknown) > 1:
        raise ShapeError(op, f"only one dimension can be inferred (-1), got {fmt(new_shape)}")
    if any(s < -1 for s in new_shape):
        raise ShapeError(op, f"invalid shape dimension in {fmt(new_shape)}")
    known = math.prod(s for s in new_shape if s != -1)
    if unknown:
        if known == 0 or numel % known:
            raise ShapeError(op, f"shape {fmt(new_shape)} is invalid for input of size {numel} "
                                 f"(input shape {fmt(shape)})")
        new_shape = tuple(numel // known if s == -1 else s for s in new_shape)
    elif known != numel:
        raise ShapeError(op, f"shape {fmt(new_shape)} is invalid for input of size {numel} "
                             f"(input shape {fmt(shape)})")
    return new_shape


def flatten_shape(shape, start_dim: int, end_dim: int) -> tuple:
    if not shape:
        return (1,)
    start = normalize_dim("flatten", start_dim, len(shape))
    end = normalize_dim("flatten", end_dim, len(shape))
    if start > end:
        raise ShapeError("flatten", f"start_dim ({start_dim}) cannot come after end_dim "
                                    f"({end_dim}) for input shape {fmt(shape)}")
    return shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:]


def _basic_indexing_shape(shape, index):
    """``array[index]``'s shape for in-range ints and positive-step slices, else None."""
    items = index if type(index) is tuple else (index,)
    if len(items) > len(shape):
        return None
    out = []
    for size, item in zip(shape, items):
        if type(item) is int:
            if not -size <= item < size:
                return None
        elif type(item) is slice and (item.step is None or item.step > 0):
            out.append(len(range(*item.indices(size))))
        else:
            return None
    return tuple(out) + tuple(shape[len(items):])


def indexing_shape(shape, dtype, index) -> tuple:
    """Shape of ``array[index]``, found by indexing a zero-stride stand-in (no memory).

    Plain ints and slices, the common case, take a pure-Python fast path.
    """
    if type(index) is int and shape and -shape[0] <= index < shape[0]:
        return tuple(shape[1:])  # ``x[k]``, the most common index of all
    fast = _basic_indexing_shape(shape, index)
    if fast is not None:
        return fast
    if dtype.itemsize == 1:  # any 1-byte dtype indexes alike (and float8_e5m2's array
        dtype = np.uint8     # interface is one NumPy's as_strided cannot read)
    stand_in = np.lib.stride_tricks.as_strided(np.zeros((), dtype), shape=shape,
                                               strides=(0,) * len(shape))
    try:
        out = stand_in[index].shape
    except IndexError as error:
        out = _empty_selection_shape(stand_in, index)
        if out is None:
            raise IndexError(f"index {index!r} is out of range for a tensor of shape "
                             f"{fmt(shape)}: {error}") from None
    for item in index if isinstance(index, tuple) else (index,):
        if isinstance(item, slice) and item.step is not None and item.step <= 0:
            # NumPy would reverse; PyTorch refuses (its views cannot have negative strides),
            # after its IndexError for too many indices or a mask of the wrong shape.
            raise ValueError(f"step must be greater than zero, got {item.step} in {index!r}")
    return out


def _empty_selection_shape(stand_in, index):
    """The shape of a selection of no elements whose index arrays hold out-of-range values
    (PyTorch checks the values only as it reads elements, so ``zeros(3, 0)[[5]]`` is a
    ``(1, 0)`` tensor), or None when the selection has elements or fails otherwise."""
    items = index if isinstance(index, tuple) else (index,)
    safe = tuple(np.zeros(i.shape, np.int64) if isinstance(i, np.ndarray) and i.dtype.kind in "iu"
                 else i for i in items)
    try:
        out = stand_in[safe if isinstance(index, tuple) else safe[0]].shape
    except IndexError:
        return None
    return out if 0 in out else None


def _is_advanced(item) -> bool:
    """An array or a bool in an index: advanced indexing to NumPy and to PyTorch alike."""
    return isinstance(item, (bool, np.bool_, np.ndarray))


def torch_index_axes(index, ndim: int, out_ndim: int):
    """How to reorder NumPy's ``array[index]`` (``out_ndim`` dims, ``array`` of ``ndim``
    dims) into PyTorch's ``tensor[index]``, or None when both agree.

    PyTorch applies the ints of an index first (as ``select``), so an int does not split
    the advanced indices (arrays, bools) and the dims they make stay in place when the
    advanced indices are neighbours among the remaining items: ``x[0, :, [1, 2]]`` of a
    (2, 3, 4) ``x`` is (3, 2). NumPy counts the int as an advanced index too, separated from
    ``[1, 2]`` by the slice, and moves the new dims first: (2, 3).
    """
    items = index if isinstance(index, tuple) else (index,)
    kinds = ["int" if isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))
             else "adv" if _is_advanced(i) else "basic" for i in items]
    advanced = [k for k, kind in enumerate(kinds) if kind == "adv"]
    if not advanced:
        return None
    # PyTorch's items after its selects; an Ellipsis that stands for no dim vanishes too
    kept = [k for k, item in enumerate(items) if kinds[k] != "int"
            and not (item is Ellipsis and _dims_made(item, items, ndim) == 0)]
    first, last = kept.index(advanced[0]), kept.index(advanced[-1])
    if last - first + 1 != len(advanced):
        return None  # separated for PyTorch too: the new dims go first in both
    position = _dims_before(items[:advanced[0]], items, ndim)
    numpy_advanced = [k for k, kind in enumerate(kinds) if kind != "basic"]
    if position == 0 or all(kinds[k] != "basic"
                            for k in range(numpy_advanced[0], numpy_advanced[-1])):
        return None  # NumPy's advanced indices (ints included) are neighbours as well
    # the dims that slices, None and Ellipsis make, with the dims no item reaches
    rest = ndim - sum(_dims_used(i) for i in items) + sum(
        1 for i in items if isinstance(i, slice) or i is None)
    count = out_ndim - rest  # the broadcast dims of the advanced indices, first in NumPy's
    return (tuple(range(count, count + position)) + tuple(range(count))
            + tuple(range(count + position, out_ndim)))


def _dims_made(item, items, ndim: int) -> int:
    """How many result dims a basic item (slice, None, Ellipsis) of ``items`` makes."""
    if item is Ellipsis:
        return ndim - sum(_dims_used(i) for i in items)
    return 1


def _dims_used(item) -> int:
    """How many dims of the indexed array an item of an index consumes."""
    if item is None or item is Ellipsis or isinstance(item, (bool, np.bool_)):
        return 0
    if isinstance(item, np.ndarray):
        return item.ndim if item.dtype.kind == "b" else 1
    return 1


def _dims_before(before, items, ndim: int) -> int:
    return sum(_dims_made(i, items, ndim) for i in before
               if isinstance(i, slice) or i is None or i is Ellipsis)


def require_positive(op: str, **values) -> None:
    """ShapeError unless every entry of each named tuple is above zero (checked in the
    order given), e.g. ``require_positive("conv2d", stride=(1, 2), dilation=(1, 1))``."""
    for name, value in values.items():
        if min(value) <= 0:
            raise ShapeError(op, f"{name} should be greater than zero, got {value}")


def require_non_empty(op: str, shape, axes, error=ShapeRuntimeError) -> None:
    """PyTorch's error (``error``: the class its op raises it as) when a dimension among
    ``axes`` of ``shape`` is empty; the adaptive poolings let the batch dimension be."""
    for axis in axes:
        if shape[axis] == 0:
            raise error(op, f"Expected input to have non-zero size for non-batch dimensions, "
                            f"but input has sizes {fmt(shape)} with dimension {axis} being "
                            "empty")


def require_ndim(op: str, name: str, shape, allowed, meaning: str = "") -> None:
    if len(shape) not in allowed:
        wanted = " or ".join(f"{n}-D" for n in allowed)
        raise ShapeError(op, f"expected {name} to be {wanted}{meaning}, but got a "
                             f"{len(shape)}-D {name} of shape {fmt(shape)}")


def require_same_dtype(op: str, a_name: str, a, b_name: str, b) -> None:
    if a is not b:
        raise DtypeMismatchError(f"{op}: expected {a_name} and {b_name} to have the same dtype, "
                                 f"but got {a_name}.dtype={a} and {b_name}.dtype={b}; convert "
                                 f"one with .to({a}) or .to({b})")


def refuse_bool_product(kernel: str, dtype) -> None:
    """PyTorch has no bool matrix products (its BLAS kernels take numbers): raise its error,
    naming its kernel (``"addmm_impl_cpu_"``), where NumPy would compute a logical product."""
    if dtype.numpy.kind == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool': matrix products "
                                  "take numbers; convert the operands first, e.g. with .int() "
                                  "or .float()")


def mm_shape(op: str, a, b) -> tuple:
    if len(a) == 2 and len(b) == 2 and a[1] == b[0]:  # fast path: the checks below pass
        return (a[0], b[1])
    require_ndim(op, "self", a, (2,), " (a matrix)")
    require_ndim(op, "mat2", b, (2,), " (a matrix)")
    if a[1] != b[0]:
        raise ShapeError(op, f"mat1 and mat2 shapes cannot be multiplied ({a[0]}x{a[1]} and "
                             f"{b[0]}x{b[1]}): mat1's columns ({a[1]}) must equal mat2's rows "
                             f"({b[0]})")
    return (a[0], b[1])


def mv_shape(op: str, a, v) -> tuple:
    if len(a) == 2 and len(v) == 1 and a[1] == v[0]:  # fast path: the checks below pass
        return (a[0],)
    require_ndim(op, "matrix", a, (2,))
    require_ndim(op, "vector", v, (1,))
    if a[1] != v[0]:
        raise ShapeError(op, f"size mismatch: matrix {fmt(a)} has {a[1]} columns but the "
                             f"vector has {v[0]} elements")
    return (a[0],)


def matmul_shape(a, b) -> tuple:
    """``a @ b`` for 1-D and 2-D operands, and batched (N-D) operands by broadcasting."""
    if not a or not b:
        raise ShapeError("matmul", f"both arguments need at least 1 dimension, got {fmt(a)} "
                                   f"and {fmt(b)}")
    a2 = (1,) + tuple(a) if len(a) == 1 else tuple(a)
    b2 = tuple(b) + (1,) if len(b) == 1 else tuple(b)
    if a2[-1] != b2[-2]:
        raise ShapeError("matmul", f"shapes {fmt(a)} and {fmt(b)} cannot be multiplied: "
                                   f"{a2[-1]} (last dim of the first) != {b2[-2]} "
                                   "(second-to-last dim of the second)")
    batch = broadcast("matmul", a2[:-2], b2[:-2])
    out = tuple(batch) + (a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return out


def transpose_axes(op: str, ndim: int, dim0: int, dim1: int) -> tuple:
    d0, d1 = normalize_dim(op, dim0, ndim), normalize_dim(op, dim1, ndim)
    axes = list(range(ndim))
    axes[d0], axes[d1] = axes[d1], axes[d0]
    return tuple(axes)

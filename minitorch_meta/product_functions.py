"""Batched, outer and tensor products: ``bmm``, ``baddbmm``, ``addbmm``, ``addmv``,
``addr``, ``outer``/``ger``, ``inner``, ``tensordot``, ``kron``, ``cross``, ``vdot``, and
the in-place ``baddbmm_``, ``addbmm_``, ``addmv_`` and ``addr_``.

The GEMM products are single ops (``ops/batched_products.py``); ``outer``, ``inner``,
``tensordot`` and ``kron`` are PyTorch's compositions of existing ops (``tensordot``:
permute, reshape, one ``mm``, reshape), so their gradients come from those ops.
"""

from __future__ import annotations

import math
from numbers import Number

from . import functions as F
from .autocasting import autocast_op
from .caller_warnings import warn_at_caller
from .int_arguments import is_int
from .ops import batched_products as bp
from .ops import shapes
from .ops.cross import LinalgCross
from .tensor_arguments import require_tensors


@autocast_op("bmm")
def bmm(input, mat2):
    """Batched matrix product ``(B, n, k) @ (B, k, m) -> (B, n, m)``; the batch sizes must
    be equal (no broadcasting: use ``matmul`` for that)."""
    return bp.Bmm()(input, mat2)


@autocast_op("baddbmm")
def baddbmm(input, batch1, batch2, *, beta: Number = 1, alpha: Number = 1):
    """``beta * input + alpha * bmm(batch1, batch2)``; ``input`` broadcasts to the product."""
    return bp.Baddbmm(beta=beta, alpha=alpha)(input, batch1, batch2)


@autocast_op("addbmm")
def addbmm(input, batch1, batch2, *, beta: Number = 1, alpha: Number = 1):
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]``, a ``(n, m)`` matrix."""
    return bp.Addbmm(beta=beta, alpha=alpha)(input, batch1, batch2)


@autocast_op("addmv")
def addmv(input, mat, vec, *, beta: Number = 1, alpha: Number = 1):
    """``beta * input + alpha * (mat @ vec)``."""
    return bp.Addmv(beta=beta, alpha=alpha)(input, mat, vec)


@autocast_op("addr")
def addr(input, vec1, vec2, *, beta: Number = 1, alpha: Number = 1):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    return bp.Addr(beta=beta, alpha=alpha)(input, vec1, vec2)


def _in_place(op: str, function):
    """The in-place method ``op`` of the out-of-place ``function`` (not differentiated:
    refused inside a graph, as every in-place op here)."""

    def method(self, batch1, batch2, *, beta: Number = 1, alpha: Number = 1):
        return self._inplace(op, lambda x: function(x, batch1, batch2, beta=beta, alpha=alpha))

    method.__name__ = op
    method.__doc__ = f"In-place ``{function.__name__}``: the result written into this tensor."
    return method


baddbmm_ = _in_place("baddbmm_", baddbmm)
addbmm_ = _in_place("addbmm_", addbmm)
addmv_ = _in_place("addmv_", addmv)
addr_ = _in_place("addr_", addr)


def _require_vector(op: str, name: str, t) -> None:
    if t.dim() != 1:
        raise shapes.ShapeRuntimeError(op, f"Expected 1-D argument {name}, but got {t.dim()}-D "
                                           f"(shape {shapes.fmt(t.shape)})")


def outer(input, vec2):
    """The outer product of two vectors: ``out[i, j] = input[i] * vec2[j]`` (a broadcast
    multiply, so the dtypes promote as ``*``'s)."""
    _require_vector("outer", "self", input)
    _require_vector("outer", "vec2", vec2)
    return F.reshape(input, (-1, 1)) * vec2


ger = outer


@autocast_op("vdot")
def vdot(input, other):
    """The inner product of two real vectors (``dot``, named ``VdotBackward0``)."""
    return bp.Vdot()(input, other)


def inner(input, other):
    """The sum of products over the last dims: ``out[i.., j..] = sum_k input[i.., k] *
    other[j.., k]``; a 0-d operand multiplies the other."""
    require_tensors("inner", ("input", input), ("other", other))
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise shapes.ShapeRuntimeError("inner", f"the last dimension must match on both input "
                                                f"tensors but got shapes "
                                                f"{shapes.fmt(input.shape)} and "
                                                f"{shapes.fmt(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


@autocast_op("tensordot")
def tensordot(a, b, dims=2):
    """``a`` and ``b`` contracted over ``dims``: an int ``d`` (``a``'s last ``d`` dims with
    ``b``'s first ``d``) or a pair of lists ``([dims of a], [dims of b])``.

    Shape:
        ``a``'s free dims, then ``b``'s.
    """
    dims_a, dims_b = _contracted_dims(a.dim(), b.dim(), dims)
    shapes.require_same_dtype("tensordot", "a", a.dtype, "b", b.dtype)
    if len(dims_a) != len(dims_b):
        raise shapes.ShapeRuntimeError("tensordot", f"both dimension lists should have same "
                                                    f"length, but got {list(dims_a)} and "
                                                    f"{list(dims_b)}")
    axes_a = [shapes.normalize_dim("tensordot", d, a.dim()) for d in dims_a]
    axes_b = [shapes.normalize_dim("tensordot", d, b.dim()) for d in dims_b]
    for d in (axes_a, axes_b):
        if len(set(d)) != len(d):
            repeated = next(x for x in d if d.count(x) > 1)
            raise RuntimeError(f"tensordot: dim {repeated} appears multiple times in the list "
                               "of dims")
    for da, db in zip(axes_a, axes_b):
        if a.shape[da] != b.shape[db]:
            raise shapes.ShapeRuntimeError("tensordot", f"contracted dimensions need to match, "
                                                        f"but first has size {a.shape[da]} in "
                                                        f"dim {da} and second has size "
                                                        f"{b.shape[db]} in dim {db}")
    free_a = [d for d in range(a.dim()) if d not in axes_a]
    free_b = [d for d in range(b.dim()) if d not in axes_b]
    inner_size = math.prod(a.shape[d] for d in axes_a)
    out_a, out_b = tuple(a.shape[d] for d in free_a), tuple(b.shape[d] for d in free_b)
    # explicit sizes, not -1, which an empty dim would leave undetermined
    left = F.reshape(_permuted(a, free_a + axes_a), (math.prod(out_a), inner_size))
    right = F.reshape(_permuted(b, axes_b + free_b), (inner_size, math.prod(out_b)))
    return F.reshape(F.mm(left, right), out_a + out_b)


def _permuted(t, axes: list):
    """``t`` permuted to ``axes``; itself when they are in order already (no extra node)."""
    return t if axes == sorted(axes) else F.permute(t, tuple(axes))


def _contracted_dims(ndim_a: int, ndim_b: int, dims) -> tuple:
    """``tensordot``'s ``dims`` as two lists of dims (PyTorch's rules and messages)."""
    if hasattr(dims, "dim") and dims.dim() == 0:  # a 0-d integer tensor
        dims = int(dims.item())
    if is_int(dims):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(ndim_a, ndim_b):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={dims} (the inputs have {ndim_a} and {ndim_b} dims)")
        return list(range(ndim_a - dims, ndim_a)), list(range(dims))
    if isinstance(dims, (list, tuple)) and len(dims) == 2:
        first, second = dims
        return _dim_list(first), _dim_list(second)
    raise RuntimeError(f"tensordot expects dims to be int or tuple[list[int], list[int]] or "
                       f"list[list[int]] containing two lists, but got dims={dims}")


def _dim_list(dims) -> list:
    return [int(d) for d in dims] if isinstance(dims, (list, tuple)) else [int(dims)]


def kron(input, other):
    """The Kronecker product: every element of ``input`` times the whole of ``other``.

    Shape:
        both padded with leading 1s to one rank, then the sizes multiplied dim by dim:
        ``(a0, a1) x (b0, b1) -> (a0*b0, a1*b1)``.
    """
    require_tensors("kron", ("input", input), ("other", other))
    ndim = max(input.dim(), other.dim())
    sa = (1,) * (ndim - input.dim()) + tuple(input.shape)
    sb = (1,) * (ndim - other.dim()) + tuple(other.shape)
    # (a0, 1, a1, 1, ...) * (1, b0, 1, b1, ...) interleaves each pair of dims
    left = F.reshape(input, tuple(s for size in sa for s in (size, 1)))
    right = F.reshape(other, tuple(s for size in sb for s in (1, size)))
    out = F.reshape(left * right, tuple(x * y for x, y in zip(sa, sb)))
    return F._composed(out, "UnsafeViewBackward0")


@autocast_op("cross")
def cross(input, other, dim=None):
    """The cross product of 3-vectors along ``dim`` (``linalg.cross``). Without ``dim``,
    the first dim of size 3, with PyTorch's deprecation warning."""
    require_tensors("cross", ("input", input), ("other", other))
    if dim is None:
        warn_at_caller("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross."
                      "\nThe default value of dim will change to agree with that of "
                      "linalg.cross in a future release.")
        sizes = list(shapes.broadcast("cross", input.shape, other.shape)) \
            if input.dim() == other.dim() else list(input.shape)
        if 3 not in sizes:
            raise shapes.ShapeRuntimeError("cross", f"no dimension of size 3 in input (shape "
                                                    f"{shapes.fmt(input.shape)})")
        dim = sizes.index(3)
    return LinalgCross(dim=dim)(input, other)

"""``linalg.lu_factor_ex``, ``linalg.lu`` and ``lu_unpack``: ``A = P L U`` with partial
pivoting, batched and differentiable.

The factorisation is the backend's ``lu_factor`` kernel (LAPACK's ``getrf``: ``L`` and
``U`` packed in one matrix, the row swaps as 1-based ``pivots``). ``P`` is made from the
pivots by replaying the swaps on the row numbers (``permutation``).

Backward (real matrices; PyTorch's ``linalg_lu_backward``), ``A`` ``(m, n)``,
``k = min(m, n)``, ``L`` ``(m, k)``, ``U`` ``(k, n)``:

- square: ``gA = P L⁻ᵀ (tril(Lᵀ gL, -1) + triu(gU Uᵀ)) U⁻ᵀ``;
- wide (``U = [U1 | U2]``): ``X = tril(Lᵀ gL - triu(gU) Uᵀ, -1) U1⁻ᵀ``, then
  ``gA = P L⁻ᵀ [X + triu(gU1) | gU2]``;
- tall (``L = [L1; L2]``): ``X = L1⁻ᵀ triu(gU Uᵀ - Lᵀ tril(gL, -1))``, then
  ``gA = P [X + tril(gL1, -1); gL2] U⁻ᵀ``.

The gradient of the packed ``LU`` (``lu_factor``) is split into ``gL`` (below the diagonal)
and ``gU`` (on and above it); the formulas read only those parts. Triangular systems are
solved with the backend's ``solve`` on the triangle, as ``solve_triangular`` does. The
graph formulas are in ``decomposition_graph.py``.
"""

from __future__ import annotations

import math

from .. import dtypes
from ..errors import ShapeRuntimeError
from . import decomposition_graph as dg
from . import linalg_checks as checks
from .function import Function
from .matrix_arrays import (
    add,
    array_dtype,
    flat_size,
    layout,
    mT,
    pack,
    sub,
    triangle,
    unpack,
    with_unit_diagonal,
)

SINGULAR_U = ("U[{info},{info}] is zero and using it on lu_solve would result in a division "
              "by zero. If you still want to perform the factorization, consider calling "
              "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def lu_input_shape(op: str, a, lapack: bool = True) -> tuple:
    """The shape of a tensor of (batches of) matrices to factor, with PyTorch's errors
    (``lapack``: the kernel takes float32 and float64 only)."""
    shape = tuple(a._data.shape)
    if len(shape) < 2:
        raise ShapeRuntimeError(op, f"Expected tensor with 2 or more dimensions. Got size: "
                                    f"{list(shape)} instead")
    if lapack and (not a._dtype.is_floating_point or a._dtype.itemsize < 4):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for "
                                  f"'{checks.type_name(a._dtype)}'")
    return shape


# -- the pieces of a factorisation ----------------------------------------------------
def permutation(backend, pivots, m: int):
    """Row numbers ``perm`` ``(*, m)`` int64 with ``(Pᵀ A)[i] = A[perm[i]]``: the swaps
    of ``pivots`` ``(*, k)`` (1-based, LAPACK's) replayed in order."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    flat = backend.reshape(pivots, (math.prod(batch), k))
    count = flat.shape[0]
    perm = backend.copy(backend.binary("add", backend.full((count, m), 0, dtypes.int64),
                                       backend.arange(0, m, 1, dtypes.int64)))
    every = backend.arange(0, count, 1, dtypes.int64)
    for j in range(k):
        other = backend.binary("sub", backend.astype(backend.getitem(flat, (slice(None), j)),
                                                     dtypes.int64), 1)
        here = backend.copy(backend.getitem(perm, (slice(None), j)))
        backend.setitem(perm, (slice(None), j), backend.getitem(perm, (every, other)))
        backend.setitem(perm, (every, other), here)
    return backend.reshape(perm, tuple(batch) + (m,))


def permutation_matrix(backend, perm, dtype):
    """``P`` ``(*, m, m)`` of ``dtype`` (ours) with ``P[perm[i], i] = 1``."""
    m = perm.shape[-1]
    rows = backend.reshape(backend.arange(0, m, 1, dtypes.int64), (m, 1))
    column_rows = backend.reshape(perm, perm.shape[:-1] + (1, m))
    return backend.astype(backend.binary("eq", rows, column_rows), dtype)


def split_lu(backend, lu):
    """``L`` ``(*, m, k)`` (unit diagonal) and ``U`` ``(*, k, n)`` of a packed ``LU``."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = with_unit_diagonal(backend, triangle(backend, backend.getitem(
        lu, (Ellipsis, slice(None), slice(0, k))), False, -1))
    upper = triangle(backend, backend.getitem(lu, (Ellipsis, slice(0, k), slice(None))), True)
    return lower, upper


# -- backward -----------------------------------------------------------------------
def _times_inverse_transpose(backend, x, u):
    """``X U⁻ᵀ`` for an upper triangular ``U``: ``(U⁻¹ Xᵀ)ᵀ``."""
    return mT(backend, backend.solve(u, mT(backend, x))[0])


def _inverse_transpose_times(backend, lower, x):
    """``L⁻ᵀ X`` for a unit lower triangular ``L`` (square)."""
    return backend.solve(mT(backend, lower), x)[0]


def lu_backward(backend, gl, gu, p, lower, upper):
    """``gA`` of ``A = P L U`` from ``gL`` and ``gU`` (module docstring); ``p`` None when
    nothing was pivoted."""
    m, n = lower.shape[-2], upper.shape[-1]
    mm = backend.matmul
    if m == n:
        inner = add(backend, triangle(backend, mm(mT(backend, lower), gl), False, -1),
                    triangle(backend, mm(gu, mT(backend, upper)), True))
        ga = _inverse_transpose_times(backend, lower, _times_inverse_transpose(
            backend, inner, upper))
    elif m < n:
        left, right = (Ellipsis, slice(0, m)), (Ellipsis, slice(m, n))
        x = triangle(backend, sub(backend, mm(mT(backend, lower), gl),
                                  mm(triangle(backend, gu, True), mT(backend, upper))),
                     False, -1)
        x = _times_inverse_transpose(backend, x, backend.getitem(upper, left))
        wide = backend.empty(gu.shape, array_dtype(gu))
        backend.setitem(wide, left, add(backend, x, triangle(
            backend, backend.getitem(gu, left), True)))
        backend.setitem(wide, right, backend.getitem(gu, right))
        ga = _inverse_transpose_times(backend, lower, wide)
    else:
        top, bottom = (Ellipsis, slice(0, n), slice(None)), (Ellipsis, slice(n, m), slice(None))
        x = triangle(backend, sub(backend, mm(gu, mT(backend, upper)),
                                  mm(mT(backend, lower), triangle(backend, gl, False, -1))),
                     True)
        x = _inverse_transpose_times(backend, backend.getitem(lower, top), x)
        tall = backend.empty(gl.shape, array_dtype(gl))
        backend.setitem(tall, top, add(backend, x, triangle(
            backend, backend.getitem(gl, top), False, -1)))
        backend.setitem(tall, bottom, backend.getitem(gl, bottom))
        ga = _times_inverse_transpose(backend, tall, upper)
    return ga if p is None else mm(p, ga)


def packed_lu_backward(backend, g, lu, pivots, pivot: bool):
    """``gA`` from the gradient of the packed ``LU`` (``lu_factor``)."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower, upper = split_lu(backend, lu)
    gl = backend.getitem(g, (Ellipsis, slice(None), slice(0, k)))
    gu = backend.getitem(g, (Ellipsis, slice(0, k), slice(None)))
    p = permutation_matrix(backend, permutation(backend, pivots, m), array_dtype(lu)) \
        if pivot else None
    return lu_backward(backend, gl, gu, p, lower, upper)


def _graph_permutation(node, pivots, m: int):
    """``P`` of ``pivots`` as a constant tensor for a graph formula (None without them)."""
    if not node.pivot:
        return None
    backend = node.backend
    return node.constant(permutation_matrix(backend, permutation(backend, pivots, m),
                                            array_dtype(node.lu)))


# -- the ops ----------------------------------------------------------------------------
class LinalgLuFactorEx(Function):
    """The packed LU factorisation of each matrix, its pivots and ``info`` (0, or the first
    zero pivot of ``U``'s diagonal, 1-based).

    Shape:
        ``(*, m, n)`` -> ``LU`` ``(*, m, n)``, ``pivots`` int32 ``(*, min(m, n))`` and
        ``info`` int32 ``(*)``.

    Raises:
        RuntimeError for fewer than 2 dims; NotImplementedError for a dtype other than
        float32/float64 (PyTorch's); with ``check_errors``, RuntimeError for a zero pivot.
    """

    op_name, backward_name = "linalg.lu_factor_ex", "LinalgLuFactorExBackward0"
    multiple_outputs, saved_for_backward = True, ("output",)
    pivot, check_errors, error_name = True, False, "torch.linalg.lu_factor_ex"

    def infer(self, a):
        *batch, m, n = lu_input_shape("torch.lu_factor", a)
        batch = tuple(batch)
        return [((*batch, m, n), a._dtype), ((*batch, min(m, n)), dtypes.int32),
                (batch, dtypes.int32)]

    def forward(self, backend, a):
        lu, pivots, info = backend.lu_factor(a, self.pivot)
        if self.check_errors:
            checks.raise_for_info(backend, self.error_name, info, SINGULAR_U, RuntimeError)
        if self.recording:
            self.lu, self.pivots = lu, pivots
        return lu, pivots, info

    def backward(self, backend, g):
        return (packed_lu_backward(backend, g, self.lu, self.pivots, self.pivot),)

    def backward_graph(self, grad):
        m, n = self.lu.shape[-2:]
        k = min(m, n)
        lower, upper = dg.lu_factors(self, self.graph_output(self.lu))
        return (dg.lu_backward(self, grad[..., :k], grad[..., :k, :],
                               _graph_permutation(self, self.pivots, m), lower, upper),)


class LinalgLu(Function):
    """``L`` and ``U`` of ``A = P L U``, packed into one flat array, and ``P`` (empty
    ``(0,)`` with ``pivot=False``).

    Shape:
        ``(*, m, n)``, ``k = min(m, n)`` -> flat: ``L`` ``(*, m, k)`` then ``U``
        ``(*, k, n)``; and ``P`` ``(*, m, m)``.
    """

    op_name, backward_name = "linalg.lu", "LinalgLuBackward0"
    multiple_outputs, saved_for_backward = True, ("output",)
    pivot = True

    def infer(self, a):
        *batch, m, n = lu_input_shape("linalg.lu", a)
        k = min(m, n)
        self.parts = layout([(*batch, m, k), (*batch, k, n)])
        p = (*batch, m, m) if self.pivot else (0,)
        return [((flat_size(self.parts),), a._dtype), (p, a._dtype)]

    def forward(self, backend, a):
        dtype = array_dtype(a)
        lu, pivots, _ = backend.lu_factor(a, self.pivot)
        lower, upper = split_lu(backend, lu)
        if self.pivot:
            p = permutation_matrix(backend, permutation(backend, pivots, a.shape[-2]), dtype)
        else:
            p = backend.empty((0,), dtype)
        if self.recording:
            self.p, self.lower, self.upper = (p if self.pivot else None), lower, upper
        return pack(backend, (lower, upper), self.parts, dtype), p

    def backward(self, backend, g):
        gl, gu = unpack(backend, g, self.parts)
        return (lu_backward(backend, gl, gu, self.p, self.lower, self.upper),)

    def backward_graph(self, grad):
        lower, upper = dg.packed_output(self, (self.lower, self.upper))
        gl, gu = dg.unpacked(grad, self.parts)
        p = None if self.p is None else self.constant(self.p)
        return (dg.lu_backward(self, gl, gu, p, lower, upper),)


class LuUnpack(Function):
    """``L`` and ``U`` of a packed ``LU`` (flat, as ``LinalgLu``'s; empty without
    ``unpack_data``), and ``P`` from the pivots (empty without ``unpack_pivots``).

    Shape:
        ``LU`` ``(*, m, n)``, ``pivots`` int32 ``(*, min(m, n))`` -> flat ``L``
        ``(*, m, k)`` then ``U`` ``(*, k, n)``; and ``P`` ``(*, m, m)``.
    """

    op_name, backward_name = "torch.lu_unpack", "LuUnpackBackward0"
    multiple_outputs = True
    unpack_data, unpack_pivots = True, True

    def infer(self, lu, pivots):
        op = self.op_name
        *batch, m, n = lu_input_shape(op, lu, lapack=False)
        if pivots._dtype is not dtypes.int32:
            raise RuntimeError(f"{op}: LU_pivots is expected to be a contiguous tensor of "
                               "torch.int32 dtype.\nNote: this function is intended to be used "
                               "with the output produced by torch.linalg.lu_factor")
        k = min(m, n)
        if tuple(pivots._data.shape) != (*batch, k):
            raise ShapeRuntimeError(op, f"LU_pivots of shape {list(pivots._data.shape)} do "
                                        f"not fit LU of shape {[*batch, m, n]}: expected "
                                        f"{[*batch, k]}")
        self.parts = layout([(*batch, m, k), (*batch, k, n)] if self.unpack_data else [])
        p = (*batch, m, m) if self.unpack_pivots else (0,)
        return [((flat_size(self.parts),), lu._dtype), (p, lu._dtype)]

    def forward(self, backend, lu, pivots):
        dtype = array_dtype(lu)
        if self.unpack_data:
            flat = pack(backend, split_lu(backend, lu), self.parts, dtype)
        else:
            flat = backend.empty((0,), dtype)
        if self.unpack_pivots:
            p = permutation_matrix(backend, permutation(backend, pivots, lu.shape[-2]), dtype)
        else:
            p = backend.empty((0,), dtype)
        return flat, p

    def backward(self, backend, g):
        (shape, dtype), _ = self.input_specs
        m, n = shape[-2:]
        k = min(m, n)
        glu = backend.full(shape, 0, dtype)
        if self.unpack_data:
            gl, gu = unpack(backend, g, self.parts)
            backend.setitem(glu, (Ellipsis, slice(0, k)), triangle(backend, gl, False, -1))
            top = (Ellipsis, slice(0, k), slice(None))
            backend.setitem(glu, top, add(backend, backend.getitem(glu, top),
                                          triangle(backend, gu, True)))
        return glu, None

    def backward_graph(self, grad):  # linear in the gradient, with constant coefficients
        (shape, dtype), _ = self.input_specs
        if not self.unpack_data:
            return self.constant(self.backend.full(shape, 0, dtype)), None
        gl, gu = dg.unpacked(grad, self.parts)
        return dg.packed_lu_gradient(self, gl, gu, shape), None

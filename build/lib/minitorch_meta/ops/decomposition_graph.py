"""Graph formulas (``backward_graph``, see ``graph_backward.py``) of the decompositions:
``eigh``, ``svd``, ``pinv``, ``qr``, the LU family and ``matrix_exp``.

Each is its op's array ``backward`` (the formulas are in the ops' module docstrings)
written with recorded tensor ops that have graph formulas themselves, so that a gradient
can be differentiated again, to any order. The factors are the op's own output
(``graph_output``): their gradients flow back through the decomposition itself, as in
PyTorch, whose formulas are written the same way. Triangles, transposes and solves are
``linalg_graph``'s.

``safe_div`` keeps the array formulas' rule that a term whose numerator is exactly 0
counts as 0 even where its denominator is 0 (a factor that was not used, with repeated
eigen- or singular values): there the denominator is replaced by 1, a constant, so that
neither the value nor its derivatives are NaN.
"""

from __future__ import annotations

from . import linalg_graph as lg
from .matrix_arrays import array_dtype, pack, scalar, with_unit_diagonal


# -- small tensor pieces -------------------------------------------------------------
def unpacked(flat, parts) -> list:
    """The parts of a flat tensor (``matrix_arrays.pack``'s layout), as recorded views."""
    return [flat[start:end].reshape(shape) for start, end, shape in parts]


def packed_output(node, arrays):
    """The op's flat output, re-packed from the ``arrays`` forward kept, as a tensor joined
    to ``node`` (``graph_output``), split into its parts."""
    backend = node.backend
    flat = pack(backend, arrays, node.parts, array_dtype(arrays[0]))
    return unpacked(node.graph_output(flat), node.parts)


def safe_div(node, a, b):
    """``a / b``, but 0 where both are exactly 0 (module docstring)."""
    backend = node.backend
    zero = scalar(a._data, 0)
    both = backend.binary("logical_and", backend.binary("eq", a._data, zero),
                          backend.binary("eq", b._data, zero))
    return a / (b + node.constant(backend.astype(both, a.dtype)))


def skew(t):
    """``X - Xᵀ`` of each matrix."""
    return t - lg.mT(t)


def diag_embed(node, v):
    """Square matrices with ``v`` ``(..., k)`` on their diagonals."""
    return v.unsqueeze(-1) * lg.eye(node, v)


def difference_matrix(node, v):
    """``E_ij = v_j - v_i``, with ones on the diagonal (whose numerators are 0)."""
    return v.unsqueeze(-2) - v.unsqueeze(-1) + lg.eye(node, v)


def triangle(node, t, upper: bool, offset: int = 0):
    return lg.masked_triangle(node, t, upper, offset)


def solve_upper(u, b, unit: bool = False):
    """``U⁻¹ B`` for an upper triangular ``U`` (only its upper triangle read)."""
    from .linalg_solve import LinalgSolveTriangular

    return LinalgSolveTriangular(upper=True, unitriangular=unit)(u, b)


def times_inverse_transpose(x, u):
    """``X U⁻ᵀ`` for an upper triangular ``U``: ``(U⁻¹ Xᵀ)ᵀ``."""
    return lg.mT(solve_upper(u, lg.mT(x)))


def zeros(node, shape, like):
    return node.constant(node.backend.full(tuple(shape), 0, like.dtype))


def cat(tensors, dim: int):
    from .layout import Cat

    return Cat(dim=dim)(*tensors)


# -- eigh, svd, pinv -------------------------------------------------------------------
def eigh_backward(node, w, v, gw, gv):
    """``gA = V (skew(Vᵀ gV) / 2E + diag(gw)) Vᵀ`` (``linalg_spectral``)."""
    k = skew(lg.mT(v).matmul(gv)) * 0.5
    inner = safe_div(node, k, difference_matrix(node, w)) + diag_embed(node, gw)
    return v.matmul(inner).matmul(lg.mT(v))


def values_backward(left, g, right):
    """``L diag(g) R``: the gradient of eigenvalues (``R = Lᵀ``) or singular values."""
    return (left * g.unsqueeze(-2)).matmul(right)


def svd_backward(node, u, s, vh, gu, gs, gvh):
    """``gA`` of ``A = U diag(s) Vh`` from the reduced factors (``linalg_spectral``)."""
    m, n = u.shape[-2], vh.shape[-1]
    uhgu = skew(lg.mT(u).matmul(gu))
    vhgv = skew(vh.matmul(lg.mT(gvh)))
    numerator = uhgu * s.unsqueeze(-2) + s.unsqueeze(-1) * vhgv
    inner = safe_div(node, numerator, difference_matrix(node, s * s)) + diag_embed(node, gs)
    if m > n:  # (I - U Uᵀ) gU diag(1/s): the part of gU outside U's columns
        gu_sinv = safe_div(node, gu, s.unsqueeze(-2))
        ga = u.matmul(inner) + gu_sinv - u.matmul(lg.mT(u).matmul(gu_sinv))
        return ga.matmul(vh)
    if m < n:
        sinv_gvh = safe_div(node, gvh, s.unsqueeze(-1))
        ga = inner.matmul(vh) + sinv_gvh - sinv_gvh.matmul(lg.mT(vh)).matmul(vh)
        return u.matmul(ga)
    return u.matmul(inner).matmul(vh)


def pinv_backward(g, p, a):
    """PyTorch's ``pinv_backward`` (``linalg_spectral``) with tensors."""
    m, n = a.shape[-2:]
    p_t, g_t = lg.mT(p), lg.mT(g)
    if m <= n:
        k = g_t.matmul(p)
        k_p_t = k.matmul(p_t)
        return (k_p_t - lg.mT(p.matmul(k)) - a.matmul(p).matmul(k_p_t)
                + p_t.matmul(p).matmul(g_t - k.matmul(a)))
    k = p.matmul(g_t)
    p_t_k = p_t.matmul(k)
    return ((g_t - a.matmul(k)).matmul(p).matmul(p_t) - lg.mT(k.matmul(p))
            + p_t_k - p_t_k.matmul(p).matmul(a))


# -- qr ------------------------------------------------------------------------------
def qr_backward(node, q, r, gq, gr):
    """``gA`` of ``A = Q R`` (reduced; ``qr.py``): a wide ``A = [X | Y]`` through the
    square case of ``X``, with ``Y = Q V`` moving with ``Q``."""
    m, n = q.shape[-2], r.shape[-1]
    if m >= n:
        return qr_backward_tall(node, q, r, gq, gr)
    gv = gr[..., m:]
    y = q.matmul(r[..., m:])
    gx = qr_backward_tall(node, q, r[..., :m], gq + y.matmul(lg.mT(gv)), gr[..., :m])
    return cat([gx, q.matmul(gv)], -1)


def qr_backward_tall(node, q, r, gq, gr):
    """``gA = (gQ + Q copyltu(R gRᵀ - gQᵀ Q)) R⁻ᵀ`` for ``m >= n``."""
    m = r.matmul(lg.mT(gr)) - lg.mT(gq).matmul(q)
    sym = triangle(node, m, False) + lg.mT(triangle(node, m, False, -1))
    return times_inverse_transpose(gq + q.matmul(sym), r)


# -- LU ------------------------------------------------------------------------------
def lu_factors(node, lu):
    """Unit lower ``L`` ``(*, m, k)`` and upper ``U`` ``(*, k, n)`` of a packed ``LU``
    tensor: its triangles (constant masks) and a constant unit diagonal."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = triangle(node, lu[..., :k], False, -1)
    unit = with_unit_diagonal(node.backend, node.backend.full(tuple(lower.shape[-2:]), 0,
                                                              lu.dtype))
    return lower + node.constant(unit), triangle(node, lu[..., :k, :], True)


def lu_backward(node, gl, gu, p, lower, upper):
    """``gA`` of ``A = P L U`` from ``gL`` and ``gU`` (``linalg_lu``); ``p`` a constant
    tensor, or None when nothing was pivoted."""
    m, n = lower.shape[-2], upper.shape[-1]
    if m == n:
        inner = triangle(node, lg.mT(lower).matmul(gl), False, -1) + \
            triangle(node, gu.matmul(lg.mT(upper)), True)
        ga = solve_upper(lg.mT(lower), times_inverse_transpose(inner, upper), unit=True)
    elif m < n:
        x = triangle(node, lg.mT(lower).matmul(gl)
                     - triangle(node, gu, True).matmul(lg.mT(upper)), False, -1)
        x = times_inverse_transpose(x, upper[..., :m])
        wide = cat([x + triangle(node, gu[..., :m], True), gu[..., m:]], -1)
        ga = solve_upper(lg.mT(lower), wide, unit=True)
    else:
        x = triangle(node, gu.matmul(lg.mT(upper))
                     - lg.mT(lower).matmul(triangle(node, gl, False, -1)), True)
        x = solve_upper(lg.mT(lower[..., :n, :]), x, unit=True)
        tall = cat([x + triangle(node, gl[..., :n, :], False, -1), gl[..., n:, :]], -2)
        ga = times_inverse_transpose(tall, upper)
    return ga if p is None else p.matmul(ga)


def packed_lu_gradient(node, gl, gu, shape):
    """The gradient of a packed ``LU`` ``shape`` from those of ``L`` (below its diagonal)
    and ``U`` (on and above it): ``lu_unpack``'s, linear in them."""
    m, n = shape[-2:]
    lower, upper = triangle(node, gl, False, -1), triangle(node, gu, True)
    if m >= n:  # L is (m, n), U (n, n): U's rows are the top ones
        return lower + cat([upper, zeros(node, (*shape[:-2], m - n, n), gl)], -2)
    return cat([lower, zeros(node, (*shape[:-2], m, n - m), gl)], -1) + upper


# -- matrix_exp ------------------------------------------------------------------------
def matrix_exp_backward(node, a, g):
    """The top-right block of ``exp([[Aᵀ, G], [0, Aᵀ]])`` (``linalg_matrix_exp``): itself a
    ``matrix_exp``, so the formula closes under differentiation."""
    from .linalg_matrix_exp import LinalgMatrixExp

    n = g.shape[-1]
    a_t = lg.mT(a)
    block = cat([cat([a_t, g], -1), cat([zeros(node, g.shape, g), a_t], -1)], -2)
    return LinalgMatrixExp()(block)[..., :n, n:]

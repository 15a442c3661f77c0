"""``linalg.eigh``/``eigvalsh``, ``linalg.svd``/``svdvals`` and ``linalg.pinv``.

The decompositions return their factors packed into one flat array
(``matrix_arrays.pack``); with ``values_only`` (``eigvalsh``, ``svdvals``) the values are
the output itself. Backward is PyTorch's (``linalg_eig_backward``, ``svd_backward``,
``pinv_backward``), for real matrices:

- eigh ``A = V diag(w) Vᵀ``: ``K = skew(Vᵀ gV) / 2``, ``gA = V (K / E + diag(gw)) Vᵀ``
  with ``E_ij = w_j - w_i``;
- SVD ``A = U diag(s) Vᵀ`` (``k = min(m, n)`` columns): ``J = (skew(Uᵀ gU) s_j +
  s_i skew(Vᵀ gV)) / E + diag(gs)``, ``E_ij = s_j² - s_i²``, then
  ``gA = U J Vᵀ`` plus, for a tall ``A``, ``(I - U Uᵀ) gU diag(1/s) Vᵀ`` (a wide one:
  the transposed term from ``gV``);

with ``skew(X) = X - Xᵀ``. Only gauge-invariant losses have a defined gradient (the signs
of eigen- and singular vectors are arbitrary), as in PyTorch. A term whose numerator is
exactly 0 counts as 0 even where its denominator is 0 (repeated values): PyTorch skips the
terms of factors that were not used, and an unused factor's gradient arrives here as zeros.

The graph formulas (``backward_graph``, gradients of gradients) are in
``decomposition_graph.py``; ``eigvalsh`` and ``svdvals`` keep no vectors in their output,
so theirs decompose the input again.
"""

from __future__ import annotations

from .. import dtypes
from ..errors import ShapeRuntimeError
from . import decomposition_graph as dg
from . import linalg_checks as checks
from . import linalg_graph as lg
from . import shapes
from .function import Function
from .matrix_arrays import (
    add,
    array_dtype,
    diag_embed,
    flat_size,
    identity,
    layout,
    mT,
    mul,
    pack,
    scalar,
    scale_columns,
    scale_rows,
    sub,
    unpack,
)


def safe_div(backend, a, b):
    """``a / b``, but 0 where ``a`` is exactly 0 (module docstring)."""
    zero = scalar(a, 0)
    return backend.where(backend.binary("eq", a, zero), zero, backend.binary("div", a, b))


def _skew(backend, x):
    return sub(backend, x, mT(backend, x))


def _difference_matrix(backend, v):
    """``E_ij = v_j - v_i``, with ones on the diagonal (which is replaced anyway)."""
    e = sub(backend, backend.reshape(v, v.shape[:-1] + (1, v.shape[-1])),
            backend.reshape(v, v.shape + (1,)))
    return add(backend, e, identity(backend, v.shape[-1], v.dtype))


class LinalgEigh(Function):
    """Eigenvalues (ascending) and eigenvectors of each symmetric matrix, read from its
    lower (``UPLO='L'``) or upper triangle.

    Shape:
        ``(*, n, n)`` -> flat: values ``(*, n)`` then vectors ``(*, n, n)``; with
        ``values_only``, the values ``(*, n)``.
    """

    op_name, backward_name = "linalg.eigh", "LinalgEighBackward0"
    UPLO, values_only = "L", False

    @property
    def saved_for_backward(self):
        # eigvalsh's graph formula decomposes its input again (its vectors are no output)
        return (0, "output") if self.values_only else ("output",)

    def infer(self, a):
        if self.UPLO not in ("L", "U"):
            raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {self.UPLO}")
        shape = checks.square_shape(self.op_name, a, any_dtype=True)
        checks.check_kernel_dtype("linalg_eigh_cpu", a)
        values = shape[:-1]
        if self.values_only:
            return values, a._dtype
        self.parts = layout([values, shape])
        return (flat_size(self.parts),), a._dtype

    def forward(self, backend, a):
        if a.size == 0 and array_dtype(a) not in (dtypes.float32, dtypes.float64):
            # an empty matrix of another dtype never reaches PyTorch's kernel (nor LAPACK's)
            return backend.full(a.shape[:-1] if self.values_only else (0,), 0, array_dtype(a))
        w, v = backend.eigh(a, self.UPLO == "U")
        if self.recording:
            self.w, self.v = w, v
            if self.values_only:
                self.a = a
        return w if self.values_only else pack(backend, (w, v), self.parts, array_dtype(a))

    def backward(self, backend, g):
        w, v = self.w, self.v
        if self.values_only:
            return (backend.matmul(scale_columns(backend, v, g), mT(backend, v)),)
        gw, gv = unpack(backend, g, self.parts)
        k = mul(backend, _skew(backend, backend.matmul(mT(backend, v), gv)), scalar(w, 0.5))
        inner = add(backend, safe_div(backend, k, _difference_matrix(backend, w)),
                    diag_embed(backend, gw))
        return (backend.matmul(backend.matmul(v, inner), mT(backend, v)),)

    def backward_graph(self, grad):
        if self.values_only:
            # the vectors of the input decomposed again: recorded, so they have a gradient
            op = LinalgEigh(UPLO=self.UPLO)
            _, v = dg.unpacked(op(self.graph_input(0, self.a)), op.parts)
            return (dg.values_backward(v, grad, lg.mT(v)),)
        w, v = dg.packed_output(self, (self.w, self.v))
        gw, gv = dg.unpacked(grad, self.parts)
        return (dg.eigh_backward(self, w, v, gw, gv),)


class LinalgSvd(Function):
    """``U``, ``S`` (descending) and ``Vh`` of each matrix, ``A = U diag(S) Vh``.

    Shape:
        ``(*, m, n)``, ``k = min(m, n)`` -> flat: ``U`` ``(*, m, k)``, ``S`` ``(*, k)``,
        ``Vh`` ``(*, k, n)`` (``full_matrices``: ``(*, m, m)`` and ``(*, n, n)``); with
        ``values_only``, ``S``.
    """

    op_name, backward_name = "linalg.svd", "LinalgSvdBackward0"
    full_matrices, values_only = True, False

    @property
    def saved_for_backward(self):
        # svdvals' graph formula decomposes its input again (its vectors are no output)
        return (0, "output") if self.values_only else ("output",)

    def infer(self, a):
        *batch, m, n = checks.matrix_shape(self.op_name, a)
        k = min(m, n)
        if self.values_only:
            # PyTorch's svdvals under autograd is its full SVD's ``S``: output 1 of the node
            self._output_nr = 1
            return (*batch, k), a._dtype
        full = self.full_matrices
        self.parts = layout([(*batch, m, m if full else k), (*batch, k),
                             (*batch, n if full else k, n)])
        return (flat_size(self.parts),), a._dtype

    def forward(self, backend, a):
        full = self.full_matrices and not self.values_only
        u, s, vh = backend.svd(a, full, not self.values_only or self.recording)
        if self.values_only:
            if self.recording:
                self.a, self.u, self.s, self.vh = a, u, s, vh
            return s
        flat = pack(backend, (u, s, vh), self.parts, array_dtype(a))
        if self.recording:
            # Backward needs only the first k singular vectors (PyTorch narrows them too);
            # views of the output, which the graph formula joins to this node.
            self.flat = flat
            self.u, self.s, self.vh = _narrowed(backend, unpack(backend, flat, self.parts))
        return flat

    def backward(self, backend, g):
        u, s, vh = self.u, self.s, self.vh
        if self.values_only:
            return (backend.matmul(scale_columns(backend, u, g), vh),)
        gu, gs, gvh = unpack(backend, g, self.parts)
        k = s.shape[-1]
        gu = backend.getitem(gu, (Ellipsis, slice(0, k)))
        gvh = backend.getitem(gvh, (Ellipsis, slice(0, k), slice(None)))
        return (svd_backward(backend, u, s, vh, gu, gs, gvh),)

    def backward_graph(self, grad):
        if self.values_only:
            # the vectors of the input decomposed again: recorded, so they have a gradient
            op = LinalgSvd(full_matrices=False)
            u, _, vh = dg.unpacked(op(self.graph_input(0, self.a)), op.parts)
            return (dg.values_backward(u, grad, vh),)
        u, s, vh = _narrowed(None, dg.unpacked(self.graph_output(self.flat), self.parts))
        gu, gs, gvh = _narrowed(None, dg.unpacked(grad, self.parts))
        return (dg.svd_backward(self, u, s, vh, gu, gs, gvh),)


def _narrowed(backend, factors):
    """``(U, S, Vh)`` with only the first ``k = len(S)`` singular vectors: backend arrays,
    or tensors when ``backend`` is None."""
    u, s, vh = factors
    k = s.shape[-1]
    first, rows = (Ellipsis, slice(0, k)), (Ellipsis, slice(0, k), slice(None))
    if backend is None:
        return u[first], s, vh[rows]
    return backend.getitem(u, first), s, backend.getitem(vh, rows)


def svd_backward(backend, u, s, vh, gu, gs, gvh):
    """``gA`` of ``A = U diag(s) Vh`` from the reduced factors' gradients (module
    docstring)."""
    m, n = u.shape[-2], vh.shape[-1]
    v, gv = mT(backend, vh), mT(backend, gvh)
    uhgu = _skew(backend, backend.matmul(mT(backend, u), gu))
    vhgv = _skew(backend, backend.matmul(vh, gv))
    s2 = mul(backend, s, s)
    numerator = add(backend, scale_columns(backend, uhgu, s), scale_rows(backend, vhgv, s))
    inner = add(backend, safe_div(backend, numerator, _difference_matrix(backend, s2)),
                diag_embed(backend, gs))
    if m > n:
        # (I - U Uᵀ) gU diag(1/s): the part of gU outside U's columns.
        gu_sinv = safe_div(backend, gu, backend.reshape(s, s.shape[:-1] + (1, s.shape[-1])))
        ga = add(backend, backend.matmul(u, inner), sub(
            backend, gu_sinv, backend.matmul(u, backend.matmul(mT(backend, u), gu_sinv))))
        return backend.matmul(ga, vh)
    if m < n:
        sinv_gvh = safe_div(backend, gvh, backend.reshape(s, s.shape + (1,)))
        ga = add(backend, backend.matmul(inner, vh), sub(
            backend, sinv_gvh, backend.matmul(backend.matmul(sinv_gvh, v), vh)))
        return backend.matmul(u, ga)
    return backend.matmul(u, backend.matmul(inner, vh))


class LinalgPinv(Function):
    """The Moore-Penrose pseudo-inverse of each matrix, from its SVD (its eigenvalues with
    ``hermitian``): singular values above ``max(atol, rtol * largest)`` are inverted, the
    others dropped. The tolerances are numbers (hyper-parameters) or two float64 tensors
    (inputs without gradient) that broadcast to ``A``'s batch, one tolerance per matrix
    (``linalg.pinv`` expands ``A`` to the batch of all three first).

    Shape:
        ``(*, m, n)`` -> ``(*, n, m)``; tensor tolerances ``(*)`` or broadcasting to it.
    """

    op_name, backward_name = "linalg.pinv", "LinalgPinvBackward0"
    saved_for_backward = (0, "output")
    atol, rtol, hermitian = None, None, False

    def infer(self, a, atol=None, rtol=None):
        shape = tuple(a._data.shape)
        if len(shape) < 2 or not a._dtype.is_floating_point or a._dtype.itemsize < 4:
            raise RuntimeError(f"linalg.pinv({checks.type_name(a._dtype)}{{{list(shape)}}}): "
                               "expected a tensor with 2 or more dimensions of float, double, "
                               "cfloat or cdouble types")
        if self.hermitian:  # (the error is that of the eigendecomposition, as PyTorch's)
            checks.square_shape("linalg.eigh", a)
        for tolerance in (atol, rtol):
            if tolerance is not None and not shapes.broadcasts_to(tolerance.shape, shape[:-2]):
                raise ShapeRuntimeError(self.op_name, f"a tolerance of shape "
                                        f"{shapes.fmt(tolerance.shape)} does not broadcast to "
                                        f"the batch {shapes.fmt(shape[:-2])} of the input")
        return shape[:-2] + (shape[-1], shape[-2]), a._dtype

    def tolerance(self, backend, largest, m: int, n: int, atol=None, rtol=None):
        """``max(atol, rtol * largest)`` (see ``tolerances``), in float64 for tensor
        tolerances (as PyTorch's, whose number tolerances are float64 tensors too)."""
        if atol is None:
            atol, rtol = tolerances(self.atol, self.rtol, largest.dtype.itemsize, m, n)
            return backend.binary("maximum", mul(backend, largest, scalar(largest, rtol)),
                                  scalar(largest, atol))
        column = (lambda t: backend.reshape(t, t.shape + (1,)))
        return backend.binary("maximum", column(atol), mul(
            backend, column(rtol), backend.astype(largest, array_dtype(atol))))

    def forward(self, backend, a, atol=None, rtol=None):
        m, n = a.shape[-2:]
        if self.hermitian:
            w, v = backend.eigh(a, False)
            magnitude = backend.unary("abs", w)
            left, right = v, mT(backend, v)
        else:
            u, magnitude, vh = backend.svd(a, False, True)
            w, left, right = magnitude, u, vh
        if magnitude.shape[-1] == 0:
            out = backend.full(a.shape[:-2] + (n, m), 0, array_dtype(a))
        else:
            largest = backend.max(magnitude, -1, True)
            keep = backend.binary("gt", magnitude,
                                  self.tolerance(backend, largest, m, n, atol, rtol))
            inverse = backend.where(keep, backend.binary("div", scalar(w, 1), w), scalar(w, 0))
            out = backend.matmul(scale_columns(backend, mT(backend, right), inverse),
                                 mT(backend, left))
        if self.recording:
            self.a, self.pinv = a, out
        return out

    def backward(self, backend, g):
        return (pinv_backward(backend, g, self.pinv, self.a), None, None)[:len(self.input_specs)]

    def backward_graph(self, grad):
        ga = dg.pinv_backward(grad, self.graph_output(self.pinv), self.graph_input(0, self.a))
        return (ga, None, None)[:len(self.input_specs)]


def tolerances(atol, rtol, itemsize: int, m: int, n: int) -> tuple:
    """``(atol, rtol)`` as floats with PyTorch's defaults (``pinv``, ``matrix_rank``):
    ``atol`` 0, ``rtol`` ``eps * max(m, n)`` unless a positive ``atol`` is given (then 0)."""
    atol = 0.0 if atol is None else float(atol)
    if rtol is None:
        eps = 2.0 ** -23 if itemsize == 4 else 2.0 ** -52
        rtol = 0.0 if atol > 0 else eps * max(m, n)
    return atol, float(rtol)


def pinv_backward(backend, g, p, a):
    """PyTorch's ``pinv_backward``: the gradient of ``P = pinv(A)`` where the rank is
    constant near ``A``."""
    m, n = a.shape[-2:]
    mm = backend.matmul
    p_t, g_t = mT(backend, p), mT(backend, g)
    if m <= n:
        k = mm(g_t, p)
        k_p_t = mm(k, p_t)
        return add(backend, sub(backend, sub(backend, k_p_t, mT(backend, mm(p, k))),
                                mm(mm(a, p), k_p_t)),
                   mm(mm(p_t, p), sub(backend, g_t, mm(k, a))))
    k = mm(p, g_t)
    p_t_k = mm(p_t, k)
    return add(backend, sub(backend, mm(mm(sub(backend, g_t, mm(a, k)), p), p_t),
                            mT(backend, mm(k, p))),
               sub(backend, p_t_k, mm(mm(p_t_k, p), a)))

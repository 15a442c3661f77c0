"""``linalg.eig`` and ``linalg.eigvals``: the eigendecomposition of general square matrices.

``A = V diag(L) V⁻¹`` with complex ``L`` and ``V`` (complex64 for float32 or complex64
input, complex128 for float64 or complex128), each eigenvector of unit norm and, as LAPACK
gives it, with its largest component real. Like ``eigh``, ``eig`` packs both results into
one flat array (``matrix_arrays.pack``); ``eigvals`` returns the values themselves and
keeps the vectors only for backward.

Backward is PyTorch's ``linalg_eig_backward`` (with ``Vᴴ = conj(V)ᵀ``):

- ``X = Vᴴ gV``; the loss may not depend on the phase of the eigenvectors (each column of
  ``V`` is defined up to a factor ``e^{iφ}``), which holds when ``Im(diag(X))`` is 0: else
  it raises PyTorch's ``RuntimeError`` (within PyTorch's tolerance, 1e-2);
- ``X ← X - Vᴴ V diag(Re(diag(X)))`` (the unit norm of each column projected out);
- ``G = X / E`` with ``E_ij = conj(L_j) - conj(L_i)``, its diagonal replaced by ``gL``;
- ``gA = V⁻ᴴ G Vᴴ`` (a solve), and its real part for a real ``A``.

With only the values used (``eigvals``), ``X`` is 0 and ``gA = V⁻ᴴ diag(gL) Vᴴ``. A term
whose numerator is exactly 0 counts as 0 (repeated eigenvalues with unused vectors), as in
``linalg_spectral.py``. There is no ``backward_graph``: a second derivative raises
``NotImplementedError``.
"""

from __future__ import annotations

from .. import dtypes
from . import linalg_checks as checks
from .complex_support import conj
from .function import Function
from .linalg_spectral import safe_div
from .matrix_arrays import array_dtype, flat_size, layout, mT, pack, sub, unpack

#: PyTorch's message for a loss that depends on the phase of the eigenvectors
GAUGE_ERROR = ("linalg_eig_backward: The eigenvectors in the complex case are specified up to "
               "multiplication by e^{i phi}. The specified loss function depends on this "
               "quantity, so it is ill-defined.")
#: PyTorch's tolerance of that check (``allclose(Im(diag(X)), 0, rtol=1e-2, atol=1e-2)``)
GAUGE_TOLERANCE = 1e-2


class LinalgEig(Function):
    """Eigenvalues and eigenvectors (columns) of each square matrix, complex.

    Shape:
        ``(*, n, n)`` -> flat: values ``(*, n)`` then vectors ``(*, n, n)``; with
        ``values_only`` (``eigvals``), the values ``(*, n)``.

    Raises:
        RuntimeError: an integer or bool input, fewer than 2 dims, non-square matrices, or
        a NaN or infinite element (PyTorch's messages); ``NotImplementedError`` for float16.
    """

    op_name, backward_name = "linalg.eig", "LinalgEigBackward0"
    saved_for_backward = ("output",)
    complex_aware = True
    values_only = False

    def infer(self, a):
        dtype = a._dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            raise RuntimeError(f"Unknown Complex ScalarType for {checks.type_name(dtype)}: "
                               f"{self.op_name} needs float32, float64 or complex matrices; "
                               "convert the input with .double() first")
        shape = checks.square_shape(self.op_name, a, any_dtype=True)
        if dtype in (dtypes.float16, dtypes.bfloat16):
            raise checks.LowPrecisionError(
                f'"linalg_eig_out_cpu" not implemented for \'{checks.type_name(dtype)}\': '
                f"{self.op_name} needs float32, float64 or complex matrices; convert the "
                "input with .float()")
        out = dtype.to_complex()
        if self.values_only:
            return shape[:-1], out
        self.parts = layout([shape[:-1], shape])
        return (flat_size(self.parts),), out

    def forward(self, backend, a):
        _check_finite(backend, a)
        w, v = backend.eig(a, not self.values_only or self.recording)
        if self.recording:
            self.w, self.v, self.real_input = w, v, a.dtype.kind != "c"
        return w if self.values_only else pack(backend, (w, v), self.parts, array_dtype(w))

    def backward(self, backend, g):
        w, v = self.w, self.v
        vh = conj(backend, mT(backend, v))
        if self.values_only:
            gw, inner = g, None
        else:
            gw, gv = unpack(backend, g, self.parts)
            inner = _vectors_term(backend, w, v, vh, gv)
        ga = _solve_conjugated(backend, vh, _with_diagonal(backend, inner, gw))
        return (backend.copy(backend.real(ga)) if self.real_input else ga,)


def _check_finite(backend, a) -> None:
    """PyTorch's error for a NaN or infinite element (it reads the data: one sync)."""
    if a.size and not bool(backend.to_numpy(backend.min(backend.unary("isfinite", a), None,
                                                        False))):
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")


def _vectors_term(backend, w, v, vh, gv):
    """``(X - Vᴴ V diag(Re(diag(X)))) / E`` with ``X = Vᴴ gV`` (module docstring), after the
    gauge check."""
    x = backend.matmul(vh, gv)
    n = x.shape[-1]
    diagonal = backend.getitem(x, (Ellipsis, *(backend.arange(0, n, 1, dtypes.int64),) * 2))
    phase = backend.unary("abs", backend.imag(diagonal))
    if phase.size and float(backend.to_numpy(backend.max(phase, None, False))) > GAUGE_TOLERANCE:
        raise RuntimeError(GAUGE_ERROR)
    norms = backend.reshape(backend.real(diagonal), diagonal.shape[:-1] + (1, n))
    x = sub(backend, x, backend.matmul(vh, backend.binary("mul", v, norms)))
    wc = conj(backend, w)
    differences = sub(backend, backend.reshape(wc, wc.shape[:-1] + (1, n)),
                      backend.reshape(wc, wc.shape + (1,)))
    return safe_div(backend, x, differences)  # its diagonal is replaced by gL


def _with_diagonal(backend, inner, gw):
    """``inner`` with ``gw`` on its diagonal (``diag(gw)`` when ``inner`` is None)."""
    n = gw.shape[-1]
    i = backend.reshape(backend.arange(0, n, 1, dtypes.int64), (n, 1))
    j = backend.reshape(backend.arange(0, n, 1, dtypes.int64), (1, n))
    on_diagonal = backend.binary("eq", i, j)
    rows = backend.reshape(gw, gw.shape[:-1] + (1, n))
    return backend.where(on_diagonal, rows, gw.dtype.type(0) if inner is None else inner)


def _solve_conjugated(backend, vh, g):
    """``V⁻ᴴ G Vᴴ``: the gradient conjugated back by the eigenvectors (one solve)."""
    x, _ = backend.solve(vh, backend.matmul(g, vh))
    return x

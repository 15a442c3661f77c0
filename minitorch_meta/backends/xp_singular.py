"""Which matrices ``inv`` and ``solve`` call singular: those whose LU, rounded as PyTorch's
LAPACK (MKL) rounds it, meets an exact zero pivot. Mixed into ``XpBackend``; names no
array module directly.

NumPy's ``inv``/``solve`` run OpenBLAS's getrf, CuPy's cuSOLVER's; both decide "singular"
by an exact zero pivot too, but their rounding differs from MKL's, so on an exactly
singular matrix of small integers one library may meet a zero pivot where another meets
a pivot of ~1e-16 and returns huge values. The library's answer is therefore only a first
pass:

- a matrix it fails is refactored by ``lu_factor`` (``xp_lu.py``, getrf rounded as MKL):
  its ``info`` is the one reported; if that LU has no zero pivot, the solution comes from
  it (``_solve_with_lu``), as PyTorch would return one;
- a matrix of at most ``SCREENED_SIZE`` rows that it factors but whose determinant is tiny
  against Hadamard's bound (the product of its column norms; ``_nearly_singular``) is
  refactored too, and is singular if that LU meets a zero pivot. Larger matrices keep the
  library's decision (MKL factors them in blocks, rounded otherwise).

The screen costs one batched ``slogdet``; only the few nearly singular matrices pay for
the Python-level elimination.
"""

from __future__ import annotations

#: the largest matrices screened: MKL factors larger ones in blocks, whose rounding
#: ``lu_factor`` does not follow, and Hadamard's bound grows too loose for the screen
SCREENED_SIZE = 16


class SingularKernels:
    """``inv`` and ``solve`` with MKL's singularity decision; see the module docstring."""

    def _lu_checked(self, call, a, b=None):
        """``call(a)`` or ``call(a, b)`` (``a``, ``b`` of one batch shape) and getrf's ``info``
        per matrix; a singular matrix's result is NaN."""
        xp = self.xp
        arrays = (a,) if b is None else (a, b)
        out_shape = a.shape if b is None else b.shape
        out, info = self._factor(call, arrays, out_shape, self._getrf_info)
        if a.size == 0 or a.shape[-1] > SCREENED_SIZE:
            return out, info
        suspect = (info == 0) & self._nearly_singular(a)
        if bool(suspect.any()):
            refactored = self._getrf_info(a[suspect])
            info[suspect] = refactored
            out[suspect] = xp.where((refactored > 0)[:, None, None], xp.nan, out[suspect])
        return out, info

    def _getrf_info(self, a):
        """getrf's ``info`` (the first zero pivot, 1-based, else 0), rounded as MKL's."""
        return self.lu_factor(a)[2]

    def _nearly_singular(self, a):
        """Whether each finite matrix's ``|det|`` is under ``sqrt(eps)`` times the product of
        its column norms: generous, since an LU whose last pivot rounded to ~eps instead of
        0 (or the reverse) lands far below it."""
        xp = self.xp
        _, logdet = xp.linalg.slogdet(a)  # -inf for a zero column: a suspect
        squares = xp.maximum((a * a).sum(axis=-2), xp.finfo(a.dtype).tiny)
        margin = 0.5 * float(xp.log(xp.finfo(a.dtype).eps))
        return (logdet - 0.5 * xp.log(squares).sum(axis=-1) < margin) & xp.isfinite(a).all(
            axis=(-2, -1))

    def _solve_with_lu(self, a, b):
        """``a⁻¹ b`` through ``lu_factor``'s factors (for a matrix the library failed and MKL
        would not): two triangular solves, which meet no zero pivot."""
        xp = self.xp
        lu, pivots, _ = self.lu_factor(a)
        n = a.shape[-1]
        rows = xp.arange(n)
        permuted = b.copy()
        every = xp.arange(a.shape[0])
        for j in range(n):  # getrf's row swaps, in order
            target = pivots[:, j] - 1
            top = permuted[:, j].copy()
            permuted[:, j] = permuted[every, target]
            permuted[every, target] = top
        lower = xp.where(rows[:, None] > rows, lu, 0) + xp.eye(n, dtype=lu.dtype)
        upper = xp.where(rows[:, None] <= rows, lu, 0)
        return xp.linalg.solve(upper, xp.linalg.solve(lower, permuted))

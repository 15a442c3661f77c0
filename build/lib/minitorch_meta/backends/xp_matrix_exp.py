"""The ``matrix_exp`` kernel over an array module ``xp``: ``exp(A)`` of a batch of square
matrices by scaling and squaring with a degree-13 Padé approximant (Higham, "The scaling
and squaring method for the matrix exponential revisited", 2005).

Each matrix is divided by ``2**s``, the smallest power of two that brings its 1-norm under
``THETA_13`` (where the approximant's backward error is below float64's unit roundoff, so
float32 is covered too); the approximant ``r(A) = (V - U)⁻¹ (V + U)`` is taken of the whole
batch at once, then each matrix squared ``s`` times: each squaring step multiplies only
the matrices that still need it (picked out of the flattened batch). float16 is computed
in float32. Mixed into ``XpBackend``; names no array module
directly.
"""

from __future__ import annotations

#: Padé [13/13] coefficients of exp, from b_0 to b_13
PADE_13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
           1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
           33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
#: the largest 1-norm for which the [13/13] approximant is accurate to float64's roundoff
THETA_13 = 5.371920351148152


class MatrixExpKernels:
    """``matrix_exp``; see ``base.py`` for the contract."""

    def matrix_exp(self, a):
        xp = self.xp
        if a.size == 0:
            return a.copy()
        x = a.astype(xp.float32) if a.itemsize < 4 else a
        squarings = self._squarings(x)
        scale = xp.exp2(-squarings).astype(x.dtype)
        r = self._pade13(x * scale[..., None, None]).reshape((-1,) + a.shape[-2:])
        squarings = squarings.reshape(-1)
        for step in range(int(squarings.max())):
            picked = xp.nonzero(squarings > step)[0]
            r[picked] = xp.matmul(r[picked], r[picked])
        return r.reshape(a.shape).astype(a.dtype, copy=False)

    def _squarings(self, x):
        """``s`` per matrix: ``ceil(log2(|x|_1 / THETA_13))``, at least 0 (and 0 for a matrix
        that is not finite, whose exponential is NaN anyway)."""
        xp = self.xp
        norm = xp.abs(x).sum(axis=-2).max(axis=-1)
        s = xp.ceil(xp.log2(xp.maximum(norm, THETA_13) / THETA_13))
        return xp.where(xp.isfinite(s), s, 0.0)

    def _pade13(self, a):
        """``(V - U)⁻¹ (V + U)``: ``U`` the odd and ``V`` the even part of the approximant."""
        xp = self.xp
        b = PADE_13
        identity = xp.eye(a.shape[-1], dtype=a.dtype)
        a2 = xp.matmul(a, a)
        a4 = xp.matmul(a2, a2)
        a6 = xp.matmul(a4, a2)
        u = xp.matmul(a, xp.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
                      + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * identity)
        v = (xp.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2)
             + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * identity)
        return xp.linalg.solve(v - u, v + u)

"""The ``geqrf`` kernel over an array module ``xp``: LAPACK's QR factorisation in compact
Householder form, on a batch of matrices.

NumPy's ``qr(mode="raw")`` and CuPy's differ in layout and batching, so the factorisation
is written here once, one column at a time over the whole (flattened) batch, as LAPACK's
unblocked ``geqr2``: ``larfg`` makes the reflection ``H_j = I - tau_j v_j v_jᵀ`` (``v_j``
with a 1 at ``j``) that maps column ``j`` below the diagonal onto ``beta e_j``, with
``beta = -sign(alpha) * ||(alpha, x)||``, and ``larf`` applies it to the columns on the
right. A column already zero below its diagonal gets ``tau = 0`` (``H = I``) and keeps its
sign, as LAPACK's. The blocked ``geqrf`` PyTorch calls makes the same reflections, so the
results agree to rounding. Mixed into ``XpBackend``; names no array module directly.
"""

from __future__ import annotations

import math


class HouseholderKernels:
    """``geqrf``; see ``base.py`` for the contract."""

    def geqrf(self, a):
        xp = self.xp
        *batch, m, n = a.shape
        k = min(m, n)
        h = a.reshape((math.prod(batch), m, n)).copy()  # -1 cannot size an empty batch
        tau = xp.zeros((h.shape[0], k), a.dtype)
        for j in range(k):
            alpha = h[:, j, j].copy()
            below = h[:, j + 1:, j]
            # sqrt of the sum of squares, as NumPy's norm (LAPACK's nrm2 also rescales)
            xnorm = xp.sqrt((below * below).sum(axis=1))
            beta = -xp.copysign(xp.hypot(alpha, xnorm), alpha)
            reflect = xnorm != 0
            one = xp.ones_like(alpha)
            tau[:, j] = xp.where(reflect, (beta - alpha) / xp.where(reflect, beta, one), 0)
            below *= (one / xp.where(reflect, alpha - beta, one))[:, None]
            h[:, j, j] = xp.where(reflect, beta, alpha)
            if j + 1 < n:
                self._reflect_right_columns(h, tau[:, j], j)
        return h.reshape(a.shape), tau.reshape(tuple(batch) + (k,))

    def _reflect_right_columns(self, h, tau, j):
        """``H_j`` applied from the left to the columns right of ``j`` (LAPACK's ``larf``):
        ``C -= tau v (vᵀ C)``, ``v`` column ``j`` from the diagonal down with a 1 on it."""
        xp = self.xp
        v = h[:, j:, j].copy()
        v[:, 0] = 1
        c = h[:, j:, j + 1:]
        w = xp.matmul(v[:, None, :], c)  # (batch, 1, n - j - 1)
        c -= (tau[:, None, None] * v[:, :, None]) * w

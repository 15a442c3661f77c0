"""The ``ldl_factor`` and ``ldl_solve`` kernels over an array module ``xp``: LAPACK's
``sytrf``/``sytrs`` (lower), the symmetric indefinite factorisation ``A = L D Lᵀ`` with
Bunch–Kaufman pivoting, on a batch of matrices.

Neither NumPy nor CuPy has it, so LAPACK's unblocked ``sytf2`` is written here once, one
column at a time over the whole (flattened) batch. Each matrix chooses its own pivots, so
one matrix may take a 2 x 2 block where another takes a 1 x 1 one: every step computes the
decisions for all matrices and applies each update only where it was chosen (``where``
masks), and a matrix whose previous step was a 2 x 2 block sits the next column out. The
trailing Schur complement is kept as a full symmetric matrix, mirrored from its lower
triangle after each update so that every read is of the values LAPACK reads.

The result is LAPACK's format: ``D``'s 1 x 1 and 2 x 2 blocks on the diagonal (a 2 x 2
block's off-diagonal below it), the multipliers of ``L`` below them, each column in the
row order of its own step (earlier columns are not re-permuted), and ``pivots`` 1-based:
``p > 0`` a 1 x 1 block after swapping rows and columns ``k`` and ``p``, ``p = -r`` on both
columns of a 2 x 2 block after swapping ``k + 1`` and ``r``. Mixed into ``XpBackend``;
names no array module directly.
"""

from __future__ import annotations

import math

from .xp_linalg import _broadcast

#: Bunch–Kaufman's threshold ``(1 + sqrt(17)) / 8``, which bounds the growth of the factors
ALPHA = (1.0 + math.sqrt(17.0)) / 8.0


class LdlKernels:
    """``ldl_factor`` and ``ldl_solve``; see ``base.py`` for the contract."""

    def ldl_factor(self, a):
        xp = self.xp
        *batch, n, _ = a.shape
        count = math.prod(batch)
        lower = xp.tril(a.reshape((count, n, n)))
        w = lower + xp.swapaxes(xp.tril(lower, -1), -1, -2)  # the symmetric matrix
        ld = xp.zeros_like(w)
        pivots = xp.zeros((count, n), xp.int32)
        info = xp.zeros(count, xp.int32)
        skip = xp.zeros(count, bool)  # the column is the second of a 2 x 2 block
        every = xp.arange(count)
        for k in range(n):
            start = ~skip
            kp, two, zero = self._bunch_kaufman(w, k, every)
            two &= start
            info = xp.where(start & zero & (info == 0), k + 1, info).astype(xp.int32)
            kk = k + two.astype(xp.int64)
            _swap_symmetric(w, every, kk, xp.where(start, kp, kk))
            one = start & ~two & ~zero
            d = w[:, k, k].copy()
            ld[:, k, k] = xp.where(start, d, ld[:, k, k])
            if k + 1 < n:
                column = w[:, k + 1:, k]
                ld[:, k + 1:, k] = xp.where(start[:, None], column, ld[:, k + 1:, k])
                self._eliminate_one(w, ld, k, one)
                self._eliminate_two(w, ld, k, two)
            pivots[:, k] = xp.where(start, xp.where(two, -(kp + 1), kp + 1), pivots[:, k])
            if k + 1 < n:
                pivots[:, k + 1] = xp.where(two, -(kp + 1), 0)
            skip = two
        shape = tuple(batch)
        return ld.reshape(a.shape), pivots.reshape(shape + (n,)), info.reshape(shape)

    def _bunch_kaufman(self, w, k, every):
        """Each matrix's pivot row ``kp`` (int64, 0-based) at column ``k``, whether it takes
        a 2 x 2 block, and whether the column is zero (or its diagonal NaN): sytf2's test."""
        xp = self.xp
        n = w.shape[-1]
        absakk = xp.abs(w[:, k, k])
        if k + 1 == n:
            kp = xp.full(w.shape[0], k, xp.int64)
            return kp, xp.zeros(w.shape[0], bool), (absakk == 0) | xp.isnan(absakk)
        below = xp.abs(w[:, k + 1:, k])
        imax = k + 1 + xp.argmax(below, axis=1)
        colmax = below.max(axis=1)
        zero = (xp.maximum(absakk, colmax) == 0) | xp.isnan(absakk)
        row = xp.abs(w[every, imax, k:])  # row imax of the trailing matrix
        row[every, imax - k] = 0  # its diagonal does not count
        rowmax = row.max(axis=1)
        safe_rowmax = xp.where(rowmax == 0, 1, rowmax)
        keep_k = (absakk >= ALPHA * colmax) | (absakk >= ALPHA * colmax * (colmax / safe_rowmax))
        one_imax = xp.abs(w[every, imax, imax]) >= ALPHA * rowmax
        kp = xp.where(keep_k | zero, k, imax).astype(xp.int64)
        return kp, ~keep_k & ~one_imax & ~zero, zero

    def _eliminate_one(self, w, ld, k, mask):
        """A 1 x 1 pivot at ``k`` where ``mask``: the multipliers into ``ld`` and the
        rank-1 update of the trailing matrix."""
        xp = self.xp
        d = w[:, k, k]
        inverse = 1 / xp.where(mask, d, 1)
        x = w[:, k + 1:, k]
        update = x[:, :, None] * (-inverse[:, None] * x)[:, None, :]
        trailing = w[:, k + 1:, k + 1:]
        trailing += xp.where(mask[:, None, None], update, 0)
        ld[:, k + 1:, k] = xp.where(mask[:, None], x * inverse[:, None], ld[:, k + 1:, k])

    def _eliminate_two(self, w, ld, k, mask):
        """A 2 x 2 pivot at ``k, k + 1`` where ``mask``: its block and multipliers into
        ``ld`` and the rank-2 update of the trailing matrix (sytf2's formulas)."""
        xp = self.xp
        ld[:, k + 1, k + 1] = xp.where(mask, w[:, k + 1, k + 1], ld[:, k + 1, k + 1])
        if k + 2 >= w.shape[-1]:
            return
        d21 = xp.where(mask, w[:, k + 1, k], 1)
        d11 = w[:, k + 1, k + 1] / d21
        d22 = w[:, k, k] / d21
        t = 1 / xp.where(mask, d11 * d22 - 1, 1)
        d21 = (t / d21)[:, None]
        xk, xk1 = w[:, k + 2:, k], w[:, k + 2:, k + 1]
        wk = d21 * (d11[:, None] * xk - xk1)
        wk1 = d21 * (d22[:, None] * xk1 - xk)
        update = xk[:, :, None] * wk[:, None, :] + xk1[:, :, None] * wk1[:, None, :]
        trailing = w[:, k + 2:, k + 2:]
        # the lower triangle as LAPACK computes it, mirrored so the matrix stays symmetric
        updated = xp.tril(trailing - update)
        updated = updated + xp.swapaxes(xp.tril(updated, -1), -1, -2)
        trailing[...] = xp.where(mask[:, None, None], updated, trailing)
        ld[:, k + 2:, k] = xp.where(mask[:, None], wk, ld[:, k + 2:, k])
        ld[:, k + 2:, k + 1] = xp.where(mask[:, None], wk1, ld[:, k + 2:, k + 1])

    def ldl_solve(self, ld, pivots, b):
        xp = self.xp
        n, rhs = b.shape[-2:]
        batch = _broadcast(ld.shape[:-2], b.shape[:-2])
        count = math.prod(batch)
        ld = xp.broadcast_to(ld, batch + (n, n)).reshape((count, n, n))
        piv = xp.broadcast_to(pivots, batch + (n,)).reshape((count, n)).astype(xp.int64)
        x = xp.broadcast_to(b, batch + (n, rhs)).reshape((count, n, rhs)).copy()
        every = xp.arange(count)
        first = xp.zeros((count, n), bool)  # the column begins a 2 x 2 block
        skip = xp.zeros(count, bool)
        for k in range(n):  # L D Y = Pᵀ B, one block at a time
            two = ~skip & (piv[:, k] < 0)
            one = ~skip & ~two
            first[:, k] = two
            kk = k + two.astype(xp.int64)
            target = xp.where(one, piv[:, k] - 1, xp.where(two, -piv[:, k] - 1, kk))
            _swap_rows(x, every, kk, target)
            self._forward_one(x, ld, k, one)
            self._forward_two(x, ld, k, two)
            skip = two
        for k in range(n - 1, -1, -1):  # Lᵀ X = Y, from the last block back
            second = first[:, k - 1] if k else xp.zeros(count, bool)
            active = ~first[:, k]
            if k + 1 < n:
                tail = x[:, k + 1:]
                for j, mask in ((k, active), (k - 1, second)):
                    if j >= 0:
                        dot = xp.matmul(ld[:, None, k + 1:, j], tail)[:, 0]
                        x[:, j] -= xp.where(mask[:, None], dot, 0)
            target = xp.where(second, -piv[:, k] - 1, piv[:, k] - 1)
            _swap_rows(x, every, xp.full(count, k, xp.int64), xp.where(active, target, k))
        return x.reshape(batch + (n, rhs))

    def _forward_one(self, x, ld, k, mask):
        """Where ``mask``: eliminate with the 1 x 1 block at ``k``, then divide by it."""
        xp = self.xp
        n = x.shape[1]
        row = x[:, k]
        if k + 1 < n:
            x[:, k + 1:] -= xp.where(mask[:, None, None], ld[:, k + 1:, k, None] * row[:, None], 0)
        x[:, k] = xp.where(mask[:, None], row / xp.where(mask, ld[:, k, k], 1)[:, None], row)

    def _forward_two(self, x, ld, k, mask):
        """Where ``mask``: eliminate with the 2 x 2 block at ``k, k + 1``, then solve it
        (sytrs' formulas, scaled by its off-diagonal)."""
        xp = self.xp
        n = x.shape[1]
        if k + 1 >= n:
            return
        if k + 2 < n:
            update = (ld[:, k + 2:, k, None] * x[:, None, k]
                      + ld[:, k + 2:, k + 1, None] * x[:, None, k + 1])
            x[:, k + 2:] -= xp.where(mask[:, None, None], update, 0)
        akm1k = xp.where(mask, ld[:, k + 1, k], 1)[:, None]
        akm1 = ld[:, k, k, None] / akm1k
        ak = ld[:, k + 1, k + 1, None] / akm1k
        denom = xp.where(mask[:, None], akm1 * ak - 1, 1)
        bkm1, bk = x[:, k] / akm1k, x[:, k + 1] / akm1k
        x[:, k] = xp.where(mask[:, None], (ak * bkm1 - bk) / denom, x[:, k])
        x[:, k + 1] = xp.where(mask[:, None], (akm1 * bk - bkm1) / denom, x[:, k + 1])


def _swap_rows(x, every, i, j):
    """Rows ``i[b]`` and ``j[b]`` of each ``x[b]`` exchanged (a no-op where they agree)."""
    row_i, row_j = x[every, i].copy(), x[every, j].copy()
    x[every, i] = row_j
    x[every, j] = row_i


def _swap_symmetric(w, every, i, j):
    """Rows and columns ``i[b]`` and ``j[b]`` of each symmetric ``w[b]`` exchanged."""
    _swap_rows(w, every, i, j)
    col_i, col_j = w[every, :, i].copy(), w[every, :, j].copy()
    w[every, :, i] = col_j
    w[every, :, j] = col_i

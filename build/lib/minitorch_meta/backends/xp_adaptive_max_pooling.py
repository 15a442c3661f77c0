"""Adaptive max pooling, written once over ``self.xp`` (NumPy or CuPy); a mixin of
``XpBackend``. Like every shared kernel it never names ``numpy`` (a test enforces it).

The windows are adaptive average pooling's (``xp_avg_pooling.adaptive_windows``): they
vary in size and may overlap, so no strided view holds them. A window's maximum is
separable, and so is the position PyTorch reports: the first maximum in row-major order
is, in the first row holding the window's maximum, that row's first maximum. So each axis
is reduced by one gather per position of the longest window (columns first, then rows),
keeping the winning position alongside, never a Python loop over samples or pixels.
"""

from __future__ import annotations

from .xp_avg_pooling import adaptive_windows


class AdaptiveMaxPoolingKernels:
    """``adaptive_max_pool2d``; its backward is an ``index_add`` of the op's."""

    def adaptive_max_pool2d(self, x, out_hw):
        """Maxima over PyTorch's adaptive windows, and their flat positions in each input
        plane (int64, ``h * W + w``): the first maximum of a window in row-major order, or
        its last NaN (PyTorch's loop takes a value that is larger or NaN)."""
        xp = self.xp
        N, C, H, W = x.shape
        OH, OW = out_hw
        if N * C * OH * OW == 0:
            return xp.empty((N, C, OH, OW), x.dtype), xp.empty((N, C, OH, OW), xp.int64)
        row_max, column = self._window_max(x, 3, *adaptive_windows(W, OW))  # (N, C, H, OW)
        y, row = self._window_max(row_max, 2, *adaptive_windows(H, OH))  # (N, C, OH, OW)
        return y, row * W + xp.take_along_axis(column, row, axis=2)

    def _window_max(self, a, axis, starts, lengths):
        """Along ``axis``, each window's maximum and its position (int64) in ``a``.

        One gather per position ``t`` of the longest window; a shorter window repeats its
        last position, which can neither raise its maximum nor move it (a repeated NaN is
        the same element). A later position wins only if larger or NaN, PyTorch's rule.
        """
        xp = self.xp
        shape = [1] * a.ndim
        shape[axis] = len(starts)
        best_at = xp.asarray(starts, dtype=xp.int64)
        best = xp.take(a, best_at, axis=axis)
        best_at = xp.broadcast_to(best_at.reshape(shape), best.shape)
        for t in range(1, max(lengths)):
            at = xp.asarray([s + min(t, n - 1) for s, n in zip(starts, lengths)],
                            dtype=xp.int64)
            value = xp.take(a, at, axis=axis)
            wins = (value > best) | xp.isnan(value)
            best = xp.where(wins, value, best)
            best_at = xp.where(wins, at.reshape(shape), best_at)
        return best, xp.ascontiguousarray(best_at)

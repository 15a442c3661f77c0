"""Convolution kernels, written once over the array module ``self.xp`` (NumPy or CuPy).

A mixin of ``XpBackend``: it uses ``self.xp`` and ``self._as_strided`` and, like every
shared kernel, never names ``numpy`` (a test enforces it).

Layout choice: convolution works channels-last internally. Its output is an NCHW-shaped
*view* of NHWC storage, so the next convolution's im2col reads contiguous channel runs
and its GEMM output needs no copy (the idea of PyTorch's ``channels_last``).
"""

from __future__ import annotations

# Inference builds im2col this many bytes at a time, so a chunk is still in cache for its GEMM.
IM2COL_CHUNK_BYTES = 4 * 2**20


class ConvKernels:
    """``conv2d`` and ``conv2d_backward`` by im2col over strided channels-last views."""

    def conv2d(self, x, w, b, stride, padding, dilation, out_hw, for_backward=True):
        """Cross-correlation by im2col over strided views of channels-last storage.

        For backward, the whole im2col matrix is built once and kept (the weight gradient
        needs it). Without backward (inference), it is built a few samples at a time so each
        chunk is still in cache when its GEMM reads it: measured here, 1.3-1.7x faster.
        """
        N, C, H, W = x.shape
        O, _, KH, KW = w.shape
        OH, OW = out_hw
        x_nhwc = self._padded_nhwc(x, padding)
        w2 = w.transpose(0, 2, 3, 1).reshape(O, KH * KW * C)
        saved = None
        if for_backward:
            cols = self._im2col(x_nhwc, (KH, KW), stride, dilation, out_hw)  # (N*OH*OW, KH*KW*C)
            y = cols @ w2.T
            saved = (cols, w2, x.shape, x_nhwc.shape, w.shape, stride, padding, dilation, out_hw)
        else:
            y = self.xp.empty((N * OH * OW, O), x.dtype)
            rows = OH * OW
            step = max(1, IM2COL_CHUNK_BYTES // (rows * KH * KW * C * x.dtype.itemsize))
            for start in range(0, N, step):
                stop = min(N, start + step)
                cols = self._im2col(x_nhwc[start:stop], (KH, KW), stride, dilation, out_hw)
                self.xp.matmul(cols, w2.T, out=y[start * rows:stop * rows])
        if b is not None:
            y += b
        return y.reshape(N, OH, OW, O).transpose(0, 3, 1, 2), saved

    def conv2d_backward(self, gy, saved, needs_input_grad):
        cols, w2, x_shape, padded_shape, w_shape, stride, padding, dilation, out_hw = saved
        N, C, H, W = x_shape
        O, _, KH, KW = w_shape
        OH, OW = out_hw
        gy2 = gy.transpose(0, 2, 3, 1).reshape(N * OH * OW, O)  # free when gy is channels-last
        gx = gw = gb = None
        if needs_input_grad[1]:
            gw = (gy2.T @ cols).reshape(O, KH, KW, C).transpose(0, 3, 1, 2)
            gw = self.xp.ascontiguousarray(gw)
        if len(needs_input_grad) > 2 and needs_input_grad[2]:
            gb = gy2.sum(axis=0)
        if needs_input_grad[0]:
            # One (N*OH*OW, C) block per tap (a batched GEMM), so each tap's scatter-add
            # reads a contiguous block and writes runs of OW*C values (for stride 1),
            # instead of gathering runs of C values out of a (.., KH*KW*C) im2col matrix.
            w_taps = w2.reshape(O, KH * KW, C).transpose(1, 0, 2)  # (KH*KW, O, C)
            gcols = self.xp.matmul(gy2, w_taps)  # (KH*KW, N*OH*OW, C)
            gx_pad = self.xp.zeros(padded_shape, gy.dtype)
            (sh, sw), (dh, dw) = stride, dilation
            for i in range(KH):  # a loop over kernel taps, never over samples or pixels
                for j in range(KW):
                    gx_pad[:, i * dh:i * dh + sh * (OH - 1) + 1:sh,
                           j * dw:j * dw + sw * (OW - 1) + 1:sw, :] += \
                        gcols[i * KW + j].reshape(N, OH, OW, C)
            top, _, left, _ = padding
            gx = gx_pad[:, top:top + H, left:left + W, :].transpose(0, 3, 1, 2)
        return gx, gw, gb

    def _padded_nhwc(self, x, padding):
        """``x`` (N, C, H, W) as contiguous channels-last storage (N, H', W', C), zero-padded.

        One copy at most: none when ``x`` is already a channels-last view (the output of a
        previous conv, pool or elementwise op on one), so im2col reads contiguous runs of
        ``KW * C`` values instead of gathering across channel planes.
        """
        top, bottom, left, right = padding
        x_nhwc = x.transpose(0, 2, 3, 1)
        if not (top or bottom or left or right):
            return x_nhwc if x_nhwc.flags.c_contiguous else self.xp.ascontiguousarray(x_nhwc)
        N, H, W, C = x_nhwc.shape
        out = self.xp.zeros((N, H + top + bottom, W + left + right, C), x_nhwc.dtype)
        out[:, top:top + H, left:left + W, :] = x_nhwc
        return out

    def _im2col(self, x_nhwc, kernel, stride, dilation, out_hw):
        N, _, _, C = x_nhwc.shape
        (KH, KW), (sh, sw), (dh, dw), (OH, OW) = kernel, stride, dilation, out_hw
        sN, sH, sW, sC = x_nhwc.strides
        windows = self._as_strided(x_nhwc, shape=(N, OH, OW, KH, KW, C),
                                   strides=(sN, sH * sh, sW * sw, sH * dh, sW * dw, sC))
        return windows.reshape(N * OH * OW, KH * KW * C)

"""``unfold`` (im2col) and ``fold`` (col2im) as kernels of their own, written once over
``self.xp`` (NumPy or CuPy) on convolution's own code (``xp_conv.ConvKernels``): its
zero-padded channels-last copy and im2col for ``unfold``, its col2im (``_add_patches``) for
``fold``. Like every shared kernel, this file never names ``numpy`` (a test enforces it).

Each channel is unfolded as an image of one channel (``(N*C, H, W, 1)`` is a free view of
NCHW memory), so im2col's one-channel path builds the columns tap-major, the order
PyTorch's ``(N, C*kH*kW, L)`` wants after one transposing copy.
"""

from __future__ import annotations


class FoldKernels:
    """``unfold`` and ``fold``; a mixin of ``XpBackend`` beside ``ConvKernels``."""

    def unfold(self, x, kernel, stride, padding, dilation, blocks):
        """Every block of ``x`` (N, C, H, W) as a column: (N, C*kH*kW, L), PyTorch's order."""
        N, C, H, W = x.shape
        (KH, KW), (ph, pw), (OH, OW) = kernel, padding, blocks
        planes = self._padded_nhwc(x.reshape(N * C, 1, H, W), (ph, ph, pw, pw))
        # One channel: im2col is a transposed view of (KH*KW, N*C*OH*OW) rows of taps.
        taps = self._im2col(planes, kernel, stride, dilation, blocks).T
        cols = taps.reshape(KH * KW, N, C, OH * OW).transpose(1, 2, 0, 3)
        return self.xp.ascontiguousarray(cols).reshape(N, C * KH * KW, OH * OW)

    def fold(self, cols, out_hw, kernel, stride, padding, dilation, blocks):
        """Columns ``cols`` (N, C*kH*kW, L) added where their blocks lie in an (N, C,
        *out_hw) image (overlaps add up; what falls in the padding is dropped)."""
        N, CK, _ = cols.shape
        (KH, KW), (ph, pw), (OH, OW), (H, W) = kernel, padding, blocks, out_hw
        C = CK // (KH * KW)
        planes = self.xp.zeros((N * C, H + 2 * ph, W + 2 * pw, 1), cols.dtype)
        # col2im's patches: (planes, OH, OW, KH, KW, 1), a view of the columns.
        patches = cols.reshape(N * C, KH, KW, OH, OW, 1).transpose(0, 3, 4, 1, 2, 5)
        self._add_patches(planes, patches, 1, stride, dilation)
        return planes[:, ph:ph + H, pw:pw + W, 0].reshape(N, C, H, W)

"""Grouped convolution kernels (``groups > 1``, depthwise included), written once over
``self.xp`` (NumPy or CuPy).

A mixin of ``XpBackend`` beside ``ConvKernels``: it uses ``self.xp`` and the single-group
im2col and col2im, ``_im2col`` and ``_add_patches``, and, like every shared kernel,
never names ``numpy`` (a test enforces it). ``ConvKernels`` hands over only when
``groups != 1``, so the tuned single-group path (blocking, Winograd) is untouched and a
grouped layer never reaches Winograd, which knows nothing of groups.

A convolution of ``G`` groups is ``G`` independent convolutions, each of ``C / G`` input
channels to ``O / G`` output channels. They run as one batched GEMM: im2col with a leading
group axis, ``(G, N*OH*OW, KH*KW*C/G)``, against the filters seen as ``(G, KH*KW*C/G,
O/G)``. Measured here (batch 64, OpenBLAS) against a Python loop of one GEMM per group over
the same operands, forward, weight and input gradients: depthwise 32 channels 16x16 3x3
1.09/1.21/8.78 ms batched against 1.15/1.17/8.84 looped; 16 -> 32 channels in 2 groups
0.55/0.60/0.40 against 0.49/0.56/0.39; 6 -> 12 channels in 3 groups, 5x5, 28x28
1.86/10.8/9.68 against 1.84/10.9/1.62, the last fixed by chunking the input gradient's
GEMM over samples (0.69-1.43 ms). No loop is better, so there is none. A whole grouped
layer (forward and backward) ran 0.6-0.9x the time of the dense layer of the same channel
counts, except with few channels and few wide groups (6 -> 12 in 3 groups, 5x5: 2x the
dense layer's time, whose blocked GEMMs are tuned for such shapes).
"""

from __future__ import annotations

from typing import NamedTuple

from .chunking import samples_per_chunk

# Inference builds the grouped im2col this many bytes at a time (as ``xp_conv`` does).
GROUPED_CHUNK_BYTES = 4 * 2**20


class GroupedSaved(NamedTuple):
    """What the grouped forward keeps for backward."""

    cols: object         # (G, N*OH*OW, KH*KW*C/G): the grouped im2col
    x_shape: tuple       # (N, C, H, W)
    padded_shape: tuple  # (G, N, H', W', C/G): the zero-padded group-major input
    w: object            # (O, C/G, KH, KW)
    stride: tuple
    padding: tuple       # (top, bottom, left, right)
    dilation: tuple
    out_hw: tuple        # (OH, OW)
    groups: int


class GroupedConvKernels:
    """``conv2d``, its backward and ``conv_transpose2d`` for ``groups > 1``.

    Layout: inside, the input and its gradient are *group-major* channels-last,
    ``(G, N, H', W', C/G)``: seen as ``(G*N, H', W', C/G)`` they are a batch of ``G*N``
    single-group images, so the single-group im2col (``_im2col``) and col2im
    (``_add_patches``) serve unchanged and read runs of ``KW*C/G`` values.
    """

    def _grouped_conv2d(self, x, w, b, stride, padding, dilation, out_hw, groups,
                        for_backward):
        """Cross-correlation of ``groups`` channel groups by one batched GEMM; the output is
        an NCHW view of channels-last storage, as the single-group path's."""
        N = x.shape[0]
        O, _, KH, KW = w.shape
        OH, OW = out_hw
        x_groups = self._padded_group_major(x, groups, padding)  # (G, N, H', W', C/G)
        w_cols = self._grouped_weight_columns(w, groups)  # (G, K, O/G)
        geometry = ((KH, KW), stride, dilation, out_hw)
        rows = OH * OW
        y = self.xp.empty((N * rows, O), x.dtype)
        saved = None
        if for_backward:
            cols = self._grouped_im2col(x_groups, geometry)
            self._group_major(y, groups)[...] = self.xp.matmul(cols, w_cols)
            saved = GroupedSaved(cols, x.shape, x_groups.shape, w, stride, padding, dilation,
                                 out_hw, groups)
        else:  # inference: a cache-sized chunk of samples at a time, nothing kept
            step = samples_per_chunk(rows * w_cols.shape[1] * groups * x.dtype.itemsize,
                                     GROUPED_CHUNK_BYTES)
            for start in range(0, N, step):
                stop = min(N, start + step)
                cols = self._grouped_im2col(x_groups[:, start:stop], geometry)
                target = self._group_major(y[start * rows:stop * rows], groups)
                target[...] = self.xp.matmul(cols, w_cols)
        if b is not None:
            y += b
        return y.reshape(N, OH, OW, O).transpose(0, 3, 1, 2), saved

    def _grouped_conv2d_backward(self, gy, saved, needs_input_grad):
        cols, x_shape, padded_shape, w, stride, padding, dilation, out_hw, groups = saved
        N, _, H, W = x_shape
        O, Cg, KH, KW = w.shape
        OH, OW = out_hw
        # gy as (G, O/G, N*OH*OW): one copy, whatever gy's layout, that the GEMMs read
        # contiguously (a strided view of it measured 3x slower in the weight's GEMM).
        gy_t = self._groups_rows_last(gy, groups)
        gx = gw = gb = None
        if needs_input_grad[1]:
            g = self.xp.matmul(gy_t, cols)  # (G, O/G, K)
            gw = self.xp.ascontiguousarray(g.reshape(O, KH, KW, Cg).transpose(0, 3, 1, 2))
        if len(needs_input_grad) > 2 and needs_input_grad[2]:
            gb = gy_t.sum(axis=2).reshape(O)
        if needs_input_grad[0]:
            gx = self._grouped_input_gradient(gy_t, w, groups, padded_shape, padding, (H, W),
                                              stride, dilation, out_hw)
        return gx, gw, gb

    def _grouped_conv_transpose2d(self, x, w, b, stride, padding, dilation, out_hw, groups):
        """The grouped conv2d's input gradient as an op (see ``conv_transpose2d``)."""
        N = x.shape[0]
        C = w.shape[1] * groups
        top, bottom, left, right = padding
        Cg = C // groups
        padded_shape = (groups, N, out_hw[0] + top + bottom, out_hw[1] + left + right, Cg)
        y = self._grouped_input_gradient(self._groups_rows_last(x, groups), w, groups,
                                         padded_shape, padding, out_hw, stride, dilation,
                                         x.shape[2:])
        if b is not None:
            y += b.reshape(1, C, 1, 1)
        return y

    def _grouped_input_gradient(self, gy_t, w, groups, padded_shape, padding, in_hw, stride,
                                dilation, out_hw):
        """The gradient of the input, (N, C, *in_hw), from ``gy_t`` (G, O/G, N*OH*OW): an
        NCHW view of channels-last memory.

        Per cache-sized chunk of samples, one batched GEMM gives every output pixel's
        ``(KH, KW, C/G)`` patch per sample and group, and the single-group col2im adds them
        into the padded gradient, kept ``(N, G, H', W', C/G)`` so that a chunk of samples is
        a batch of ``n*G`` single-group images. Unchunked, the GEMM's output (the size of
        im2col) left the cache and the product ran several times slower here.
        """
        G, N, HP, WP, Cg = padded_shape
        O, _, KH, KW = w.shape
        OH, OW = out_hw
        rows, K = OH * OW, KH * KW * Cg  # GEMM rows per sample, patch length per group
        w_cols_t = self.xp.ascontiguousarray(self._grouped_weight_columns(w, groups)
                                             .transpose(0, 2, 1))  # (G, O/G, K)
        gy_samples = gy_t.reshape(G, O // G, N, rows)
        gx_pad = self.xp.zeros((N, G, HP, WP, Cg), gy_t.dtype)
        step = max(1, min(N, samples_per_chunk(rows * K * G * gy_t.itemsize,
                                               GROUPED_CHUNK_BYTES)))  # 1 for an empty batch
        buffer = self.xp.empty(step * G * rows * K, gy_t.dtype)
        for start in range(0, N, step):
            n = min(step, N - start)
            patches = self.xp.matmul(gy_samples[:, :, start:start + n].transpose(2, 0, 3, 1),
                                     w_cols_t,
                                     out=buffer[:n * G * rows * K].reshape(n, G, rows, K))
            self._add_patches(gx_pad[start:start + n].reshape(n * G, HP, WP, Cg),
                              patches.reshape(n * G, OH, OW, KH, KW, Cg), 1, stride, dilation)
        return self._from_group_major(gx_pad, padding, in_hw)

    def _padded_group_major(self, x, groups, padding):
        """``x`` (N, C, H, W) as zero-padded group-major storage (G, N, H', W', C/G): one
        copy."""
        N, C, H, W = x.shape
        top, bottom, left, right = padding
        out = self.xp.zeros((groups, N, H + top + bottom, W + left + right, C // groups),
                            x.dtype)
        out[:, :, top:top + H, left:left + W, :] = (x.reshape(N, groups, C // groups, H, W)
                                                    .transpose(1, 0, 3, 4, 2))
        return out

    def _from_group_major(self, gx_pad, padding, in_hw):
        """The (N, G, H', W', C/G) padded gradient, cropped, as an NCHW view of channels-last
        memory (one copy)."""
        N, G, _, _, Cg = gx_pad.shape
        top, _, left, _ = padding
        H, W = in_hw
        gx = self.xp.empty((N, H, W, G, Cg), gx_pad.dtype)
        gx[...] = gx_pad[:, :, top:top + H, left:left + W, :].transpose(0, 2, 3, 1, 4)
        return gx.reshape(N, H, W, G * Cg).transpose(0, 3, 1, 2)

    def _grouped_im2col(self, x_groups, geometry):
        """Receptive fields per group, (G, N*OH*OW, KH*KW*C/G), by the single-group im2col
        over the ``G*N`` images of the group-major input (a view when it built the matrix
        transposed, one channel per group)."""
        G, N = x_groups.shape[:2]
        cols = self._im2col(x_groups.reshape(G * N, *x_groups.shape[2:]), *geometry)
        return cols.reshape(G, -1, cols.shape[1])

    def _grouped_weight_columns(self, w, groups):
        """The filters as ``groups`` GEMM operands, (G, KH*KW*C/G, O/G), rows in im2col's
        (kernel row, kernel column, channel) order."""
        O, Cg, KH, KW = w.shape
        taps = w.reshape(groups, O // groups, Cg, KH, KW).transpose(0, 3, 4, 2, 1)
        return taps.reshape(groups, KH * KW * Cg, O // groups)

    def _groups_rows_last(self, a, groups):
        """An (N, O, H, W) array as a contiguous (G, O/G, N*H*W): one copy."""
        N, O, H, W = a.shape
        out = self.xp.empty((groups, O // groups, N, H, W), a.dtype)
        out[...] = a.reshape(N, groups, O // groups, H, W).transpose(1, 2, 0, 3, 4)
        return out.reshape(groups, O // groups, N * H * W)

    @staticmethod
    def _group_major(a, groups):
        """A (rows, O) array seen as (G, rows, O/G): each group's channels, a view."""
        rows, O = a.shape
        return a.reshape(rows, groups, O // groups).transpose(1, 0, 2)

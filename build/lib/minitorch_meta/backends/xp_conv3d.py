"""Volumetric (3-D) convolution kernels, written once over the array module ``self.xp``
(NumPy or CuPy).

A mixin of ``XpBackend``: it uses ``self.xp``, ``self._as_strided`` and
``self.half_gemm_dtype`` and, like every shared kernel, never names ``numpy`` (a test
enforces it). The tuned 2-D kernels (``xp_conv``, ``xp_winograd``, ``xp_conv_groups``) are
left alone: their blocking and Winograd transforms are 2-D through and through, and a
volume is a different workload (fewer, larger samples), so this is a plain, general path.

Layout: inside, the input is *group-major* channels-last, ``(G, N, D', H', W', C/G)``
(zero-padded; ``G = 1`` without groups), so that an im2col row is the window's taps with
their channels innermost, read as runs of ``KW * C/G`` values. im2col is one strided view
of it, ``(G, N, OD, OH, OW, KD, KH, KW, C/G)``, copied once into ``(G, rows, K)``; the
convolution is then one (batched, over the groups) GEMM against the filters seen as
``(G, K, O/G)``. The output is an NCDHW-shaped view of channels-last storage, as the 2-D
convolution's is (the next convolution's im2col then reads it without a transposing copy).

The input gradient (and the transposed convolution, which is that gradient run as an op)
is one batched GEMM giving every output's ``(KD, KH, KW, C/G)`` patch, then a col2im that
adds the patches into place one kernel tap at a time: windows overlap, so an input position
collects several outputs' contributions, but within one tap the outputs land on distinct
positions (a strided slice), so a plain ``+=`` per tap is exact. That is ``KD*KH*KW`` passes
(27 for a 3x3x3 kernel), each over every sample and output at once; a single scatter-add
would need an int64 index as large as the im2col matrix.

float16 is computed in ``half_gemm_dtype`` (float32 on the CPU) and rounded once, as the
2-D convolution does (see ``xp_half.py``).
"""

from __future__ import annotations

from typing import NamedTuple

from .chunking import samples_per_chunk

# Inference builds im2col this many bytes at a time (as ``xp_conv`` does), not all at once.
CONV3D_CHUNK_BYTES = 4 * 2**20


class Conv3dSaved(NamedTuple):
    """What the forward keeps for backward."""

    cols: object         # (G, N*OD*OH*OW, KD*KH*KW*C/G): the im2col matrix
    x_shape: tuple       # (N, C, D, H, W)
    padded_shape: tuple  # (G, N, D', H', W', C/G): the zero-padded group-major input
    w: object            # (O, C/G, KD, KH, KW)
    stride: tuple
    padding: tuple       # (front, back, top, bottom, left, right)
    dilation: tuple
    out_size: tuple      # (OD, OH, OW)
    groups: int


class Conv3dKernels:
    """``conv3d``, ``conv3d_backward`` and ``conv_transpose3d``."""

    def conv3d(self, x, w, b, stride, padding, dilation, out_size, for_backward=True,
               groups=1):
        """Cross-correlation by im2col and one GEMM per group (batched); see the module
        docstring. Returns ``(y, saved)``, ``saved`` None unless ``for_backward``."""
        if self._widens_gemm(x):
            wide = self.half_gemm_dtype
            y, saved = self._conv3d(x.astype(wide), w.astype(wide),
                                    None if b is None else b.astype(wide), stride, padding,
                                    dilation, out_size, for_backward, groups)
            return y.astype(x.dtype), saved  # ``astype`` keeps the channels-last layout
        return self._conv3d(x, w, b, stride, padding, dilation, out_size, for_backward, groups)

    def conv3d_backward(self, gy, saved, needs_input_grad):
        if self._widens_gemm(gy):  # a float16 gy means a widened forward
            grads = self._conv3d_backward(gy.astype(self.half_gemm_dtype), saved,
                                          needs_input_grad)
            return tuple(None if g is None else g.astype(gy.dtype) for g in grads)
        return self._conv3d_backward(gy, saved, needs_input_grad)

    def conv_transpose3d(self, x, w, b, stride, padding, dilation, out_size, groups=1):
        """conv3d's input gradient as an op: ``x`` (N, O, D, H, W) plays ``gy`` and the
        result (N, C, *out_size) is what a conv3d of that geometry would read; the bias is
        added once per output channel."""
        if self._widens_gemm(x):
            wide = self.half_gemm_dtype
            y = self._conv_transpose3d(x.astype(wide), w.astype(wide),
                                       None if b is None else b.astype(wide), stride, padding,
                                       dilation, out_size, groups)
            return y.astype(x.dtype)
        return self._conv_transpose3d(x, w, b, stride, padding, dilation, out_size, groups)

    # -- the work, in the GEMM's dtype ---------------------------------------------------
    def _conv3d(self, x, w, b, stride, padding, dilation, out_size, for_backward, groups):
        xp = self.xp
        N = x.shape[0]
        O = w.shape[0]
        OD, OH, OW = out_size
        x_groups = self._padded_group_major_3d(x, groups, padding)  # (G, N, D', H', W', C/G)
        w_cols = self._weight_columns_3d(w, groups)  # (G, K, O/G)
        y = xp.empty((N * OD * OH * OW, O), x.dtype)
        saved = None
        if for_backward:
            cols = self._im2col_3d(x_groups, w.shape[2:], stride, dilation, out_size)
            self._gemm_3d(cols, w_cols, y, groups)
            saved = Conv3dSaved(cols, x.shape, x_groups.shape, w, stride, padding, dilation,
                                out_size, groups)
        else:  # inference: a cache-sized chunk of samples at a time, nothing kept
            positions = OD * OH * OW
            step = samples_per_chunk(positions * w_cols.shape[1] * groups * x.dtype.itemsize,
                                     CONV3D_CHUNK_BYTES)
            for start in range(0, N, step):
                stop = min(N, start + step)
                cols = self._im2col_3d(x_groups[:, start:stop], w.shape[2:], stride, dilation,
                                       out_size)
                self._gemm_3d(cols, w_cols, y[start * positions:stop * positions], groups)
        if b is not None:
            y += b
        return y.reshape(N, OD, OH, OW, O).transpose(0, 4, 1, 2, 3), saved

    def _gemm_3d(self, cols, w_cols, y, groups):
        """``y`` (rows, O) = the grouped im2col ``cols`` times the filters ``w_cols``."""
        if groups == 1:
            self.xp.matmul(cols[0], w_cols[0], out=y)
        else:  # each group's outputs are its own run of channels
            y.reshape(-1, groups, y.shape[1] // groups).transpose(1, 0, 2)[...] = \
                self.xp.matmul(cols, w_cols)

    def _conv3d_backward(self, gy, saved, needs_input_grad):
        cols, x_shape, padded_shape, w, stride, padding, dilation, out_size, groups = saved
        O, Cg, KD, KH, KW = w.shape
        gy_t = self._groups_rows_last_3d(gy, groups)  # (G, O/G, N*OD*OH*OW)
        gx = gw = gb = None
        if needs_input_grad[1]:
            g = self.xp.matmul(gy_t, cols)  # (G, O/G, K)
            gw = self.xp.ascontiguousarray(
                g.reshape(O, KD, KH, KW, Cg).transpose(0, 4, 1, 2, 3))
        if len(needs_input_grad) > 2 and needs_input_grad[2]:
            gb = gy_t.sum(axis=2).reshape(O)
        if needs_input_grad[0]:
            gx = self._input_gradient_3d(gy_t, w, groups, padded_shape, padding, x_shape[2:],
                                         stride, dilation, out_size)
        return gx, gw, gb

    def _conv_transpose3d(self, x, w, b, stride, padding, dilation, out_size, groups):
        N = x.shape[0]
        C = w.shape[1] * groups
        sizes = tuple(s + padding[2 * i] + padding[2 * i + 1] for i, s in enumerate(out_size))
        padded_shape = (groups, N) + sizes + (C // groups,)
        y = self._input_gradient_3d(self._groups_rows_last_3d(x, groups), w, groups,
                                    padded_shape, padding, out_size, stride, dilation,
                                    x.shape[2:])
        if b is not None:
            y += b.reshape(1, C, 1, 1, 1)
        return y

    # -- im2col and col2im -----------------------------------------------------------------
    def _padded_group_major_3d(self, x, groups, padding):
        """``x`` (N, C, D, H, W) as zero-padded group-major channels-last storage
        (G, N, D', H', W', C/G): one copy."""
        N, C, D, H, W = x.shape
        front, back, top, bottom, left, right = padding
        out = self.xp.zeros((groups, N, D + front + back, H + top + bottom, W + left + right,
                             C // groups), x.dtype)
        out[:, :, front:front + D, top:top + H, left:left + W, :] = (
            x.reshape(N, groups, C // groups, D, H, W).transpose(1, 0, 3, 4, 5, 2))
        return out

    def _im2col_3d(self, x_groups, kernel, stride, dilation, out_size):
        """Receptive fields per group, (G, N*OD*OH*OW, KD*KH*KW*C/G): one strided view of the
        group-major input, copied once (rows in (kernel depth, row, column, channel) order)."""
        G, N, _, _, _, Cg = x_groups.shape
        KD, KH, KW = kernel
        (sd, sh, sw), (dd, dh, dw) = stride, dilation
        OD, OH, OW = out_size
        bG, bN, bD, bH, bW, bC = x_groups.strides  # in bytes, as ``_as_strided`` takes them
        windows = self._as_strided(
            x_groups, shape=(G, N, OD, OH, OW, KD, KH, KW, Cg),
            strides=(bG, bN, bD * sd, bH * sh, bW * sw, bD * dd, bH * dh, bW * dw, bC))
        return windows.reshape(G, N * OD * OH * OW, KD * KH * KW * Cg)

    def _weight_columns_3d(self, w, groups):
        """The filters as ``groups`` GEMM operands, (G, KD*KH*KW*C/G, O/G), rows in im2col's
        order."""
        O, Cg, KD, KH, KW = w.shape
        taps = w.reshape(groups, O // groups, Cg, KD, KH, KW).transpose(0, 3, 4, 5, 2, 1)
        return taps.reshape(groups, KD * KH * KW * Cg, O // groups)

    def _groups_rows_last_3d(self, a, groups):
        """An (N, O, D, H, W) array, whatever its layout, as a contiguous (G, O/G, N*D*H*W):
        one copy, which the GEMMs then read contiguously."""
        N, O, D, H, W = a.shape
        out = self.xp.empty((groups, O // groups, N, D, H, W), a.dtype)
        out[...] = a.reshape(N, groups, O // groups, D, H, W).transpose(1, 2, 0, 3, 4, 5)
        return out.reshape(groups, O // groups, N * D * H * W)

    def _input_gradient_3d(self, gy_t, w, groups, padded_shape, padding, in_size, stride,
                           dilation, out_size):
        """The gradient of the input, (N, C, *in_size), from ``gy_t`` (G, O/G, N*OD*OH*OW):
        one batched GEMM for every output's patch, then the col2im one kernel tap at a time
        (see the module docstring). An NCDHW view of channels-last memory."""
        xp = self.xp
        G, N = padded_shape[:2]
        Cg = padded_shape[-1]
        _, _, KD, KH, KW = w.shape
        OD, OH, OW = out_size
        (sd, sh, sw), (dd, dh, dw) = stride, dilation
        w_cols = self._weight_columns_3d(w, groups)  # (G, K, O/G)
        patches = xp.matmul(gy_t.transpose(0, 2, 1), w_cols.transpose(0, 2, 1))
        patches = patches.reshape(G, N, OD, OH, OW, KD, KH, KW, Cg)
        gx_pad = xp.zeros(padded_shape, gy_t.dtype)
        for a in range(KD):
            depths = slice(a * dd, a * dd + (OD - 1) * sd + 1, sd)
            for i in range(KH):
                rows = slice(i * dh, i * dh + (OH - 1) * sh + 1, sh)
                for j in range(KW):
                    columns = slice(j * dw, j * dw + (OW - 1) * sw + 1, sw)
                    gx_pad[:, :, depths, rows, columns, :] += patches[:, :, :, :, :, a, i, j, :]
        front, _, top, _, left, _ = padding
        D, H, W = in_size
        gx = xp.empty((N, D, H, W, G, Cg), gy_t.dtype)
        gx[...] = gx_pad[:, :, front:front + D, top:top + H, left:left + W, :].transpose(
            1, 2, 3, 4, 0, 5)
        return gx.reshape(N, D, H, W, G * Cg).transpose(0, 4, 1, 2, 3)

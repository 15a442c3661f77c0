"""Convolution kernels, written once over the array module ``self.xp`` (NumPy or CuPy).

A mixin of ``XpBackend``: it uses ``self.xp`` and ``self._as_strided`` and, like every
shared kernel, never names ``numpy`` (a test enforces it).

Layout choice: convolution works channels-last internally. Its output is an NCHW-shaped
*view* of NHWC storage, so the next convolution's im2col reads contiguous channel runs
and its GEMM output needs no copy (the idea of PyTorch's ``channels_last``).
"""

from __future__ import annotations

from .chunking import samples_per_chunk
from .xp_conv_groups import GroupedSaved
from .xp_winograd import WinogradSaved, use_winograd

# Inference builds im2col this many bytes at a time, so a chunk is still in cache for its GEMM.
IM2COL_CHUNK_BYTES = 4 * 2**20
# The weight gradient is summed over blocks of this many rows when it has at most
# SMALL_GRADIENT_ELEMENTS elements (see ``_weight_gradient``).
GRADIENT_BLOCK_ROWS = 1024
SMALL_GRADIENT_ELEMENTS = 2048


# Inputs with at most this many channels go channels-last one channel at a time.
FEW_CHANNELS = 8


# Output blocking (see ``output_block``): neighbouring outputs share an im2col row until the
# GEMM has this many columns, and while the row's input span is at most
# MAX_BLOCK_REDUNDANCY times the kernel's width (the GEMM multiplies the band's zeros too).
# Only layers with at most FEW_FILTERS filters are blocked (wider GEMMs run well as they
# are). The lecture net's 32-filter first layer, blocked by 3, measured: training step at
# batch 64 5.7% faster (its weight gradient 1.6x), at batch 256 and inference even.
BLOCKED_GEMM_WIDTH = 96
MAX_BLOCK_REDUNDANCY = 2
FEW_FILTERS = 48
# The input gradient's GEMM groups neighbouring outputs until it is this deep (see
# ``backward_block``).
BACKWARD_GEMM_DEPTH = 128


def output_block(out_channels, out_width, kernel_width, stride, dilation) -> int:
    """How many horizontally neighbouring outputs share one im2col row (1: plain im2col).

    With few filters (LeNet's first layer has 6) the GEMM ``im2col @ weights`` is only
    ``out_channels`` wide, and BLAS runs such a narrow product at a fraction of its speed;
    the im2col matrix also copies each input value ``KH*KW`` times in short runs. A row that
    covers ``P`` neighbouring outputs spans ``(P-1)*stride + (KW-1)*dilation + 1`` input
    columns instead of ``P*KW`` (windows overlap), and the GEMM becomes ``P*out_channels``
    wide against a banded weight matrix. Measured on LeNet's first layer, batch 256: the
    forward 24 ms -> 9 ms (``P = 4``, 24 wide). Up to 96 wide, LeNet's second layer's
    forward + weight gradient took 5.2 ms against 6.3 at 32 wide (``P = 5`` against 2), and
    inference at batch 1024 0.90x.

    The band's zeros cost products: per output the GEMM multiplies ``span`` input columns
    instead of ``KW``. So a block is also capped at a span of ``MAX_BLOCK_REDUNDANCY * KW``
    columns. Measured on LeNet's first layer (5x5), batch 256, forward + backward, with
    OpenBLAS's AVX2 kernels: 14.4 ms at ``P = 4`` (span 8) against 16.0 at ``P = 14``
    (span 18, 84 wide); its training step 8% faster, inference at batch 1024 10%. (With
    the AVX-512 kernels the layer alone was 0-6% faster at 14.) Only where windows
    overlap, and for ``P`` dividing the width.
    """
    if out_channels > FEW_FILTERS:
        return 1  # the GEMM is wide enough already
    widest = _widest_block(kernel_width, stride, dilation)
    return _largest_block(out_channels, out_width, kernel_width, stride, dilation,
                          BLOCKED_GEMM_WIDTH, widest)


def _widest_block(kernel_width, stride, dilation) -> int:
    """The most outputs a block may hold with a span of at most MAX_BLOCK_REDUNDANCY * KW."""
    spare = MAX_BLOCK_REDUNDANCY * kernel_width - block_span(1, kernel_width, stride, dilation)
    return max(1, 1 + spare // stride)


def backward_block(out_channels, out_width, kernel_width, stride, dilation) -> int:
    """How many neighbouring outputs share one row of the input-gradient GEMM (1: none).

    The input gradient is ``gy @ weights.T`` and then a col2im of its rows. Plain, that GEMM
    is only ``out_channels`` deep and writes ``KH*KW*C`` values per output pixel, each then
    added into place: for LeNet's second layer, ten times as many values as the gradient
    has. A row of ``P`` neighbouring outputs against the banded weights writes one
    ``KH x span`` patch for all of them (windows overlap, so ``span < P*KW``) and is
    ``P*out_channels`` deep, at the cost of multiplying the band's zeros. Measured here at
    batch 256: LeNet's second layer 7.2 -> 3.0 ms (``P = 5``), its training step 0.87-0.90x;
    the lecture net's second layer (64 filters, ``P = 2``) about even.
    """
    return _largest_block(out_channels, out_width, kernel_width, stride, dilation,
                          BACKWARD_GEMM_DEPTH, out_width)


def _largest_block(out_channels, out_width, kernel_width, stride, dilation, max_columns,
                   max_block) -> int:
    """The largest ``P <= max_block`` dividing ``out_width`` with ``P * out_channels <=
    max_columns``; 1 where windows do not overlap (no input column would be shared)."""
    if stride >= block_span(1, kernel_width, stride, dilation):
        return 1
    best = 1
    for p in range(2, max_block + 1):
        if out_width % p == 0 and p * out_channels <= max_columns:
            best = p
    return best


def block_span(block, kernel_width, stride, dilation) -> int:
    """How many input columns the windows of ``block`` neighbouring outputs cover."""
    return (block - 1) * stride + (kernel_width - 1) * dilation + 1


def im2col_width(w_shape, block, stride, dilation) -> int:
    """The number of im2col columns (without the bias's ones column)."""
    O, C, KH, KW = w_shape
    if block == 1:
        return KH * KW * C
    return KH * block_span(block, KW, stride[1], dilation[1]) * C


class ConvKernels:
    """``conv2d`` and ``conv2d_backward`` by im2col over strided channels-last views."""

    def conv2d(self, x, w, b, stride, padding, dilation, out_hw, for_backward=True, groups=1):
        """Cross-correlation by im2col over strided views of channels-last storage.

        The bias rides in the GEMM: im2col gets a column of ones and the weight matrix the
        bias as its last column, so no separate pass over the output adds it (and backward
        gets the bias gradient from the weight-gradient GEMM).

        For backward, the whole im2col matrix is built once and kept (the weight gradient
        needs it). Without backward (inference), it is built a few samples at a time so each
        chunk is still in cache when its GEMM reads it: measured here, 1.3-1.7x faster.

        Stride-1 layers with many channels take the Winograd path instead
        (``xp_winograd.use_winograd`` decides; ``conv2d_backward`` follows what was saved).
        Grouped convolutions go to ``xp_conv_groups`` before either is considered.
        """
        if groups != 1:
            return self._grouped_conv2d(x, w, b, stride, padding, dilation, out_hw, groups,
                                        for_backward)
        N, C, H, W = x.shape
        O, _, KH, KW = w.shape
        OH, OW = out_hw
        if use_winograd(N, C, O, (KH, KW), stride, dilation, out_hw, x.dtype):
            return self._winograd_conv2d(x, w, b, padding, out_hw, for_backward)
        x_nhwc = self._padded_nhwc(x, padding)
        block = output_block(O, OW, KW, stride[1], dilation[1])
        w_cols = self._weight_columns(w, b, block, stride, dilation)  # (K [+ 1], block*O)
        geometry = ((KH, KW), stride, dilation, out_hw, b is not None, block)
        y = self.xp.empty((N * OH * OW, O), x.dtype)
        saved = None
        if for_backward:
            cols = self._im2col(x_nhwc, *geometry)  # (N*OH*OW/block, K [+ 1])
            self._matmul_im2col(cols, w_cols, out=y.reshape(-1, block * O))
            saved = (cols, block, x.shape, x_nhwc.shape, w, stride, padding, dilation, out_hw)
        else:
            rows = OH * OW
            step = samples_per_chunk(rows // block * w_cols.shape[0] * x.dtype.itemsize,
                                     IM2COL_CHUNK_BYTES)
            for start in range(0, N, step):
                stop = min(N, start + step)
                cols = self._im2col(x_nhwc[start:stop], *geometry)
                self._matmul_im2col(cols, w_cols,
                                    out=y[start * rows:stop * rows].reshape(-1, block * O))
        return y.reshape(N, OH, OW, O).transpose(0, 3, 1, 2), saved

    def _matmul_im2col(self, cols, w_cols, out):
        """``out = cols @ w_cols``, in blocks of ``transposed_gemm_rows`` rows when ``cols``
        is a transposed view (the one-channel im2col, see ``_im2col``).

        OpenBLAS runs a product whose tall left operand is transposed at half its speed:
        measured here on the lecture net's first layer at batch 256, (147456 x 26) @ (26 x 32)
        took 3.6 ms in one call and 1.7-1.9 ms in blocks of 2048-4096 rows. A backend whose
        GEMMs need no such help (CuPy: one launch beats many) sets no block size.
        """
        step = self.transposed_gemm_rows
        if step is None or cols.flags.c_contiguous or cols.shape[0] <= step:
            return self.xp.matmul(cols, w_cols, out=out)
        for start in range(0, cols.shape[0], step):
            self.xp.matmul(cols[start:start + step], w_cols, out=out[start:start + step])
        return out

    def _weight_columns(self, w, b, block, stride, dilation):
        """The GEMM's right operand: one column per output channel of each of ``block``
        neighbouring output pixels, one row per im2col column (and the bias last).

        With ``block > 1`` a row of im2col spans the input columns of ``block`` adjacent
        outputs (``block_span`` of them), and each output's filter sits at its own offset
        among them, zeros elsewhere (a banded matrix).
        """
        O, C, KH, KW = w.shape
        taps = w.transpose(2, 3, 1, 0)  # (KH, KW, C, O)
        if block == 1:
            columns = taps.reshape(KH * KW * C, O)
        else:
            (_, sw), (_, dw) = stride, dilation
            span = block_span(block, KW, sw, dw)
            banded = self.xp.zeros((KH, span, C, block, O), w.dtype)
            for p in range(block):
                banded[:, p * sw:p * sw + (KW - 1) * dw + 1:dw, :, p, :] = taps
            columns = banded.reshape(KH * span * C, block * O)
        if b is None:
            return columns
        return self.xp.concatenate([columns, self.xp.tile(b, block).reshape(1, -1)], axis=0)

    def conv2d_backward(self, gy, saved, needs_input_grad):
        if isinstance(saved, WinogradSaved):
            return self._winograd_backward(gy, saved, needs_input_grad)
        if isinstance(saved, GroupedSaved):
            return self._grouped_conv2d_backward(gy, saved, needs_input_grad)
        cols, block, x_shape, padded_shape, w, stride, padding, dilation, out_hw = saved
        N, C, H, W = x_shape
        O, _, KH, KW = w.shape
        OH, OW = out_hw
        gy2 = gy.transpose(0, 2, 3, 1).reshape(N * OH * OW, O)  # free when gy is channels-last
        need_gw = needs_input_grad[1]
        need_gb = len(needs_input_grad) > 2 and needs_input_grad[2]
        gx = gw = gb = None
        if need_gw:
            # Rows of gy in im2col's grouping: ``block`` neighbouring outputs per row.
            g_cols = self._weight_gradient(gy2.reshape(-1, block * O), cols)
            width = im2col_width(w.shape, block, stride, dilation)
            gw = self._fold_weight_gradient(g_cols[:, :width], w.shape, block, stride, dilation)
            if need_gb and cols.shape[1] > width:
                # The ones column gave the sum over rows of gy (per output of a block).
                gb = g_cols[:, width].reshape(block, O).sum(axis=0)
        if need_gb and gb is None:
            gb = gy2.sum(axis=0)
        if needs_input_grad[0]:
            gx = self._cropped_input_gradient(gy2, w, padded_shape, padding, (H, W), stride,
                                              dilation, out_hw)
        return gx, gw, gb

    def conv_transpose2d(self, x, w, b, stride, padding, dilation, out_hw, groups=1):
        """conv2d's input gradient as an op: ``x`` (N, O, H, W) plays ``gy`` and the result
        (N, C, *out_hw) is what a conv2d of that geometry would read (the col2im of
        ``_input_gradient``); the bias is added once per output channel."""
        if groups != 1:
            return self._grouped_conv_transpose2d(x, w, b, stride, padding, dilation, out_hw,
                                                  groups)
        N, O, H, W = x.shape
        C = w.shape[1]
        top, bottom, left, right = padding
        padded_shape = (N, out_hw[0] + top + bottom, out_hw[1] + left + right, C)
        gy2 = x.transpose(0, 2, 3, 1).reshape(N * H * W, O)  # free when x is channels-last
        y = self._cropped_input_gradient(gy2, w, padded_shape, padding, out_hw, stride,
                                         dilation, (H, W))
        if b is not None:
            y += b.reshape(1, C, 1, 1)
        return y

    def _cropped_input_gradient(self, gy2, w, padded_shape, padding, in_hw, stride, dilation,
                                out_hw):
        """``_input_gradient`` without the padding: an NCHW-shaped view of channels-last
        memory, (N, C, *in_hw)."""
        gx_pad = self._input_gradient(gy2, w, padded_shape, stride, dilation, out_hw)
        top, _, left, _ = padding
        (H, W) = in_hw
        return gx_pad[:, top:top + H, left:left + W, :].transpose(0, 3, 1, 2)

    def _input_gradient(self, gy2, w, padded_shape, stride, dilation, out_hw, block=None):
        """The gradient of the zero-padded channels-last input, (N, H', W', C).

        The transpose of the blocked forward: one GEMM of ``gy`` (``block`` neighbouring
        outputs per row) against the banded weight matrix gives, per row, the gradient of
        the ``KH x span`` input patch those outputs read; the patches are then added into
        place (``_add_patches``). A cache-sized chunk of samples at a time, so the patches
        are still in cache when they are added.
        """
        N, _, _, C = padded_shape
        O, _, KH, KW = w.shape
        OH, OW = out_hw
        (_, sw), (_, dw) = stride, dilation
        if block is None:
            block = backward_block(O, OW, KW, sw, dw)
        # A patch row: ``span`` adjacent columns (block > 1: the banded weights hold the
        # dilation's gaps as zeros), or the KW taps ``dw`` apart (block 1).
        columns = block_span(block, KW, sw, dw) if block > 1 else KW
        w_cols_t = self._weight_columns(w, None, block, stride, dilation).T  # (block*O, K)
        rows = OH * (OW // block)  # GEMM rows per sample
        gy_rows = gy2.reshape(N * rows, block * O)
        gx_pad = self.xp.zeros(padded_shape, gy2.dtype)
        step = samples_per_chunk(rows * w_cols_t.shape[1] * gy2.itemsize, IM2COL_CHUNK_BYTES)
        buffer = self.xp.empty((min(step, N) * rows, w_cols_t.shape[1]), gy2.dtype)
        for start in range(0, N, step):
            n = min(step, N - start)
            patches = self.xp.matmul(gy_rows[start * rows:(start + n) * rows], w_cols_t,
                                     out=buffer[:n * rows])
            self._add_patches(gx_pad[start:start + n],
                              patches.reshape(n, OH, OW // block, KH, columns, C),
                              block, stride, dilation)
        return gx_pad

    def _add_patches(self, gx_pad, patches, block, stride, dilation):
        """col2im: add each block's (KH, columns, C) patch where its windows lie in ``gx_pad``.

        Patches of blocks ``apart`` blocks apart never overlap, so the adds take
        ``KH * apart`` passes, each a strided view over runs of ``columns * C`` values (one
        run per output row when a block spans the whole width).
        """
        _, _, blocks, KH, columns, _ = patches.shape
        (sh, sw), (dh, dw) = stride, dilation
        # The input columns one block's patch covers, and the step between its columns.
        span, column_stride = (columns, 1) if block > 1 else (block_span(1, columns, sw, dw), dw)
        apart = min(-(-span // (block * sw)), blocks)
        sN, sH, sW, sC = gx_pad.strides
        # Each view stays inside gx_pad: the last block's patch ends at the last padded
        # column any window reads, (OW - 1) * sw + (KW - 1) * dw.
        for i in range(KH):
            for r in range(apart):
                source = patches[:, :, r::apart, i]
                target = self._as_strided(gx_pad[:, i * dh:, r * block * sw:, :],
                                          shape=source.shape,
                                          strides=(sN, sH * sh, sW * block * sw * apart,
                                                   sW * column_stride, sC))
                target += source

    def _padded_nhwc(self, x, padding):
        """``x`` (N, C, H, W) as contiguous channels-last storage (N, H', W', C), zero-padded.

        One copy at most: none when ``x`` is already a channels-last view (the output of a
        previous conv, pool or elementwise op on one), so im2col reads contiguous runs of
        ``KW * C`` values instead of gathering across channel planes.
        """
        top, bottom, left, right = padding
        unpadded = not (top or bottom or left or right)
        x_nhwc = x.transpose(0, 2, 3, 1)
        if unpadded and x_nhwc.flags.c_contiguous:
            return x_nhwc
        N, H, W, C = x_nhwc.shape
        make = self.xp.empty if unpadded else self.xp.zeros
        out = make((N, H + top + bottom, W + left + right, C), x_nhwc.dtype)
        inner = out[:, top:top + H, left:left + W, :]
        if C <= FEW_CHANNELS and not x_nhwc.flags.c_contiguous:
            # One strided copy per channel: NumPy's transposing copy walks the source in
            # runs of C values, 2-5x slower here for an RGB batch.
            for c in range(C):
                inner[..., c] = x[:, c]
        else:
            inner[...] = x_nhwc
        return out

    def _im2col(self, x_nhwc, kernel, stride, dilation, out_hw, ones_column=False, block=1):
        """Rows of receptive fields, plus a last column of ones if asked.

        ``block == 1``: (N*OH*OW, KH*KW*C), row-major, each row copied as runs of
        ``KW * C`` values. ``block > 1``: (N*OH*OW/block, KH*span*C), a row per ``block``
        neighbouring outputs, spanning their ``span`` input columns (see ``output_block``).

        With one input channel the runs are only ``KW`` (or ``span``) long, so the matrix is
        built transposed instead (each column a run of output pixels: 4x faster here for the
        plain layout, 1.35x for the lecture net's block of 3) and returned as a transposed
        view: the GEMMs read either layout (see ``_matmul_im2col``).
        """
        N, _, _, C = x_nhwc.shape
        (KH, KW), (sh, sw), (dh, dw), (OH, OW) = kernel, stride, dilation, out_hw
        sN, sH, sW, sC = x_nhwc.strides
        if block > 1:
            shape = (N, OH, OW // block, KH, block_span(block, KW, sw, dw), C)
            strides = (sN, sH * sh, sW * sw * block, sH * dh, sW, sC)
        else:
            shape = (N, OH, OW, KH, KW, C)
            strides = (sN, sH * sh, sW * sw, sH * dh, sW * dw, sC)
        rows, k = shape[0] * shape[1] * shape[2], shape[3] * shape[4] * C
        if C == 1:
            # The same windows, kernel taps first: (KH, KW or span, N, OH, OW/block).
            taps_first = self._as_strided(x_nhwc, shape=shape[3:5] + shape[:3],
                                          strides=strides[3:5] + strides[:3])
            if not ones_column:
                return taps_first.reshape(k, rows).T
            cols_t = self.xp.empty((k + 1, rows), x_nhwc.dtype)
            cols_t[:k].reshape(taps_first.shape)[...] = taps_first  # a view: rows are whole
            cols_t[k] = 1
            return cols_t.T
        windows = self._as_strided(x_nhwc, shape=shape, strides=strides)
        if not ones_column:
            return windows.reshape(rows, k)
        cols = self.xp.empty((rows, k + 1), x_nhwc.dtype)
        cols[:, k] = 1
        # The first k columns seen with the windows' shape: one strided copy fills them.
        item, row = cols.itemsize, cols.strides[0]
        target = self._as_strided(cols, shape=shape,
                                  strides=(shape[1] * shape[2] * row, shape[2] * row, row,
                                           shape[4] * C * item, C * item, item))
        target[...] = windows
        return cols

    def _fold_weight_gradient(self, g, w_shape, block, stride, dilation):
        """The (O, C, KH, KW) weight gradient from ``gy.T @ im2col`` (bias column dropped)."""
        O, C, KH, KW = w_shape
        if block == 1:
            folded = g.reshape(O, KH, KW, C)
        else:  # each output of a block saw the filter at its own offset in the span
            (_, sw), (_, dw) = stride, dilation
            banded = g.reshape(block, O, KH, block_span(block, KW, sw, dw), C)
            folded = banded[0, :, :, 0:(KW - 1) * dw + 1:dw, :]
            for p in range(1, block):
                folded = folded + banded[p, :, :, p * sw:p * sw + (KW - 1) * dw + 1:dw, :]
        return self.xp.ascontiguousarray(folded.transpose(0, 3, 1, 2))

    def _weight_gradient(self, gy2, cols):
        """``gy2.T @ cols``; summed over row blocks when the result is tiny.

        With a tiny (O, K) result (the first layer: few filters, few input channels) one
        GEMM over all N*OH*OW rows runs at a fraction of BLAS's speed; blocks of rows that
        stay in cache, summed, measured 2x faster here. Larger results keep one GEMM.
        """
        rows, k = cols.shape
        if gy2.shape[1] * k > SMALL_GRADIENT_ELEMENTS or rows <= GRADIENT_BLOCK_ROWS:
            return gy2.T @ cols
        gw = self.xp.zeros((gy2.shape[1], k), cols.dtype)
        for start in range(0, rows, GRADIENT_BLOCK_ROWS):
            block = slice(start, start + GRADIENT_BLOCK_ROWS)
            gw += gy2[block].T @ cols[block]
        return gw

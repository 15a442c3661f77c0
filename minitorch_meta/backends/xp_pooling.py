"""Max-pooling kernels, written once over the array module ``self.xp`` (NumPy or CuPy).

A mixin of ``XpBackend``: it uses ``self.xp``, ``self._as_strided`` and
``self.scatter_add`` and, like every shared kernel, never names ``numpy`` (a test
enforces it).
"""

from __future__ import annotations


class PoolingKernels:
    """``max_pool2d`` and ``max_pool2d_backward`` over strided views, in the input's layout."""

    def max_pool2d(self, x, kernel, stride, padding, dilation, out_hw, with_indices=True):
        """Max over strided windows; indices are flat positions in each input plane.

        One pass per kernel tap over output-sized views, in the input's memory order, so a
        channels-last input gives a channels-last output (and gradient) with no transposing
        copy. The first maximum of a window wins, as with ``argmax``; windows holding NaN
        take the exact ``argmax`` path so NaN is picked as before. Without ``with_indices``
        (inference) only the maxima are computed, and ``None`` stands for the indices.
        """
        xp = self.xp
        padded = self._pool_padded(x, kernel, stride, padding, dilation, out_hw)
        taps = self._pool_taps(padded, kernel, stride, dilation, out_hw)
        y = taps[0].copy(order="K")
        if not with_indices:
            for t in taps[1:]:
                xp.maximum(y, t, out=y)  # NaN propagates, as PyTorch's max pooling does
            return y, None
        # The winning tap of each window: the last tap that strictly raised the maximum,
        # i.e. max over t of t * better_t (uint8 arithmetic: ~40x faster than a masked copy).
        tap_type = xp.uint8 if len(taps) <= 255 else xp.int64
        tap = xp.zeros_like(y, dtype=tap_type)
        scratch = xp.empty_like(tap)
        for t in range(1, len(taps)):
            better = taps[t] > y
            xp.maximum(y, taps[t], out=y)
            xp.multiply(better, tap_type(t), out=scratch)
            xp.maximum(tap, scratch, out=tap)
        if y.dtype.kind == "f" and bool(xp.isnan(y).any()):
            return self._max_pool2d_argmax(padded, x.shape, kernel, stride, padding, dilation,
                                           out_hw)
        return y, self._pool_indices(tap, x.shape, kernel, stride, padding, dilation)

    def _pool_padded(self, x, kernel, stride, padding, dilation, out_hw):
        """``x`` padded with its dtype's lowest value (ceil_mode windows may hang past it too)."""
        xp = self.xp
        N, C, H, W = x.shape
        (KH, KW), (sh, sw), (ph, pw), (dh, dw), (OH, OW) = kernel, stride, padding, dilation, out_hw
        extra_h = max(0, (OH - 1) * sh + (KH - 1) * dh + 1 - (H + 2 * ph))
        extra_w = max(0, (OW - 1) * sw + (KW - 1) * dw + 1 - (W + 2 * pw))
        if not (ph or pw or extra_h or extra_w):
            return x
        low = -xp.inf if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
        shape = (N, H + 2 * ph + extra_h, W + 2 * pw + extra_w, C)
        if _is_channels_last(x):  # keep the input's layout
            padded = xp.full(shape, low, x.dtype).transpose(0, 3, 1, 2)
        else:
            padded = xp.full((N, C) + shape[1:3], low, x.dtype)
        padded[:, :, ph:ph + H, pw:pw + W] = x
        return padded

    def _pool_taps(self, padded, kernel, stride, dilation, out_hw):
        """One (N, C, OH, OW) strided view per kernel tap, in row-major tap order."""
        N, C = padded.shape[:2]
        (KH, KW), (sh, sw), (dh, dw), (OH, OW) = kernel, stride, dilation, out_hw
        sN, sC, sH, sW = padded.strides
        windows = self._as_strided(padded, shape=(KH, KW, N, C, OH, OW),
                                   strides=(sH * dh, sW * dw, sN, sC, sH * sh, sW * sw))
        return [windows[i, j] for i in range(KH) for j in range(KW)]

    def _pool_indices(self, tap, x_shape, kernel, stride, padding, dilation):
        """Flat input-plane positions of the winning taps (PyTorch's ``indices``)."""
        xp = self.xp
        W = x_shape[3]
        (KH, KW), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
        t = xp.arange(KH * KW)
        tap_offset = (t // KW) * (dh * W) + (t % KW) * dw
        OH, OW = tap.shape[2:]
        window_origin = ((xp.arange(OH) * sh - ph) * W)[:, None] + (xp.arange(OW) * sw - pw)
        return tap_offset[tap] + window_origin

    def _max_pool2d_argmax(self, padded, x_shape, kernel, stride, padding, dilation, out_hw):
        """The reference path: argmax over each window gathered whole (used when NaN occurs)."""
        xp = self.xp
        N, C, H, W = x_shape
        (KH, KW), (sh, sw), (ph, pw), (dh, dw), (OH, OW) = kernel, stride, padding, dilation, out_hw
        sN, sC, sH, sW = padded.strides
        windows = self._as_strided(padded, shape=(N, C, OH, OW, KH, KW),
                                   strides=(sN, sC, sH * sh, sW * sw, sH * dh, sW * dw))
        flat = windows.reshape(N, C, OH, OW, KH * KW)
        arg = flat.argmax(axis=-1)
        y = xp.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
        row = arg // KW * dh + (xp.arange(OH) * sh - ph)[:, None]
        col = arg % KW * dw + (xp.arange(OW) * sw - pw)
        return y, row * W + col

    def max_pool2d_backward(self, gy, indices, x_shape, kernel, stride, dilation):
        """Route each output gradient to its input position; channels-last in, channels-last out."""
        xp = self.xp
        N, C, H, W = x_shape
        channels_last = _is_channels_last(indices)
        if channels_last:  # position in (N, H, W, C) storage: (n*H*W + index)*C + c
            offsets = ((xp.arange(N, dtype=indices.dtype) * (H * W * C)).reshape(N, 1, 1, 1)
                       + xp.arange(C, dtype=indices.dtype).reshape(1, C, 1, 1))
            flat_index = (indices * C + offsets).ravel()
        else:  # position in (N, C, H, W) storage: (n*C + c)*H*W + index
            offsets = (xp.arange(N * C, dtype=indices.dtype) * (H * W)).reshape(N, C, 1, 1)
            flat_index = (indices + offsets).ravel()
        gy_flat = gy.ravel()
        if bool((indices.min() < 0) | (indices.max() >= H * W)):
            # A window lying wholly in the padding (possible with dilation or ceil_mode) has
            # output -inf and an index outside the plane: its gradient belongs to no input.
            inside = ((indices >= 0) & (indices < H * W)).ravel()
            flat_index, gy_flat = flat_index[inside], gy_flat[inside]
        gx = xp.zeros(N * C * H * W, gy.dtype)
        windows_overlap = any(s < (k - 1) * d + 1 for k, s, d in zip(kernel, stride, dilation))
        if windows_overlap:
            self.scatter_add(gx, flat_index, gy_flat)
        else:  # each input element is the maximum of at most one window
            gx[flat_index] = gy_flat
        if channels_last:
            return gx.reshape(N, H, W, C).transpose(0, 3, 1, 2)
        return gx.reshape(x_shape)


def _is_channels_last(a) -> bool:
    """True when the channel axis of the NCHW-shaped ``a`` has the smallest stride."""
    return a.shape[1] > 1 and a.strides[1] < min(a.strides[2:]) and a.shape[2] * a.shape[3] > 1

"""Kernels written once over an array module ``xp`` (NumPy on the CPU, CuPy on CUDA).

Everything device-specific (which module, scatter-add, synchronisation, device selection)
comes from the subclass; nothing here may name ``numpy`` directly (a test enforces it),
so that the CUDA path runs exactly this code.

Layout choice: convolution works channels-last internally. Its output is an NCHW-shaped
*view* of NHWC storage, so the next convolution's im2col reads contiguous channel runs
and its GEMM output needs no copy (the idea of PyTorch's ``channels_last``).
"""

from __future__ import annotations

from .base import Backend


class XpBackend(Backend):
    """The shared implementation of every data kernel, over ``self.xp``."""

    xp = None  # the array module, set by the subclass

    def __init__(self, device, xp, as_strided):
        super().__init__(device)
        self.xp = xp
        self._as_strided = as_strided
        self._unary = {"neg": xp.negative, "abs": xp.abs, "exp": xp.exp, "log": xp.log,
                       "sign": xp.sign, "sqrt": xp.sqrt}
        self._binary = {"add": xp.add, "sub": xp.subtract, "mul": xp.multiply,
                        "div": xp.true_divide, "pow": xp.power, "maximum": xp.maximum,
                        "minimum": xp.minimum, "eq": xp.equal, "ne": xp.not_equal,
                        "lt": xp.less, "le": xp.less_equal, "gt": xp.greater,
                        "ge": xp.greater_equal}
        self.generator = self.new_generator(None)

    # -- device-specific pieces a subclass provides -----------------------------------
    def scatter_add(self, target, index, values):
        """``target[index] += values`` with repeated indices accumulated (unbuffered)."""
        raise NotImplementedError

    # -- creation and transfer --------------------------------------------------------
    def empty(self, shape, dtype):
        return self.xp.empty(shape, dtype.numpy)

    def full(self, shape, value, dtype):
        return self.xp.full(shape, value, dtype.numpy)

    def arange(self, start, end, step, dtype):
        return self.xp.arange(start, end, step, dtype=dtype.numpy)

    def asarray(self, data, dtype):
        return self.xp.asarray(data, dtype=None if dtype is None else dtype.numpy)

    def new_generator(self, seed):
        return self.xp.random.default_rng(seed)

    def uniform(self, shape, low, high, dtype, generator):
        rng = generator or self.generator
        a = rng.random(shape, dtype=dtype.numpy)
        if low != 0.0 or high != 1.0:
            a *= high - low
            a += low
        return a

    def normal(self, shape, mean, std, dtype, generator):
        rng = generator or self.generator
        a = rng.standard_normal(shape, dtype=dtype.numpy)
        if std != 1.0:
            a *= std
        if mean != 0.0:
            a += mean
        return a

    # -- elementwise -----------------------------------------------------------------
    def unary(self, name, a):
        return self._unary[name](a)

    def binary(self, name, a, b):
        return self._binary[name](a, b)

    def where(self, condition, a, b):
        return self.xp.where(condition, a, b)

    # -- reductions ------------------------------------------------------------------
    def sum(self, a, axis, keepdims):
        return a.sum(axis=axis, keepdims=keepdims)

    def max(self, a, axis, keepdims):
        return a.max(axis=axis, keepdims=keepdims)

    def argmax(self, a, axis, keepdims):
        return a.argmax(axis=axis, keepdims=keepdims)

    def sum_to_shape(self, a, shape):
        if a.shape == shape:
            return a
        lead = a.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, size in enumerate(shape) if size == 1 and a.shape[lead + i] != 1)
        return a.sum(axis=axes, keepdims=True).reshape(shape)

    # -- linear algebra --------------------------------------------------------------
    def matmul(self, a, b):
        return self.xp.matmul(a, b)

    # -- layout and indexing ---------------------------------------------------------
    def reshape(self, a, shape):
        return a.reshape(shape)

    def transpose(self, a, axes):
        return a.transpose(axes)

    def astype(self, a, dtype):
        return a.astype(dtype.numpy, copy=False)

    def copy(self, a):
        return a.copy()

    def getitem(self, a, index):
        return a[index]

    def setitem(self, a, index, value):
        a[index] = value

    def index_add(self, shape, index, values, dtype):
        out = self.xp.zeros(shape, dtype.numpy)
        if _is_basic_index(index):
            out[index] = values  # basic indices select each element at most once
        else:
            self.scatter_add(out, index, values)
        return out

    # -- convolution -----------------------------------------------------------------
    def conv2d(self, x, w, b, stride, padding, dilation, out_hw):
        """Cross-correlation by im2col over strided views of channels-last storage."""
        N, C, H, W = x.shape
        O, _, KH, KW = w.shape
        OH, OW = out_hw
        xp_nhwc = self._pad_nhwc(x.transpose(0, 2, 3, 1), padding)
        cols = self._im2col(xp_nhwc, (KH, KW), stride, dilation, out_hw)  # (N*OH*OW, KH*KW*C)
        w2 = w.transpose(0, 2, 3, 1).reshape(O, KH * KW * C)
        y = cols @ w2.T
        if b is not None:
            y += b
        y = y.reshape(N, OH, OW, O).transpose(0, 3, 1, 2)
        saved = (cols, w2, x.shape, xp_nhwc.shape, w.shape, stride, padding, dilation, out_hw)
        return y, saved

    def conv2d_backward(self, gy, saved, needs_input_grad):
        cols, w2, x_shape, padded_shape, w_shape, stride, padding, dilation, out_hw = saved
        N, C, H, W = x_shape
        O, _, KH, KW = w_shape
        OH, OW = out_hw
        gy2 = gy.transpose(0, 2, 3, 1).reshape(N * OH * OW, O)
        gx = gw = gb = None
        if needs_input_grad[1]:
            gw = (gy2.T @ cols).reshape(O, KH, KW, C).transpose(0, 3, 1, 2)
            gw = self.xp.ascontiguousarray(gw)
        if len(needs_input_grad) > 2 and needs_input_grad[2]:
            gb = gy2.sum(axis=0)
        if needs_input_grad[0]:
            gcols = (gy2 @ w2).reshape(N, OH, OW, KH, KW, C)
            gx_pad = self.xp.zeros(padded_shape, gy.dtype)
            (sh, sw), (dh, dw) = stride, dilation
            for i in range(KH):  # a loop over kernel taps, never over samples or pixels
                for j in range(KW):
                    gx_pad[:, i * dh:i * dh + sh * (OH - 1) + 1:sh,
                           j * dw:j * dw + sw * (OW - 1) + 1:sw, :] += gcols[:, :, :, i, j, :]
            top, _, left, _ = padding
            gx = gx_pad[:, top:top + H, left:left + W, :].transpose(0, 3, 1, 2)
        return gx, gw, gb

    def _pad_nhwc(self, x_nhwc, padding):
        top, bottom, left, right = padding
        if not (top or bottom or left or right):
            return x_nhwc
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

    # -- pooling ---------------------------------------------------------------------
    def max_pool2d(self, x, kernel, stride, padding, dilation, out_hw):
        """Max over strided windows; indices are flat positions in each input plane."""
        xp = self.xp
        N, C, H, W = x.shape
        (KH, KW), (sh, sw), (ph, pw), (dh, dw), (OH, OW) = kernel, stride, padding, dilation, out_hw
        # ceil_mode may let the last window hang past the padded input: pad it with -inf too.
        need_h = (OH - 1) * sh + (KH - 1) * dh + 1
        need_w = (OW - 1) * sw + (KW - 1) * dw + 1
        extra_h = max(0, need_h - (H + 2 * ph))
        extra_w = max(0, need_w - (W + 2 * pw))
        if ph or pw or extra_h or extra_w:
            low = -xp.inf if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
            padded = xp.full((N, C, H + 2 * ph + extra_h, W + 2 * pw + extra_w), low, x.dtype)
            padded[:, :, ph:ph + H, pw:pw + W] = x
        else:
            padded = x
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
        xp = self.xp
        N, C, H, W = x_shape
        plane = H * W
        offsets = (xp.arange(N * C, dtype=indices.dtype) * plane).reshape(N, C, 1, 1)
        flat_index = (indices + offsets).ravel()
        gx = xp.zeros(N * C * plane, gy.dtype)
        windows_overlap = any(s < (k - 1) * d + 1 for k, s, d in zip(kernel, stride, dilation))
        if windows_overlap:
            self.scatter_add(gx, flat_index, gy.ravel())
        else:  # each input element is the maximum of at most one window
            gx[flat_index] = gy.ravel()
        return gx.reshape(x_shape)


def _is_basic_index(index) -> bool:
    """True when ``index`` uses only ints, slices, None and Ellipsis (no repeated picks)."""
    items = index if isinstance(index, tuple) else (index,)
    return all(isinstance(i, (int, slice)) or i is None or i is Ellipsis for i in items)

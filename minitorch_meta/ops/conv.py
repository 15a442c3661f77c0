"""2-D convolution (cross-correlation, as in PyTorch) with stride, padding, dilation, bias."""

from __future__ import annotations

from . import shapes
from .function import Function
from .shapes import ShapeError, fmt


def pair(value, name: str = "value") -> tuple:
    """``3 -> (3, 3)``; a 2-tuple passes through (PyTorch's ``_pair``)."""
    if isinstance(value, int):
        return (value, value)
    value = tuple(value)
    if len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise TypeError(f"{name} must be an int or a pair of ints, got {value!r}")
    return value


def conv_padding(padding, kernel, dilation, stride) -> tuple:
    """Normalise ``padding`` (int, pair, ``'same'``, ``'valid'``) to (top, bottom, left, right)."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0, 0, 0)
        if padding != "same":
            raise ValueError(f"conv2d: padding must be an int, a pair, 'same' or 'valid', "
                             f"got {padding!r}")
        if stride != (1, 1):
            raise ValueError(f"conv2d: padding='same' is not supported for strided convolutions "
                             f"(stride={stride}); use stride=1 or an explicit padding")
        total = [d * (k - 1) for k, d in zip(kernel, dilation)]
        # As in PyTorch, an odd total puts the extra row/column at the bottom/right.
        return (total[0] // 2, total[0] - total[0] // 2, total[1] // 2, total[1] - total[1] // 2)
    ph, pw = pair(padding, "padding")
    return (ph, ph, pw, pw)


class Conv2d(Function):
    """Cross-correlate a batch of images with a bank of filters.

    Shape:
        input ``(N, C_in, H, W)``, weight ``(C_out, C_in, kH, kW)``, bias ``(C_out,)`` ->
        output ``(N, C_out, H_out, W_out)`` with
        ``H_out = conv_out_size(H, kH, stride, padding, dilation)`` (likewise W).

    Raises:
        ShapeError: wrong ranks, channel mismatch, kernel larger than the padded input,
            non-positive stride or dilation, negative padding.
    """

    op_name, backward_name = "conv2d", "ConvolutionBackward0"
    saved_for_backward = (0, 1)

    def infer(self, x, w, b=None):
        op = "conv2d"
        shapes.require_ndim(op, "input", x.shape, (4,), " (N, C, H, W)")
        shapes.require_ndim(op, "weight", w.shape, (4,), " (out_channels, in_channels, kH, kW)")
        shapes.require_same_dtype(op, "input", x.dtype, "weight", w.dtype)
        N, C, H, W = x.shape
        O, C_w, KH, KW = w.shape
        if C != C_w:
            raise ShapeError(op, f"input has {C} channels but weight expects {C_w} (weight shape "
                                 f"{fmt(w.shape)}); input shape {fmt(x.shape)}")
        if b is not None and tuple(b.shape) != (O,):
            raise ShapeError(op, f"bias should have shape ({O},) to match the {O} output channels "
                                 f"of weight {fmt(w.shape)}, but has shape {fmt(b.shape)}")
        if b is not None:
            shapes.require_same_dtype(op, "input", x.dtype, "bias", b.dtype)
        stride, dilation = pair(self.stride, "stride"), pair(self.dilation, "dilation")
        if min(stride) <= 0:
            raise ShapeError(op, f"stride should be greater than zero, got {stride}")
        if min(dilation) <= 0:
            raise ShapeError(op, f"dilation should be greater than zero, got {dilation}")
        padding = conv_padding(self.padding, (KH, KW), dilation, stride)
        if min(padding) < 0:
            raise ShapeError(op, f"negative padding is not supported, got {self.padding}")
        padded = (H + padding[0] + padding[1], W + padding[2] + padding[3])
        extent = (dilation[0] * (KH - 1) + 1, dilation[1] * (KW - 1) + 1)
        if padded[0] < extent[0] or padded[1] < extent[1]:
            raise ShapeError(op, f"calculated padded input size per channel: ({padded[0]} x "
                                 f"{padded[1]}); kernel size: ({extent[0]} x {extent[1]}). Kernel "
                                 f"size can't be greater than actual input size (input shape "
                                 f"{fmt(x.shape)}, weight shape {fmt(w.shape)})")
        out_h = shapes.conv_out_size(H, KH, stride[0], padding[0], dilation[0],
                                     padding_after=padding[1])
        out_w = shapes.conv_out_size(W, KW, stride[1], padding[2], dilation[1],
                                     padding_after=padding[3])
        self.geometry = (stride, padding, dilation, (out_h, out_w))
        return (N, O, out_h, out_w), x.dtype

    def forward(self, backend, x, w, b=None):
        stride, padding, dilation, out_hw = self.geometry
        y, self.saved = backend.conv2d(x, w, b, stride, padding, dilation, out_hw,
                                       for_backward=self.recording)
        return y

    def backward(self, backend, gy):
        grads = backend.conv2d_backward(gy, self.saved, self.needs_input_grad)
        return grads[:len(self.input_specs)]

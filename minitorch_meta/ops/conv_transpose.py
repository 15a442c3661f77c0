"""Transposed convolution (PyTorch's ``conv_transpose2d``/``conv_transpose1d``): the gradient
of a convolution with respect to its input, run as an op.

Forward is the convolution's input-gradient kernel (``conv_transpose2d``, the col2im of
``xp_conv``); backward is a convolution: the input's gradient is ``conv2d(gy, w)`` and the
weight's is that convolution's weight gradient against ``x``. The 1-D op runs the same 2-D
kernels on inputs of height 1.
"""

from __future__ import annotations

from . import shapes
from .conv import (
    check_empty_sizes,
    check_groups,
    lift_to_2d,
    ntuple,
    require_divisible_by_groups,
    with_height,
    without_height,
)
from .function import Function
from .shapes import ShapeError, fmt

_INPUT_LAYOUT = {1: " (N, C_in, L)", 2: " (N, C_in, H, W)", 3: " (N, C_in, D, H, W)"}
_WEIGHT_LAYOUT = {1: " (in_channels, out_channels, kW)",
                  2: " (in_channels, out_channels, kH, kW)",
                  3: " (in_channels, out_channels, kD, kH, kW)"}


def transposed_out_size(size: int, kernel: int, stride: int, padding: int, dilation: int,
                        output_padding: int) -> int:
    """Output length of a transposed convolution: the input length of the convolution it
    is the gradient of, plus ``output_padding``."""
    return (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1


class ConvTranspose2d(Function):
    """Spread each input pixel through the filters into an output ``stride`` times larger
    (the gradient of ``conv2d`` with respect to its input), each of ``groups`` groups of
    input channels into its own group of ``C_out / groups`` output channels.

    Shape:
        input ``(N, C_in, H, W)``, weight ``(C_in, C_out / groups, kH, kW)``, bias
        ``(C_out,)`` -> output ``(N, C_out, H_out, W_out)`` with ``H_out = (H - 1) * stride -
        2 * padding + dilation * (kH - 1) + output_padding + 1`` (likewise W).

    Raises:
        ShapeError: wrong ranks, channel mismatch, ``C_in`` not divisible by groups,
            an empty kernel, non-positive stride, dilation or groups, negative padding,
            ``output_padding`` not below stride or dilation, an empty spatial input in a
            non-empty batch, or an output that would be empty.
        TypeError: padding given as a string (PyTorch takes ints only here), groups not an
            int.
    """

    op_name, backward_name = "conv_transpose2d", "ConvolutionBackward0"
    # x is read for the weight's gradient, the weight for the input's.
    saved_for_backward = ((0, 1), (1, 0))
    dims = 2  # spatial dimensions
    groups = 1  # unless given

    def infer(self, x, w, b=None):
        op, dims = self.op_name, self.dims
        shapes.require_ndim(op, "input", x.shape, (dims + 2,), _INPUT_LAYOUT[dims])
        shapes.require_ndim(op, "weight", w.shape, (dims + 2,), _WEIGHT_LAYOUT[dims])
        shapes.require_same_dtype(op, "input", x.dtype, "weight", w.dtype)
        (N, C), sizes = x.shape[:2], tuple(x.shape[2:])
        (C_w, O_g), kernel = w.shape[:2], tuple(w.shape[2:])
        groups = check_groups(op, self.groups)
        require_divisible_by_groups(op, w.shape, groups)
        O = O_g * groups
        if C != C_w:
            raise ShapeError(op, f"input has {C} channels but weight expects {C_w} (weight shape "
                                 f"{fmt(w.shape)}, laid out{_WEIGHT_LAYOUT[dims]}); input shape "
                                 f"{fmt(x.shape)}")
        if b is not None and tuple(b.shape) != (O,):
            raise ShapeError(op, f"bias should have shape ({O},) to match the {O} output channels "
                                 f"of weight {fmt(w.shape)} (its dimension 1"
                                 f"{f' times groups={groups}' if groups != 1 else ''}), but has "
                                 f"shape {fmt(b.shape)}")
        if b is not None:
            shapes.require_same_dtype(op, "input", x.dtype, "bias", b.dtype)
        stride, padding, dilation, output_padding = self._hyper_tuples(op, dims)
        check_empty_sizes(op, x.shape, w.shape)
        out = tuple(transposed_out_size(*args)
                    for args in zip(sizes, kernel, stride, padding, dilation, output_padding))
        # PyTorch's CPU computes an empty output for an empty batch only (its meta refuses it)
        if min(out) < 0 or (min(out) == 0 and N > 0):
            raise ShapeError(op, f"Given input size per channel: {list(sizes)}. Calculated output "
                                 f"size per channel: {list(out)}. Output size is too small "
                                 f"(padding={padding}, weight shape {fmt(w.shape)})")
        flat_padding = tuple(p for p in padding for _ in range(2))
        self.geometry = lift_to_2d(dims, stride, flat_padding, dilation, out)
        self.in_hw = (1,) + sizes if dims == 1 else sizes
        return (N, O) + out, x.dtype

    def _hyper_tuples(self, op: str, dims: int) -> tuple:
        """stride, padding, dilation and output_padding as checked ``dims``-tuples."""
        if isinstance(self.padding, str):
            raise TypeError(f"{op}: padding must be an int or a tuple of ints, got "
                            f"{self.padding!r} ('same' and 'valid' are for convolutions only)")
        stride, dilation = ntuple(self.stride, dims, "stride"), ntuple(self.dilation, dims,
                                                                       "dilation")
        padding = ntuple(self.padding, dims, "padding")
        output_padding = ntuple(self.output_padding, dims, "output_padding")
        shapes.require_positive(op, stride=stride, dilation=dilation)
        if min(padding) < 0:
            raise ShapeError(op, f"negative padding is not supported, got {self.padding}")
        if min(output_padding) < 0:
            raise ShapeError(op, f"negative output_padding is not supported, got "
                                 f"{self.output_padding}")
        if any(p >= s and p >= d for p, s, d in zip(output_padding, stride, dilation)):
            raise ShapeError(op, f"output padding must be smaller than either stride or dilation, "
                                 f"but got output_padding={output_padding}, stride={stride}, "
                                 f"dilation={dilation}")
        return stride, padding, dilation, output_padding

    def forward(self, backend, x, w, b=None):
        stride, padding, dilation, out_hw = self.geometry
        if self.dims == 1:
            x, w = with_height(backend, x), with_height(backend, w)
        if self.recording:
            self.x, self.w = x, w
        y = backend.conv_transpose2d(x, w, b, stride, padding, dilation, out_hw, self.groups)
        return y if self.dims == 2 else without_height(backend, y)

    def backward(self, backend, gy):
        stride, padding, dilation, _ = self.geometry
        needs = self.needs_input_grad
        if self.dims == 1:
            gy = with_height(backend, gy)
        gx = gw = gb = None
        if needs[0] or needs[1]:
            # The input's gradient is the convolution this op is the transpose of; its saved
            # im2col gives the weight's gradient, with ``x`` in the role of that conv's ``gy``.
            gx, saved = backend.conv2d(gy, self.w, None, stride, padding, dilation, self.in_hw,
                                       for_backward=needs[1], groups=self.groups)
            if needs[1]:
                _, gw, _ = backend.conv2d_backward(self.x, saved, (False, True))
        if len(needs) > 2 and needs[2]:
            gb = backend.sum(gy, (0, 2, 3), False)
        if self.dims == 1:
            gx = None if gx is None else without_height(backend, gx)
            gw = None if gw is None else without_height(backend, gw)
        return (gx if needs[0] else None, gw, gb)[:len(needs)]

    def backward_graph(self, grad):
        from .conv_gradients import transposed_graph_gradients  # it imports ``conv``

        return transposed_graph_gradients(self, grad)


class ConvTranspose1d(ConvTranspose2d):
    """The transposed convolution of sequences: the 2-D op's rule, and its kernels on
    inputs of height 1 (reshaped views, one graph node).

    Shape:
        input ``(N, C_in, L)``, weight ``(C_in, C_out / groups, kW)``, bias ``(C_out,)`` ->
        output ``(N, C_out, L_out)`` with ``L_out = (L - 1) * stride - 2 * padding +
        dilation * (kW - 1) + output_padding + 1``.

    Raises:
        ShapeError, TypeError: as ``ConvTranspose2d``.
    """

    op_name = "conv_transpose1d"
    dims = 1

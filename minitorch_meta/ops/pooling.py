"""2-D max pooling, with PyTorch's padding, dilation and ceil_mode rules and indices."""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .conv import pair
from .max_pool_gradient import OptionalIndices, windows_without_input, winners_graph_gradient
from .shapes import ShapeError, fmt


def require_non_empty_planes(op: str, shape, ranks: str) -> None:
    """PyTorch's max pooling refuses an empty dimension other than the batch's (of the
    batched ``shape``; an unbatched input was given a batch of one), with its words."""
    if 0 in shape[1:]:
        raise ShapeError(op, f"Expected {ranks} (batch mode) tensor with optional 0 dim batch "
                             f"size for input, but got: {fmt(shape)} (an empty dimension other "
                             f"than the batch)")


class MaxPool2d(OptionalIndices):
    """Maximum over sliding windows; with ``return_indices``, also each maximum's flat
    index in its input plane (int64, PyTorch's ``indices``).

    For backward, forward keeps only each window's winning tap (its row-major position in
    the kernel, one byte per output), and nothing when autograd does not record.

    Shape:
        input ``(N, C, H, W)`` -> output and indices ``(N, C, H_out, W_out)`` with
        ``H_out = conv_out_size(H, kH, stride, padding, dilation, ceil_mode)`` (likewise W).

    Raises:
        ShapeError: wrong rank, an empty dimension other than the batch, non-positive
            kernel/stride/dilation, negative padding or
            padding over half the kernel, or an output that would be empty.
    """

    op_name, backward_name = "max_pool2d", "MaxPool2DWithIndicesBackward0"
    saved_for_backward = (0,)

    def infer(self, x):
        op = "max_pool2d"
        x_shape = x._data.shape  # a plain tuple, read once
        shapes.require_ndim(op, "input", x_shape, (4,), " (N, C, H, W)")
        if x._dtype is dtypes.bool_:  # PyTorch's CPU kernel has no bool case
            raise NotImplementedError(f"\"{op}\" not implemented for 'Bool'; convert the "
                                      "input, e.g. with .float()")
        require_non_empty_planes(op, x_shape, "3D or 4D")
        kernel = pair(self.kernel_size, "kernel_size")
        stride = kernel if self.stride is None or self.stride == () else pair(self.stride, "stride")
        padding, dilation = pair(self.padding, "padding"), pair(self.dilation, "dilation")
        shapes.require_positive(op, kernel_size=kernel, stride=stride, dilation=dilation)
        if min(padding) < 0:
            raise ShapeError(op, f"padding must be non-negative, got {padding}")
        for p, k in zip(padding, kernel):
            # PyTorch bounds the padding by half the *undilated* kernel.
            if p > k // 2:
                raise ShapeError(op, f"pad should be at most half of kernel size, but got "
                                     f"padding={padding} for kernel_size={kernel}")
        N, C, H, W = x_shape
        out_hw = tuple(shapes.conv_out_size(size, k, s, p, d, self.ceil_mode)
                       for size, k, s, p, d in zip((H, W), kernel, stride, padding, dilation))
        if min(out_hw) < 1:
            raise ShapeError(op, f"given input size ({C}x{H}x{W}), the calculated output size "
                                 f"({C}x{out_hw[0]}x{out_hw[1]}) is too small (input shape "
                                 f"{fmt(x_shape)}, kernel_size={kernel}, stride={stride}, "
                                 f"padding={padding}, dilation={dilation})")
        self.geometry = (kernel, stride, padding, dilation, out_hw)
        shape = (N, C) + out_hw
        if self.return_indices:
            return [(shape, x._dtype), (shape, dtypes.int64)]
        return shape, x._dtype

    def forward(self, backend, x):
        kernel, stride, padding, dilation, out_hw = self.geometry
        # The winning tap of each window (one byte per output) is all backward needs; the
        # int64 indices are made from it only for the user.
        y, argmax = backend.max_pool2d(x, kernel, stride, padding, dilation, out_hw,
                                       with_argmax=self.recording or self.return_indices)
        self.argmax = argmax if self.recording else None
        if not self.return_indices:
            return y
        return y, backend.max_pool2d_indices(argmax, x.shape, kernel, stride, padding, dilation)

    def backward(self, backend, gy):
        kernel, stride, padding, dilation, _ = self.geometry
        shape = tuple(self.input_specs[0][0])
        return (backend.max_pool2d_backward(gy, self.argmax, shape, kernel, stride, padding,
                                            dilation),)

    def backward_graph(self, grad):
        kernel, stride, padding, dilation, out_hw = self.geometry
        shape = tuple(self.input_specs[0][0])
        indices = self.backend.max_pool2d_indices(self.argmax, shape, kernel, stride, padding,
                                                  dilation)
        empty = windows_without_input(self.backend, shape[2:], kernel, stride, padding,
                                      dilation, out_hw)
        return (winners_graph_gradient(self, grad, indices, 2, empty),)

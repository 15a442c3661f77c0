"""``unfold`` (im2col) and ``fold`` (col2im): sliding blocks out of an image as columns, and
columns added back into an image. Each is the other's adjoint, so each one's backward is
the other's kernel; both are convolution's own im2col and col2im (``backends/xp_conv.py``).

Both take batched or unbatched inputs themselves, so ``grad_fn`` reads ``Im2ColBackward0``
or ``Col2ImBackward0`` either way, as in PyTorch.
"""

from __future__ import annotations

from .. import dtypes
from ..int_arguments import is_int
from . import shapes
from .avg_pooling import _require_dtype
from .function import Function
from .linear_gradient import linear_backward_graph
from .shapes import ShapeRuntimeError

# What PyTorch unfolds and folds (integers are refused with NotImplementedError).
_DTYPES = (dtypes.bool_, dtypes.float16, dtypes.float32, dtypes.float64)


def _pair_argument(op: str, name: str, value) -> tuple:
    """An int or a pair of ints as a pair, with PyTorch's errors for anything else."""
    if is_int(value):
        return (value, value)
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{op}(): argument '{name}' must be an int or a pair of ints, "
                        f"not {type(value).__name__}")
    if len(value) != 2:
        raise ShapeRuntimeError(op, f"It is expected {name} equals to 2, but got size "
                                    f"{len(value)}")
    return shapes.int_tuple_argument(op, name, 2, value)


def _check(op: str, **values) -> None:
    """PyTorch's checks of the block geometry, in the order given (it differs by op)."""
    words = {"kernel_size": ("kernel size should be greater than zero", "kernel"),
             "stride": ("stride should be greater than zero", "stride"),
             "dilation": ("dilation should be greater than zero", "dilation")}
    for name, (h, w) in values.items():
        if name == "padding":
            if min(h, w) < 0:
                raise ShapeRuntimeError(op, f"padding should be non-negative, but got "
                                            f"pad_height: {h} pad_width: {w}")
        elif min(h, w) <= 0:
            rule, label = words[name]
            raise ShapeRuntimeError(op, f"{rule}, but got {label}_height: {h} "
                                        f"{label}_width: {w}")


def _blocks(in_hw, kernel, stride, padding, dilation) -> tuple:
    """How many sliding blocks fit along each axis (convolution's output size)."""
    return tuple(shapes.conv_out_size(size, k, s, p, d)
                 for size, k, s, p, d in zip(in_hw, kernel, stride, padding, dilation))


class Unfold(Function):
    """Every ``kernel_size`` block of the (padded) input as a column, channels outermost
    (PyTorch's ``F.unfold``: column ``c * kH * kW + i * kW + j`` holds tap ``(i, j)`` of
    channel ``c``; the blocks run row-major along the last dimension).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C * kH * kW, L)`` or ``(C * kH * kW, L)``
        where ``L = H_blocks * W_blocks`` and ``H_blocks = conv_out_size(H, kH, stride,
        padding, dilation)`` (likewise W).

    Raises:
        RuntimeError (``ShapeRuntimeError``): a non-positive kernel, dilation or stride, a
            negative padding, a rank other than 3 or 4, an empty channel or plane, or no
            whole block.
        NotImplementedError: integer inputs, as in PyTorch.
    """

    op_name, backward_name = "unfold", "Im2ColBackward0"

    def infer(self, x):
        op = self.op_name
        kernel = _pair_argument(op, "kernel_size", self.kernel_size)
        dilation = _pair_argument(op, "dilation", self.dilation)
        padding = _pair_argument(op, "padding", self.padding)
        stride = _pair_argument(op, "stride", self.stride)
        _check(op, kernel_size=kernel, dilation=dilation, padding=padding, stride=stride)
        shape = tuple(x.shape)
        if len(shape) not in (3, 4) or 0 in shape[-3:]:
            detail = (f"expected a 3-D (C, H, W) or 4-D (N, C, H, W) input with non-zero C, "
                      f"H and W (only N may be 0), but got an input of shape "
                      f"{shapes.fmt(shape)}")
            if len(shape) < 3:  # PyTorch reads dimension -3 first: IndexError
                raise IndexError(f"{op}: {detail}")
            raise ShapeRuntimeError(op, detail)
        C, H, W = shape[-3:]
        blocks = _blocks((H, W), kernel, stride, padding, dilation)
        if min(blocks) < 1:
            raise ShapeRuntimeError(op, f"Given input with spatial size ({H}, {W}), "
                                        f"kernel_size={kernel}, dilation={dilation}, "
                                        f"padding={padding}, calculated shape of the array of "
                                        f"sliding blocks as {blocks}, but its components must "
                                        f"be at least one; use a smaller kernel_size or "
                                        f"dilation, or more padding")
        _require_dtype("im2col", x.dtype, _DTYPES)
        self.geometry = (kernel, stride, padding, dilation, blocks)
        return shape[:-3] + (C * kernel[0] * kernel[1], blocks[0] * blocks[1]), x.dtype

    def forward(self, backend, x):
        batched = x if x.ndim == 4 else backend.reshape(x, (1,) + tuple(x.shape))
        cols = backend.unfold(batched, *self.geometry)
        return cols if x.ndim == 4 else backend.reshape(cols, tuple(cols.shape[1:]))

    def backward(self, backend, gy):
        shape = tuple(self.input_specs[0][0])
        batched = gy if gy.ndim == 3 else backend.reshape(gy, (1,) + tuple(gy.shape))
        gx = backend.fold(batched, shape[-2:], *self.geometry)
        return (backend.reshape(gx, shape) if len(shape) == 3 else gx,)

    # linear in the input, with coefficients fixed by the geometry: any order works
    backward_graph = linear_backward_graph


class Fold(Function):
    """Columns of sliding blocks added into an image of ``output_size`` (PyTorch's
    ``F.fold``, the adjoint of ``unfold``: where blocks overlap, their values add up; the
    padding is cut off afterwards).

    Shape:
        ``(N, C * kH * kW, L)`` or ``(C * kH * kW, L)`` -> ``(N, C, H, W)`` or ``(C, H, W)``
        where ``(H, W)`` is ``output_size`` and ``L`` must be the number of blocks that fit
        in it (see ``Unfold``).

    Raises:
        RuntimeError (``ShapeRuntimeError``): a non-positive kernel, stride or dilation, a
            negative padding, a rank other than 2 or 3, an empty dimension, a dimension 1
            that ``kH * kW`` does not divide, or ``L`` not the number of blocks.
        NotImplementedError: integer inputs, as in PyTorch.
    """

    op_name, backward_name = "fold", "Col2ImBackward0"

    def infer(self, cols):
        op = self.op_name
        out_hw = _pair_argument(op, "output_size", self.output_size)
        kernel = _pair_argument(op, "kernel_size", self.kernel_size)
        dilation = _pair_argument(op, "dilation", self.dilation)
        padding = _pair_argument(op, "padding", self.padding)
        stride = _pair_argument(op, "stride", self.stride)
        _check(op, kernel_size=kernel, stride=stride, dilation=dilation, padding=padding)
        shape = tuple(cols.shape)
        if len(shape) not in (2, 3) or 0 in shape[-2:]:
            raise ShapeRuntimeError(op, f"expected a 2-D (C * kH * kW, L) or 3-D "
                                        f"(N, C * kH * kW, L) input with non-zero sizes (only "
                                        f"N may be 0), but got an input of shape "
                                        f"{shapes.fmt(shape)}")
        taps = kernel[0] * kernel[1]
        if shape[-2] % taps:
            raise ShapeRuntimeError(op, f"Expected size of input's dimension 1 to be divisible "
                                        f"by the product of kernel_size, but got "
                                        f"input.size(1)={shape[-2]} and kernel_size={kernel}")
        blocks = _blocks(out_hw, kernel, stride, padding, dilation)
        given = (f"Given output_size={out_hw}, kernel_size={kernel}, dilation={dilation}, "
                 f"padding={padding}, stride={stride}")
        if min(blocks) < 1:
            raise ShapeRuntimeError(op, f"{given}, calculated shape of the array of sliding "
                                        f"blocks as {blocks}, which is too small "
                                        f"(non-positive)")
        if blocks[0] * blocks[1] != shape[-1]:
            raise ShapeRuntimeError(op, f"{given}, expected size of input's dimension 2 to "
                                        f"match the calculated number of sliding blocks "
                                        f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, "
                                        f"but got input.size(2)={shape[-1]}")
        _require_dtype("col2im", cols.dtype, _DTYPES)
        self.out_hw = out_hw
        self.geometry = (kernel, stride, padding, dilation, blocks)
        return shape[:-2] + (shape[-2] // taps,) + out_hw, cols.dtype

    def forward(self, backend, cols):
        batched = cols if cols.ndim == 3 else backend.reshape(cols, (1,) + tuple(cols.shape))
        y = backend.fold(batched, self.out_hw, *self.geometry)
        return y if cols.ndim == 3 else backend.reshape(y, tuple(y.shape[1:]))

    def backward(self, backend, gy):
        batched = gy if gy.ndim == 4 else backend.reshape(gy, (1,) + tuple(gy.shape))
        g = backend.unfold(batched, *self.geometry)
        return (g if gy.ndim == 4 else backend.reshape(g, tuple(g.shape[1:])),)

    backward_graph = linear_backward_graph  # linear in the input, as ``Unfold``

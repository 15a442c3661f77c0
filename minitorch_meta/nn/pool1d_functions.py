"""``max_pool1d``, ``avg_pool1d`` and ``adaptive_avg_pool1d``, composed as PyTorch composes
them: the input gains a height of 1 (``unsqueeze(-2)``), the 2-D pooling op runs, and the
height goes again (``squeeze(-2)``), so ``grad_fn`` reads ``SqueezeBackward1`` as in PyTorch
and values, indices and gradients are the 2-D ops' (tested against PyTorch).

``max_pool1d`` checks its 1-D arguments first, with PyTorch's messages; the average poolings'
errors are the 2-D ops', as PyTorch's are.
"""

from __future__ import annotations

from .. import dtypes
from ..int_arguments import is_int
from ..ops import avg_pooling, pooling, shapes
from ..ops.conv import ntuple
from ..ops.shapes import ShapeError, fmt
from ..tensor import Tensor


def _with_height(op: str, input: Tensor, layout_error: str) -> Tensor:
    """``(N, C, L)`` or ``(C, L)`` as ``(N, C, 1, L)`` or ``(C, 1, L)``."""
    if input.dim() not in (2, 3):
        raise ShapeError(op, f"{layout_error}, but got a {input.dim()}-D input of shape "
                             f"{fmt(input.shape)}")
    return input.unsqueeze(-2)


def require_int_sizes(op: str, output_size) -> None:
    """An adaptive 1-D pooling's ``output_size`` is an int or a sequence of ints (no bool or
    None): PyTorch's argument parser checks it, as a TypeError, before the input's rank."""
    if isinstance(output_size, (tuple, list)):
        for position, size in enumerate(output_size):
            if not is_int(size):
                raise TypeError(f"{op}(): argument 'output_size' (position 2) must be tuple "
                                f"of ints, but found element of type {type(size).__name__} "
                                f"at pos {position}")
    elif not is_int(output_size):
        got = "None" if output_size is None else type(output_size).__name__
        raise TypeError(f"{op}(): argument 'output_size' (position 2) must be tuple of ints, "
                        f"not {got}")


def _single(value, op: str, name: str) -> int:
    """An int or a one-int tuple, as an int (PyTorch's ``_single`` for 1-D pooling); a tuple of
    another length is PyTorch's RuntimeError (a ShapeError here)."""
    if isinstance(value, (tuple, list)) and len(value) != 1:
        raise ShapeError(op, f"{name} must be an int, list of ints or tuple of ints of size 1 "
                             f"but got size {len(value)}")
    return ntuple(value, 1, name)[0]


def _check_max_pool1d(length: int, kernel: int, stride: int, padding: int, dilation: int,
                      ceil_mode: bool) -> None:
    """PyTorch's checks of ``max_pool1d``'s arguments, in its order and words."""
    op = "max_pool1d"
    for name, value in (("kernel_size", kernel), ("stride", stride), ("dilation", dilation)):
        if value <= 0:
            raise ShapeError(op, f"{name} must be greater than zero, but got {value}")
    if padding < 0:
        raise ShapeError(op, f"padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise ShapeError(op, f"padding should be at most half of kernel size, but got "
                             f"padding={padding} and kernel_size={kernel}")
    out = shapes.conv_out_size(length, kernel, stride, padding, dilation, ceil_mode)
    if out < 1:
        raise ShapeError(op, f"Invalid computed output size: {out} (input length {length}, "
                             f"kernel_size={kernel}, stride={stride}, padding={padding}, "
                             f"dilation={dilation})")


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """Max pooling over sequences; ``stride`` defaults to ``kernel_size``. With
    ``return_indices``, also each maximum's position along L (int64).

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, L_out)`` or ``(C, L_out)`` with
        ``L_out = (L + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1``
        (rounded up with ``ceil_mode``).
    """
    op = "max_pool1d"
    x = _with_height(op, input, "expected a 2-D (C, L) or 3-D (N, C, L) input")
    shape = tuple(input.shape)
    pooling.require_non_empty_planes(op, shape if len(shape) == 3 else (1,) + shape, "2D or 3D")
    kernel = _single(kernel_size, op, "kernel_size")
    step = kernel if stride is None or stride == () else _single(stride, op, "stride")
    pad, dil = _single(padding, op, "padding"), _single(dilation, op, "dilation")
    _check_max_pool1d(x.shape[-1], kernel, step, pad, dil, ceil_mode)
    if not return_indices and not input.is_floating_point():
        # PyTorch's kernel without indices is floating-point only (with indices it is
        # max_pool2d's, which takes integers)
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for "
                                  f"'{dtypes.SCALAR_TYPE_NAMES[input.dtype]}'; convert the "
                                  "input, e.g. with .float()")
    unbatched = x.dim() == 3
    if unbatched:  # the 2-D op takes batches only
        x = x.unsqueeze(0)
    out = pooling.MaxPool2d(kernel_size=(1, kernel), stride=(1, step), padding=(0, pad),
                            dilation=(1, dil), ceil_mode=ceil_mode,
                            return_indices=return_indices)(x)
    outs = out if return_indices else (out,)
    if unbatched:
        outs = tuple(o.squeeze(0) for o in outs)
    outs = tuple(o.squeeze(-2) for o in outs)
    return outs if return_indices else outs[0]


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """Average pooling over sequences; ``stride`` defaults to ``kernel_size``; padding
    counts in each window's divisor with ``count_include_pad``.

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, L_out)`` or ``(C, L_out)`` with
        ``L_out = (L + 2 * padding - kernel_size) // stride + 1`` (rounded up with
        ``ceil_mode``, if that window starts inside the input or the left padding).
    """
    op = "avg_pool1d"
    x = _with_height(op, input, "expected 2 to 3 dimensions, (C, L) or (N, C, L)")
    kernel = _single(kernel_size, op, "kernel_size")
    step = kernel if stride is None or stride == () else _single(stride, op, "stride")
    y = avg_pooling.AvgPool2d(kernel_size=(1, kernel), stride=(1, step),
                              padding=(0, _single(padding, op, "padding")), ceil_mode=ceil_mode,
                              count_include_pad=count_include_pad, divisor_override=None)(x)
    return y.squeeze(-2)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Average pooling of sequences to ``output_size`` positions (an int or a one-int tuple).

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, output_size)`` or ``(C, output_size)``.
    """
    op = "adaptive_avg_pool1d"
    require_int_sizes(op, output_size)
    x = _with_height(op, input, "expected 2 to 3 dimensions, (C, L) or (N, C, L)")
    size = _single(output_size, op, "output_size")
    return avg_pooling.AdaptiveAvgPool2d(output_size=(1, size))(x).squeeze(-2)

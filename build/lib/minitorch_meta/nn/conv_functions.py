"""``conv1d``, ``conv_transpose1d`` and ``conv_transpose2d``: thin wrappers over the
convolution ops (``ops/conv.py``, ``ops/conv_transpose.py``) that take PyTorch's arguments
and unbatched inputs (run as a batch of one, so ``grad_fn`` reads ``SqueezeBackward1`` then,
as in PyTorch).
"""

from __future__ import annotations

from ..autocasting import autocast_op
from ..ops import conv as conv_ops
from ..ops import conv_transpose as conv_transpose_ops
from ..ops.shapes import ShapeError, fmt
from ..tensor import Tensor

_LAYOUTS = {"conv1d": "(N, C, L)", "conv_transpose1d": "(N, C, L)",
            "conv_transpose2d": "(N, C, H, W)", "conv3d": "(N, C, D, H, W)",
            "conv_transpose3d": "(N, C, D, H, W)"}


def _batched(op: str, input: Tensor, rank: int):
    """An unbatched input (one dimension fewer than ``rank``) as a batch of one."""
    if input.dim() == rank - 1:
        return input.unsqueeze(0), True
    if input.dim() != rank:
        raise ShapeError(op, f"expected a {rank - 1}-D (unbatched) or {rank}-D (batched) input "
                             f"{_LAYOUTS[op]}, but got a {input.dim()}-D input of shape "
                             f"{fmt(input.shape)}")
    return input, False


@autocast_op("conv1d")
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """1-D cross-correlation of ``input`` with ``weight`` (PyTorch's ``F.conv1d``).

    Shape:
        input ``(N, C_in, L)`` or ``(C_in, L)``, weight ``(C_out, C_in / groups, kW)``, bias
        ``(C_out,)`` -> ``(N, C_out, L_out)`` or ``(C_out, L_out)``.
    """
    x, unbatched = _batched("conv1d", input, 3)
    y = conv_ops.Conv1d(stride=stride, padding=padding, dilation=dilation,
                        groups=groups)(x, weight, bias)
    return y.squeeze(0) if unbatched else y


@autocast_op("conv_transpose1d")
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """1-D transposed convolution (PyTorch's ``F.conv_transpose1d``; note ``groups`` comes
    before ``dilation``, as there).

    Shape:
        input ``(N, C_in, L)`` or ``(C_in, L)``, weight ``(C_in, C_out / groups, kW)``, bias
        ``(C_out,)`` -> ``(N, C_out, L_out)`` or ``(C_out, L_out)`` with ``L_out = (L - 1) *
        stride - 2 * padding + dilation * (kW - 1) + output_padding + 1``.
    """
    return _transposed("conv_transpose1d", conv_transpose_ops.ConvTranspose1d, 3, input, weight,
                       bias, stride, padding, output_padding, groups, dilation)


@autocast_op("conv_transpose2d")
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """2-D transposed convolution (PyTorch's ``F.conv_transpose2d``), the gradient of
    ``conv2d`` with respect to its input.

    Shape:
        input ``(N, C_in, H, W)`` or ``(C_in, H, W)``, weight ``(C_in, C_out / groups, kH,
        kW)``, bias ``(C_out,)`` -> ``(N, C_out, H_out, W_out)`` or ``(C_out, H_out, W_out)`` with
        ``H_out = (H - 1) * stride - 2 * padding + dilation * (kH - 1) + output_padding + 1``
        (likewise W).
    """
    return _transposed("conv_transpose2d", conv_transpose_ops.ConvTranspose2d, 4, input, weight,
                       bias, stride, padding, output_padding, groups, dilation)


def _transposed(op, function, rank, input, weight, bias, stride, padding, output_padding,
                groups, dilation) -> Tensor:
    x, unbatched = _batched(op, input, rank)
    y = function(stride=stride, padding=padding, output_padding=output_padding,
                 dilation=dilation, groups=groups)(x, weight, bias)
    return y.squeeze(0) if unbatched else y

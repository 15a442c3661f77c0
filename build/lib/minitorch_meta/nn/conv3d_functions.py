"""``conv3d`` and ``conv_transpose3d``: thin wrappers over the volumetric convolution ops
(``ops/conv3d.py``) that take PyTorch's arguments and unbatched ``(C, D, H, W)`` inputs (run
as a batch of one, so ``grad_fn`` reads ``SqueezeBackward1`` then, as in PyTorch)."""

from __future__ import annotations

from ..autocasting import autocast_op
from ..ops import conv3d as conv3d_ops
from ..tensor import Tensor
from .conv_functions import _batched, _transposed


@autocast_op("conv3d")
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """3-D cross-correlation of ``input`` with ``weight`` (PyTorch's ``F.conv3d``);
    ``padding`` may be ints, ``'same'`` or ``'valid'``.

    Shape:
        input ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``, weight ``(C_out, C_in / groups,
        kD, kH, kW)``, bias ``(C_out,)`` -> ``(N, C_out, D_out, H_out, W_out)`` or ``(C_out,
        D_out, H_out, W_out)`` with ``D_out = (D + 2 * padding - dilation * (kD - 1) - 1) //
        stride + 1`` (likewise H and W).
    """
    x, unbatched = _batched("conv3d", input, 5)
    y = conv3d_ops.Conv3d(stride=stride, padding=padding, dilation=dilation,
                          groups=groups)(x, weight, bias)
    return y.squeeze(0) if unbatched else y


@autocast_op("conv_transpose3d")
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """3-D transposed convolution (PyTorch's ``F.conv_transpose3d``), the gradient of
    ``conv3d`` with respect to its input (``groups`` before ``dilation``, as there).

    Shape:
        input ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``, weight ``(C_in, C_out / groups,
        kD, kH, kW)``, bias ``(C_out,)`` -> ``(N, C_out, D_out, H_out, W_out)`` or ``(C_out,
        D_out, H_out, W_out)`` with ``D_out = (D - 1) * stride - 2 * padding + dilation *
        (kD - 1) + output_padding + 1`` (likewise H and W).
    """
    return _transposed("conv_transpose3d", conv3d_ops.ConvTranspose3d, 5, input, weight, bias,
                       stride, padding, output_padding, groups, dilation)

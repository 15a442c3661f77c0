"""``torch.nn.grad``: the gradients of a convolution with respect to its input and to its
weight, given the gradient of its output (``conv2d_input``, ``conv2d_weight``, ...).

Each runs the convolution's own backward through autograd, with a stand-in of the other
operand (only its shape matters for these gradients), so they agree with ``backward()``
by construction on every device, meta included.
"""

from __future__ import annotations

from .. import autograd
from ..factories import zeros
from ..tensor import Tensor
from . import functional as F

_CONVOLUTIONS = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def _input_gradient(dims: int, input_size, weight: Tensor, grad_output: Tensor, stride,
                    padding, dilation, groups) -> Tensor:
    """d(loss)/d(input) of a ``dims``-D convolution, from d(loss)/d(output)."""
    stand_in = zeros(tuple(input_size), dtype=grad_output.dtype, device=grad_output.device,
                     requires_grad=True)
    with autograd.enable_grad():
        output = _CONVOLUTIONS[dims](stand_in, weight.detach(), None, stride, padding,
                                     dilation, groups)
        (gradient,) = autograd.grad(output, stand_in, grad_output)
    return gradient


def _weight_gradient(dims: int, input: Tensor, weight_size, grad_output: Tensor, stride,
                     padding, dilation, groups) -> Tensor:
    """d(loss)/d(weight) of a ``dims``-D convolution, from d(loss)/d(output)."""
    stand_in = zeros(tuple(weight_size), dtype=grad_output.dtype, device=grad_output.device,
                     requires_grad=True)
    with autograd.enable_grad():
        output = _CONVOLUTIONS[dims](input.detach(), stand_in, None, stride, padding,
                                     dilation, groups)
        (gradient,) = autograd.grad(output, stand_in, grad_output)
    return gradient


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv1d(input, weight)`` with respect to its input.

    Shape:
        ``input_size`` ``(N, C_in, L)`` (a shape), weight ``(C_out, C_in / groups, K)``,
        grad_output ``(N, C_out, L_out)`` -> ``input_size``.
    """
    return _input_gradient(1, input_size, weight, grad_output, stride, padding, dilation,
                           groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv1d(input, weight)`` with respect to its weight.

    Shape:
        input ``(N, C_in, L)``, ``weight_size`` ``(C_out, C_in / groups, K)`` (a shape),
        grad_output ``(N, C_out, L_out)`` -> ``weight_size``.
    """
    return _weight_gradient(1, input, weight_size, grad_output, stride, padding, dilation,
                            groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv2d(input, weight)`` with respect to its input.

    Shape:
        ``input_size`` ``(N, C_in, H, W)`` (a shape), weight ``(C_out, C_in / groups, kH,
        kW)``, grad_output ``(N, C_out, H_out, W_out)`` -> ``input_size``.
    """
    return _input_gradient(2, input_size, weight, grad_output, stride, padding, dilation,
                           groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv2d(input, weight)`` with respect to its weight.

    Shape:
        input ``(N, C_in, H, W)``, ``weight_size`` ``(C_out, C_in / groups, kH, kW)`` (a
        shape), grad_output ``(N, C_out, H_out, W_out)`` -> ``weight_size``.
    """
    return _weight_gradient(2, input, weight_size, grad_output, stride, padding, dilation,
                            groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv3d(input, weight)`` with respect to its input.

    Shape:
        ``input_size`` ``(N, C_in, D, H, W)`` (a shape), weight ``(C_out, C_in / groups, kD,
        kH, kW)``, grad_output ``(N, C_out, D_out, H_out, W_out)`` -> ``input_size``.
    """
    return _input_gradient(3, input_size, weight, grad_output, stride, padding, dilation,
                           groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv3d(input, weight)`` with respect to its weight.

    Shape:
        input ``(N, C_in, D, H, W)``, ``weight_size`` ``(C_out, C_in / groups, kD, kH,
        kW)`` (a shape), grad_output ``(N, C_out, D_out, H_out, W_out)`` ->
        ``weight_size``.
    """
    return _weight_gradient(3, input, weight_size, grad_output, stride, padding, dilation,
                            groups)

"""``nn.utils.fusion``: fold an eval-mode batch norm into the convolution or linear layer
before it, so inference runs one layer instead of two (PyTorch's formulas).

With ``s = bn.weight / sqrt(running_var + eps)`` per output channel, the fused layer has
``weight * s`` (along the output channel dim: 0, or 1 for a transposed convolution) and
``(bias - running_mean) * s + bn.bias``.
"""

from __future__ import annotations

import copy

from ... import factories
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _check_eval(layer, bn) -> None:
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of ``conv`` that computes ``bn(conv(x))`` (both in eval mode).

    Raises:
        AssertionError: a layer is in training mode, or ``bn`` keeps no running statistics.
    """
    _check_eval(conv, bn)
    fused_conv = copy.deepcopy(conv)
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps: float, bn_w, bn_b,
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The fused convolution's ``(weight, bias)`` as new parameters of the convolution's
    dtypes (a missing bias, bn weight or bn bias counts as 0, 1, 0).

    Shape:
        ``conv_w``: ``(C_out, C_in / groups, *kernel)`` (``(C_in, C_out / groups, ...)``
        with ``transpose``); the bn tensors: ``(C_out,)``.
    """
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    if conv_b is None:
        conv_b = factories.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = factories.ones_like(bn_rm)
    if bn_b is None:
        bn_b = factories.zeros_like(bn_rm)
    var_rsqrt = (bn_rv + bn_eps).rsqrt()
    trailing = [1] * (conv_w.dim() - 2)
    shape = [1, -1, *trailing] if transpose else [-1, 1, *trailing]
    fused_w = (conv_w * (bn_w * var_rsqrt).reshape(shape)).to(dtype=weight_dtype)
    fused_b = ((conv_b - bn_rm) * var_rsqrt * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` that computes ``bn(linear(x))`` (both in eval mode).

    Raises:
        AssertionError: a layer is in training mode, the feature counts differ (unless
            ``bn`` has one feature), or ``bn`` keeps no running statistics.
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    _check_eval(linear, bn)
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight, fused_linear.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps: float, bn_w,
                           bn_b) -> tuple[Parameter, Parameter]:
    """The fused linear layer's ``(weight, bias)`` as new parameters (a missing linear bias
    counts as 0).

    Shape:
        ``linear_w``: ``(out, in)``; the bn tensors: ``(out,)`` or ``(1,)``.
    """
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    if linear_b is None:
        linear_b = factories.zeros_like(bn_rm)
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=weight_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)

"""``Linear`` (row-vector affine map) and ``Identity``."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import add_weight_and_bias


class Identity(Module):
    """Returns its input unchanged (arguments are accepted and ignored, as in PyTorch).

    Shape:
        unchanged.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` with ``weight`` of shape ``(out_features, in_features)``.

    Initialised as in PyTorch: weight ~ kaiming_uniform(a=sqrt(5)), i.e.
    U(-1/sqrt(in_features), 1/sqrt(in_features)), and bias ~ the same bound.

    Shape:
        input ``(*, in_features)`` -> output ``(*, out_features)``.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        add_weight_and_bias(self, (out_features, in_features), bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw fresh weights and bias from PyTorch's default distributions."""
        init.default_layer_init_(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under PyTorch's name for ``MultiheadAttention.out_proj`` (PyTorch uses the
    class to keep its quantization tools off that layer); here it only names the repr."""

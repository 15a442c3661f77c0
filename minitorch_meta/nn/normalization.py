"""``LayerNorm``: each sample normalised over its last dimensions, with a learned scale and
shift per element of those dimensions (the normalisation of transformers)."""

from __future__ import annotations

from ..factories import empty
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class LayerNorm(Module):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last
    ``len(normalized_shape)`` dimensions of each sample.

    ``normalized_shape`` is an int (the last dimension's size) or a tuple/list of ints.
    With ``elementwise_affine``, ``weight`` (ones) and, unless ``bias=False``, ``bias``
    (zeros) are parameters of shape ``normalized_shape``; otherwise both are None.

    Shape:
        input ``(*, *normalized_shape)`` -> output of the same shape.

    Raises:
        ShapeError: the input's last dimensions are not ``normalized_shape``.
    """

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """The identity map: weight ones, bias zeros."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


__all__ = ["LayerNorm"]

"""``F.bilinear`` and ``nn.Bilinear``: ``y[..., o] = x1 W[o] x2 + b[o]``.

The batch dimensions are flattened into one, and the two inputs meet the weight in one
``einsum`` (``"bi,oij,bj->bo"``), which the backends contract pairwise through GEMMs; its
backward is ``einsum``'s. The result is viewed back to the batch shape and the bias added,
so the ``grad_fn`` is PyTorch's: ``AddBackward0`` with a bias, ``ViewBackward0`` without.
"""

from __future__ import annotations

import math

from .. import functions
from ..autocasting import autocast_op
from ..tensor import Tensor
from ..tensor_arguments import require_tensors
from . import init
from .module import Module
from .parameter import add_weight_and_bias


@autocast_op("bilinear")
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Tensor | None = None) -> Tensor:
    """``input1 @ weight[o] @ input2 + bias[o]`` for every output feature ``o``.

    Shape:
        input1 ``(*, in1_features)``, input2 ``(*, in2_features)`` (the same ``*``), weight
        ``(out_features, in1_features, in2_features)``, bias ``(out_features,)`` ->
        ``(*, out_features)``.

    Raises:
        RuntimeError: the shapes do not fit (PyTorch's messages).
    """
    require_tensors("bilinear", ("input1", input1), ("input2", input2), ("weight", weight),
                    *(() if bias is None else (("bias", bias),)))
    batch = _check_shapes(tuple(input1.shape), tuple(input2.shape), tuple(weight.shape),
                          None if bias is None else tuple(bias.shape))
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    y = functions.einsum("bi,oij,bj->bo", x1, weight, x2).reshape(batch + (weight.shape[0],))
    return y if bias is None else y + bias


def _check_shapes(shape1: tuple, shape2: tuple, weight: tuple, bias: tuple | None) -> tuple:
    """The batch shape ``*`` shared by the inputs, after PyTorch's checks in its order."""
    if len(shape1) != len(shape2):
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {len(shape1)} and "
                           f"{len(shape2)}")
    for dim, (a, b) in enumerate(zip(shape1[:-1], shape2[:-1])):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {dim}: "
                               f"got {a} and {b}")
    if len(weight) != 3:
        raise RuntimeError(f"bilinear(): expected a 3-D weight (out_features, in1_features, "
                           f"in2_features), got shape {weight}")
    for name, shape, expected in (("input1", shape1, weight[1]), ("input2", shape2, weight[2])):
        got = shape[-1] if shape else 1
        if got != expected:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got {got} "
                               f"but expected {expected}")
    if bias is not None and (len(bias) != 1 or bias[0] != weight[0]):
        got = bias[0] if len(bias) == 1 else bias
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {got} but "
                           f"expected {weight[0]}")
    return shape1[:-1]


class Bilinear(Module):
    """``y = x1^T W x2 + b`` for each of ``out_features`` matrices ``W``.

    Initialised as in PyTorch: weight and bias ~ U(-1/sqrt(in1_features),
    1/sqrt(in1_features)).

    Shape:
        ``(*, in1_features)`` and ``(*, in2_features)`` -> ``(*, out_features)``; weight
        ``(out_features, in1_features, in2_features)``, bias ``(out_features,)``.

    Raises:
        ValueError: ``in1_features`` is not positive (PyTorch's message).
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        add_weight_and_bias(self, (out_features, in1_features, in2_features), bias, device,
                            dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw fresh weights and bias from ``U(-1/sqrt(in1_features), 1/sqrt(...))``."""
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features="
                             f"{self.in1_features})")
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")

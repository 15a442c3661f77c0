"""``LinearCrossEntropyLoss``: a bias-optional ``Linear`` head and the cross-entropy of its
logits in one module, PyTorch's ``torch.nn.LinearCrossEntropyLoss``."""

from __future__ import annotations

import math

from ..tensor import Tensor
from .linear import Linear
from .linear_cross_entropy_functions import linear_cross_entropy
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .loss import _WeightedLoss


class LinearCrossEntropyLoss(_WeightedLoss):
    """``F.linear_cross_entropy`` with its own ``linear`` layer (``in_features`` to
    ``num_classes * prod(out_features)``, viewed as ``(num_classes, *out_features,
    in_features)`` in ``forward``, as PyTorch stores it).

    Shape:
        input ``(F,)`` or ``(N, F)``; target ``()``/``(N,)``/``(N, *out_features)`` class
        indices or ``(C,)``/``(N, C, *out_features)`` probabilities -> ``()`` (the target's
        batch shape for ``'none'``).

    Raises:
        RuntimeError: ``weight`` not of shape ``(num_classes,)`` or ``label_smoothing``
            outside [0, 1] (PyTorch's checks); NotImplementedError: a class ``weight``.
    """

    def __init__(self, in_features: int, num_classes: int, *,
                 out_features: tuple[int, ...] = (), bias: bool = False, device=None,
                 dtype=None, reduction: str = "mean", weight: Tensor | None = None,
                 ignore_index: int | None = None, label_smoothing: float = 0.0,
                 options: LinearCrossEntropyOptions | None = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError("expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # one flat Linear, as PyTorch's (Linear has no multi-dimensional weights)
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes),
                             bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        shape = (self.num_classes, *self.out_features)
        bias = self.linear.bias
        return linear_cross_entropy(
            input, self.linear.weight.reshape(*shape, self.linear.in_features), target,
            linear_bias=None if bias is None else bias.reshape(shape), weight=self.weight,
            reduction=self.reduction, ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")

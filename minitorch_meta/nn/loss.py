"""Loss layers: ``MSELoss``, ``L1Loss``, ``CrossEntropyLoss`` and ``NLLLoss``."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from ._reduction import legacy_reduction, refuse_label_smoothing, refuse_weight
from .module import Module


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    """A loss with PyTorch's per-class ``weight`` argument, which we do not support."""

    def __init__(self, weight: Tensor | None = None, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        refuse_weight(type(self).__name__, weight)
        # PyTorch registers the weight as a buffer; None keeps it out of the state dict.
        self.register_buffer("weight", None)


class MSELoss(_Loss):
    """Mean squared error between input and target.

    Shape:
        input and target of the same shape -> ``()`` (the input's shape for ``'none'``).
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error between input and target.

    Shape:
        input and target of the same shape -> ``()`` (the input's shape for ``'none'``).
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Softmax cross-entropy of class logits against class indices or probabilities.

    Shape:
        input ``(N, C)``, target ``(N,)`` int64 or ``(N, C)`` float -> ``()``
        (``(N,)`` for ``'none'``).

    Raises:
        NotImplementedError: class ``weight`` or ``label_smoothing`` (not supported).
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        refuse_label_smoothing("CrossEntropyLoss", label_smoothing)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, reduction=self.reduction,
                               ignore_index=self.ignore_index)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices under log-probabilities: put it after
    ``LogSoftmax(dim=1)`` (the pair computes ``CrossEntropyLoss``).

    Shape:
        input ``(N, C)`` log-probabilities, target ``(N,)`` int64 class indices in
        ``[0, C)`` (or ``ignore_index``) -> ``()`` (``(N,)`` for ``'none'``).

    Raises:
        NotImplementedError: class ``weight`` (not supported).
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, reduction=self.reduction,
                          ignore_index=self.ignore_index)

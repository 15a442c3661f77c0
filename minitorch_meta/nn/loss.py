"""Loss layers: ``MSELoss``, ``L1Loss`` and ``CrossEntropyLoss``."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


def _legacy_reduction(size_average, reduce, reduction: str) -> str:
    """PyTorch's deprecated ``size_average``/``reduce`` flags, turned into ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)


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


class CrossEntropyLoss(_Loss):
    """Softmax cross-entropy of class logits against class indices or probabilities.

    Shape:
        input ``(N, C)``, target ``(N,)`` int64 or ``(N, C)`` float -> ``()``
        (``(N,)`` for ``'none'``).

    Raises:
        NotImplementedError: class ``weight`` or ``label_smoothing`` (not supported).
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(size_average, reduce, reduction)
        if weight is not None:
            raise NotImplementedError("CrossEntropyLoss: class weights are not supported by "
                                      "minitorch_meta; pass weight=None")
        if label_smoothing != 0.0:
            raise NotImplementedError("CrossEntropyLoss: label_smoothing is not supported by "
                                      "minitorch_meta; pass label_smoothing=0.0")
        self.register_buffer("weight", None)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, reduction=self.reduction,
                               ignore_index=self.ignore_index)

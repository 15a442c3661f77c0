"""More loss layers: the margin and embedding losses (``MarginRankingLoss``,
``HingeEmbeddingLoss``, ``SoftMarginLoss``, ``CosineEmbeddingLoss``, ``TripletMarginLoss``,
``TripletMarginWithDistanceLoss``, ``MultiLabelSoftMarginLoss``, ``MultiMarginLoss``,
``MultiLabelMarginLoss``) and the likelihood losses ``PoissonNLLLoss`` and
``GaussianNLLLoss``.

Each holds PyTorch's hyper-parameters under PyTorch's attribute names (a class ``weight`` as
a buffer) and calls its function in ``margin_loss_functions.py``."""

from __future__ import annotations

from collections.abc import Callable

from ..tensor import Tensor
from . import margin_loss_functions as F
from .loss import _Loss, _WeightedLoss
from .similarity import PairwiseDistance


class MarginRankingLoss(_Loss):
    """``max(0, -target * (x1 - x2) + margin)``, targets ±1 saying which input ranks higher.

    Shape:
        ``(N,)`` three times (or ``()``) -> ``()`` (``(N,)`` for ``'none'``).
    """

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """``x`` for targets 1, ``max(0, margin - x)`` for targets -1 (``x`` a distance).

    Shape:
        input and target of one shape -> ``()`` (that shape for ``'none'``).
    """

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """``log(1 + exp(-target * input))``, the logistic loss of targets ±1.

    Shape:
        input and target of one shape -> ``()`` (that shape for ``'none'``).
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """``1 - cos(x1, x2)`` for targets 1, ``max(0, cos(x1, x2) - margin)`` for targets -1.

    Shape:
        ``(N, D)`` twice and ``(N,)`` (or ``(D,)`` twice and ``()``) -> ``()`` (``(N,)``
        for ``'none'``).
    """

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))``, ``d`` the
    ``p``-norm distance (``swap``: the smaller of ``d(a, n)`` and ``d(p, n)``).

    Shape:
        ``(N, D)`` (or ``(D,)``) three times -> ``()`` (``(N,)`` for ``'none'``).
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """``TripletMarginLoss`` with any ``distance_function(x1, x2)`` (default: a
    ``PairwiseDistance()`` child module, as in PyTorch).

    Shape:
        as the distance function takes them -> ``()`` (its output's shape for ``'none'``).
    """

    def __init__(self, *, distance_function: Callable | None = None, margin: float = 1.0,
                 swap: bool = False, reduction: str = "mean") -> None:
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = (distance_function if distance_function is not None
                                  else PairwiseDistance())
        self.margin, self.swap = margin, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per-class logistic loss of 0/1 targets, times ``weight`` ``(C,)``, averaged over the
    classes.

    Shape:
        ``(N, C)`` and a target of that shape -> ``()`` (``(N,)`` for ``'none'``).
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss of class indices, ``p`` 1 or 2, ``weight`` ``(C,)`` per class.

    Shape:
        ``(N, C)`` and int64 ``(N,)`` -> ``()`` (``(N,)`` for ``'none'``).

    Raises:
        ValueError: ``p`` other than 1 or 2, a weight that is not one-dimensional.
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                 size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError(f"MultiMarginLoss: only p == 1 and p == 2 supported, got p={p}")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead (one weight per class)")
        self.p, self.margin = p, margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss: target rows list each sample's classes, ended by -1.

    Shape:
        ``(N, C)`` and an int64 target of that shape -> ``()`` (``(N,)`` for ``'none'``).
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """Negative log-likelihood of counts under a Poisson of rate ``exp(input)`` (or
    ``input`` when ``log_input=False``); ``full`` adds Stirling's term.

    Shape:
        input and target of one shape -> ``()`` (that shape for ``'none'``).
    """

    def __init__(self, log_input: bool = True, full: bool = False, size_average=None,
                 eps: float = 1e-8, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Negative log-likelihood of targets under Gaussians of mean ``input`` and variance
    ``var`` (clamped to ``eps``); ``full`` adds ``0.5 log(2 pi)``.

    Shape:
        input ``(N, *)``, target of its shape, var of its shape, without its last dimension
        or with one dimension of size 1 (or a float) -> ``()`` (``(N, *)`` for ``'none'``).
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6,
                 reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)

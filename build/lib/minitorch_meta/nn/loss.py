"""Loss layers: ``MSELoss``, ``L1Loss``, ``SmoothL1Loss``, ``HuberLoss``, ``BCELoss``,
``BCEWithLogitsLoss``, ``KLDivLoss``, ``CrossEntropyLoss``, ``NLLLoss`` (and its deprecated
alias ``NLLLoss2d``).

Each holds its hyper-parameters (weights as buffers, as in PyTorch, so they follow
``.to()`` and the state dict) and calls its function in ``nn.functional``."""

from __future__ import annotations

from ..caller_warnings import warn_at_caller
from ..tensor import Tensor
from . import functional as F
from ._reduction import legacy_reduction
from .module import Module


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    """A loss with PyTorch's ``weight`` argument, kept as a buffer."""

    def __init__(self, weight: Tensor | None = None, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        # PyTorch registers the weight as a buffer; None keeps it out of the state dict.
        self.register_buffer("weight", weight)


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


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above it (``beta=0``: ``L1Loss``).

    Shape:
        input and target of the same shape -> ``()`` (the input's shape for ``'none'``).
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean",
                 beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, ``delta`` times the absolute error above it
    (``SmoothL1Loss`` times ``beta``, with ``delta`` for ``beta``).

    Shape:
        input and target of the same shape -> ``()`` (the input's shape for ``'none'``).
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities (after ``Sigmoid``) against targets in
    ``[0, 1]``; ``weight`` scales each element's loss (broadcast to the input's shape).

    Shape:
        input and target of the same shape -> ``()`` (the input's shape for ``'none'``).
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """``Sigmoid`` and ``BCELoss`` in one, stable for any logit; ``pos_weight`` weighs the
    positive term (e.g. one weight per class, ``(C,)`` for an ``(N, C)`` input).

    Shape:
        input and target of the same shape -> ``()`` (the input's shape for ``'none'``).
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, reduce=None,
                 reduction: str = "mean", pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of the target distribution from the log-probabilities
    ``input`` (after ``LogSoftmax``); ``log_target=True`` takes the target as
    log-probabilities too. Use ``reduction='batchmean'`` for the divergence per sample
    (``'mean'`` divides by every element and warns, as in PyTorch).

    Shape:
        input and target of the same shape -> ``()`` (the input's shape for ``'none'``).
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean",
                 log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class CrossEntropyLoss(_WeightedLoss):
    """Softmax cross-entropy of class logits against class indices or probabilities;
    ``label_smoothing = s`` mixes the target with the uniform distribution,
    ``(1 - s) target + s / C``; ``weight`` ``(C,)`` weighs the classes (for imbalanced
    data).

    Shape:
        input ``(N, C)`` (or ``(C,)``, ``(N, C, d1, ...)``), target ``(N,)`` int64 (or
        ``()``, ``(N, d1, ...)``) or float of the input's shape -> ``()`` (the input's
        shape without ``C`` for ``'none'``).
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, self.weight, reduction=self.reduction,
                               ignore_index=self.ignore_index,
                               label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices under log-probabilities: put it after
    ``LogSoftmax(dim=1)`` (the pair computes ``CrossEntropyLoss``).

    ``weight`` ``(C,)`` scales each sample's loss by its class's weight; ``'mean'`` then
    divides by the sum of the weights of the targets not ignored.

    Shape:
        input ``(N, C)`` log-probabilities (or ``(C,)``, ``(N, C, d1, ...)``), target
        ``(N,)`` int64 class indices in ``[0, C)`` or ``ignore_index`` (or ``()``,
        ``(N, d1, ...)``) -> ``()`` (the target's shape for ``'none'``).
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, self.weight, reduction=self.reduction,
                          ignore_index=self.ignore_index)


#: PyTorch's deprecation warning of ``NLLLoss2d``, word for word
NLLLOSS2D_DEPRECATION = (
    "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement and "
    "see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.")


class NLLLoss2d(NLLLoss):
    """Deprecated alias of ``NLLLoss`` (which takes ``(N, C, H, W)`` inputs itself); warns
    with PyTorch's ``FutureWarning`` when made.

    Shape:
        as ``NLLLoss``.
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean") -> None:
        warn_at_caller(NLLLOSS2D_DEPRECATION, FutureWarning)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)

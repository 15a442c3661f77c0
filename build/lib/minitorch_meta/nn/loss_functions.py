"""The loss functions of ``nn.functional``, with PyTorch's names, argument order, defaults
and errors: ``mse_loss``, ``l1_loss``, ``smooth_l1_loss``, ``huber_loss``,
``binary_cross_entropy``, ``binary_cross_entropy_with_logits``, ``kl_div``, ``nll_loss`` and
``cross_entropy``.

Each turns PyTorch's deprecated ``size_average``/``reduce`` flags into ``reduction``
(``_reduction.py``) and calls one op (``ops/loss.py``, ``ops/binary_loss.py``), or, where
PyTorch composes the loss from other ops (``cross_entropy`` with probability targets or
label smoothing, a weighted ``huber_loss``, ``kl_div``'s ``'batchmean'``), the same
composition, so values, gradients and ``grad_fn`` names are PyTorch's.
"""

from __future__ import annotations

from .. import functions
from ..autocasting import autocast_op
from ..caller_warnings import warn_at_caller
from ..factories import zeros
from ..ops import binary_loss, loss
from ..ops import nll_loss as nll_loss_op
from ..ops.shapes import ShapeError, fmt
from ..tensor import Tensor
from ._reduction import legacy_reduction

#: ``kl_div``'s reductions: ``'batchmean'`` is the sum divided by the batch size
KL_DIV_REDUCTIONS = ("none", "batchmean", "sum", "mean")
#: PyTorch's warning for ``kl_div(reduction='mean')``, word for word
KL_DIV_MEAN_WARNING = (
    "reduction: 'mean' divides the total loss by both the batch size and the support size."
    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
    "'mean' will be changed to behave the same as 'batchmean' in the next major release.")


@autocast_op("mse_loss")
def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean squared error (``size_average``/``reduce``: PyTorch's deprecated flags).
    ``weight`` (of the input's shape) scales each squared error; ``'mean'`` is then their
    sum over the sum of the weights, as in PyTorch.

    Shape:
        input and target (and weight) of the same shape -> ``()`` (or the input's shape for
        ``'none'``).

    Raises:
        ValueError: a weight of another shape than the input's.
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted_pointwise("mse_loss", loss.MseLoss, input, target, weight, reduction)
    return loss.MseLoss(reduction=reduction)(input, target)


@autocast_op("l1_loss")
def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean absolute error (``size_average``/``reduce``: PyTorch's deprecated flags).
    ``weight`` (of the input's shape) scales each absolute error; ``'mean'`` is then their
    sum over the sum of the weights, as in PyTorch.

    Shape:
        input and target (and weight) of the same shape -> ``()`` (or the input's shape for
        ``'none'``).

    Raises:
        ValueError: a weight of another shape than the input's.
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted_pointwise("l1_loss", loss.L1Loss, input, target, weight, reduction)
    return loss.L1Loss(reduction=reduction)(input, target)


def _weighted_pointwise(name: str, op, input: Tensor, target: Tensor, weight: Tensor,
                        reduction: str) -> Tensor:
    """PyTorch's composition for ``mse_loss``/``l1_loss`` with ``weight``: the unreduced
    loss times ``weight``, summed, and for ``'mean'`` divided by the sum of the weights
    (a weight that requires grad gets its gradient)."""
    loss._check_reduction(name, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        # ValueError, as PyTorch's (which calls them "Weights and input must have the same
        # size")
        raise ValueError(f"{name}: weights and input must have the same size: expected "
                         f"weight of the input's shape {fmt(input.shape)}, got weight of "
                         f"shape {fmt(weight.shape)}")
    weighted = op(reduction="none")(input, target) * weight
    if reduction == "none":
        return weighted
    total = weighted.sum()
    return total if reduction == "sum" else total / weight.sum()


@autocast_op("smooth_l1_loss")
def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Squared error below ``beta``, absolute error above it: ``0.5 d^2 / beta`` where
    ``|d| < beta``, else ``|d| - 0.5 beta`` (``beta=0`` is ``l1_loss``, as in PyTorch).

    Shape:
        input and target of the same shape -> ``()`` (or the input's shape for ``'none'``).

    Raises:
        ValueError: a negative ``beta``.
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if beta == 0.0:
        return loss.L1Loss(reduction=reduction)(input, target)
    return loss.SmoothL1Loss(reduction=reduction, beta=beta)(input, target)


@autocast_op("huber_loss")
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """Squared error below ``delta``, ``delta`` times the absolute error above it:
    ``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``. ``weight`` (of the
    input's shape) scales each element's loss before the reduction (``'mean'`` is then the
    plain mean of the weighted losses, as in PyTorch).

    Shape:
        input, target (and weight) of the same shape -> ``()`` (the input's shape for
        ``'none'``).

    Raises:
        ValueError: ``delta <= 0``; ``ShapeError`` for a weight of another shape.
    """
    if weight is None:
        return loss.HuberLoss(reduction=reduction, delta=delta)(input, target)
    loss._check_reduction("huber_loss", reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ShapeError("huber_loss", f"weights and input must have the same size: expected "
                                       f"weight of the input's shape {fmt(input.shape)}, got "
                                       f"weight of shape {fmt(weight.shape)}")
    weighted = loss.HuberLoss(reduction="none", delta=delta)(input, target) * weight
    if reduction == "none":
        return weighted
    return weighted.sum() if reduction == "sum" else weighted.mean()


@autocast_op("binary_cross_entropy")
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of probabilities ``input`` against targets in ``[0, 1]``:
    ``-weight (t log(x) + (1 - t) log(1 - x))``, each log clamped to ``>= -100`` (so
    ``x = 0`` or ``1`` gives at most 100, not infinity), as in PyTorch.

    Shape:
        input and target of the same shape, ``weight`` broadcastable to it -> ``()`` (the
        input's shape for ``'none'``).

    Raises:
        RuntimeError: an element of ``input`` or ``target`` outside ``[0, 1]``, or a
            ``weight`` that requires grad; ``ShapeError`` for a target of another shape.
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    return binary_loss.BinaryCrossEntropy(reduction=reduction)(input, target, weight)


@autocast_op("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None, size_average=None,
                                     reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """``binary_cross_entropy(sigmoid(input), target)`` computed from the logits, stable for
    any logit; ``pos_weight`` (broadcast, e.g. one per class) weighs the positive term.

    Shape:
        input and target of the same shape, ``weight`` and ``pos_weight`` broadcastable to
        it -> ``()`` (the input's shape for ``'none'``).

    Raises:
        RuntimeError: a ``weight`` or ``pos_weight`` that requires grad; ``ShapeError`` for
            a target of another shape.
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    return binary_loss.BinaryCrossEntropyWithLogits(reduction=reduction)(input, target, weight,
                                                                         pos_weight)


@autocast_op("kl_div")
def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence of ``target`` (probabilities, or log-probabilities with
    ``log_target``) from the log-probabilities ``input``: ``target (log target - input)``.

    ``'batchmean'`` divides the sum by the batch size (the KL divergence per sample);
    ``'mean'`` divides by the element count and warns, as in PyTorch.

    Shape:
        input and target broadcastable -> ``()`` (the broadcast shape for ``'none'``).
    """
    if size_average is not None or reduce is not None:
        op_reduction = legacy_reduction(size_average, reduce, reduction)
    else:
        loss._check_reduction("kl_div", reduction, KL_DIV_REDUCTIONS)
        if reduction == "mean":
            warn_at_caller(KL_DIV_MEAN_WARNING)
        op_reduction = "sum" if reduction == "batchmean" else reduction
    reduced = loss.KlDiv(reduction=op_reduction, log_target=log_target)(input, target)
    # As in PyTorch, also after the legacy flags decided the reduction.
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.shape[0]
    return reduced


@autocast_op("nll_loss")
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class indices (PyTorch's argument order). ``weight``
    ``(C,)`` scales each sample's loss by the weight of its class; ``'mean'`` then divides
    by the sum of the weights of the targets not ignored, as in PyTorch.

    Shape:
        input ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)`` log-probabilities, target ``()``,
        ``(N,)`` or ``(N, d1, ...)`` -> ``()`` (the target's shape for ``'none'``).
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    return nll_loss_op.NllLoss(reduction=reduction, ignore_index=ignore_index)(input, target,
                                                                              weight)


@autocast_op("cross_entropy")
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average=None, ignore_index: int = -100, reduce=None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Softmax cross-entropy over class logits (PyTorch's argument order).

    ``target`` holds class indices (int64), or class probabilities of the input's shape
    (float), as in PyTorch. ``label_smoothing = s`` mixes the target with the uniform
    distribution over the ``C`` classes: ``(1 - s) target + s / C``. ``weight`` ``(C,)``
    weighs each class's term; with class indices ``'mean'`` divides by the sum of the
    weights of the targets not ignored (as ``nll_loss``), with probabilities by the number
    of samples.

    Shape:
        class indices: input ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``, target ``()``,
        ``(N,)`` or ``(N, d1, ...)`` -> ``()`` (the target's shape for ``'none'``);
        probabilities: input ``(C,)`` or ``(N, C, ...)`` and target of its shape -> ``()``
        (the input's shape without ``C`` for ``'none'``).

    Raises:
        ValueError: ``label_smoothing`` outside ``[0, 1]``, or an ``ignore_index`` >= 0
            with probability targets.
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    loss._check_reduction("cross_entropy", reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0, got "
                         f"{label_smoothing}")
    class_dim = 0 if input.dim() == 1 else 1
    log_probabilities = functions.log_softmax(input, class_dim)
    if target.dtype.is_floating_point:
        return _cross_entropy_probabilities(log_probabilities, target, weight, class_dim,
                                            ignore_index, reduction, label_smoothing)
    nll = nll_loss(log_probabilities, target, weight, reduction=reduction,
                   ignore_index=ignore_index)
    if label_smoothing == 0.0:
        return nll
    # PyTorch's composition: the smoothing term is the (weighted) negative log-probability
    # summed over the classes, zero for ignored samples, averaged over the samples not
    # ignored (over the sum of their class weights, as nll_loss's mean).
    ignored = target == ignore_index
    zero = zeros((), dtype=log_probabilities.dtype, device=log_probabilities.device)
    weighted = log_probabilities if weight is None else \
        log_probabilities * _class_weight_view(weight, log_probabilities.dim(), class_dim)
    smooth = functions.where(ignored, zero, -weighted.sum(class_dim))
    if reduction == "mean":
        smooth = smooth.sum() / _counted_weight(target, weight, ignored, zero)
    elif reduction == "sum":
        smooth = smooth.sum()
    classes = log_probabilities.shape[class_dim]
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def _class_weight_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    """``weight`` ``(C,)`` viewed to broadcast along the class dimension of an ``ndim``-d
    input."""
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(*shape)


def _counted_weight(target: Tensor, weight: Tensor | None, ignored: Tensor,
                    zero: Tensor) -> Tensor:
    """What a class-index ``'mean'`` divides by: the number of targets not ignored, or the
    sum of their class weights."""
    if weight is None:
        return (~ignored).sum()
    safe_target = target.masked_fill(ignored, 0)
    return functions.where(ignored, zero, weight[safe_target]).sum()


def _cross_entropy_probabilities(log_probabilities: Tensor, target: Tensor,
                                 weight: Tensor | None, class_dim: int, ignore_index: int,
                                 reduction: str, label_smoothing: float) -> Tensor:
    """``-sum(weight * target * log_probabilities)`` over the classes, reduced as PyTorch
    does (its ``'mean'`` divides by the number of rows, not by the weights:
    ``DivBackward1``)."""
    if tuple(target.shape) != tuple(log_probabilities.shape):
        raise ShapeError("cross_entropy", f"probability targets must have the input's shape "
                                          f"{fmt(log_probabilities.shape)}, got "
                                          f"{fmt(target.shape)}")
    if ignore_index >= 0:
        raise ValueError(f"cross_entropy: ignore_index is not supported for floating point "
                         f"target (class probabilities), got ignore_index={ignore_index}; "
                         "leave it at its default, -100")
    classes = log_probabilities.shape[class_dim]
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    products = log_probabilities * target
    if weight is not None:
        if tuple(weight.shape) != (classes,):
            raise ShapeError("cross_entropy", f"weight tensor should be defined either for all "
                                              f"{classes} classes or no classes: expected "
                                              f"weight of shape ({classes},), got "
                                              f"{fmt(weight.shape)}")
        products = products * _class_weight_view(weight, products.dim(), class_dim)
    if reduction == "none":
        return -products.sum(class_dim)
    if reduction == "sum":
        return -products.sum()
    rows = products.numel() // classes if classes else 0
    return functions._composed(-products.sum() / rows, "DivBackward1")

"""More loss functions of ``nn.functional``, with PyTorch's names, argument order, defaults
and errors: the margin and embedding losses (``margin_ranking_loss``,
``hinge_embedding_loss``, ``soft_margin_loss``, ``cosine_embedding_loss``,
``triplet_margin_loss``, ``triplet_margin_with_distance_loss``,
``multilabel_soft_margin_loss``, ``multi_margin_loss``, ``multilabel_margin_loss``) and the
likelihood losses ``poisson_nll_loss`` and ``gaussian_nll_loss``.

Three are one op each (``ops/margin_loss.py``), as they are kernels in PyTorch. The others
are PyTorch's own compositions repeated op for op (``clamp_min``, ``where``, ``norm``, ...),
so values, gradients (at the hinge's corner too) and ``grad_fn`` names are PyTorch's.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .. import dtypes, functions
from ..autocasting import autocast_op
from ..autograd import no_grad
from ..factories import ones_like, zeros_like
from ..ops import loss, margin_loss
from ..ops.masked import fill_scalar
from ..ops.shapes import ShapeError, fmt
from ..tensor import Tensor
from ..tensor_arguments import require_tensors
from ._reduction import legacy_reduction
from .similarity import pairwise_distance

#: what PyTorch adds to each squared norm in ``cosine_embedding_loss`` (its ``EPSILON``)
COSINE_EPSILON = 1e-12


def _reduced(values: Tensor, reduction: str) -> Tensor:
    """PyTorch's ``apply_loss_reduction``: ``mean()``, ``sum()`` or the values as they are."""
    if reduction == "mean":
        return values.mean()
    return values.sum() if reduction == "sum" else values


def _reduction(op: str, size_average, reduce, reduction: str) -> str:
    """``reduction`` after PyTorch's deprecated flags, checked (a warning names the user's
    line)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    loss._check_reduction(op, reduction)
    return reduction


def _require_positive_margin(op: str, margin: float) -> None:
    if not margin > 0:
        raise ValueError(f"{op}: margin must be greater than 0, got {margin}")


@autocast_op("margin_ranking_loss")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``: ``target = 1`` asks for
    ``input1`` ranked above ``input2`` by ``margin``, ``-1`` the other way.

    Shape:
        three tensors of the same number of dimensions, broadcastable -> ``()`` (the
        broadcast shape for ``'none'``).

    Raises:
        ShapeError: inputs of different numbers of dimensions.
    """
    require_tensors("margin_ranking_loss", ("input1", input1), ("input2", input2),
                    ("target", target))
    reduction = _reduction("margin_ranking_loss", size_average, reduce, reduction)
    if not input1.dim() == input2.dim() == target.dim():
        raise ShapeError("margin_ranking_loss", f"all input tensors should have the same number "
                                                f"of dimensions, got input1 {fmt(input1.shape)}, "
                                                f"input2 {fmt(input2.shape)} and target "
                                                f"{fmt(target.shape)}")
    # PyTorch adds ``margin`` with add(Tensor, Scalar): AddBackward1
    shifted = functions._composed(-target * (input1 - input2) + margin, "AddBackward1")
    return _reduced(shifted.clamp_min(0), reduction)


@autocast_op("hinge_embedding_loss")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1 (``input``
    is usually a distance; other target values count both terms, as in PyTorch). An
    integer ``input`` is computed in its dtype, as PyTorch's (its ``'mean'`` refuses it).

    Shape:
        ``input`` and ``target`` broadcastable -> ``()`` (the broadcast shape for ``'none'``).
    """
    reduction = _reduction("hinge_embedding_loss", size_average, reduce, reduction)
    zeros = zeros_like(input)
    if not (input.is_floating_point() or input.is_complex() or input.dtype is dtypes.bool_):
        # PyTorch computes in an integer input's dtype: the margin converted as a fill value
        # (1.5 is 1; -1.5 is refused by uint8), the difference wrapping in uint8
        margin = fill_scalar("hinge_embedding_loss", margin, input.dtype).item()
    margin_clamp = (margin - input).clamp_min(0)
    output_margin = functions.where(target != 1, margin_clamp, zeros)
    output_self = functions.where(target != -1, input, zeros)
    return _reduced(output_margin + output_self, reduction)


@autocast_op("soft_margin_loss")
def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))``, the logistic loss of targets ±1.

    Shape:
        ``input``, and ``target`` broadcastable to it -> ``()`` (the input's shape for
        ``'none'``).
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    return margin_loss.SoftMarginLoss(reduction=reduction)(input, target)


@autocast_op("cosine_embedding_loss")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where it
    is -1 (0 elsewhere), the cosine taken along the last dimension.

    Shape:
        ``(N, D)`` twice and ``(N,)`` -> ``()`` (``(N,)`` for ``'none'``); unbatched:
        ``(D,)`` twice and ``()``.

    Raises:
        ShapeError: a target of more than one dimension, or inputs of the wrong number of
            dimensions for it.
    """
    op = "cosine_embedding_loss"
    require_tensors(op, ("input1", input1), ("input2", input2), ("target", target))
    reduction = _reduction(op, size_average, reduce, reduction)
    dim = target.dim()
    if dim > 1:
        raise ShapeError(op, f"expected a 0-D or 1-D target (one +1/-1 per pair), got target of "
                             f"shape {fmt(target.shape)}; multi-target is not supported")
    if input1.dim() != dim + 1 or input2.dim() != dim + 1:
        raise ShapeError(op, f"a {dim}-D target expects {dim + 1}-D input tensors, but got "
                             f"inputs of shapes {fmt(input1.shape)} and {fmt(input2.shape)}")
    prod_sum = (input1 * input2).sum(dim)
    magnitude1 = (input1 * input1).sum(dim) + COSINE_EPSILON
    magnitude2 = (input2 * input2).sum(dim) + COSINE_EPSILON
    cos = prod_sum / (magnitude1 * magnitude2).sqrt()
    zeros = zeros_like(cos)
    output_pos = functions.where(target == 1, 1 - cos, zeros)
    output_neg = functions.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduced(output_pos + output_neg, reduction)


def _require_same_ndim(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    require_tensors("triplet_margin_loss", ("anchor", anchor), ("positive", positive),
                    ("negative", negative))
    if not anchor.dim() == positive.dim() == negative.dim():
        raise ShapeError("triplet_margin_loss",
                         f"the anchor, positive, and negative tensors are expected to have the "
                         f"same number of dimensions, but got: anchor {anchor.dim()}D, positive "
                         f"{positive.dim()}D, and negative {negative.dim()}D inputs")


def _triplet(dist_pos: Tensor, dist_neg: Tensor, dist_swap: Tensor | None, margin: float,
             reduction: str) -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))``, ``d(a, n)`` lowered to ``d(p, n)`` by swap."""
    if dist_swap is not None:
        dist_neg = functions.minimum(dist_neg, dist_swap)
    return _reduced((margin + dist_pos - dist_neg).clamp_min(0), reduction)


@autocast_op("triplet_margin_loss")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` the
    ``pairwise_distance`` of norm ``p``; ``swap`` uses ``d(positive, negative)`` where it is
    the smaller.

    Shape:
        ``(N, D)`` (or ``(D,)``) three times -> ``()`` (``(N,)`` for ``'none'``).

    Raises:
        ValueError: ``margin <= 0``. ShapeError: inputs of different numbers of dimensions.
    """
    reduction = _reduction("triplet_margin_loss", size_average, reduce, reduction)
    _require_positive_margin("triplet_margin_loss", margin)
    _require_same_ndim(anchor, positive, negative)
    dist_swap = pairwise_distance(positive, negative, p, eps) if swap else None
    return _triplet(pairwise_distance(anchor, positive, p, eps),
                    pairwise_distance(anchor, negative, p, eps), dist_swap, margin, reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable | None = None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """``triplet_margin_loss`` with any distance: ``distance_function(x1, x2)`` returns one
    non-negative distance per sample (default ``pairwise_distance``).

    Shape:
        as the distance function takes them -> ``()`` (its output's shape for ``'none'``).

    Raises:
        ValueError: ``margin <= 0``. ShapeError: inputs of different numbers of dimensions.
    """
    loss._check_reduction("triplet_margin_with_distance_loss", reduction)
    _require_positive_margin("triplet_margin_with_distance_loss", margin)
    _require_same_ndim(anchor, positive, negative)
    distance = pairwise_distance if distance_function is None else distance_function
    dist_swap = distance(positive, negative) if swap else None
    return _triplet(distance(anchor, positive), distance(anchor, negative), dist_swap, margin,
                    reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average=None, reduce=None,
                                reduction: str = "mean") -> Tensor:
    """The binary logistic loss of each class (targets 0 or 1), times ``weight``, averaged
    over the classes (the last dimension).

    Shape:
        ``(N, C)`` (or ``(C,)``) and a target of that shape -> ``()`` (``(N,)`` for
        ``'none'``).
    """
    from .activation_functions import logsigmoid

    reduction = _reduction("multilabel_soft_margin_loss", size_average, reduce, reduction)
    values = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        values = values * weight
    class_dim = input.dim() - 1
    values = values.sum(class_dim) / input.shape[class_dim]
    return _reduced(values, reduction)


@autocast_op("multi_margin_loss")
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average=None, reduce=None,
                      reduction: str = "mean") -> Tensor:
    """The multi-class hinge loss ``sum over i != y of weight[y] * max(0, margin - x[y] +
    x[i]) ** p / C`` for each sample of class ``y``.

    Shape:
        ``(N, C)`` (or ``(C,)``), int64 ``(N,)`` (or ``()``), ``weight`` ``(C,)`` -> ``()``
        (``(N,)`` for ``'none'``).

    Raises:
        ValueError: ``p`` other than 1 or 2, a weight that is not one-dimensional.
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError(f"multi_margin_loss: only p == 1 and p == 2 supported, got p={p}")
    if weight is not None and weight.dim() != 1:
        raise ValueError(f"multi_margin_loss: weight must be one-dimensional (one per class), "
                         f"got weight of shape {fmt(weight.shape)}")
    op = margin_loss.MultiMarginLoss(reduction=reduction, p=p, margin=margin)
    return op(input, target) if weight is None else op(input, target, weight)


@autocast_op("multilabel_margin_loss")
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """The multi-label hinge loss: each sample's target row lists its classes (ended by
    -1), and each listed class should score at least 1 above every class not listed.

    Shape:
        ``(N, C)`` (or ``(C,)``) and an int64 target of that shape -> ``()`` (``(N,)`` for
        ``'none'``).
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    return margin_loss.MultilabelMarginLoss(reduction=reduction)(input, target)


@autocast_op("poisson_nll_loss")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of ``target`` counts under a Poisson of rate ``input``:
    ``exp(input) - target * input`` with ``log_input`` (the input is the log-rate), else
    ``input - target * log(input + eps)``. ``full`` adds Stirling's approximation of
    ``log(target!)``, where ``target > 1``.

    Shape:
        ``input`` and ``target`` broadcastable -> ``()`` (the broadcast shape for ``'none'``).
    """
    reduction = _reduction("poisson_nll_loss", size_average, reduce, reduction)
    if log_input:
        values = input.exp() - target * input
    else:
        values = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        values = values + stirling.masked_fill(target <= 1, 0)
    return _reduced(values, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of ``target`` under Gaussians of mean ``input`` and
    variance ``var``: ``0.5 (log(var) + (input - target)^2 / var)`` (plus
    ``0.5 log(2 pi)`` when ``full``). ``var`` is clamped to at least ``eps`` without
    stopping its gradient, as in PyTorch.

    Shape:
        ``input`` ``(N, *)`` and ``target`` broadcastable to each other; ``var`` a float, of
        the input's shape, of the input's shape without its last dimension, or of the
        input's shape with one dimension of size 1 -> ``()`` (the broadcast shape for
        ``'none'``).

    Raises:
        ValueError: a negative variance (not checked on meta), or ``var`` of another shape.
        TypeError: ``var`` neither a tensor nor a float.
    """
    op = "gaussian_nll_loss"
    var = _variance(op, input, var)
    loss._check_reduction(op, reduction)
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    values = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        values = functions._composed(values + 0.5 * math.log(2 * math.pi), "AddBackward0")
    return _reduced(values, reduction)


def _variance(op: str, input: Tensor, var) -> Tensor:
    """``var`` as a tensor that broadcasts against ``input`` by PyTorch's rules."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError(f"{op}: var has negative entry/entries: expected variances >= 0, "
                             f"got {var}")
        return var * ones_like(input)
    if not isinstance(var, Tensor):
        raise TypeError(f"{op}: var must be a Tensor or a float, got {type(var).__name__}")
    negative = (var < 0).any()
    if not (negative.is_meta or not negative.item()):
        raise ValueError(f"{op}: var has negative entry/entries: expected variances >= 0")
    shape, var_shape = tuple(input.shape), tuple(var.shape)
    if var_shape == shape:
        return var
    if var_shape == shape[:-1]:  # one variance per row of the last dimension
        return var.unsqueeze(-1)
    # PyTorch's test: the sizes of var where it differs from the input add up to 1
    mismatched = sum(v for s, v in zip(shape, var_shape) if s != v)
    if len(var_shape) == len(shape) and mismatched == 1:  # one dimension of size 1
        return var
    raise ValueError(f"{op}: var is of incorrect size: expected the input's shape "
                     f"{fmt(shape)}, that shape without its last dimension, or with one "
                     f"dimension of size 1, got var of shape {fmt(var_shape)}")

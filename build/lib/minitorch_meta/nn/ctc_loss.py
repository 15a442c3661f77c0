"""``F.ctc_loss`` and ``CTCLoss``: the connectionist temporal classification loss
(``ops/ctc_loss.py``), with PyTorch's argument handling: lengths as tensors or as tuples of
ints, padded or concatenated targets, unbatched inputs, and its reductions composed of ops
as PyTorch composes them (``zero_infinity``'s ``where``, ``'mean'``'s division by the
target lengths), so that values, gradients and ``grad_fn`` names are PyTorch's."""

from __future__ import annotations

from numbers import Integral

from .. import dtypes, functions
from ..autocasting import autocast_op
from ..factories import tensor, zeros
from ..ops import ctc_loss as ctc_ops
from ..ops import loss
from ..tensor import Tensor
from .loss import _Loss


@autocast_op("ctc_loss")
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The negative log-likelihood of each target under all its alignments to the input
    frames, reduced: ``'mean'`` divides each sample's loss by its target length (at least
    1) and averages, ``'sum'`` adds them up, ``'none'`` keeps them. ``log_probs`` are
    log-probabilities (``log_softmax`` over the classes); ``blank`` is the blank class;
    ``zero_infinity`` turns the infinite loss of a target that no alignment fits (an input
    too short) and its gradient into 0. The gradient is PyTorch's, exact through a
    ``log_softmax`` in front (see ``ops/ctc_loss.py``).

    Shape:
        ``log_probs`` ``(T, N, C)`` or unbatched ``(T, C)``; ``targets`` ``(N, S)`` padded or
        ``(sum(target_lengths),)`` concatenated (unbatched: ``(S,)``); ``input_lengths`` and
        ``target_lengths`` ``(N,)`` tensors or tuples of ``N`` ints (unbatched: ``()`` or one
        int in a tuple) -> ``()``, or ``(N,)`` (unbatched ``()``) for ``'none'``.

    Raises:
        TypeError for lengths that are neither both tensors nor both tuples or lists of
        ints; RuntimeError for lengths that are not integers; ValueError for an unknown
        ``reduction``; the op's errors (``CtcLoss``) for shapes and values.
    """
    loss._check_reduction("ctc_loss", reduction)
    if log_probs.dim() not in (2, 3):
        raise ctc_ops.ShapeError("ctc_loss", f"expected log_probs of 3 dimensions (T, N, C), "
                                 f"or 2 (T, C) unbatched, but got {log_probs.dim()} "
                                 f"dimension(s), shape {ctc_ops.fmt(tuple(log_probs.shape))}")
    batched = log_probs.dim() == 3
    if not batched:  # PyTorch's unbatched form: a batch of one, the loss squeezed after
        log_probs = log_probs.unsqueeze(1)
    _check_length_types(input_lengths, target_lengths)
    inputs = _lengths("input_lengths", input_lengths, log_probs)
    lengths = _lengths("target_lengths", target_lengths, log_probs)
    # As PyTorch: the targets move to the log-probabilities' device as int64
    targets = targets.detach().to(log_probs.device, dtypes.int64)
    out = ctc_ops.CtcLoss.apply(log_probs, targets, input_lengths=inputs,
                                target_lengths=lengths, blank=blank,
                                zero_infinity=zero_infinity)
    if zero_infinity:
        out = functions.where(out == float("inf"), zeros((), dtype=out.dtype,
                                                         device=out.device), out)
    if reduction == "mean":
        return (out / _divisors(target_lengths, lengths, out)).mean()
    if reduction == "sum":
        return out.sum()
    return out if batched else out.squeeze(0)


def _check_length_types(input_lengths, target_lengths) -> None:
    """Both tensors, or both tuples or lists: PyTorch has no other overload."""
    kinds = [_kind(value) for value in (input_lengths, target_lengths)]
    if None in kinds or kinds[0] != kinds[1]:
        raise TypeError(f"ctc_loss(): input_lengths and target_lengths must both be tensors "
                        f"or both be tuples or lists of ints, but got "
                        f"{type(input_lengths).__name__} and {type(target_lengths).__name__}")


def _kind(value) -> str | None:
    if isinstance(value, Tensor):
        return "tensor"
    return "sequence" if isinstance(value, (tuple, list)) else None


def _lengths(name: str, value, log_probs: Tensor) -> tuple:
    """The lengths as a tuple of ints (a tensor's flattened, read to the host, as PyTorch
    does); a meta tensor's beside meta log-probabilities as Nones, one per length."""
    if isinstance(value, Tensor):
        if value.dtype.numpy.kind not in "iu":
            raise RuntimeError(f"{name} must be integral, but got a tensor of {value.dtype}; "
                               "convert it with .long()")
        if value.is_meta and log_probs.is_meta:
            return (None,) * value.numel()
        return tuple(int(v) for v in value.reshape(-1).tolist())
    for item in value:
        if not isinstance(item, Integral):
            raise TypeError(f"ctc_loss(): {name} must be a tuple of ints, but it holds "
                            f"{type(item).__name__} ({item!r})")
    return tuple(int(item) for item in value)


def _divisors(given, lengths: tuple, out: Tensor) -> Tensor:
    """Each sample's target length, at least 1, in the loss's dtype (``'mean'``)."""
    if None in lengths:  # a meta tensor: the divisors are a meta tensor of its shape
        divisors = given.reshape(-1).to(out.dtype)
    else:
        divisors = tensor(list(lengths), dtype=out.dtype, device=out.device)
    return divisors.clamp_min(1)


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (see ``F.ctc_loss``), called as
    ``loss(log_probs, targets, input_lengths, target_lengths)``.

    Shape:
        ``(T, N, C)`` or ``(T, C)`` log-probabilities, ``(N, S)`` or
        ``(sum(target_lengths),)`` targets, ``(N,)`` lengths -> ``()``, or ``(N,)`` for
        ``'none'``.
    """

    def __init__(self, blank: int = 0, reduction: str = "mean",
                 zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths,
                target_lengths) -> Tensor:
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)

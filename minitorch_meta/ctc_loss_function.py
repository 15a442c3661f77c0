"""``torch.ctc_loss``: PyTorch's native entry point of ``F.ctc_loss``, with the reduction as
an int code (1 mean, 2 sum, any other: none, as PyTorch's ``at::Reduction`` reads it).
It runs ``F.ctc_loss``, so values, gradients and ``grad_fn`` names are the same."""

from __future__ import annotations

from .native_arguments import bool_argument, int_argument
from .nn.ctc_loss import ctc_loss as _functional_ctc_loss
from .tensor import Tensor

#: PyTorch's ``at::Reduction`` codes; any other code reduces nothing, as in PyTorch
REDUCTION_CODES = {0: "none", 1: "mean", 2: "sum"}


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths,
             blank: int = 0, reduction: int = 1, zero_infinity: bool = False) -> Tensor:
    """The connectionist temporal classification loss (see ``F.ctc_loss``), reduced by
    ``reduction``: 0 none, 1 mean (each loss over its target length, then averaged),
    2 sum.

    Shape:
        ``log_probs`` ``(T, N, C)`` or ``(T, C)``, ``targets`` ``(N, S)`` or
        ``(sum(target_lengths),)``, lengths ``(N,)`` tensors or tuples of ints -> ``()``,
        or ``(N,)`` for reduction 0.

    Raises:
        TypeError for a ``blank`` or ``reduction`` that is not an int, or a
        ``zero_infinity`` that is not a bool; ``F.ctc_loss``'s errors otherwise.
    """
    blank = int_argument("ctc_loss", "blank", 5, blank)
    code = int_argument("ctc_loss", "reduction", 6, reduction)
    zero_infinity = bool_argument("ctc_loss", "zero_infinity", 7, zero_infinity)
    return _functional_ctc_loss(log_probs, targets, input_lengths, target_lengths,
                                blank=blank, reduction=REDUCTION_CODES.get(code, "none"),
                                zero_infinity=zero_infinity)


__all__ = ["ctc_loss"]

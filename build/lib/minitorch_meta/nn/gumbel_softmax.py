"""``F.gumbel_softmax``: a differentiable sample of a categorical distribution given by
logits (the Gumbel-softmax / concrete relaxation), soft or one-hot ("straight-through")."""

from __future__ import annotations

from .. import factories
from ..caller_warnings import warn_at_caller
from ..tensor import Tensor
from ..type_info import finfo


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """``softmax((logits + g) / tau, dim)`` with ``g`` standard Gumbel noise drawn from the
    default generator; as ``tau -> 0`` the samples approach one-hot draws of the categorical
    distribution ``softmax(logits)``.

    With ``hard=True`` the result is the one-hot vector of each sample's largest entry, but
    its gradient is the soft sample's (straight-through: ``y_hard - y_soft.detach() +
    y_soft``, as PyTorch composes it, so ``grad_fn`` is ``AddBackward0``).

    Shape:
        ``logits`` ``(*)`` -> the same shape, summing to 1 along ``dim``.

    Warns:
        UserWarning when ``eps`` is given: it is deprecated and ignored (as in PyTorch).

    Raises:
        RuntimeError: ``logits`` is not floating-point (PyTorch's type).
    """
    if eps != 1e-10:
        warn_at_caller("`eps` parameter is deprecated and has no effect.")
    if not logits.is_floating_point():
        raise RuntimeError(f"gumbel_softmax: logits must be floating-point (the Gumbel noise "
                           f"is continuous), but got {logits.dtype}; convert with .float()")
    y_soft = ((logits + _gumbel_noise(logits)) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = factories.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def _gumbel_noise(logits: Tensor) -> Tensor:
    """Standard Gumbel draws shaped as ``logits``: ``-log(E)`` for ``E = -log(U)``
    exponential. ``U`` is kept at least the dtype's smallest normal number, so ``E`` is
    never infinite, and below 1, so ``E`` is never 0 (either would give an infinite draw)."""
    uniform = factories.empty_like(logits).uniform_()
    uniform = uniform.clamp_min(finfo(logits.dtype).tiny)
    return -(-uniform.log()).log()

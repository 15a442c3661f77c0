"""Pieces of update rules that several optimizers share, each one of PyTorch's steps.

All of them run under the ``no_grad`` of ``Optimizer.step`` and use only tensor ops, so they
work on every device (on meta they only check shapes). The arithmetic follows PyTorch's
kernels term by term (``addcmul_``, ``lerp_``), so float64 results agree to rounding.
"""

from __future__ import annotations

from .. import dtypes
from ..factories import tensor
from ..tensor import Tensor


def new_step() -> Tensor:
    """A step counter at 0: a 0-d float32 cpu tensor, as PyTorch keeps it (not capturable)."""
    return tensor(0.0, dtype=dtypes.float32, device="cpu")


def count_step(state: dict) -> float:
    """Add one to ``state["step"]`` and return the new count as a Python float."""
    step = state["step"]
    if not isinstance(step, Tensor):  # a plain number, from an older state dict
        step = state["step"] = tensor(float(step), dtype=dtypes.float32, device="cpu")
    step.add_(1)
    return step.item()


def descent_gradient(p: Tensor, group: dict, weight_decay: float) -> Tensor:
    """``p``'s gradient to descend: ``g = -grad if maximize``, then ``g + weight_decay * p``.

    ``weight_decay`` is L2 regularisation folded into the gradient (pass 0 when the optimizer
    decays the parameter itself, as AdamW does). ``p.grad`` is never modified.
    """
    g = -p._grad if group["maximize"] else p._grad
    if weight_decay != 0:
        g = g.add(p, alpha=weight_decay)
    return g


def decayed_gradient(p: Tensor, group: dict) -> Tensor:
    """``descent_gradient`` with the group's ``weight_decay``, either folded into the
    gradient (L2) or, with ``decoupled_weight_decay``, applied to ``p`` itself first
    (``p *= 1 - lr * weight_decay``, as AdamW, NAdamW and RAdamW do)."""
    weight_decay = group["weight_decay"]
    if not group["decoupled_weight_decay"]:
        return descent_gradient(p, group, weight_decay)
    g = descent_gradient(p, group, 0)
    if weight_decay != 0:
        p.mul_(1 - group["lr"] * weight_decay)
    return g


def square_average_(average: Tensor, g: Tensor, decay: float) -> Tensor:
    """``average = decay * average + (1 - decay) * g * g`` in place (PyTorch's
    ``average.mul_(decay).addcmul_(g, g, value=1 - decay)``); returns ``average``."""
    return average.mul_(decay).add_(g * (1 - decay) * g)


def lerp_(start: Tensor, end: Tensor, weight: float) -> Tensor:
    """``start += weight * (end - start)`` in place, with PyTorch's two formulas for ``lerp_``.

    For ``|weight| >= 0.5`` PyTorch computes ``end - (end - start) * (1 - weight)``, which is
    exact at ``weight == 1``; using the same formula keeps float64 results identical.
    """
    if abs(weight) < 0.5:
        return start.add_((end - start) * weight)
    return start.copy_(end - (end - start) * (1 - weight))

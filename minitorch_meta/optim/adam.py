"""``Adam``: adaptive moment estimation, with PyTorch's bias correction and AMSGrad.

The update is PyTorch's, step for step (``g`` the gradient, ``t`` the step count)::

    g = -g if maximize
    g = g + weight_decay * p                     if weight_decay != 0
    m = m + (1 - beta1) * (g - m)                (PyTorch's lerp)
    v = beta2 * v + (1 - beta2) * g * g
    v_max = max(v_max, v)                        if amsgrad (then used in place of v)
    denom = sqrt(v) / sqrt(1 - beta2 ** t) + eps
    p = p - lr / (1 - beta1 ** t) * m / denom

State per parameter: ``step`` (a 0-d float32 cpu tensor, as in PyTorch), ``exp_avg``,
``exp_avg_sq`` and, with AMSGrad, ``max_exp_avg_sq``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .. import dtypes
from ..factories import tensor, zeros_like
from ..functions import where
from ..tensor import Tensor
from .optimizer import Optimizer, check_number


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2015), PyTorch's ``torch.optim.Adam`` (L2 weight decay, not AdamW).

    Raises:
        ValueError: ``lr``, ``eps`` or ``weight_decay`` is negative, or a beta is outside
            [0, 1).
    """

    def __init__(self, params: Iterable, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, *, maximize: bool = False):
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize}
        super().__init__(params, defaults)

    def _check_group(self, group: dict) -> None:
        check_number("lr", group["lr"], label="learning rate")
        check_number("eps", group["eps"], label="epsilon value")
        betas = group["betas"]
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise ValueError(f"Invalid betas: expected a pair (beta1, beta2), got {betas!r}")
        for index, beta in enumerate(betas):
            check_number("beta", beta, 0.0, 1.0, label=f"beta parameter at index {index}")
        check_number("weight_decay", group["weight_decay"])

    def _state(self, p: Tensor, amsgrad: bool) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0, dtype=dtypes.float32, device="cpu")
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
        elif not isinstance(state["step"], Tensor):  # a plain number from an older state dict
            state["step"] = tensor(float(state["step"]), dtype=dtypes.float32, device="cpu")
        if amsgrad and "max_exp_avg_sq" not in state:
            state["max_exp_avg_sq"] = zeros_like(p)
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        beta1, beta2 = group["betas"]
        state = self._state(p, group["amsgrad"])
        g = -p.grad if group["maximize"] else p.grad
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            g = g.add(p, alpha=group["weight_decay"])
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.add_((g - exp_avg) * (1 - beta1))
        exp_avg_sq.mul_(beta2).add_(g * (1 - beta2) * g)
        if group["amsgrad"]:
            largest = state["max_exp_avg_sq"]
            largest.copy_(where(exp_avg_sq > largest, exp_avg_sq, largest))
            second_moment = largest
        else:
            second_moment = exp_avg_sq
        step = state["step"].item()
        step_size = group["lr"] / (1 - beta1 ** step)
        denom = (second_moment.sqrt() / math.sqrt(1 - beta2 ** step)).add_(group["eps"])
        p.add_(exp_avg * -step_size / denom)

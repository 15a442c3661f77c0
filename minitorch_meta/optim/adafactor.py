"""``Adafactor``: Adam-like steps whose second moment of a matrix is kept as a row and a
column factor (Shazeer & Stern, 2018), PyTorch's ``torch.optim.Adafactor``.

The update is PyTorch's, step for step (``g`` the gradient, ``t`` the step count, ``n`` the
number of elements, ``eps1`` the dtype's machine epsilon unless given)::

    g = -g if maximize
    beta2_t = t ** beta2_decay             (the weight of the new square, 1 - beta2)
    rho = min(lr, 1 / sqrt(t))
    alpha = max(eps2, ||p|| / sqrt(n)) * rho
    p = p * (1 - lr * weight_decay)        if weight_decay != 0
    for a gradient of 2 or more dims (factored over its last two):
        R = lerp(R, mean(g², dim=-1), beta2_t)     C = lerp(C, mean(g², dim=-2), beta2_t)
        v = (R @ C) / max(mean(R, dim=-2), eps1)
    for a vector (or a 0-d) gradient:
        v = V = lerp(V, g², beta2_t)
    u = g / sqrt(max(v, eps1²))
    p = p - alpha / max(1, ||u|| / (sqrt(n) * d)) * u

State per parameter: ``step`` (a 0-d float32 cpu tensor, as in PyTorch) and either
``row_var`` and ``col_var`` (the gradient's shape with the last, resp. second-to-last, dim
1) or ``variance`` (the gradient's shape).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..factories import zeros_like
from ..functions import norm
from ..tensor import Tensor
from ..type_info import finfo
from ._updates import count_step, descent_gradient, lerp_, new_step
from .optimizer import Optimizer, lr_number, reject_unsupported


class Adafactor(Optimizer):
    """Adafactor, PyTorch's ``torch.optim.Adafactor`` (``eps = (eps1, eps2)``: ``eps1``
    floors the second moment, None for the dtype's epsilon; ``eps2`` floors the relative
    step size; ``d`` clips the update's RMS norm).

    ``foreach`` is accepted at its default only.

    Raises:
        ValueError: ``lr``, an ``eps`` or ``weight_decay`` is negative, ``beta2_decay`` is
            positive, or ``d`` is below 1.
        NotImplementedError: ``foreach`` is set.
    """

    def __init__(self, params: Iterable, lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False):
        reject_unsupported("Adafactor", foreach=foreach)
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize}
        super().__init__(params, defaults)

    def _check_group(self, group: dict) -> None:
        eps1, eps2 = group["eps"]
        lr = lr_number(group["lr"])
        for holds, message in (
                (0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}"),
                (0.0 >= group["beta2_decay"],
                 f"beta2_decay should be <= 0 but is: {group['beta2_decay']}"),
                (eps1 is None or 0.0 <= eps1, f"epsilon1 should be >= 0 but is: {eps1}"),
                (0.0 <= eps2, f"epsilon2 should be >= 0 but is: {eps2}"),
                (1.0 <= group["d"], f"Clipping threshold d should be >= 1 but is: {group['d']}"),
                (0.0 <= group["weight_decay"],
                 f"weight_decay should be >= 0 but is: {group['weight_decay']}")):
            if not holds:
                raise ValueError(message)

    def _state(self, p: Tensor) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = new_step()
            if p._grad.dim() > 1:
                row_shape, col_shape = list(p._grad.shape), list(p._grad.shape)
                row_shape[-1], col_shape[-2] = 1, 1
                state["row_var"] = p._grad.new_zeros(row_shape)
                state["col_var"] = p._grad.new_zeros(col_shape)
            else:
                state["variance"] = zeros_like(p._grad)
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        state = self._state(p)
        step = count_step(state)
        g = descent_gradient(p, group, 0)  # the weight decay scales p itself, below
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = finfo(p.dtype).eps
        lr, weight_decay = group["lr"], group["weight_decay"]
        new_weight = step ** group["beta2_decay"]
        alpha = max(eps2, _rms(p)) * min(lr, 1 / step ** 0.5)
        if weight_decay != 0:
            p.mul_(1 - lr * weight_decay)
        if g.dim() > 1:
            row_var = lerp_(state["row_var"], _mean_square(g, -1), new_weight)
            col_var = lerp_(state["col_var"], _mean_square(g, -2), new_weight)
            variance = (row_var @ col_var).div_(row_var.mean(dim=-2, keepdim=True)
                                                .clamp_(min=eps1))
        else:
            variance = lerp_(state["variance"], g * g, new_weight).clone()
        update = variance.clamp_(min=eps1 * eps1).rsqrt_().mul_(g)
        p.add_(update, alpha=-alpha / max(1.0, _rms(update) / group["d"]))


def _mean_square(g: Tensor, dim: int) -> Tensor:
    """``mean(g², dim, keepdim=True)``, computed as PyTorch does (the norm, squared, over the
    length) so that float64 results agree to the last bit."""
    return norm(g, dim=dim, keepdim=True).square_().div_(g.size(dim))


def _rms(t: Tensor) -> float:
    """``||t|| / sqrt(numel)``. A meta tensor has no values: 1.0 stands in (a meta step
    only checks shapes)."""
    if not t._backend.stores_data:
        return 1.0
    return norm(t, 2).item() / t.numel() ** 0.5

"""``AdamW``: Adam with decoupled weight decay (Loshchilov & Hutter, 2019).

As in PyTorch 2.13, AdamW *is* Adam with ``decoupled_weight_decay=True``: the parameter
shrinks by ``lr * weight_decay`` before Adam's step, instead of ``weight_decay * p`` being
added to the gradient (where Adam's normalisation would undo it)::

    p = p * (1 - lr * weight_decay)
    p = p - lr / (1 - beta1 ** t) * m / (sqrt(v) / sqrt(1 - beta2 ** t) + eps)

(``m``, ``v``, AMSGrad and ``maximize`` exactly as in ``adam.py``.)
"""

from __future__ import annotations

from collections.abc import Iterable

from .adam import Adam


class AdamW(Adam):
    """AdamW, PyTorch's ``torch.optim.AdamW`` (note the default ``weight_decay=1e-2``).

    Raises:
        ValueError: ``lr``, ``eps`` or ``weight_decay`` is negative, or a beta is outside
            [0, 1).
        NotImplementedError: ``foreach``, ``capturable``, ``differentiable`` or ``fused`` is
            set.
    """

    def __init__(self, params: Iterable, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a saved state; the weight decay stays decoupled whatever the dict says.

        PyTorch does the same, so an ``Adam`` state dict loaded into ``AdamW`` becomes AdamW.
        """
        super().load_state_dict(state_dict)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True

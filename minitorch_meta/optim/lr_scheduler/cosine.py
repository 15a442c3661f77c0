"""``CosineAnnealingLR``: half a cosine from the initial rate down to ``eta_min``."""

from __future__ import annotations

import math

from ..optimizer import Optimizer
from .base import LRScheduler, group_values


class CosineAnnealingLR(LRScheduler):
    """Anneal each group's learning rate along a cosine from its initial rate to ``eta_min``
    over ``T_max`` epochs (SGDR without restarts).

    Closed form: ``lr_t = eta_min + (base_lr - eta_min) * (1 + cos(pi * t / T_max)) / 2``.
    Past ``T_max`` the cosine goes on, so the rate climbs back up over the next ``T_max``
    epochs. ``step()`` uses PyTorch's recursive form, which follows the closed form up to
    rounding while letting other schedulers change the rate too::

        lr_t = eta_min + (lr_{t-1} - eta_min) * (1 + cos(pi * t / T_max))
                                               / (1 + cos(pi * (t - 1) / T_max))

    except at the bottom of each cosine (``cos(pi * (t - 1) / T_max) = -1``, where the
    ratio would divide by zero), which adds the first step of the way back up instead.

    Raises:
        ValueError: ``T_max`` is not a positive number (PyTorch divides by zero, or runs a
            mirrored schedule, instead).
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1):
        if isinstance(T_max, bool) or not isinstance(T_max, (int, float)) or not T_max > 0:
            raise ValueError(f"CosineAnnealingLR: T_max must be a positive number of epochs, "
                             f"got {T_max!r}")
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return self._jump_to_last_epoch()
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return self._lrs_leaving_the_bottom()
        return self._recursive_lrs()

    def _jump_to_last_epoch(self) -> list[float]:
        """A first step that lands past epoch 1 has no previous rate to chain from: use the
        closed form (with PyTorch's order of operations for this case)."""
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                for base_lr in self.base_lrs]

    def _lrs_leaving_the_bottom(self) -> list[float]:
        """One epoch past a minimum: add ``(base_lr - eta_min) * (1 - cos(pi / T_max)) / 2``."""
        rise = 1 - math.cos(math.pi / self.T_max)
        return [group["lr"] + (base_lr - self.eta_min) * rise / 2
                for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)]

    def _recursive_lrs(self) -> list[float]:
        ratio = ((1 + math.cos(math.pi * self.last_epoch / self.T_max))
                 / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)))
        return [ratio * (group["lr"] - self.eta_min) + self.eta_min
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        cosine = 1 + math.cos(math.pi * self.last_epoch / self.T_max)
        return [self.eta_min + (base_lr - self.eta_min) * cosine / 2
                for base_lr in self.base_lrs]

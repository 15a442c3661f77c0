"""Warm-up factors for the first ``total_iters`` epochs: ``ConstantLR`` and ``LinearLR``.

Both scale ``base_lr`` by a factor that reaches its final value at epoch ``total_iters``
and then leave the rate alone (so they chain with a decay scheduler).
"""

from __future__ import annotations

from ..optimizer import Optimizer
from .base import LRScheduler, group_values


class ConstantLR(LRScheduler):
    """Scale each group's learning rate by ``factor`` until epoch ``total_iters``.

    ``lr_t = base_lr * factor`` for ``t < total_iters``, then ``base_lr``.

    Raises:
        ValueError: ``factor`` is not in [0, 1].
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return self._scaled_lrs(self.factor)
        if self.last_epoch != self.total_iters:
            return group_values(self.optimizer, "lr")
        return self._scaled_lrs(1.0 / self.factor)  # undo the epoch-0 scaling

    def _get_closed_form_lr(self) -> list[float]:
        done = self.last_epoch >= self.total_iters
        return [base_lr * (self.factor + done * (1 - self.factor)) for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale each group's learning rate by a factor going linearly from ``start_factor`` to
    ``end_factor`` over ``total_iters`` epochs.

    ``lr_t = base_lr * (start_factor + (end_factor - start_factor) * min(t, total_iters)
    / total_iters)``. The chainable form multiplies the current rate by the ratio of two
    consecutive factors: ``1 + (end - start) / (total_iters * start + (t - 1) * (end - start))``.

    Raises:
        ValueError: ``start_factor`` is not in (0, 1], or ``end_factor`` not in [0, 1].
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return self._scaled_lrs(self.start_factor)
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer, "lr")
        slope = self.end_factor - self.start_factor
        previous = self.total_iters * self.start_factor + (self.last_epoch - 1) * slope
        return self._scaled_lrs(1.0 + slope / previous)

    def _get_closed_form_lr(self) -> list[float]:
        slope = self.end_factor - self.start_factor
        epochs = min(self.total_iters, self.last_epoch)
        factor = self.start_factor + slope * epochs / self.total_iters
        return [base_lr * factor for base_lr in self.base_lrs]

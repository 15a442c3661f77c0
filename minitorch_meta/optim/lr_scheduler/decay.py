"""Decay by a constant factor ``gamma``: ``StepLR``, ``MultiStepLR``, ``ExponentialLR``.

Each multiplies the groups' current rates by ``gamma`` at the epochs where the schedule
decays (chainable), so after epoch ``t`` the rate is ``base_lr * gamma ** (decays so far)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..optimizer import Optimizer
from .base import LRScheduler, group_values


class StepLR(LRScheduler):
    """Multiply each group's learning rate by ``gamma`` every ``step_size`` epochs.

    ``lr_t = base_lr * gamma ** (t // step_size)``.

    Raises:
        ValueError: ``step_size`` is not a positive integer (PyTorch accepts it and divides
            by zero, or never decays, later).
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1):
        if isinstance(step_size, bool) or not isinstance(step_size, int) or step_size < 1:
            raise ValueError(f"StepLR: step_size must be a positive integer, got {step_size!r}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return group_values(self.optimizer, "lr")
        return self._scaled_lrs(self.gamma)

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply each group's learning rate by ``gamma`` at each epoch in ``milestones``.

    ``lr_t = base_lr * gamma ** (number of milestones <= t)``. A milestone listed twice
    decays twice, as in PyTorch (``milestones`` is kept as a ``Counter``).
    """

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        times = self.milestones.get(self.last_epoch, 0)
        if times == 0:
            return group_values(self.optimizer, "lr")
        return self._scaled_lrs(self.gamma ** times)

    def _get_closed_form_lr(self) -> list[float]:
        passed = sum(times for milestone, times in self.milestones.items()
                     if milestone <= self.last_epoch)
        return [base_lr * self.gamma ** passed for base_lr in self.base_lrs]

    def state_dict(self) -> dict:
        """As the base's, with ``milestones`` a plain dict (equal to PyTorch's ``Counter``)
        so that ``minitorch_meta.save``, which only writes plain dicts, can save it."""
        state = super().state_dict()
        state["milestones"] = dict(state["milestones"])
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        super().load_state_dict(state_dict)
        self.milestones = Counter(self.milestones)


class ExponentialLR(LRScheduler):
    """Multiply each group's learning rate by ``gamma`` every epoch.

    ``lr_t = base_lr * gamma ** t``.
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        # resuming: the loaded rates are already those of last_epoch, don't decay again
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return self._scaled_lrs(self.gamma)

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]

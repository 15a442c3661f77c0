"""Cosine annealing: ``CosineAnnealingLR`` (half a cosine from the initial rate down to
``eta_min``) and ``CosineAnnealingWarmRestarts`` (SGDR: the same, restarted every ``T_i``
epochs, each period ``T_mult`` times longer than the previous one)."""

from __future__ import annotations

import math

from ...int_arguments import is_int
from ..optimizer import Optimizer
from .base import LRScheduler, group_values, is_real


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


class CosineAnnealingWarmRestarts(LRScheduler):
    """Anneal each group's learning rate along a cosine from its initial rate to ``eta_min``
    over ``T_i`` epochs, then restart from the initial rate (SGDR).

    ``lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2``, where
    ``T_cur`` counts the epochs since the last restart; the first period is ``T_0`` epochs
    and each restart multiplies the period by ``T_mult``. ``step()`` adds one epoch;
    ``step(epoch)`` jumps to ``epoch``, which may be fractional, to anneal per batch::

        for epoch in range(epochs):
            for i, batch in enumerate(loader):
                ...
                optimizer.step()
                scheduler.step(epoch + i / len(loader))

    As in PyTorch, ``step(epoch)`` does not warn (it is the documented way to use this
    schedule), neither does a ``step()`` before ``optimizer.step()``, and ``_step_count``
    stays 0. Not chainable: the rates are computed from ``base_lrs``.

    Raises:
        ValueError: ``T_0`` is not a positive integer, ``T_mult`` not an integer >= 1,
            ``eta_min`` not a number; ``step`` with a negative epoch.
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1):
        if not is_int(T_0) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0!r}")
        if not is_int(T_mult) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult!r}")
        if not is_real(eta_min):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """Move to the next epoch, or to ``epoch`` (a number >= 0, fractional allowed), and
        set each group's learning rate; ``last_epoch`` becomes ``floor(epoch)``.

        Raises:
            ValueError: ``epoch`` is negative or not a number.
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if not is_real(epoch):
                raise ValueError(f"Expected a number epoch, but got {epoch!r}")
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            self._jump_to(epoch)
        self.last_epoch = math.floor(epoch)
        self._set_lrs(self._within_step(self.get_lr))

    def _jump_to(self, epoch: float) -> None:
        """Set ``T_cur`` and ``T_i`` for ``epoch`` from the closed form of the restarts (the
        ``n``-th period starts at epoch ``T_0 * (T_mult ** n - 1) / (T_mult - 1)``)."""
        if epoch < self.T_0:
            self.T_i = self.T_0
            self.T_cur = epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            # PyTorch's float formula, kept as is so that the rates agree to the last bit
            n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** n

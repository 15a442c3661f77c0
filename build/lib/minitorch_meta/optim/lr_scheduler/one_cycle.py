"""``OneCycleLR``: the 1cycle policy (warm up to ``max_lr``, then anneal far below the start).

The schedule is a list of phases, each annealing from one group entry to another (by
name: ``"initial_lr"``, ``"max_lr"``, ``"min_lr"``, and for the momentum
``"max_momentum"``, ``"base_momentum"``) until its ``end_step``. With ``total_steps = T``
and ``pct_start = p``:

- two phases (default, fastai's): ``initial_lr -> max_lr`` until step ``p*T - 1``, then
  ``max_lr -> min_lr`` until step ``T - 1``;
- three phases (the paper's): ``initial_lr -> max_lr`` until ``p*T - 1``,
  ``max_lr -> initial_lr`` until ``2*p*T - 2``, then ``initial_lr -> min_lr`` until ``T - 1``.

where ``initial_lr = max_lr / div_factor`` and ``min_lr = initial_lr / final_div_factor``.
The momentum (SGD's ``momentum`` or the first of Adam's ``betas``) goes the opposite way,
between ``max_momentum`` and ``base_momentum``.
"""

from __future__ import annotations

import math
from typing import Literal

from ..optimizer import Optimizer
from .base import LRScheduler, check_optimizer, cycled_momentum_is_beta1, per_group, set_momentum


class OneCycleLR(LRScheduler):
    """Set each group's learning rate (and momentum) by the 1cycle policy, once per batch.

    In a phase going from ``start`` to ``end`` over steps ``s0 .. s1``, step ``t`` has
    ``pct = (t - s0) / (s1 - s0)`` and the value ``end + (start - end) / 2 * (1 + cos(pi *
    pct))`` (``anneal_strategy="cos"``) or ``start + (end - start) * pct`` (``"linear"``).
    The total number of steps is ``total_steps``, or ``epochs * steps_per_epoch``; stepping
    past it raises ``ValueError``. Not chainable: the rates are computed from the groups'
    ``initial_lr``, ``max_lr`` and ``min_lr``, which the scheduler stores there.

    Raises:
        TypeError: ``optimizer`` is not an ``Optimizer``.
        ValueError: no valid ``total_steps`` (or ``epochs`` and ``steps_per_epoch``), a
            ``pct_start`` that is not a float in [0, 1], an unknown ``anneal_strategy``, a
            per-group list of the wrong length, or ``cycle_momentum`` with an optimizer
            that has neither ``momentum`` nor ``betas``.
    """

    def __init__(self, optimizer: Optimizer, max_lr: float | list[float],
                 total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: Literal["cos", "linear"] = "cos",
                 cycle_momentum: bool = True, base_momentum: float | list[float] = 0.85,
                 max_momentum: float | list[float] = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1):
        self.optimizer = check_optimizer(optimizer)
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        if not isinstance(pct_start, float) or pct_start < 0 or pct_start > 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        self._schedule_phases = _schedule_phases(self.total_steps, pct_start, three_phase)
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:  # when resuming, the loaded groups have these already
            for group, top in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._init_momentum(max_momentum, base_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _init_momentum(self, max_momentum, base_momentum, last_epoch: int) -> None:
        """Store the momentum bounds in the groups and start at ``max_momentum``."""
        self.use_beta1 = cycled_momentum_is_beta1(self.optimizer)
        max_momentums = per_group("max_momentum", self.optimizer, max_momentum)
        base_momentums = per_group("base_momentum", self.optimizer, base_momentum)
        if last_epoch != -1:
            return
        for group, top, bottom in zip(self.optimizer.param_groups, max_momentums,
                                      base_momentums):
            self._set_momentum(group, top)
            group["max_momentum"] = top
            group["base_momentum"] = bottom

    def _set_momentum(self, group: dict, momentum: float) -> None:
        set_momentum(group, momentum, self.use_beta1)

    def get_lr(self) -> list[float]:
        """The rates of step ``last_epoch``; also sets the groups' momentum when cycling it.

        Raises:
            ValueError: the schedule has already run its ``total_steps`` steps.
        """
        self._warn_if_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total "
                             f"steps is {self.total_steps}")
        phase, pct = self._phase_at(step_num)
        lrs = []
        for group in self.optimizer.param_groups:
            lrs.append(self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct))
            if self.cycle_momentum:
                self._set_momentum(group, self._anneal_func(
                    group[phase["start_momentum"]], group[phase["end_momentum"]], pct))
        return lrs

    def _phase_at(self, step_num: int) -> tuple[dict, float]:
        """The phase that step ``step_num`` falls in, and how far into it (0 to 1)."""
        start_step = 0.0
        last = len(self._schedule_phases) - 1
        for number, phase in enumerate(self._schedule_phases):
            if step_num <= phase["end_step"] or number == last:
                break
            start_step = phase["end_step"]
        length = phase["end_step"] - start_step
        if length == 0:  # PyTorch divides by zero here too; say why
            raise ZeroDivisionError(
                f"OneCycleLR: phase {number} of the schedule is empty (it ends at step "
                f"{phase['end_step']}, where it starts); change pct_start or total_steps")
        return phase, (step_num - start_step) / length

    def _anneal_func(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        return self._annealing_linear(start, end, pct)

    @staticmethod
    def _annealing_cos(start: float, end: float, pct: float) -> float:
        """From ``start`` (pct 0) to ``end`` (pct 1) along half a cosine."""
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start: float, end: float, pct: float) -> float:
        """From ``start`` (pct 0) to ``end`` (pct 1) along a line."""
        return (end - start) * pct + start


def _total_steps(total_steps: int | None, epochs: int | None,
                 steps_per_epoch: int | None) -> int:
    """``total_steps`` if given, else ``epochs * steps_per_epoch`` (PyTorch's precedence)."""
    if total_steps is not None:
        if not isinstance(total_steps, int) or total_steps <= 0:
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is None or steps_per_epoch is None:
        raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
    if not isinstance(epochs, int) or epochs <= 0:
        raise ValueError(f"Expected positive integer epochs, but got {epochs}")
    if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
        raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
    return epochs * steps_per_epoch


def _phase(end_step: float, start_lr: str, end_lr: str, start_momentum: str,
           end_momentum: str) -> dict:
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr,
            "start_momentum": start_momentum, "end_momentum": end_momentum}


def _schedule_phases(total_steps: int, pct_start: float, three_phase: bool) -> list[dict]:
    """The phases (see the module docstring); ``end_step`` is the last step of each."""
    warm_up_end = float(pct_start * total_steps) - 1
    warm_up = _phase(warm_up_end, "initial_lr", "max_lr", "max_momentum", "base_momentum")
    if not three_phase:
        return [warm_up, _phase(total_steps - 1, "max_lr", "min_lr", "base_momentum",
                                "max_momentum")]
    return [warm_up,
            _phase(float(2 * pct_start * total_steps) - 2, "max_lr", "initial_lr",
                   "base_momentum", "max_momentum"),
            _phase(total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]

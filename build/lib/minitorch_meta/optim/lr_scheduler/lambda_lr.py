"""Schedules given by the user's functions of the epoch: ``LambdaLR``, ``MultiplicativeLR``.

Functions cannot be saved, so, as in PyTorch, a state dict holds ``None`` for each plain
function (or lambda) and the attribute dict of each callable object; loading updates the
callables the new scheduler was built with.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from ..optimizer import Optimizer
from .base import LRScheduler, callable_state, group_values

LrLambda = Callable[[int], float]


class _LambdaScheduler(LRScheduler):
    """Holds one function of the epoch per param group (``lr_lambdas``)."""

    _not_in_state_dict = ("optimizer", "lr_lambdas")

    def __init__(self, optimizer: Optimizer, lr_lambda: LrLambda | list[LrLambda],
                 last_epoch: int = -1):
        count = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != count:
                raise ValueError(f"Expected {count} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * count
        self._check_lambdas()
        super().__init__(optimizer, last_epoch)

    def _check_lambdas(self) -> None:
        """Validate ``lr_lambdas`` before the initial step calls them."""

    def state_dict(self) -> dict:
        """Every attribute but the optimizer; ``lr_lambdas`` holds ``None`` for a function
        and a copy of ``__dict__`` for a callable object."""
        state = super().state_dict()
        state["lr_lambdas"] = [callable_state(fn) for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore the attributes; each saved callable's attributes go into ours."""
        state = dict(state_dict)
        saved_lambdas = state.pop("lr_lambdas")
        super().load_state_dict(state)
        for fn, saved in zip(self.lr_lambdas, saved_lambdas):
            if saved is not None:
                fn.__dict__.update(copy.deepcopy(saved))


class LambdaLR(_LambdaScheduler):
    """Set each group's learning rate to its initial rate times ``lr_lambda(epoch)``.

    ``lr_t = base_lr * lr_lambda(t)``; ``lr_lambda`` is one function or a list with one per
    param group.

    Raises:
        ValueError: a list of ``lr_lambda`` whose length is not the number of groups.
    """

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        return [base_lr * fn(self.last_epoch)
                for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    """Multiply each group's learning rate by ``lr_lambda(epoch)`` every epoch.

    ``lr_t = lr_{t-1} * lr_lambda(t)`` for ``t >= 1``, and ``lr_0 = base_lr``.

    Raises:
        ValueError: a list of ``lr_lambda`` whose length is not the number of groups.
        TypeError: an ``lr_lambda`` is not callable.
    """

    def _check_lambdas(self) -> None:
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]

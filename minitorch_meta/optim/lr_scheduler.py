"""Learning-rate schedules: ``LRScheduler`` (the base) and ``StepLR``.

As in PyTorch, a scheduler sets each group's ``"lr"`` when created (epoch 0) and again at
every ``scheduler.step()``, which is called once per epoch after ``optimizer.step()``. Each
group's starting rate is kept in ``group["initial_lr"]``.
"""

from __future__ import annotations

from .optimizer import Optimizer


class LRScheduler:
    """Base class: subclasses compute the learning rates of epoch ``last_epoch`` in ``get_lr``.

    Raises:
        TypeError: ``optimizer`` is not an ``Optimizer``.
        KeyError: ``last_epoch`` is not -1 but a group has no ``initial_lr`` to resume from.
    """

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        for number, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(f"param 'initial_lr' is not specified in param_groups[{number}] "
                               "when resuming an optimizer (last_epoch != -1)")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._last_lr: list[float] = []
        self.step()

    def get_lr(self) -> list[float]:
        """The learning rate of each group for epoch ``last_epoch``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement get_lr()")

    def get_last_lr(self) -> list[float]:
        """The learning rates set by the latest ``step()``."""
        return list(self._last_lr)

    def step(self) -> None:
        """Move to the next epoch and set each group's learning rate."""
        self.last_epoch += 1
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        """Every attribute but the optimizer (which has its own state dict)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)


class StepLR(LRScheduler):
    """Multiply each group's learning rate by ``gamma`` every ``step_size`` epochs.

    Raises:
        ValueError: ``step_size`` is not a positive integer.
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1):
        if isinstance(step_size, bool) or not isinstance(step_size, int) or step_size < 1:
            raise ValueError(f"StepLR: step_size must be a positive integer, got {step_size!r}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        lrs = [group["lr"] for group in self.optimizer.param_groups]
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return lrs
        return [lr * self.gamma for lr in lrs]

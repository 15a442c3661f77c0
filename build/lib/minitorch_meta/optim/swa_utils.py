"""Stochastic Weight Averaging (SWA) and exponential moving averages (EMA) of a model's
weights: PyTorch's ``torch.optim.swa_utils``.

- ``AveragedModel`` keeps a copy of a model whose parameters (and, with
  ``use_buffers=True``, buffers) are a running average of the model's, updated by
  ``update_parameters(model)``;
- the averaging rules: ``get_swa_avg_fn``/``get_ema_avg_fn`` (one tensor at a time,
  returning the new average) and ``get_swa_multi_avg_fn``/``get_ema_multi_avg_fn`` (lists
  of tensors, updated in place);
- ``update_bn`` recomputes the batch-norm statistics of the averaged weights from data;
- ``SWALR`` anneals each group's learning rate to a constant ``swa_lr``.

The arithmetic is PyTorch's step for step, so averages agree to the last bit on the CPU.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

from .. import dtypes
from ..autograd import no_grad
from ..caller_warnings import warn_at_caller
from ..factories import tensor as new_tensor
from ..math_functions import addcdiv
from ..nn.batchnorm import _BatchNorm
from ..nn.module import Module
from ..tensor import Tensor
from ._updates import lerp_
from .lr_scheduler.base import LRScheduler, per_group
from .optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]

#: device types where PyTorch's default average runs its list ("foreach") form
_FOREACH_DEVICES = ("cuda",)


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """The in-place EMA rule over lists: ``ema = decay * ema + (1 - decay) * model``.

    Floating-point tensors take ``lerp_`` towards the model by ``1 - decay``; others are
    computed in the promoted dtype and copied back (rounded toward zero), as PyTorch does.

    Raises:
        ValueError: ``decay`` is outside [0, 1].
    """
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _) -> None:
        if ema_param_list[0].is_floating_point():
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                lerp_(p_ema, p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """The in-place equal-weight rule over lists: ``avg += (model - avg) / (n + 1)`` for the
    ``n`` models averaged so far (a number or a 0-d tensor).

    Floating-point tensors take ``lerp_`` by ``1 / (n + 1)``. Integer tensors raise
    ``RuntimeError``, as in PyTorch (its ``addcdiv`` and float ``alpha`` refuse them).
    """

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        if averaged_param_list[0].is_floating_point():
            weight = float(1 / (num_averaged + 1))
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                lerp_(p_avg, p_model, weight)
            return
        for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
            diff = p_model - p_avg
            if isinstance(num_averaged, Tensor):
                p_avg.copy_(addcdiv(p_avg, diff, num_averaged + 1))
            else:  # a float step: refused for integers, as PyTorch's float ``alpha`` is
                p_avg.add_(diff * (1.0 / (num_averaged + 1)))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """The EMA rule for one tensor: returns ``decay * ema + (1 - decay) * model``.

    Raises:
        ValueError: ``decay`` is outside [0, 1].
    """
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    """The equal-weight rule for one tensor: returns ``avg + (model - avg) / (n + 1)``."""

    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose weights are a running average of ``model``'s (SWA, or EMA
    with ``get_ema_multi_avg_fn``); calling it runs the copy.

    Args:
        model: the model to average (deep-copied, optionally moved to ``device``).
        device: where the copy and the ``n_averaged`` counter live (default: unchanged).
        avg_fn: ``avg_fn(averaged, current, n_averaged) -> new average``, per tensor.
        multi_avg_fn: ``multi_avg_fn(averaged_list, current_list, n_averaged)``, updating
            the averages in place. Neither given: the equal-weight average (SWA).
        use_buffers: average the buffers too (batch-norm statistics); otherwise the
            buffers are copied from ``model`` at each update.

    The first ``update_parameters`` copies ``model``'s weights; later ones average. The
    state dict holds ``n_averaged`` (an int64 buffer) and ``module.*``; the averaging
    functions are not saved.

    Shape:
        whatever ``model`` takes and returns.

    Raises:
        AssertionError: both ``avg_fn`` and ``multi_avg_fn`` are given (PyTorch's type).
    """

    def __init__(self, model: Module, device=None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", new_tensor(0, dtype=dtypes.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current weights into the average (the first call copies them)."""
        if self.use_buffers:
            ours = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            ours, theirs = self.parameters(), model.parameters()
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(ours, theirs):
            p_model_ = p_model.detach().to(p_averaged.device)
            averaged.append(p_averaged.detach())
            current.append(p_model_)
            if first:
                p_averaged.detach().copy_(p_model_)
        if not first:
            self._average(averaged, current)
        if not self.use_buffers:  # keep the buffers in step with the model
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1

    def _average(self, averaged: list, current: list) -> None:
        if self.avg_fn is not None:
            for p_averaged, p_model in zip(averaged, current, strict=True):
                count = self.n_averaged.to(p_averaged.device)
                p_averaged.copy_(self.avg_fn(p_averaged, p_model, count))
            return
        # As PyTorch: the list rule runs once per (device, dtype) group of tensors.
        for device, (group_averaged, group_current) in _by_device_and_dtype(averaged,
                                                                            current):
            count = self.n_averaged.to(device)
            if self.multi_avg_fn is not None:
                self.multi_avg_fn(group_averaged, group_current, count)
            elif device.type in _FOREACH_DEVICES:
                get_swa_multi_avg_fn()(group_averaged, group_current, count)
            else:  # PyTorch's CPU path: the per-tensor rule, its result copied back
                rule = get_swa_avg_fn()
                for p_averaged, p_model in zip(group_averaged, group_current, strict=True):
                    p_averaged.copy_(rule(p_averaged, p_model, count))


def _by_device_and_dtype(averaged: list, current: list) -> list:
    """``[(device, (averaged tensors, current tensors))]``, grouped by the averaged
    tensors' device and dtype, in order of first appearance."""
    groups: dict = {}
    for a, c in zip(averaged, current):
        pair = groups.setdefault((str(a.device), a.dtype), (a.device, ([], [])))
        pair[1][0].append(a)
        pair[1][1].append(c)
    return list(groups.values())


def update_bn(loader: Iterable[Any], model: Module, device=None) -> None:
    """Recompute the running statistics of every batch-norm layer of ``model`` with one
    pass over ``loader`` (run after averaging weights, whose statistics are unknown).

    Each batch is a tensor, or a list or tuple whose first item is the input. The
    statistics are reset and accumulated as a cumulative average (``momentum=None``); the
    layers' momenta and the model's train/eval mode are restored afterwards. A model without
    batch norm is left untouched and the loader is not read.
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate from its current value to ``swa_lr`` over
    ``anneal_epochs`` epochs, then hold it there (PyTorch's SWA schedule).

    Args:
        optimizer: the optimizer whose groups' ``"lr"`` the schedule sets.
        swa_lr: the final rate, for every group or one per group (kept in
            ``group["swa_lr"]``).
        anneal_epochs: epochs of annealing (0: jump to ``swa_lr`` at the first step).
        anneal_strategy: ``"cos"`` (half a cosine) or ``"linear"``.
        last_epoch: the index of the last epoch (-1 starts the schedule).

    Each step moves a fraction ``alpha(t)`` of the way, ``t = step / anneal_epochs``, from
    the rate it infers the schedule started from, so other schedulers may change the rate
    in between, as in PyTorch.

    Raises:
        ValueError: an unknown ``anneal_strategy``, a negative or non-int
            ``anneal_epochs``, or a list of ``swa_lr`` of the wrong length.
    """

    _not_in_state_dict = ("optimizer", "anneal_func")

    def __init__(self, optimizer: Optimizer, swa_lr: float, anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1) -> None:
        for value, group in zip(per_group("swa_lr", optimizer, swa_lr),
                                optimizer.param_groups, strict=True):
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        """The rate the annealing started from, given that ``lr`` is ``alpha`` of the way
        to ``swa_lr``."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[float]:
        if not self._get_lr_called_within_step:
            warn_at_caller("To get the last learning rate computed by the scheduler, please "
                           "use `get_last_lr()`.", UserWarning)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        groups = self.optimizer.param_groups
        prev_alpha = self.anneal_func(self._fraction(step - 1))
        starts = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        alpha = self.anneal_func(self._fraction(step))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, starts)]

    def _fraction(self, step: int) -> float:
        """How far ``step`` is through the annealing, clipped to [0, 1]."""
        return max(0, min(1, step / max(1, self.anneal_epochs)))

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)

    def load_state_dict(self, state_dict: dict) -> None:
        super().load_state_dict(state_dict)
        self._set_anneal_func(self._anneal_strategy)

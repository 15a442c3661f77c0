"""``torch.amp.GradScaler``: loss scaling for float16 training.

``scale(loss)`` multiplies the loss by the scale, so that small float16 gradients do not
flush to zero; ``step(optimizer)`` divides the gradients by it again (``unscale_``) and
skips ``optimizer.step()`` when any of them is inf or NaN; ``update()`` then halves the
scale after a skipped step, and doubles it after ``growth_interval`` good steps in a row.

The scale (float32) and the count of good steps (int32) are 0-d tensors on the loss's
device, and inf checks are accumulated there, as in PyTorch; only ``step`` reads a
number back (whether to skip).
"""

from __future__ import annotations

from collections import abc, defaultdict
from enum import Enum
from typing import Any

from .. import dtypes
from ..caller_warnings import warn_at_caller


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


_NO_SCALE = ("This may indicate your script did not use scaler.scale(loss or outputs) "
             "earlier in the iteration.")


class GradScaler:
    """Scale the loss, unscale and check the gradients, skip steps with inf/NaN gradients
    and adapt the scale (PyTorch's dynamic loss scaling).

    Args:
        device: the device type of the tensors scaled ('cuda' or 'cpu'). With 'cuda' and no
            usable GPU, the scaler warns and disables itself, as PyTorch's.
        init_scale: the first scale. growth_factor (> 1) and backoff_factor (< 1): what
            ``update`` multiplies it by after ``growth_interval`` good steps in a row, and
            after a step with inf/NaN gradients.
        enabled: False makes every method a pass-through (``scale`` returns its input,
            ``step`` calls ``optimizer.step()``).
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled and _cuda_unusable():
            warn_at_caller("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                           "Disabling.")
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    # -- the scale --------------------------------------------------------------------
    def _check_scale_growth_tracker(self, funcname: str):
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + _NO_SCALE)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  "
                                 + _NO_SCALE)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, device) -> None:
        from ..factories import full

        self._scale = full((), self._init_scale, dtype=dtypes.float32, device=device)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=dtypes.int32,
                                    device=device)

    def scale(self, outputs):
        """``outputs`` (a tensor, or an iterable of them, nested) times the scale."""
        if not self._enabled:
            return outputs
        from ..tensor import Tensor

        def apply_scale(value):
            if isinstance(value, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(value.device)
                return value * self._scale.to(value.device)
            if isinstance(value, abc.Iterable):
                scaled = map(apply_scale, value)
                return type(value)(scaled) if isinstance(value, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    # -- unscaling and the inf check ----------------------------------------------------
    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16: bool) -> dict:
        """Multiply every gradient of ``optimizer`` by ``inv_scale`` in place; per device,
        a 0-d float32 tensor: 1.0 if any of its gradients held an inf or NaN, else 0.0."""
        from ..autograd.grad_mode import no_grad
        from ..functions import maximum

        found = {}
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param._grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype is dtypes.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    device = grad.device
                    bad = grad.isfinite().all().logical_not().to(dtypes.float32)
                    found[device] = maximum(found.get(device, found_inf.to(device)), bad)
                    grad.mul_(inv_scale.to(device))
        return found

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale (in place) and check them for
        inf/NaN; at most once per optimizer between two ``update()`` calls, before
        ``step``."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update().")
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # 1 / scale rounded from float64, as PyTorch computes it
        inv_scale = self._scale.double().reciprocal().float()
        from ..factories import full

        found_inf = full((), 0.0, dtype=dtypes.float32, device=self._scale.device)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(
            optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args: Any, **kwargs: Any):
        """``unscale_(optimizer)`` (unless done already), then ``optimizer.step(*args,
        **kwargs)`` unless a gradient held an inf or NaN; returns what ``step`` returned
        (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None) -> None:
        """Adapt the scale for the next iteration (``backoff_factor`` after a skipped
        step, ``growth_factor`` after ``growth_interval`` good ones), or set it to
        ``new_scale`` (a float, or a 1-element tensor on the scaler's device)."""
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [found_inf.to(scale.device)
                          for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            combined = found_infs[0]
            for found_inf in found_infs[1:]:
                combined = combined + found_inf
            self._update_scale(scale, growth_tracker, combined)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _update_scale(self, scale, growth_tracker, found_inf) -> None:
        """PyTorch's ``_amp_update_scale_`` on device tensors, without reading them back:
        back off and reset the count after an inf; otherwise count, and grow (if the grown
        scale is finite) and reset when the count reaches ``growth_interval``."""
        from ..autograd.grad_mode import no_grad
        from ..functions import where
        from ..math_functions import logical_or

        with no_grad():
            had_inf = found_inf > 0
            count = growth_tracker + 1
            grow = count == self._growth_interval
            grown = scale * self._growth_factor
            grown = where(grown.isfinite(), grown, scale)
            scale.copy_(where(had_inf, scale * self._backoff_factor,
                              where(grow, grown, scale)))
            growth_tracker.copy_(where(logical_or(had_inf, grow), growth_tracker * 0, count))

    # -- reading and setting -------------------------------------------------------------
    def get_scale(self) -> float:
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else float(self._scale.item())
        return 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            return (self._init_growth_tracker if self._growth_tracker is None
                    else int(self._growth_tracker.item()))
        return 0

    def is_enabled(self) -> bool:
        """Whether this scaler scales (False when built disabled or without CUDA)."""
        return self._enabled

    def state_dict(self) -> dict:
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval`` and
        ``_growth_tracker`` as Python numbers; empty when disabled."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor,
                    "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what ``state_dict`` returned (a no-op when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])


def _cuda_unusable() -> bool:
    from .. import cuda

    return not cuda.is_available()


__all__ = ["GradScaler", "OptState"]

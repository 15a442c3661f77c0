"""``torch.cuda.amp``: the deprecated spellings of ``torch.amp.autocast('cuda', ...)`` and
``torch.amp.GradScaler('cuda', ...)``."""

from __future__ import annotations

from .. import dtypes
from ..amp.autocast_mode import autocast as _autocast
from ..amp.autocast_mode import deprecated_autocast_warning
from ..amp.grad_scaler import GradScaler as _GradScaler
from ..caller_warnings import warn_at_caller


class autocast(_autocast):  # noqa: N801 - PyTorch's name
    """``torch.autocast('cuda', ...)``, with PyTorch's FutureWarning."""

    def __init__(self, enabled: bool = True, dtype=dtypes.float16, cache_enabled: bool = True):
        deprecated_autocast_warning("cuda")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``torch.amp.GradScaler('cuda', ...)``, with PyTorch's FutureWarning."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warn_at_caller("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                       "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


__all__ = ["GradScaler", "autocast"]

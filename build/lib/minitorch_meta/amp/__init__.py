"""``minitorch_meta.amp`` (``torch.amp``): automatic mixed precision — ``autocast`` runs the
listed ops of a region in float16 or float32, ``GradScaler`` scales the loss so that
float16 gradients keep their small values. See docs/usage.md, "Mixed precision"."""

from __future__ import annotations

from .autocast_mode import autocast, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "is_autocast_available"]

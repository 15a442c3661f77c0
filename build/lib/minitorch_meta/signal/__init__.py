"""``minitorch_meta.signal``: ``torch.signal``'s ``windows`` namespace."""

from . import windows

__all__ = ["windows"]

"""PyTorch's type checks of the int and bool arguments of its native entry points
(``torch.grid_sampler(input, grid, 0, 0, False)``), with its TypeError wording."""

from __future__ import annotations

from numbers import Integral


def int_argument(op: str, name: str, position: int, value) -> int:
    """``value`` as an int; a bool, float or anything else is PyTorch's TypeError."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be int, not "
                        f"{type(value).__name__}")
    return int(value)


def bool_argument(op: str, name: str, position: int, value) -> bool:
    """``value`` as a bool; None, an int or anything else is PyTorch's TypeError."""
    if not isinstance(value, bool):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be bool, not "
                        f"{type(value).__name__}")
    return value

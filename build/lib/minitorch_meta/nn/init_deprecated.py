"""``nn.init``'s deprecated names without the trailing underscore (``uniform``, ``normal``,
``xavier_uniform``, ...): each warns, as PyTorch 2.13 does, then runs the in-place
initialiser it stands for."""

from __future__ import annotations

from collections.abc import Callable

from ..caller_warnings import warn_at_caller


def deprecated_alias(initialiser: Callable) -> Callable:
    """The old name of ``initialiser`` (its name without the trailing ``_``): a function
    that emits PyTorch's FutureWarning at the user's line and then calls ``initialiser``."""
    new_name = initialiser.__name__
    old_name = new_name[:-1]

    def alias(*args, **kwargs):
        warn_at_caller(f"`nn.init.{old_name}` is now deprecated in favor of "
                       f"`nn.init.{new_name}`.", FutureWarning)
        return initialiser(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old_name
    alias.__doc__ = (f"{old_name}(...)\n\nDeprecated: use ``nn.init.{new_name}``, which "
                     f"this calls after a FutureWarning.")
    return alias

"""``is_int``: whether an argument is a Python ``int`` that is not a ``bool``.

PyTorch's integer arguments (sizes, dims, counts, seeds) refuse ``True``/``False`` although
``bool`` is a subclass of ``int`` in Python; every such check in the package asks here.
NumPy integers are not Python ints: the checks that take them (indices, ``random_``'s
bounds) use ``__index__`` instead.
"""

from __future__ import annotations

import operator


def is_int(value: object) -> bool:
    """A Python ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def as_int(op: str, name: str, value) -> int:
    """``value`` as a Python int (NumPy integers and 0-d integer tensors too; a bool is no
    int), else PyTorch's TypeError naming ``op``'s argument ``name``."""
    if isinstance(value, bool):
        raise TypeError(f"{op}(): argument '{name}' must be int, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{op}(): argument '{name}' must be int, not "
                        f"{type(value).__name__}") from None

"""``is_int``: whether an argument is a Python ``int`` that is not a ``bool``.

PyTorch's integer arguments (sizes, dims, counts, seeds) refuse ``True``/``False`` although
``bool`` is a subclass of ``int`` in Python; every such check in the package asks here.
NumPy integers are not Python ints: the checks that take them (indices, ``random_``'s
bounds) use ``__index__`` instead.
"""

from __future__ import annotations


def is_int(value: object) -> bool:
    """A Python ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)

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


def varargs_or_keyword(op: str, name: str, positional: tuple, keyword,
                           required: bool = False) -> tuple:
    """A function's varargs as given (``x.view(2, 3)``, ``x.view((2, 3))``, ``zeros(2, 3)``),
    or its keyword (``x.view(size=(2, 3))``, ``zeros(size=(2, 3))``) as the one positional
    argument; not both ways at once.

    Neither way is the empty shape (``x.view(*shape)`` of a 0-d tensor's shape, which the
    package itself writes) unless the argument is ``required`` (``new_zeros(())`` is a 0-d
    tensor, ``new_zeros()`` a TypeError, as in PyTorch)."""
    if keyword is None:
        if required and not positional:
            raise TypeError(f'{op}() missing 1 required positional arguments: "{name}"')
        return positional
    if positional:
        raise TypeError(f"{op}() got '{name}' both as positional arguments and as the keyword "
                        f"{name}=; give it one way")
    return (keyword,)

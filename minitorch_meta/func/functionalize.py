"""``functionalize``: PyTorch's transform that removes mutations (and views) from a
function's program, for graph capture.

Here every call runs eagerly, op by op, with nothing captured, so the function is run as
it is: values, gradients and the mutations of its inputs are those PyTorch's functionalized
function gives. One difference: an output that is a view of an input shares the input's
memory here, where PyTorch's is a separate tensor (docs/differences.md).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

_REMOVE = ("mutations", "mutations_and_views")


def functionalize(func: Callable, *, remove: str = "mutations") -> Callable:
    """``func`` wrapped (same name and docstring) after checking ``remove``.

    Raises:
        RuntimeError: ``remove`` is neither ``'mutations'`` nor ``'mutations_and_views'``.
    """
    if remove not in _REMOVE:
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for "
            f"remove={remove}. Valid options are:\n"
            "     remove='mutations': all inplace and out= operators will be removed from "
            "the program, and replaced with their out-of-place equivalents.\n"
            "     remove='mutations_and_views': In addition to the above, all aliasing "
            "operators {view} will be replaced with their non-aliasing counterparts, "
            "{view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapped

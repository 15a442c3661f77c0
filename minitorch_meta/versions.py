"""Version counters: how autograd notices that a saved tensor was changed in place.

Every in-place write (``add_``, ``x[k] = ...``, an optimizer's update) bumps the version
of the tensor's storage; a view shares the counter of the tensor it looks into. An op that
keeps a tensor for backward remembers its version; if the version has moved by the time
backward runs, the gradient would be computed from the wrong values, so backward refuses,
as PyTorch does ("modified by an inplace operation").
"""

from __future__ import annotations


class VersionCounter:
    """The number of in-place writes to one storage, shared by a tensor and its views.

    ``shared`` becomes True once a second tensor (a view, ``detach``) looks into the
    storage: an in-place op may then not give the written tensor a new graph node, since
    the other tensors would not follow it (``inplace_autograd.py``).
    """

    __slots__ = ("value", "shared")

    def __init__(self) -> None:
        self.value = 0
        self.shared = False


def modified_error(node_name: str, what: str, now: int, then: int) -> RuntimeError:
    """The error of a backward that would read a tensor changed in place since forward."""
    return RuntimeError(
        f"one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {what}, saved by {node_name}, is at version {now}; expected "
        f"version {then} instead. Change it only after backward() (e.g. call "
        f"optimizer.step() after loss.backward()), or use the out-of-place form "
        f"(x = x + y) so the graph keeps the old values.")

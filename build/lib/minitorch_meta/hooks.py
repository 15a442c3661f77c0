"""``RemovableHandle``: what every ``register_*_hook`` returns (modules and tensors alike)."""

from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict

_next_id = itertools.count()


class RemovableHandle:
    """Removes one hook from the registries it was added to; also a context manager.

    The registries are held weakly, so a handle never keeps a deleted module alive.
    """

    def __init__(self, hooks: OrderedDict, *extra: OrderedDict):
        self.id = next(_next_id)
        self._refs = tuple(weakref.ref(d) for d in (hooks,) + extra)

    def remove(self) -> None:
        """Take the hook off (a second call does nothing)."""
        for ref in self._refs:
            registry = ref()
            if registry is not None and self.id in registry:
                del registry[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc_info) -> None:
        self.remove()


class HookDict(OrderedDict):
    """An ordered hook registry that handles can refer to weakly (plain dicts cannot)."""


def add_hook(registry: HookDict, hook, prepend: bool = False, *extra) -> RemovableHandle:
    """Put ``hook`` into ``registry`` (first if ``prepend``) and return its handle."""
    if not callable(hook):
        raise TypeError(f"a hook must be callable, got {type(hook).__name__}")
    handle = RemovableHandle(registry, *extra)
    registry[handle.id] = hook
    if prepend:
        registry.move_to_end(handle.id, last=False)
    return handle

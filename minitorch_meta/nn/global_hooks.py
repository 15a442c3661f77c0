"""PyTorch's global module hooks: ``torch.nn.modules.module.register_module_*``, hooks
that every module runs.

They are process-wide state by PyTorch's API (meant for debugging and profiling), so the
package's one exception to "no hidden global state" is held here, in one registry:
``GLOBAL_MODULE_HOOKS``. Global hooks run before the module's own hooks of the same kind.
``GLOBAL_MODULE_HOOKS.call`` holds every forward and backward hook of the others as well,
so that a module call with no global hook pays one emptiness test for all of them.
"""

from __future__ import annotations

from collections.abc import Callable

from ..hooks import HookDict, RemovableHandle, add_hook
from . import legacy_backward_hooks as _legacy


class GlobalModuleHooks:
    """The hooks every module runs, by kind, in registration order."""

    def __init__(self) -> None:
        self.forward_pre = HookDict()
        self.forward = HookDict()
        self.forward_with_kwargs = HookDict()  # ids of ``forward`` hooks given kwargs
        self.forward_always_called = HookDict()  # ids also run when forward raises
        self.backward_pre = HookDict()
        self.backward = HookDict()
        #: whether ``backward`` holds full hooks (True) or non-full ones (False): the first
        #: registration decides, for good (``legacy_backward_hooks.py``)
        self.backward_is_full: bool | None = None
        self.buffer_registration = HookDict()
        self.module_registration = HookDict()
        self.parameter_registration = HookDict()
        #: every forward/backward hook above: empty exactly when a call has none to run
        self.call = HookDict()

    def add_call_hook(self, registry: HookDict, hook: Callable, *extra) -> RemovableHandle:
        handle = add_hook(registry, hook, False, self.call, *extra)
        self.call[handle.id] = hook
        return handle


GLOBAL_MODULE_HOOKS = GlobalModuleHooks()


def registered(registry: HookDict, module, name: str, value):
    """``value`` after the registration hooks of ``registry``: each is called as
    ``hook(module, name, value)`` and a non-None result replaces the value."""
    for hook in list(registry.values()):
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(module, args)`` before every module's forward (before the module's own
    pre-hooks); a non-None result replaces ``args``."""
    return GLOBAL_MODULE_HOOKS.add_call_hook(GLOBAL_MODULE_HOOKS.forward_pre, hook)


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """Run ``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
    ``with_kwargs``) after every module's forward, before the module's own forward hooks;
    a non-None result replaces the output. With ``always_call`` it also runs when the
    call raises (its own error is then turned into a warning)."""
    hooks = GLOBAL_MODULE_HOOKS
    handle = hooks.add_call_hook(hooks.forward, hook, hooks.forward_with_kwargs,
                                 hooks.forward_always_called)
    if with_kwargs:
        hooks.forward_with_kwargs[handle.id] = True
    if always_call:
        hooks.forward_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """``Module.register_full_backward_pre_hook`` for every module (run first)."""
    return GLOBAL_MODULE_HOOKS.add_call_hook(GLOBAL_MODULE_HOOKS.backward_pre, hook)


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """``Module.register_full_backward_hook`` for every module (run first).

    Raises:
        RuntimeError: non-full global hooks (``register_module_backward_hook``) were
            registered before.
    """
    return _register_backward(hook, full=True)


def register_module_backward_hook(hook: Callable) -> RemovableHandle:
    """Deprecated: ``Module.register_backward_hook`` (non-full) for every module (put on
    the output's node before the module's own).

    Raises:
        RuntimeError: full global hooks were registered before.
    """
    return _register_backward(hook, full=False)


def _register_backward(hook: Callable, full: bool) -> RemovableHandle:
    hooks = GLOBAL_MODULE_HOOKS
    _legacy.check_kind(hooks.backward_is_full, full, _legacy.GLOBAL)
    handle = hooks.add_call_hook(hooks.backward, hook)
    hooks.backward_is_full = full
    return handle


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(module, name, buffer)`` whenever a module registers a buffer; a non-None
    result is registered instead."""
    return add_hook(GLOBAL_MODULE_HOOKS.buffer_registration, hook)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(module, name, submodule)`` whenever a module registers a submodule; a
    non-None result is registered instead."""
    return add_hook(GLOBAL_MODULE_HOOKS.module_registration, hook)


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(module, name, param)`` whenever a module registers a parameter; a
    non-None result is registered instead."""
    return add_hook(GLOBAL_MODULE_HOOKS.parameter_registration, hook)

"""A module call that has hooks to run: PyTorch's ``_call_impl`` order.

Forward pre-hooks (the global ones first), the backward hooks' wrapping of the inputs,
``forward``, forward hooks (global first), the wrapping of the outputs, then the
deprecated non-full backward hooks put on the output's node. If the call raises, the
forward hooks registered with ``always_call`` that did not run yet (global, then the
module's) are called with the arguments and the result so far, as in PyTorch, and the
error goes on.
"""

from __future__ import annotations

from ..autograd import is_grad_enabled
from ..caller_warnings import warn_at_caller
from ..tensor import Tensor
from . import legacy_backward_hooks as _legacy
from .backward_hooks import BackwardHook
from .global_hooks import GLOBAL_MODULE_HOOKS as _GLOBAL


class _Progress:
    """How far a call got: what the always-called hooks are given if it raises (the
    arguments as the pre-hooks left them, the output as forward and hooks left it)."""

    __slots__ = ("args", "kwargs", "result", "called")

    def __init__(self, args: tuple, kwargs: dict):
        self.args, self.kwargs, self.result, self.called = args, kwargs, None, set()


def call_with_hooks(module, args: tuple, kwargs: dict):
    """``module(*args, **kwargs)`` with every hook that applies to it."""
    progress = _Progress(args, kwargs)
    try:
        return _run(module, progress)
    except Exception:
        if _GLOBAL.forward_always_called or module._forward_hooks_always_called:
            _run_always_called(module, progress)
        raise


def _run(module, progress: _Progress):
    _run_pre_hooks(module, progress)
    args, kwargs = progress.args, progress.kwargs
    backward_hook = None
    full, non_full = _backward_hooks(module)
    pre = [*_GLOBAL.backward_pre.values(), *module._backward_pre_hooks.values()]
    if (full or pre) and is_grad_enabled():
        backward_hook = BackwardHook(module, full, pre)
        args = progress.args = backward_hook.setup_inputs(args)
    output = progress.result = module.forward(*args, **kwargs)
    with_kwargs = module._forward_hooks_with_kwargs
    always_called = module._forward_hooks_always_called
    for hook_id, hook in (*_GLOBAL.forward.items(), *module._forward_hooks.items()):
        if hook_id in always_called or hook_id in _GLOBAL.forward_always_called:
            progress.called.add(hook_id)
        if hook_id in with_kwargs or hook_id in _GLOBAL.forward_with_kwargs:
            result = hook(module, args, kwargs, output)
        else:
            result = hook(module, args, output)
        if result is not None:
            output = progress.result = result
    if backward_hook is not None:
        if not isinstance(output, (Tensor, tuple)):
            warn_at_caller("For backward hooks to be called, module output should be a Tensor "
                           f"or a tuple of Tensors but received {type(output)}", UserWarning)
        output = backward_hook.setup_outputs(output)
    if non_full:
        _legacy.attach(module, non_full, args, output)
    return output


def _run_pre_hooks(module, progress: _Progress) -> None:
    with_kwargs = module._forward_pre_hooks_with_kwargs
    for hook_id, hook in (*_GLOBAL.forward_pre.items(), *module._forward_pre_hooks.items()):
        if hook_id in with_kwargs:
            result = hook(module, progress.args, progress.kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
                progress.args, progress.kwargs = result
        else:
            result = hook(module, progress.args)
            if result is not None:
                progress.args = result if isinstance(result, tuple) else (result,)


def _backward_hooks(module) -> tuple[list, list]:
    """The full and the non-full backward hooks of a call, global ones first."""
    full, non_full = [], []
    if _GLOBAL.backward:
        (non_full if _GLOBAL.backward_is_full is False else full).extend(
            _GLOBAL.backward.values())
    if module._backward_hooks:
        (non_full if module._is_full_backward_hook is False else full).extend(
            module._backward_hooks.values())
    return full, non_full


def _run_always_called(module, progress: _Progress) -> None:
    # PyTorch's order and arguments: the global hooks never get kwargs here
    for hook_id, hook in list(_GLOBAL.forward.items()):
        if hook_id in _GLOBAL.forward_always_called and hook_id not in progress.called:
            _call_silenced(hook, "global module", module, (progress.args,), progress)
    with_kwargs = module._forward_hooks_with_kwargs
    for hook_id, hook in list(module._forward_hooks.items()):
        if hook_id in module._forward_hooks_always_called and hook_id not in progress.called:
            inputs = ((progress.args, progress.kwargs) if hook_id in with_kwargs
                      else (progress.args,))
            _call_silenced(hook, "module", module, inputs, progress)


def _call_silenced(hook, kind: str, module, inputs: tuple, progress: _Progress) -> None:
    """Call an always-called hook (``hook(module, *inputs, output)``) after the call
    raised: its result replaces the output so far; its own error becomes a warning (the
    call's error is the one to raise)."""
    try:
        result = hook(module, *inputs, progress.result)
        if result is not None:
            progress.result = result
    except Exception as error:
        warn_at_caller(f"{kind} forward hook with ``always_call=True`` raised an exception "
                       "that was silenced as another error was raised in forward: "
                       f"{error}", UserWarning)

"""Forward pre-hooks and forward hooks: order, replacement, removal, firing on every call."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from minitorch_meta import nn


def test_hooks_fire_in_order_and_on_every_call():
    layer = nn.ReLU()
    calls = []
    layer.register_forward_pre_hook(lambda m, args: calls.append("pre1"))
    layer.register_forward_pre_hook(lambda m, args: calls.append("pre0"), prepend=True)
    layer.register_forward_hook(lambda m, args, out: calls.append("post"))
    net = nn.Sequential(layer, layer)  # one module used twice fires twice
    net(mt.ones(1))
    assert calls == ["pre0", "pre1", "post"] * 2


def test_hooks_can_replace_inputs_and_outputs():
    layer = nn.Identity()
    layer.register_forward_pre_hook(lambda m, args: args[0] + 1)  # non-tuple: wrapped
    layer.register_forward_hook(lambda m, args, out: out * 10)
    assert layer(mt.ones(1)).tolist() == [20.0]


def test_hooks_with_kwargs():
    layer = nn.Identity()
    seen = {}

    def pre(module, args, kwargs):
        seen["pre"] = kwargs
        return (args[0] * 2,), kwargs

    layer.register_forward_pre_hook(pre, with_kwargs=True)
    layer.register_forward_hook(lambda m, args, kwargs, out: out + 1, with_kwargs=True)
    assert layer(mt.ones(1)).tolist() == [3.0]
    assert seen["pre"] == {}
    layer.register_forward_pre_hook(lambda m, a, k: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        layer(mt.ones(1))


def test_removal_and_context_manager():
    layer = nn.Identity()
    calls = []
    handle = layer.register_forward_hook(lambda m, args, out: calls.append(1))
    layer(mt.ones(1))
    handle.remove()
    handle.remove()  # a second removal is harmless
    layer(mt.ones(1))
    with layer.register_forward_pre_hook(lambda m, args: calls.append(2)):
        layer(mt.ones(1))
    layer(mt.ones(1))
    assert calls == [1, 2]
    assert not layer._forward_hooks and not layer._forward_pre_hooks


def test_hook_must_be_callable():
    with pytest.raises(TypeError, match="a hook must be callable, got int"):
        nn.Identity().register_forward_hook(3)


def test_forward_hook_order_equals_pytorch(torch_ref):
    def trace(torch):
        net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Sequential(torch.nn.ReLU()))
        order = []
        for name, module in net.named_modules():
            module.register_forward_pre_hook(lambda m, a, n=name: order.append(("pre", n)))
            module.register_forward_hook(lambda m, a, o, n=name: order.append(("post", n)))
        net(torch.ones(1, 2))
        return order

    assert trace(mt) == trace(torch_ref)


def _plain(value):
    """A hook argument in a form both libraries compare equal in."""
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value.tolist() if hasattr(value, "tolist") else value


def _always_call(torch):
    """Where forward, a pre-hook or a forward hook raises: what the ``always_call`` hooks
    saw, and the warnings and errors the caller got."""

    class Failing(torch.nn.Module):
        def forward(self, x, k=1):
            raise ValueError("forward failed")

    log = []

    def broken(m, a, o):
        raise KeyError("the hook failed too")

    failing = Failing()
    failing.register_forward_pre_hook(lambda m, a: (a[0] * 2,))  # the hooks see its args
    failing.register_forward_hook(lambda m, a, o: log.append(("plain", a, o)), always_call=True)
    failing.register_forward_hook(broken, always_call=True)
    failing.register_forward_hook(lambda m, a, kw, o: log.append(("kwargs", a, kw, o)),
                                  always_call=True, with_kwargs=True)
    failing.register_forward_hook(lambda m, a, o: log.append("not always"))
    with pytest.warns(UserWarning) as warned:
        with pytest.raises(ValueError, match="forward failed"):
            failing(torch.ones(1), k=3)
    # a forward hook raises: the always-called hooks before it ran already, those after run
    identity = torch.nn.Identity()
    identity.register_forward_hook(lambda m, a, o: log.append("before"), always_call=True)
    identity.register_forward_hook(lambda m, a, o: o * 5)
    identity.register_forward_hook(lambda m, a, o: 1 / 0)
    identity.register_forward_hook(lambda m, a, o: log.append(("after", o)), always_call=True)
    with pytest.raises(ZeroDivisionError):
        identity(torch.ones(1))
    return _plain(log), [str(w.message) for w in warned]


def test_always_call_runs_when_the_call_raises(torch_ref):
    ours = _always_call(mt)
    assert ours == _always_call(torch_ref)
    assert ours[0] == (("plain", ([2.0],), None), ("kwargs", ([2.0],), {"k": 3}, None),
                       "before", ("after", [5.0]))
    assert ours[1] == ["module forward hook with ``always_call=True`` raised an exception that "
                       "was silenced as another error was raised in forward: 'the hook failed "
                       "too'"]


def test_always_call_hook_result_and_removal():
    failing = nn.Identity()
    failing.forward = lambda x: 1 / 0
    seen = []
    failing.register_forward_hook(lambda m, a, o: "replaced", always_call=True)
    handle = failing.register_forward_hook(lambda m, a, o: seen.append(o), always_call=True)
    with pytest.raises(ZeroDivisionError):
        failing(mt.ones(1))
    assert seen == ["replaced"]  # an always-called hook's result is the next one's output
    handle.remove()
    assert len(failing._forward_hooks_always_called) == 1


def test_always_call_ignores_base_exceptions():
    class Interrupted(nn.Module):
        def forward(self, x):
            raise KeyboardInterrupt

    module, seen = Interrupted(), []
    module.register_forward_hook(lambda m, a, o: seen.append(o), always_call=True)
    with pytest.raises(KeyboardInterrupt):
        module(mt.ones(1))
    assert seen == []  # as PyTorch: only an Exception runs them


def _global_and_own(torch):
    log = []
    failing = torch.nn.Identity()
    failing.forward = lambda x: 1 / 0
    failing.register_forward_hook(lambda m, a, o: log.append("own"), always_call=True)
    handle = torch.nn.modules.module.register_module_forward_hook(
        lambda m, a, o: log.append("global"), always_call=True)
    try:
        with pytest.raises(ZeroDivisionError):
            failing(torch.ones(1))
    finally:
        handle.remove()
    return log


def test_always_called_global_hooks_run_before_the_modules(torch_ref):
    assert _global_and_own(mt) == _global_and_own(torch_ref) == ["global", "own"]

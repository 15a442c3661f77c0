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

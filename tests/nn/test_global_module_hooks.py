"""Global module hooks (``torch.nn.modules.module.register_module_*``): who calls them,
in which order relative to the modules' own hooks, and what their results replace; each
scenario run on minitorch_meta and PyTorch. Every hook is removed by its handle (they are
process-wide)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.modules.module as mt_module_module
from minitorch_meta.nn.global_hooks import GLOBAL_MODULE_HOOKS


def _globals(torch):
    return torch.nn.modules.module


@contextlib.contextmanager
def _removed_after(*handles):
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def _call_order(torch):
    g, log = _globals(torch), []
    net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh())
    for module in net:
        name = type(module).__name__
        module.register_forward_pre_hook(lambda m, a, n=name: log.append(("pre", n)))
        module.register_forward_hook(lambda m, a, o, n=name: log.append(("fwd", n)))
        module.register_full_backward_pre_hook(lambda m, go, n=name: log.append(("bpre", n)))
        module.register_full_backward_hook(lambda m, gi, go, n=name: log.append(("bwd", n)))
    handles = (
        g.register_module_forward_pre_hook(
            lambda m, a: log.append(("global pre", type(m).__name__))),
        g.register_module_forward_hook(
            lambda m, a, o: log.append(("global fwd", type(m).__name__))),
        g.register_module_full_backward_pre_hook(
            lambda m, go: log.append(("global bpre", type(m).__name__))),
        g.register_module_full_backward_hook(
            lambda m, gi, go: log.append(("global bwd", type(m).__name__))),
    )
    with _removed_after(*handles):
        net(torch.ones(1, 2, requires_grad=True)).sum().backward()
    net(torch.ones(1, 2)).sum()  # after removal: only the modules' own hooks
    return log


def test_call_order_equals_pytorch(torch_ref):
    ours = _call_order(mt)
    assert ours == _call_order(torch_ref)
    assert ours[:3] == [("global pre", "Sequential"), ("global pre", "Linear"), ("pre", "Linear")]
    assert not GLOBAL_MODULE_HOOKS.call


def _replacements(torch, device):
    g = _globals(torch)
    layer = torch.nn.Linear(2, 1, device=device)
    x = torch.tensor([[1.0, 2.0]], device=device, requires_grad=True)
    handles = (
        g.register_module_forward_pre_hook(lambda m, a: (a[0] * 2,)),
        g.register_module_forward_hook(lambda m, a, k, o: o + len(k), with_kwargs=True),
        g.register_module_full_backward_pre_hook(lambda m, go: (go[0] * 3,)),
        g.register_module_full_backward_hook(lambda m, gi, go: (gi[0] * 5,)),
    )
    with _removed_after(*handles):
        out = layer(x)
        out.sum().backward()
    return [np.round(t.detach().cpu().numpy(), 5).tolist()
            for t in (out, x.grad, layer.weight.grad)]


def test_results_replace_as_in_pytorch(torch_ref, device):
    assert _replacements_seeded(mt, device) == _replacements_seeded(torch_ref, "cpu")


def _replacements_seeded(torch, device):
    original = torch.nn.Linear.reset_parameters

    def fixed(self):
        with torch.no_grad():
            self.weight.copy_(torch.tensor([[0.5, -1.0]]))
            self.bias.fill_(0.25)

    torch.nn.Linear.reset_parameters = fixed
    try:
        return _replacements(torch, device)
    finally:
        torch.nn.Linear.reset_parameters = original


def _always_call(torch):
    g, log = _globals(torch), []

    class Failing(torch.nn.Module):
        def forward(self, x):
            raise ValueError("forward failed")

    def hook(m, a, o):
        log.append((type(m).__name__, len(a), o))

    def broken(m, a, o):
        if isinstance(m, Failing):
            raise KeyError("the hook failed too")

    handles = (g.register_module_forward_hook(hook, always_call=True),
               g.register_module_forward_hook(broken, always_call=True),
               g.register_module_forward_hook(lambda m, a, o: log.append("not always")))
    with _removed_after(*handles):
        with pytest.warns(UserWarning, match="raised an exception that was silenced"):
            with pytest.raises(ValueError, match="forward failed"):
                Failing()(torch.ones(1))
        torch.nn.Identity()(torch.ones(1))
    return log[:1] + [entry if isinstance(entry, str) else entry[:2] for entry in log[1:]]


def test_always_call_runs_when_forward_raises(torch_ref):
    ours = _always_call(mt)
    assert ours == _always_call(torch_ref)
    assert ours[0] == ("Failing", 1, None)


def _registrations(torch):
    g, log = _globals(torch), []

    def record(kind):
        def hook(module, name, value):
            log.append((kind, type(module).__name__, name, type(value).__name__))
        return hook

    handles = (g.register_module_buffer_registration_hook(record("buffer")),
               g.register_module_module_registration_hook(record("module")),
               g.register_module_parameter_registration_hook(record("parameter")))
    with _removed_after(*handles):
        net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
        net.extra = torch.nn.ReLU()
        net.extra = None
        net.register_buffer("scale", torch.ones(1))
        net.scale = torch.zeros(1)
        net.register_parameter("gain", None)
        net.add_module("tail", torch.nn.Identity())
    with _removed_after(g.register_module_parameter_registration_hook(
            lambda m, n, p: torch.nn.Parameter(torch.zeros(3)))):
        replaced = torch.nn.Module()
        replaced.weight = torch.nn.Parameter(torch.ones(2))
    return log, tuple(replaced.weight.shape)


def test_registration_hooks_equal_pytorch(torch_ref):
    ours = _registrations(mt)
    assert ours == _registrations(torch_ref)
    assert ("buffer", "Sequential", "scale", "Tensor") in ours[0]
    assert ours[1] == (3,)


def test_import_paths(torch_ref):
    from minitorch_meta.nn.modules import Linear
    from minitorch_meta.nn.modules.module import Module

    assert Module is mt.nn.Module and Linear is mt.nn.Linear
    assert mt.nn.modules.module is mt_module_module
    names = [n for n in dir(torch_ref.nn.modules.module) if n.startswith("register_module_")]
    ours = [n for n in names if hasattr(mt_module_module, n)]
    assert sorted(set(names) - set(ours)) == []


def test_handles_remove_from_the_call_registry():
    handle = mt_module_module.register_module_forward_hook(lambda m, a, o: None,
                                                           with_kwargs=True, always_call=True)
    assert isinstance(handle, mt.utils.hooks.RemovableHandle)
    assert GLOBAL_MODULE_HOOKS.call and GLOBAL_MODULE_HOOKS.forward_always_called
    handle.remove()
    assert not (GLOBAL_MODULE_HOOKS.call or GLOBAL_MODULE_HOOKS.forward
                or GLOBAL_MODULE_HOOKS.forward_with_kwargs
                or GLOBAL_MODULE_HOOKS.forward_always_called)
    with pytest.raises(TypeError, match="a hook must be callable"):
        mt_module_module.register_module_forward_pre_hook(3)

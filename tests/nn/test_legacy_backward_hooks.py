"""The deprecated non-full backward hooks (``Module.register_backward_hook``,
``register_module_backward_hook``): the gradients they see, their FutureWarnings, and the
refusal to mix them with full hooks; each scenario run on minitorch_meta and PyTorch.

The kind of a module's (and of the global) backward hooks is fixed for good by the first
registration, so the fixture puts the global one back after each test."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.nn.global_hooks import GLOBAL_MODULE_HOOKS


@pytest.fixture(autouse=True)
def _global_kind_reset(torch_ref):
    yield
    GLOBAL_MODULE_HOOKS.backward_is_full = None
    torch_ref.nn.modules.module._global_is_full_backward_hook = None



def _modules(torch):
    class TwoOps(torch.nn.Module):
        def forward(self, x):
            return (x * 2).exp()

    class Pair(torch.nn.Module):  # outputs made by two different nodes
        def forward(self, x):
            return x.exp(), x.sin()

    class Listed(torch.nn.Module):  # an output that is not a tensor or tuple of tensors
        def forward(self, x):
            return [x.exp()]

    class Scaled(torch.nn.Module):  # an input that is not a tensor
        def forward(self, x, scale):
            return x.exp() * scale

    linear = torch.nn.Linear(3, 2).double()
    with torch.no_grad():
        linear.weight.copy_(torch.tensor(np.linspace(-1, 1, 6).reshape(2, 3)))
        linear.bias.copy_(torch.tensor([0.5, -0.25]))
    return {"sigmoid": (torch.nn.Sigmoid(), ()), "linear": (linear, ()),
            "linear_no_bias": (torch.nn.Linear(3, 2, bias=False).double(), ()),
            "two_ops": (TwoOps(), ()), "pair": (Pair(), ()), "listed": (Listed(), ()),
            "scaled": (Scaled(), (3.0,))}


def _plain(grads) -> list:
    return [None if g is None else np.round(g.detach().numpy().astype(np.float64), 6).tolist()
            for g in grads]


def _legacy(torch, name: str, leaf_input: bool):
    """What a non-full hook on module ``name`` saw, and the FutureWarnings of its call."""
    module, extra = _modules(torch)[name]
    seen = []

    def hook(m, grad_input, grad_output):
        assert m is module
        seen.append((_plain(grad_input), _plain(grad_output)))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module.register_backward_hook(hook)
        x = torch.tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
        out = module(x if leaf_input else x * 1, *extra)
        first = out if isinstance(out, torch.Tensor) else out[0]
        (first * first).sum().backward()
    if name == "linear_no_bias":  # its weight is random: only the shapes compare
        seen = [([np.shape(g) for g in gi], [np.shape(g) for g in go]) for gi, go in seen]
    return seen, [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("name", ["sigmoid", "linear", "linear_no_bias", "two_ops", "pair",
                                  "listed", "scaled"])
@pytest.mark.parametrize("leaf_input", [False, True])
def test_what_a_non_full_hook_sees_equals_pytorch(torch_ref, name, leaf_input):
    ours = _legacy(mt, name, leaf_input)
    if name in ("pair", "listed", "scaled"):
        # our product with a Python number has one edge, PyTorch's two (the second None):
        # a hook on such a node (``x * 1`` in front, ``* scale``) sees no None for it
        theirs = _legacy(torch_ref, name, leaf_input)
        assert ours[1] == theirs[1]
        assert [(gi[:1], go) for gi, go in ours[0]] == [(gi[:1], go) for gi, go in theirs[0]]
        return
    assert ours == _legacy(torch_ref, name, leaf_input)
    seen, warned = ours
    assert len(seen) == 1
    if name == "sigmoid":  # a single op on a non-leaf input: the module's own gradients
        assert len(warned) == (1 if leaf_input else 0)
    if name == "linear":  # addmm's: bias, input, weight (transposed)
        assert [np.shape(g) for g in seen[0][0]] == [(2,), (2, 3), (3, 2)]


def _replace(torch):
    module = torch.nn.Sigmoid()
    module.register_backward_hook(lambda m, gi, go: (gi[0] * 10,))
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    module(x * 1).sum().backward()
    return x.grad.tolist()


def test_a_result_replaces_grad_input(torch_ref):
    ours = _replace(mt)
    assert np.allclose(ours, _replace(torch_ref))
    assert np.allclose(ours, 10 * np.array([0.196612, 0.104994]), atol=1e-6)


def _errors(register, *args) -> str | None:
    """The message of the RuntimeError of ``register(*args)`` (None if it passes)."""
    try:
        register(*args)
    except RuntimeError as error:
        return str(error)
    return None


def test_mixing_the_kinds_is_refused_as_pytorch(torch_ref):
    results = []
    for torch in (mt, torch_ref):
        full_first, legacy_first = torch.nn.Tanh(), torch.nn.Tanh()
        full_first.register_full_backward_hook(lambda *a: None).remove()
        legacy_first.register_backward_hook(lambda *a: None).remove()
        results.append((
            _errors(full_first.register_backward_hook, lambda *a: None),
            _errors(legacy_first.register_full_backward_hook, lambda *a: None),
            legacy_first._is_full_backward_hook, full_first._is_full_backward_hook,
            torch.nn.Tanh()._is_full_backward_hook))
    assert results[0] == results[1]
    assert results[0][0] == ("Cannot use both regular backward hooks and full backward hooks "
                             "on a single Module. Please use only one of them.")
    assert results[0][2:] == (False, True, None)  # removal does not reset the kind


def _global(torch):
    g, log = torch.nn.modules.module, []
    handle = g.register_module_backward_hook(
        lambda m, gi, go: log.append(("global", type(m).__name__, _plain(gi))))
    refused = _errors(g.register_module_full_backward_hook, lambda *a: None)
    module = torch.nn.Sigmoid()
    module.register_backward_hook(lambda m, gi, go: log.append(("own", _plain(gi))))
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module(x * 1).sum().backward()
    handle.remove()
    torch.nn.Sigmoid()(x * 1).sum().backward()  # removed: not called
    return refused, log, len(caught)


def test_global_non_full_hooks_equal_pytorch(torch_ref):
    ours = _global(mt)
    assert ours == _global(torch_ref)
    assert ours[0].endswith("full backward hooks as a global Module hook. Please use only "
                            "one of them.")
    assert [entry[0] for entry in ours[1]] == ["global", "own"]


def test_a_hook_of_a_dead_module_raises():
    module = mt.nn.Sigmoid()
    module.register_backward_hook(lambda m, gi, go: None)
    y = module(mt.ones(2, requires_grad=True) * 1)
    del module
    gc.collect()
    with pytest.raises(RuntimeError, match="the hook of a dead Module"):
        y.sum().backward()


def test_no_hook_without_a_graph():
    module, seen = mt.nn.Sigmoid(), []
    module.register_backward_hook(lambda m, gi, go: seen.append(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no warning: there is nothing to hook
        module(mt.ones(2))
        with mt.no_grad():
            module(mt.ones(2, requires_grad=True))
    assert seen == []


def _under_global_full_hooks(torch):
    """A module's non-full hook where global full hooks wrap its output: it lands on
    their identity node, so it sees (and replaces) the output's gradient."""
    g, log = torch.nn.modules.module, []
    handle = g.register_module_full_backward_hook(
        lambda m, gi, go: log.append(("full", _plain(gi), _plain(go))))
    module = torch.nn.Sigmoid()
    module.register_backward_hook(
        lambda m, gi, go: (log.append(("legacy", _plain(gi), _plain(go))), (gi[0] * 10,))[1])
    x = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        module(x * 1).sum().backward()
    handle.remove()
    return log, _plain([x.grad])


def test_a_non_full_hook_under_global_full_hooks_equals_pytorch(torch_ref):
    ours = _under_global_full_hooks(mt)
    theirs = _under_global_full_hooks(torch_ref)
    # the full hooks' grad_output here is the one the non-full hook returned (PyTorch's:
    # the one it was given; docs/differences.md); the rest is PyTorch's
    assert ours[0][0] == theirs[0][0] and ours[0][1][:2] == theirs[0][1][:2]
    assert ours[1] == theirs[1]
    assert ours[0][1][2] == [[10.0, 10.0]] and theirs[0][1][2] == [[1.0, 1.0]]
    assert [entry[0] for entry in ours[0]] == ["legacy", "full"]
    assert ours[0][0][1] == ours[0][0][2] == [[1.0, 1.0]]  # an identity node's gradients

"""Full backward hooks: what they receive, when they fire, and replacing grad_input."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn


def _run(torch, x_requires_grad: bool, replace: bool = False):
    """A two-layer model with a backward hook on each layer; returns what the hooks saw."""
    torch.manual_seed(0)
    first, second = torch.nn.Linear(3, 4), torch.nn.Linear(4, 2)
    with torch.no_grad():
        for layer, seed in ((first, 1), (second, 2)):
            rng = np.random.default_rng(seed)
            layer.weight.copy_(torch.from_numpy(rng.standard_normal(tuple(layer.weight.shape))))
            layer.bias.copy_(torch.from_numpy(rng.standard_normal(tuple(layer.bias.shape))))
    seen = []

    def hook(module, grad_input, grad_output):
        seen.append((module.out_features,
                     [None if g is None else g.detach().numpy().copy() for g in grad_input],
                     [g.detach().numpy().copy() for g in grad_output]))
        if replace and module is second:
            return (grad_input[0] * 0,)
        return None

    first.register_full_backward_hook(hook)
    second.register_full_backward_hook(hook)
    x = torch.from_numpy(np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32))
    x.requires_grad_(x_requires_grad)
    (second(torch.relu(first(x))) ** 2).sum().backward()
    return seen, first.weight.grad.numpy().copy(), None if x.grad is None else x.grad.numpy()


def _compare(ours, theirs):
    assert [s[0] for s in ours[0]] == [s[0] for s in theirs[0]]
    for (_, gi_a, go_a), (_, gi_b, go_b) in zip(ours[0], theirs[0]):
        assert [g is None for g in gi_a] == [g is None for g in gi_b]
        for a, b in zip(gi_a + go_a, gi_b + go_b):
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    if theirs[2] is not None:
        np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("x_requires_grad", [False, True])
def test_backward_hooks_equal_pytorch(torch_ref, x_requires_grad):
    if x_requires_grad:
        _compare(_run(mt, x_requires_grad), _run(torch_ref, x_requires_grad))
        return
    # the first layer's input needs no gradient: both frameworks warn that its hook fires
    # with grad_input all None
    firing = "Full backward hook is firing when gradients are computed with respect to module"
    with pytest.warns(UserWarning, match=firing) as ours:
        seen = _run(mt, x_requires_grad)
    with pytest.warns(UserWarning, match=firing):
        _compare(seen, _run(torch_ref, x_requires_grad))
    assert "Linear's grad_input is all None" in str(ours[0].message)


def test_replacing_grad_input_equals_pytorch(torch_ref):
    ours, theirs = _run(mt, True, replace=True), _run(torch_ref, True, replace=True)
    _compare(ours, theirs)
    assert not ours[1].any()  # zero gradient flowed back into the first layer


def test_hook_order_and_none_for_inputs_without_grad():
    with pytest.warns(UserWarning, match="no inputs require gradients"):
        seen, _, x_grad = _run(mt, False)
    assert [s[0] for s in seen] == [2, 4]  # the last layer's backward runs first
    assert seen[1][1] == [None] and x_grad is None


def test_backward_hook_removal_and_wrong_return():
    layer = nn.Linear(2, 2)
    calls = []
    handle = layer.register_full_backward_hook(lambda m, gi, go: calls.append(1))
    x = mt.ones(1, 2, requires_grad=True)
    layer(x).sum().backward()
    handle.remove()
    layer(x).sum().backward()
    assert calls == [1]
    layer.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 2, but expected 1"):
        layer(x).sum().backward()


def test_backward_hooks_on_meta():
    with mt.device("meta"):
        layer = nn.Linear(5, 3)
        x = mt.randn(4, 5, requires_grad=True)
    shapes = []
    layer.register_full_backward_hook(
        lambda m, gi, go: shapes.append((tuple(gi[0].shape), tuple(go[0].shape))))
    layer(x).sum().backward()
    assert shapes == [((4, 5), (4, 3))]
    assert x.grad.is_meta and tuple(x.grad.shape) == (4, 5)


def test_no_hook_node_under_no_grad():
    layer = nn.Linear(2, 2)
    layer.register_full_backward_hook(lambda m, gi, go: None)
    with mt.no_grad():
        y = layer(mt.ones(1, 2, requires_grad=True))
    assert y.grad_fn is None


def _listed_output_warning(torch):
    class Listed(torch.nn.Module):
        def forward(self, x):
            return [x * 2]

    module = Listed()
    module.register_full_backward_hook(lambda m, gi, go: None)
    with pytest.warns(UserWarning) as warned:
        module(torch.ones(2, requires_grad=True))
    return [str(w.message) for w in warned]


def test_an_output_the_hooks_cannot_wrap_warns_as_pytorch(torch_ref):
    ours = _listed_output_warning(mt)
    assert ours == _listed_output_warning(torch_ref)
    assert ours == ["For backward hooks to be called, module output should be a Tensor or a "
                    "tuple of Tensors but received <class 'list'>"]

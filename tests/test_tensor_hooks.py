"""Tensor.register_hook and retain_grad, against PyTorch's behaviour."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn


def _graph(T):
    x = T.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    h = x * 3
    y = (h * h).sum()
    return x, h, y


def test_hooks_see_and_replace_gradients_like_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    seen = {}
    results = []
    for name, T in (("ours", mt), ("torch", torch)):
        x, h, y = _graph(T)
        h.register_hook(lambda g, name=name: seen.update({name: g.detach().numpy().copy()}))
        x.register_hook(lambda g: g * 10)   # a leaf hook replaces what accumulates
        y.backward()
        results.append(x.grad.numpy())
    np.testing.assert_allclose(seen["ours"], seen["torch"])
    np.testing.assert_allclose(results[0], results[1])


def test_retain_grad_keeps_a_non_leaf_gradient_and_accumulates():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    grads = []
    for T in (mt, torch):
        x, h, y = _graph(T)
        h.retain_grad()
        h.retain_grad()  # twice is the same as once
        y.backward(retain_graph=True)
        y.backward()
        assert h.retains_grad
        grads.append(h.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1])


def test_removing_a_hook_and_the_errors():
    x, h, y = _graph(mt)
    calls = []
    handle = h.register_hook(lambda g: calls.append(1))
    handle.remove()
    y.backward()
    assert calls == []
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        mt.zeros(2).register_hook(lambda g: None)
    x, h, y = _graph(mt)
    h.register_hook(lambda g: mt.zeros(3))
    with pytest.raises(RuntimeError, match=r"returned a gradient of shape \(3,\)"):
        y.backward()
    x, h, y = _graph(mt)
    h.register_hook(lambda g: g.numpy())
    with pytest.raises(TypeError, match="must return None or a Tensor"):
        y.backward()


def test_hooks_work_on_meta_and_on_module_outputs_with_backward_hooks():
    x = mt.empty(4, 3, device="meta", requires_grad=True)
    shapes = []
    y = x * 2
    y.register_hook(lambda g: shapes.append(tuple(g.shape)))
    y.sum().backward()
    assert shapes == [(4, 3)] and x.grad.is_meta
    layer = nn.Linear(3, 2)
    layer.register_full_backward_hook(lambda module, gin, gout: None)
    out = layer(mt.randn(4, 3, requires_grad=True))
    out.retain_grad()
    out.sum().backward()
    np.testing.assert_array_equal(out.grad.numpy(), np.ones((4, 2), np.float32))

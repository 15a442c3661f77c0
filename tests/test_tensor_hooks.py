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


def _post_hook_log(T, device=None):
    """A leaf with a post-accumulate-grad hook and one with a tensor hook, two backward
    passes and an ``autograd.grad`` (which writes no ``.grad``): what the hooks saw."""
    kwargs = {} if device is None else {"device": device}
    x = T.tensor([1.0, -2.0], requires_grad=True, **kwargs)
    log = []
    x.register_hook(lambda g: log.append(("pre", g.tolist())))
    handle = x.register_post_accumulate_grad_hook(
        lambda t: log.append(("post", t is x, t.grad.tolist())))
    (x * 2).sum().backward()
    (x * x).sum().backward()
    T.autograd.grad((x * 3).sum(), x)
    (x * 4).sum().backward(inputs=[x])
    handle.remove()
    (x * 5).sum().backward()
    return log


def test_post_accumulate_grad_hooks_run_after_accumulation_as_pytorch(device):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    assert _post_hook_log(mt, device) == _post_hook_log(torch)


def test_post_accumulate_grad_hooks_run_under_create_graph_and_may_clear_grad():
    x = mt.tensor([3.0], requires_grad=True)
    seen = []

    def step(t):  # the "optimizer in backward" pattern: use the gradient, then drop it
        seen.append(t.grad.grad_fn is not None)
        t.grad = None

    x.register_post_accumulate_grad_hook(step)
    with pytest.warns(UserWarning, match="reference cycle"):
        (x ** 2).sum().backward(create_graph=True)
    assert seen == [True] and x.grad is None


@pytest.mark.parametrize("make, error, message", [
    (lambda: mt.ones(2, requires_grad=True) * 2, RuntimeError,
     "post accumulate grad hooks cannot be registered on non-leaf tensors"),
    (lambda: mt.ones(2), RuntimeError,
     "cannot register a hook on a tensor that doesn't require gradient"),
])
def test_post_accumulate_grad_hook_refusals_as_pytorch(make, error, message):
    with pytest.raises(error, match=message):
        make().register_post_accumulate_grad_hook(lambda t: None)


def test_a_post_accumulate_grad_hook_must_return_none():
    x = mt.ones(2, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: t.grad)
    with pytest.raises(TypeError, match="must return None"):
        x.sum().backward()
    with pytest.raises(TypeError, match="must be callable"):
        x.register_post_accumulate_grad_hook(3)

"""``torch.autograd.grad`` and ``torch.autograd.backward(..., inputs=...)``: values against
PyTorch, what runs and what is left alone, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F

DATA = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _graph(T, x, w):
    """A small graph in which h, a candidate non-leaf input, feeds two branches."""
    h = (x @ w.t()).tanh()
    return h, (h * h).sum() + T.nn.functional.softmax(h, dim=1)[:, 0].sum()


def _inputs(T, device=None):
    kwargs = {} if device is None else {"device": device}
    x = T.tensor(DATA, requires_grad=True, **kwargs)
    w = T.tensor(DATA[:, ::-1].copy() * 0.5, requires_grad=True, **kwargs)
    return x, w


def test_grad_matches_torch_for_leaves_and_a_non_leaf(device):
    torch = _torch()
    x, w = _inputs(mt, device)
    tx, tw = _inputs(torch)
    h, loss = _graph(mt, x, w)
    th, tloss = _graph(torch, tx, tw)
    ours = mt.autograd.grad(loss, [x, h, w])
    ref = torch.autograd.grad(tloss, [tx, th, tw])
    for got, want in zip(ours, ref):
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_grad_writes_no_grad_and_returns_a_tuple(device):
    x, w = _inputs(mt, device)
    _, loss = _graph(mt, x, w)
    result = mt.autograd.grad(loss, x)
    assert isinstance(result, tuple) and len(result) == 1
    assert x.grad is None and w.grad is None
    assert result[0].requires_grad is False and result[0].grad_fn is None


def test_grad_equals_what_backward_accumulates(device):
    x, w = _inputs(mt, device)
    _, loss = _graph(mt, x, w)
    gx, gw = mt.autograd.grad(loss, (x, w), retain_graph=True)
    loss.backward()
    np.testing.assert_array_equal(gx.cpu().numpy(), x.grad.cpu().numpy())
    np.testing.assert_array_equal(gw.cpu().numpy(), w.grad.cpu().numpy())


def test_only_the_part_of_the_graph_leading_to_the_inputs_runs():
    # y depends on a and b through separate branches: asking for a's gradient runs (and
    # frees) a's branch only, and accumulates nothing into b.
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    b = mt.tensor([3.0, 4.0], requires_grad=True)
    y = (a * a).sum() + b.exp().sum()
    (ga,) = mt.autograd.grad(y, a)
    assert ga.tolist() == [2.0, 4.0]
    assert a.grad is None and b.grad is None
    (a_branch, _), (b_branch, _) = y.grad_fn.next_functions  # sums: they save no tensors
    assert a_branch.next_functions[0][0]._freed  # a * a's saved tensors
    assert not b_branch.next_functions[0][0]._freed  # b.exp()'s are kept


def test_inputs_get_gradients_of_their_own():
    # An add hands one gradient array to both operands: each result must own its memory.
    x, y = mt.ones(3, requires_grad=True), mt.ones(3, requires_grad=True)
    gx, gy = mt.autograd.grad((x + y).sum(), [x, y])
    gx.add_(1.0)
    assert gy.tolist() == [1.0, 1.0, 1.0]


def test_retain_graph_allows_a_second_call():
    x, w = _inputs(mt)
    _, loss = _graph(mt, x, w)
    first = mt.autograd.grad(loss, x, retain_graph=True)[0]
    second = mt.autograd.grad(loss, x)[0]
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        mt.autograd.grad(loss, x)


def test_grad_outputs_weight_each_output_as_in_torch():
    torch = _torch()
    x, tx = mt.tensor(DATA, requires_grad=True), torch.tensor(DATA, requires_grad=True)
    weights = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    ours = mt.autograd.grad([x * x, x.sum()], x, grad_outputs=[mt.tensor(weights), None])
    ref = torch.autograd.grad([tx * tx, tx.sum()], tx,
                              grad_outputs=[torch.tensor(weights), None])
    np.testing.assert_allclose(ours[0].numpy(), ref[0].numpy(), rtol=1e-6)
    single = mt.autograd.grad((x * 3).sum(), x, grad_outputs=mt.tensor(2.0))
    assert single[0].tolist() == [[6.0] * 3] * 2


def test_hooks_and_retain_grad_run_as_in_torch():
    torch = _torch()
    results = []
    for T in (mt, torch):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        x.register_hook(lambda g: g * 10)
        (gx,) = T.autograd.grad((y * y).sum(), x)
        results.append((gx.tolist(), y.grad.tolist(), x.grad))
    assert results[0] == results[1]


def test_unused_inputs_raise_or_give_none_or_zeros_as_asked(any_device):
    x = mt.ones(2, 3, device=any_device, requires_grad=True)
    unused = mt.ones(4, device=any_device, requires_grad=True)
    loss = (x * x).sum()
    with pytest.raises(RuntimeError, match="Tensor at index 1 appears to not have been used "
                                           "in the graph. Set allow_unused=True"):
        mt.autograd.grad(loss, [x, unused], retain_graph=True)
    gx, none = mt.autograd.grad(loss, [x, unused], allow_unused=True, retain_graph=True)
    assert none is None and tuple(gx.shape) == (2, 3) and gx.device.type == any_device
    _, zeros = mt.autograd.grad(loss, [x, unused], materialize_grads=True)
    assert tuple(zeros.shape) == (4,) and zeros.device.type == any_device
    if any_device != "meta":
        assert zeros.tolist() == [0.0] * 4


def test_grad_on_meta_gives_gradient_shapes():
    x = mt.ones(1024, 3, 32, 32, device="meta", requires_grad=True)
    w = mt.ones(6, 3, 5, 5, device="meta", requires_grad=True)
    gx, gw = mt.autograd.grad(F.conv2d(x, w).relu().sum(), [x, w])
    assert (gx.shape, gw.shape) == (x.shape, w.shape) and gx.is_meta and gw.is_meta


def test_backward_with_inputs_writes_only_their_grad_as_in_torch():
    torch = _torch()
    seen = []
    for T in (mt, torch):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        w = T.tensor([3.0, 4.0], requires_grad=True)
        y = x * w
        z = (y * y).sum()
        T.autograd.backward(z, inputs=[y], retain_graph=True)
        step1 = (y.grad.tolist(), x.grad, w.grad)
        z.backward(inputs=x, retain_graph=True)
        z.backward(inputs=[x])
        seen.append((step1, x.grad.tolist(), w.grad))
    assert seen[0] == seen[1]


def test_autograd_backward_takes_a_sequence_and_optional_gradients():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    mt.autograd.backward([(x * 2).sum(), x * x], [None, mt.tensor([1.0, 10.0])])
    assert x.grad.tolist() == [4.0, 42.0]


@pytest.mark.parametrize("call, error, message", [
    (lambda x, y: mt.autograd.grad(y, []), RuntimeError, "`inputs` argument to `grad\\(\\)` "
     "cannot be empty"),
    (lambda x, y: mt.autograd.backward(y, inputs=[]), RuntimeError, "`inputs` argument to "
     "`backward\\(\\)` cannot be empty"),
    (lambda x, y: mt.autograd.grad(y, mt.ones(2)), RuntimeError, "One of the differentiated "
     "Tensors does not require grad"),
    (lambda x, y: mt.autograd.grad(mt.ones(1).sum(), x), RuntimeError, "element 0 of tensors "
     "does not require grad"),
    (lambda x, y: mt.autograd.grad(x * 2, x), RuntimeError, "grad can be implicitly created "
     "only for scalar outputs; output 0 has shape \\(2,\\)"),
    (lambda x, y: mt.autograd.grad(y, x, grad_outputs=mt.ones(3)), RuntimeError, "gradient of "
     "output 0 has shape \\(3,\\) but the output has shape \\(\\)"),
    (lambda x, y: mt.autograd.grad(y, x, grad_outputs=[None, None]), RuntimeError, "got 2 "
     "output gradient\\(s\\) for 1 output\\(s\\)"),
    (lambda x, y: mt.autograd.grad(y, x, grad_outputs=mt.ones((), device="meta")),
     RuntimeError, "gradient of output 0 is on meta but the output is on cpu"),
    (lambda x, y: mt.autograd.grad(y, x, is_grads_batched=True), RuntimeError,
     "with is_grads_batched=True pass grad_outputs"),
    (lambda x, y: mt.autograd.grad(y, x, allow_unused=False, materialize_grads=True),
     ValueError, "Expected allow_unused to be True or not passed"),
    (lambda x, y: mt.autograd.grad(y, 3), TypeError, "inputs must be a Tensor, a GradientEdge or "
     "a sequence of Tensors, got int"),
])
def test_bad_calls_raise_clear_errors(call, error, message):
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(error, match=message):
        call(x, (x * x).sum())


def test_grad_with_respect_to_a_non_leaf_leaves_its_graph_for_later():
    # As in PyTorch: the node of a non-leaf input is not run (nor freed) unless it leads
    # to another input, so a later backward through it still works.
    import torch

    results = []
    for fw in (mt, torch):
        x = fw.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        (gy,) = fw.autograd.grad((y * 3).sum(), y)
        y.sum().backward()
        y = x * x  # a target leading to another target runs: every path counts
        gx, gy2 = fw.autograd.grad((y * x).sum(), [x, y])
        results.append([gy.tolist(), x.grad.tolist(), gx.tolist(), gy2.tolist()])
    assert results[0] == results[1]


def test_inputs_given_as_a_dict_give_a_dict_of_gradients(torch_ref):
    """``autograd.grad(loss, dict(model.named_parameters()))`` (PyTorch 2.13)."""
    results = []
    for framework in (mt, torch_ref):
        framework.manual_seed(0)
        a = framework.tensor([1.0, 2.0], requires_grad=True)
        b = framework.tensor([3.0], requires_grad=True)
        y = (a * a).sum() + (b * 5).sum()
        gradients = framework.autograd.grad(y, {"a": a, "b": b})
        assert isinstance(gradients, dict) and list(gradients) == ["a", "b"]
        results.append({k: v.tolist() for k, v in gradients.items()})
    assert results[0] == results[1] == {"a": [2.0, 4.0], "b": [5.0]}

"""The autograd engine: long chains, accumulation, retain_graph, grad modes, detach, names."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F


def test_ten_thousand_op_chain_does_not_recurse(device):
    x = mt.tensor(1.0, device=device, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # well below the chain length: only an iterative walk passes
    try:
        y.backward()
    finally:
        sys.setrecursionlimit(limit)
    assert x.grad.item() == pytest.approx(1.0001 ** 10_000, rel=1e-3)


def test_gradients_accumulate_across_backward_calls(device):
    x = mt.tensor([1.0, 2.0], device=device, requires_grad=True)
    (x * 3).sum().backward()
    (x * x).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]


def test_gradient_of_a_tensor_used_twice_is_summed():
    x = mt.tensor([2.0], requires_grad=True)
    y = x * x + x.exp() + x
    y.backward(mt.ones(1))
    assert x.grad.item() == pytest.approx(4 + np.exp(2) + 1)


def test_diamond_graph_runs_each_node_once():
    x = mt.tensor(3.0, requires_grad=True)
    a = x * 2
    b = a + 1
    c = a * 3
    (b * c).backward()  # d/dx (2x+1)(6x) = 24x + 6
    assert x.grad.item() == pytest.approx(78.0)


def test_second_backward_through_freed_graph_raises():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time "
                                           r"\(through MulBackward0\).*retain_graph=True"):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_grad_fn_name_survives_backward():
    x = mt.rand(1, 3, requires_grad=True)
    for y in (x.squeeze(0), x.sum(1), 2 - x, x ** 2):
        name = y.grad_fn.name()
        y.sum().backward()
        assert y.grad_fn.name() == name


def test_backward_on_non_scalar_needs_gradient():
    x = mt.rand(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"grad can be implicitly created only for scalar "
                                           r"outputs; output 0 has shape \(2, 3\)"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match=r"the gradient of output 0 has shape \(3,\) but "
                                           r"the output has shape \(2, 3\)"):
        (x * 2).backward(mt.ones(3))


def test_backward_with_gradient_weights():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    (x * x).backward(mt.tensor([1.0, 10.0]))
    assert x.grad.tolist() == [2.0, 40.0]


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and "
                                           "does not have a grad_fn"):
        mt.ones(1).sum().backward()


def test_backward_on_a_leaf():
    x = mt.tensor(2.0, requires_grad=True)
    x.backward()
    assert x.grad.item() == 1.0


def test_no_grad_and_enable_grad():
    x = mt.rand(2, requires_grad=True)
    with mt.no_grad():
        y = x * 2
        assert not mt.is_grad_enabled()
        with mt.enable_grad():
            z = x * 2
            assert mt.is_grad_enabled()
        assert not mt.is_grad_enabled()
    assert mt.is_grad_enabled()
    assert y.grad_fn is None and not y.requires_grad
    assert z.grad_fn is not None and z.requires_grad


def test_grad_modes_restore_after_exception_and_work_as_decorators():
    with pytest.raises(KeyError), mt.no_grad():
        raise KeyError
    assert mt.is_grad_enabled()

    @mt.no_grad()
    def f(x):
        return x * 2

    assert f(mt.rand(2, requires_grad=True)).grad_fn is None
    with mt.set_grad_enabled(False):
        assert not mt.is_grad_enabled()
    assert mt.is_grad_enabled()


@pytest.fixture
def restores_grad_mode():
    """Tests that turn grad mode off with a bare call turn it back on even if they fail."""
    yield
    mt.set_grad_enabled(True)


def test_set_grad_enabled_called_alone_sets_the_mode_as_in_pytorch(restores_grad_mode):
    """PyTorch sets the mode when the object is made: a bare call changes it for good, a
    ``with`` block restores the mode it found, and a decorator applies inside only."""
    mt.set_grad_enabled(False)
    assert not mt.is_grad_enabled()
    assert mt.ones(1, requires_grad=True).mul(2).grad_fn is None
    with mt.set_grad_enabled(True):
        assert mt.is_grad_enabled()
    assert not mt.is_grad_enabled()  # the block restored what it found
    mt.set_grad_enabled(True)

    @mt.set_grad_enabled(False)
    def inside():
        return mt.is_grad_enabled()

    assert mt.is_grad_enabled()  # decorating changed nothing outside
    assert inside() is False
    assert mt.is_grad_enabled()


def test_no_grad_and_enable_grad_decorate_without_parentheses():
    @mt.no_grad
    def off(x):
        return x * 2, mt.is_grad_enabled()

    y, enabled = off(mt.ones(2, requires_grad=True))
    assert y.grad_fn is None and enabled is False
    assert off.__name__ == "off"
    with mt.no_grad():
        @mt.enable_grad
        def on():
            return mt.is_grad_enabled()

        assert on() is True and not mt.is_grad_enabled()


def test_inference_mode_is_no_grad_and_says_so():
    x = mt.ones(2, requires_grad=True)
    assert not mt.is_inference_mode_enabled()
    with mt.inference_mode():
        assert mt.is_inference_mode_enabled() and not mt.is_grad_enabled()
        y = x * 2
        with mt.inference_mode(False):  # PyTorch: recording on again
            assert not mt.is_inference_mode_enabled() and mt.is_grad_enabled()
        assert mt.is_inference_mode_enabled()
    assert y.grad_fn is None
    assert mt.is_grad_enabled() and not mt.is_inference_mode_enabled()

    @mt.inference_mode
    def bare():
        return mt.is_grad_enabled(), mt.is_inference_mode_enabled()

    @mt.inference_mode()
    def called():
        return mt.is_grad_enabled(), mt.is_inference_mode_enabled()

    assert bare() == called() == (False, True)
    # Unlike PyTorch's inference tensors, a result made inside may enter a graph later.
    z = (y * x).sum()
    z.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_inference_mode_restores_after_an_exception():
    with pytest.raises(KeyError), mt.inference_mode():
        raise KeyError
    assert mt.is_grad_enabled() and not mt.is_inference_mode_enabled()


def test_is_tensor_and_get_default_dtype():
    assert mt.is_tensor(mt.ones(1)) and mt.is_tensor(mt.nn.Parameter(mt.ones(1)))
    assert not mt.is_tensor([1.0]) and not mt.is_tensor(mt.ones(1).numpy())
    assert mt.get_default_dtype() is mt.float32
    assert mt.ones(1).dtype is mt.get_default_dtype()


def test_detach_shares_data_and_stops_gradients():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    d[0] = 5.0  # same storage, as in PyTorch
    assert x.tolist()[0] == 5.0
    y = (x * 2 + d * 3).sum()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_requires_grad_rules():
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require "
                                           "gradients"):
        mt.tensor([1, 2], requires_grad=True)
    y = mt.rand(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf "
                                           "variables"):
        y.requires_grad_(False)
    x = mt.rand(2).requires_grad_()
    assert x.requires_grad and x.is_leaf


def test_inplace_on_leaf_requiring_grad_is_refused():
    x = mt.rand(3, requires_grad=True)
    for update in (lambda: x.add_(1), lambda: x.mul_(2), lambda: x.zero_(),
                   lambda: x.__setitem__(0, 1.0)):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being "
                                               "used in an in-place operation"):
            update()
    with mt.no_grad():
        x.add_(1)  # allowed: this is how optimisers update parameters


def test_inplace_fills_of_a_graph_tensor_are_refused():
    # the in-place arithmetic (add_, mul_, ...) and x[k] = v are recorded
    # (tests/test_user_scripts_2.py)
    y = mt.rand(3, requires_grad=True) * 2
    for update in (lambda: y.fill_(1), lambda: y.normal_()):
        with pytest.raises(RuntimeError, match="in-place operations on tensors that are part "
                                               "of an autograd graph"):
            update()


def test_grads_do_not_alias_between_leaves():
    a = mt.rand(3, requires_grad=True)
    b = mt.rand(3, requires_grad=True)
    (a + b).sum().backward()
    with mt.no_grad():
        a.grad.add_(1)
    assert b.grad.tolist() == [1.0, 1.0, 1.0]


def test_ops_with_unused_gradients_still_reach_other_leaves():
    x = mt.rand(4, 3, requires_grad=True)
    target = mt.tensor([0, 2, 1, 1])
    loss = F.nll_loss(F.log_softmax(x * 1.0, 1), target) + (x * 0).sum()
    loss.backward()
    assert x.grad is not None and x.grad.shape == x.shape


def _grad_fn_pairs(torch):
    """(our output, PyTorch's output) for a tour of ops."""
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal((3, 4)).astype(np.float32)
    img_np = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    w_np = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    a, ta = mt.tensor(a_np, requires_grad=True), torch.tensor(a_np, requires_grad=True)
    img, timg = mt.tensor(img_np, requires_grad=True), torch.tensor(img_np, requires_grad=True)
    w, tw = mt.tensor(w_np), torch.tensor(w_np)
    b, tb = mt.tensor(a_np[0]), torch.tensor(a_np[0])
    tF = torch.nn.functional
    return [
        (a + 1, ta + 1), (a * a, ta * ta), (a - a, ta - ta), (a / 2, ta / 2), (-a, -ta),
        (a.exp(), ta.exp()), (a.abs(), ta.abs()), (a.relu(), ta.relu()), (a.sum(), ta.sum()),
        (a.mean(0), ta.mean(0)), (a.max(), ta.max()), (a.max(1)[0], ta.max(1)[0]),
        (a.view(12), ta.view(12)), (a.reshape(2, 6), ta.reshape(2, 6)),
        (a.flatten(), ta.flatten()), (a.t(), ta.t()), (a.transpose(0, 1), ta.transpose(0, 1)),
        (a.permute(1, 0), ta.permute(1, 0)), (a.unsqueeze(0), ta.unsqueeze(0)),
        (a.expand(2, 3, 4), ta.expand(2, 3, 4)), (a[0], ta[0]), (a[1:], ta[1:]),
        (a[:, 0], ta[:, 0]), (a[None], ta[None]), (a[...], ta[...]),
        (a[mt.tensor([0, 2])], ta[torch.tensor([0, 2])]), (a.clone(), ta.clone()),
        (a.double(), ta.double()), (a.mm(a.t()), ta.mm(ta.t())), (a.mv(b), ta.mv(tb)),
        (mt.addmm(b, a.t(), a), torch.addmm(tb, ta.t(), ta)),
        (F.linear(a, a, b[:3]), tF.linear(ta, ta, tb[:3])),
        (F.conv2d(img, w), tF.conv2d(timg, tw)), (F.max_pool2d(img, 2), tF.max_pool2d(timg, 2)),
        (F.log_softmax(a, 1), tF.log_softmax(ta, 1)),
        (F.cross_entropy(a, mt.tensor([0, 1, 2])), tF.cross_entropy(ta, torch.tensor([0, 1, 2]))),
        (F.mse_loss(a, a * 2), tF.mse_loss(ta, ta * 2)),
        (mt.where(a > 0, a, a * 2), torch.where(ta > 0, ta, ta * 2)),
        # Ops composed of others: the last node carries the composed op's name.
        (a.min(), ta.min()), (a.min(1)[0], ta.min(1)[0]), (mt.stack([a, a]), torch.stack([ta, ta])),
        (F.softmax(a, 1), tF.softmax(ta, 1)), (a.softmax(0), ta.softmax(0)),
        (a.var(), ta.var()), (a.std(0), ta.std(0)),
    ]


def test_grad_fn_names_match_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    for ours, theirs in _grad_fn_pairs(torch):
        assert ours.grad_fn.name() == theirs.grad_fn.name()
        assert repr(ours.grad_fn) == f"<{theirs.grad_fn.name()} object>"


def test_grad_fn_names_documented_examples():
    x = mt.rand(2, 3, 8, 8, requires_grad=True)
    w = mt.rand(4, 3, 3, 3, requires_grad=True)
    y = F.conv2d(x, w)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    assert F.max_pool2d(y, 2).grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    assert F.linear(x.flatten(1), mt.rand(5, 192), mt.rand(5)).grad_fn.name() == "AddmmBackward0"
    assert x.view(2, -1).grad_fn.name() == "ViewBackward0"
    assert (x + x).grad_fn.name() == "AddBackward0" and (x * 2).grad_fn.name() == "MulBackward0"


def test_next_functions_lead_to_leaves():
    x = mt.rand(2, requires_grad=True)
    y = x * 2
    (node,) = [n for n, _ in y.grad_fn.next_functions if n is not None]
    assert node.name() == "torch::autograd::AccumulateGrad" and node.variable is x


def test_a_function_instance_called_twice_while_recording_is_refused():
    """An op instance is one graph node: a second recorded call would re-point the first
    output's node at the second call's inputs (a silently wrong gradient)."""
    from minitorch_meta.ops.layout import Cat

    a = mt.ones(2, requires_grad=True)
    cat = Cat(dim=0)
    cat(a, a)
    with pytest.raises(RuntimeError, match="Cat was called a second time while recording"):
        cat(a, a)
    again = Cat(dim=0)
    with mt.no_grad():  # nothing recorded: no node to re-point
        again(a, a)
        again(a, a)


@pytest.mark.parametrize("build", [lambda x: x.view(4).sum(), lambda x: (x.t() + x)[0].sum()],
                         ids=["view_sum", "transpose_add_select"])
def test_a_graph_that_saved_no_tensors_runs_backward_again_as_in_torch(build):
    """PyTorch frees saved tensors, not nodes: a graph of views, sums and adds (nothing
    saved) can be run twice without retain_graph, and each run adds the gradient again."""
    import torch

    grads = []
    for framework in (mt, torch):
        x = framework.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = build(x)
        y.backward()
        y.backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_next_functions_are_pytorchs_node_and_index_pairs(torch_ref):
    """Graph walkers written for PyTorch (torchviz) unpack ``(node, input_nr)`` pairs."""
    names = {}
    for lib in (mt, torch_ref):
        x = lib.ones(2, requires_grad=True)
        w = lib.ones(2)  # needs no gradient: its edge is (None, 0)
        y = (x * w).sum()
        (mul, index), = y.grad_fn.next_functions
        names[lib] = (index, mul.name(),
                      [(type(n).__name__ if n is not None else None, i)
                       for n, i in mul.next_functions])
    assert names[mt] == names[torch_ref] == (
        0, "MulBackward0", [("AccumulateGrad", 0), (None, 0)])
    assert mt.ones(1, requires_grad=True)._accumulator().next_functions == ()

"""torch.utils.checkpoint: gradients equal to the plain run's, intermediates not kept."""

from __future__ import annotations

import contextlib
import inspect

import numpy as np
import pytest
import torch
import torch.utils.checkpoint as tcp

import minitorch_meta as mt
import minitorch_meta.utils.checkpoint as cp
from tests.devices import tensor_device

USE_REENTRANT = "^torch.utils.checkpoint: the use_reentrant parameter should be passed"


def _model(device):
    mt.manual_seed(0)
    linear = mt.nn.Linear(4, 5).double().to(device)
    dropout = mt.nn.Dropout(0.4)

    def function(x, scale):
        return dropout(linear(x).tanh() * scale).sin()

    return linear, function


def _grads(device, run):
    """Output and gradients (input, weight, bias) of ``run(function, x)`` after reseeding."""
    linear, function = _model(device)
    x = mt.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=mt.float64, device=device,
                  requires_grad=True)
    mt.manual_seed(7)
    out = run(function, x)
    (out * mt.arange(15, device=device).reshape(3, 5)).sum().backward()
    return [out.detach(), x.grad, linear.weight.grad, linear.bias.grad]


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_gradients_equal_plain_run_with_dropout_and_parameters(device, use_reentrant):
    if device == "cuda":
        pytest.skip("CuPy's generator state cannot be saved: the checkpointed forward draws "
                    "from a fork of it, not the plain run's stream (docs/differences.md); "
                    "test_rerun_draws_the_forward_masks covers cuda")
    plain = _grads(device, lambda f, x: f(x, 2.0))
    checkpointed = _grads(device, lambda f, x: cp.checkpoint(
        f, x, 2.0, use_reentrant=use_reentrant))
    assert (plain[0] == 0).any()  # dropout did drop
    for a, b in zip(plain, checkpointed):
        assert a.device == tensor_device(device)
        assert mt.equal(a, b)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_rerun_draws_the_forward_masks(device, use_reentrant):
    x = mt.tensor(np.linspace(0.5, 2, 40), dtype=mt.float64, device=device,
                  requires_grad=True)
    out = cp.checkpoint(lambda t: mt.nn.functional.dropout(t * 3, 0.5), x,
                        use_reentrant=use_reentrant)
    out.sum().backward()
    kept = (out.detach() != 0).to(mt.float64)
    assert 0 < kept.sum().item() < 40
    assert mt.equal(x.grad, kept * 6)  # 3 / (1 - p) where the forward kept the element


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_without_preserved_rng_state_the_masks_differ(device, use_reentrant):
    plain = _grads(device, lambda f, x: f(x, 2.0))
    other = _grads(device, lambda f, x: cp.checkpoint(
        f, x, 2.0, use_reentrant=use_reentrant, preserve_rng_state=False))
    assert mt.equal(plain[0], other[0])  # the forward is the same ...
    assert not mt.equal(plain[1], other[1])  # ... the rerun drew other masks


def _graph_size(tensor) -> int:
    seen, stack = set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def _held_arrays(tensor) -> set:
    """The ids of every value the graph nodes of ``tensor`` hold (one level into tuples,
    lists and the attributes of plain objects such as the checkpoint's plan)."""
    ids, seen, stack = set(), set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
        values = list(getattr(node, "__dict__", {}).values())
        for value in list(values):
            if isinstance(value, (tuple, list)):
                values.extend(value)
            elif hasattr(value, "__dict__") and not callable(value):
                values.extend(vars(value).values())
        for value in values:
            ids.add(id(getattr(value, "_data", value)))
    return ids


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_intermediates_are_not_kept(device, use_reentrant):
    x = mt.randn(3, 4, dtype=mt.float64, device=device, requires_grad=True)
    made = []  # every intermediate array (held here, so that no id is reused)

    def function(t):
        hidden = t.exp() * 3 + 1  # log's backward reads this one
        made.append(hidden._data)
        return hidden.log().sum(1)

    plain = function(x)
    assert _graph_size(plain) == 6  # Sum, Log, Add, Mul, Exp, AccumulateGrad
    out = cp.checkpoint(function, x, use_reentrant=use_reentrant)
    assert _graph_size(out) == 2  # the checkpoint's node, then x's AccumulateGrad
    assert id(made[0]) in _held_arrays(plain)  # the plain graph keeps its intermediate
    assert id(made[1]) not in _held_arrays(out)  # the checkpointed one keeps none
    expected = 3 * x.detach().exp() / (3 * x.detach().exp() + 1)
    x.grad = None
    plain.sum().backward()
    assert mt.allclose(x.grad, expected)
    x.grad = None
    out.sum().backward()
    assert mt.allclose(x.grad, expected)


def test_grad_fn_names_and_reentrant_refusals(device):
    x = mt.randn(3, device=device, requires_grad=True)
    tx = torch.randn(3, requires_grad=True)
    ours = cp.checkpoint(lambda t: t.sin(), x, use_reentrant=True)
    theirs = tcp.checkpoint(lambda t: t.sin(), tx, use_reentrant=True)
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "CheckpointFunctionBackward"
    with pytest.raises(RuntimeError) as their_error:
        torch.autograd.grad(theirs.sum(), tx)
    with pytest.raises(RuntimeError) as our_error:
        mt.autograd.grad(ours.sum(), x)
    assert str(our_error.value) == str(their_error.value)
    with pytest.raises(RuntimeError, match="incompatible with .grad()"):
        cp.checkpoint(lambda t: t.sin(), x, use_reentrant=True).sum().backward(inputs=[x])
    # the non-reentrant one works with autograd.grad, for arguments and parameters alike
    linear, function = _model(device)
    out = cp.checkpoint(function, x.reshape(3, 1).expand(3, 4).double(), 1.0,
                        use_reentrant=False)
    grads = mt.autograd.grad(out.sum(), [linear.weight, x])
    assert grads[0].shape == (5, 4) and grads[1].shape == (3,)


def test_parameters_get_gradients_when_no_argument_requires_grad(device):
    linear, function = _model(device)
    x = mt.ones(2, 4, dtype=mt.float64, device=device)
    cp.checkpoint(function, x, 1.0, use_reentrant=False).sum().backward()
    assert linear.weight.grad is not None
    linear.weight.grad = None
    with pytest.warns(UserWarning, match="^None of the inputs have requires_grad=True. "
                      "Gradients will be None$"):
        out = cp.checkpoint(function, x, 1.0, use_reentrant=True)
    with pytest.warns(UserWarning, match="^None of the inputs have requires_grad=True"):
        tcp.checkpoint(lambda t: t * 2, torch.ones(2), use_reentrant=True)
    assert not out.requires_grad


def test_outside_tensors_with_a_graph(device):
    # h (from x) is read by the function from outside: non-reentrant sends its gradient
    # back through h's own graph, once
    x = mt.tensor([0.5, 1.5], dtype=mt.float64, device=device, requires_grad=True)
    h = x * x
    hh = h * 3
    out = cp.checkpoint(lambda t: t * h + hh, x, use_reentrant=False)
    out.sum().backward()
    # d/dx (x * x^2 + 3 x^2) = 3x^2 + 6x
    assert mt.allclose(x.grad, 3 * x.detach() ** 2 + 6 * x.detach())


def test_warning_when_use_reentrant_is_not_passed(device):
    x = mt.randn(3, device=device, requires_grad=True)
    with pytest.warns(UserWarning, match=USE_REENTRANT):
        tcp.checkpoint(lambda t: t.sin(), torch.randn(3, requires_grad=True))
    with pytest.warns(UserWarning, match=USE_REENTRANT):
        out = cp.checkpoint(lambda t: t.sin(), x)
    assert out.grad_fn.name() == "CheckpointFunctionBackward"  # the reentrant default
    with pytest.warns(UserWarning, match="^torch.utils.checkpoint.checkpoint_sequential: the "
                      "use_reentrant parameter should be passed explicitly"):
        cp.checkpoint_sequential([mt.nn.ReLU()], 1, x)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_sequential(device, use_reentrant):
    mt.manual_seed(3)
    model = mt.nn.Sequential(mt.nn.Linear(4, 6), mt.nn.Tanh(), mt.nn.Linear(6, 6),
                             mt.nn.ReLU(), mt.nn.Linear(6, 2)).to(device)
    x = mt.randn(5, 4, device=device, requires_grad=True)
    model(x).sum().backward()
    expected = [x.grad] + [p.grad for p in model.parameters()]
    for segments in (1, 2, 5):
        x.grad = None
        model.zero_grad()
        out = cp.checkpoint_sequential(model, segments, x, use_reentrant=use_reentrant)
        out.sum().backward()
        for a, b in zip(expected, [x.grad] + [p.grad for p in model.parameters()]):
            assert mt.allclose(a, b, atol=1e-6)
    out = cp.checkpoint_sequential(list(model), 2, x, use_reentrant=use_reentrant)
    assert out.shape == (5, 2)
    for segments in (0, 6):
        with pytest.raises(ValueError, match="segments must be between 1 and the number"):
            cp.checkpoint_sequential(model, segments, x, use_reentrant=use_reentrant)


def test_argument_errors_match_torch():
    x, tx = mt.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
    cases = [
        dict(use_reentrant=True, context_fn=lambda: (contextlib.nullcontext(),) * 2),
        dict(use_reentrant=True, debug=True),
        dict(use_reentrant=False, determinism_check="sometimes"),
        dict(use_reentrant=True, foo=1),
    ]
    for kwargs in cases:
        with pytest.raises(ValueError) as theirs:
            tcp.checkpoint(torch.sin, tx, **kwargs)
        with pytest.raises(ValueError) as ours:
            cp.checkpoint(mt.sin, x, **kwargs)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(RuntimeError) as theirs:
        tcp.checkpoint(lambda t: t.detach() * 2, tx, use_reentrant=True).sum().backward()
    with pytest.raises(RuntimeError) as ours:
        cp.checkpoint(lambda t: t.detach() * 2, x, use_reentrant=True).sum().backward()
    assert str(ours.value) == str(theirs.value)


def test_non_reentrant_keywords_context_and_determinism_check():
    x = mt.randn(3, dtype=mt.float64, requires_grad=True)
    calls = []

    @contextlib.contextmanager
    def note(name):
        calls.append(name)
        yield

    out = cp.checkpoint(lambda t, power: t ** power, x, power=3, use_reentrant=False,
                        context_fn=lambda: (note("forward"), note("recompute")))
    out.sum().backward()
    assert calls == ["forward", "recompute"]
    assert mt.allclose(x.grad, 3 * x.detach() ** 2)
    shapes = iter([(3,), (1, 3)])

    def changing(t):
        return t.reshape(next(shapes))

    out = cp.checkpoint(changing, x, use_reentrant=False)
    with pytest.raises(cp.CheckpointError, match="different metadata than during the forward"):
        out.sum().backward()
    assert issubclass(cp.CheckpointError, RuntimeError)
    shapes = iter([(3,), (1, 3)])
    cp.checkpoint(changing, x, use_reentrant=False, determinism_check="none").sum().backward()


def test_tuple_outputs_and_non_tensor_arguments(device):
    x = mt.randn(2, 3, dtype=mt.float64, device=device, requires_grad=True)
    for use_reentrant in (True, False):
        x.grad = None
        first, second, label = cp.checkpoint(lambda t, k: (t * k, t.sum(), "label"), x, 2.0,
                                             use_reentrant=use_reentrant)
        assert label == "label"
        (first.sum() + second * 3).backward()
        assert mt.allclose(x.grad, mt.full_like(x, 5.0))


def test_signatures_match_torch():
    for name in ("checkpoint", "checkpoint_sequential"):
        ours = inspect.signature(getattr(cp, name)).parameters.values()
        theirs = inspect.signature(getattr(tcp, name)).parameters.values()
        assert [(p.name, p.kind) for p in ours] == [(p.name, p.kind) for p in theirs]
        assert [p.default for p in ours if p.name not in ("context_fn",)] == \
            [p.default for p in theirs if p.name not in ("context_fn",)]
    assert mt.utils.checkpoint is cp

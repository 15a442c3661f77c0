"""The recurrent layer ops (``ops/recurrent.py``) on their own: a float64 gradcheck of every
input for each cell, full and packed batches, both directions; the shape rule's errors
(the same on cpu and meta); meta's cost that does not grow with the sequence; inputs left
unchanged; the saved weights' version check. Values and gradients against PyTorch are
checked through the layers (tests/nn/test_rnn.py, tests/nn/test_packed_sequence.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.errors import ShapeError
from minitorch_meta.ops.recurrent import ElmanLayer, GRULayer, LSTMLayer
from tests.gradcheck import gradcheck

HIDDEN, BATCH = 3, 3
#: op, its hyper-parameters, gate blocks, whether it has a cell state
CELLS = [pytest.param(ElmanLayer, {"nonlinearity": "tanh"}, 1, id="elman-tanh"),
         pytest.param(ElmanLayer, {"nonlinearity": "relu"}, 1, id="elman-relu"),
         pytest.param(GRULayer, {}, 3, id="gru"),
         pytest.param(LSTMLayer, {}, 4, id="lstm")]
#: batch_sizes: the whole batch at each of 3 steps, or packed (longest first)
BATCHES = [pytest.param(BATCH, 3 * BATCH, id="full"),
           pytest.param((3, 2, 2, 1), 8, id="packed")]


def _arrays(gates: int, rows: int, cell: bool, bias: bool, projection: int = 0,
            seed: int = 0) -> list:
    """x, h0, c0, w_hh, b_hh, w_hr as float64 arrays (None where absent)."""
    rng = np.random.default_rng(seed)
    width = projection or HIDDEN
    return [rng.standard_normal((rows, gates * HIDDEN)),
            rng.standard_normal((BATCH, width)) * 0.5,
            rng.standard_normal((BATCH, HIDDEN)) * 0.5 if cell else None,
            rng.standard_normal((gates * HIDDEN, width)) * 0.5,
            rng.standard_normal(gates * HIDDEN) * 0.5 if bias else None,
            rng.standard_normal((width, HIDDEN)) * 0.5 if projection else None]


def _checked(op, hyper, arrays, device, batch_sizes, reverse):
    """A float64 gradcheck of every input present."""
    present = [k for k, a in enumerate(arrays) if a is not None]

    def run(*tensors):
        inputs = [None] * 6
        for k, t in zip(present, tensors):
            inputs[k] = t
        return op.apply(*inputs, batch_sizes=batch_sizes, reverse=reverse, **hyper)

    gradcheck(run, [arrays[k] for k in present], device=device)


@pytest.mark.parametrize("op, hyper, gates", CELLS)
@pytest.mark.parametrize("batch_sizes, rows", BATCHES)
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_every_input_passes_float64_gradcheck(op, hyper, gates, batch_sizes, rows, reverse,
                                             device):
    arrays = _arrays(gates, rows, op is LSTMLayer, bias=True)
    if hyper.get("nonlinearity") == "relu":  # keep pre-activations away from relu's kink
        arrays[0] += np.where(arrays[0] > 0, 0.5, -0.5)
    _checked(op, hyper, arrays, device, batch_sizes, reverse)


@pytest.mark.parametrize("batch_sizes, rows", BATCHES)
def test_lstm_projection_and_no_bias_pass_gradcheck(batch_sizes, rows, device):
    arrays = _arrays(4, rows, True, bias=False, projection=2, seed=1)
    _checked(LSTMLayer, {}, arrays, device, batch_sizes, reverse=False)
    _checked(LSTMLayer, {}, arrays, device, batch_sizes, reverse=True)


def test_packed_rows_keep_their_state_until_they_run():
    """A row that has no step t keeps its state through it: a packed run equals running
    each sequence alone."""
    arrays = _arrays(4, 6, True, bias=True, seed=2)
    x, h0, c0, w_hh, b_hh, _ = (None if a is None else mt.tensor(a) for a in arrays)
    sizes = (3, 2, 1)  # lengths 3, 2, 1
    flat = LSTMLayer.apply(x, h0, c0, w_hh, b_hh, None, batch_sizes=sizes, reverse=False)
    final_h = flat[6 * HIDDEN:6 * HIDDEN + BATCH * HIDDEN].view(BATCH, HIDDEN)
    starts = (0, 3, 5)
    for row, length in enumerate((3, 2, 1)):
        rows = x[[starts[t] + row for t in range(length)]]
        alone = LSTMLayer.apply(rows, h0[row:row + 1], c0[row:row + 1], w_hh, b_hh, None,
                                batch_sizes=1, reverse=False)
        np.testing.assert_allclose(final_h[row].numpy(),
                                   alone[length * HIDDEN:(length + 1) * HIDDEN].numpy(), rtol=1e-12)


def test_inputs_are_left_unchanged_by_a_packed_run():
    arrays = _arrays(4, 8, True, bias=True, seed=3)
    tensors = [None if a is None else mt.tensor(a, requires_grad=True) for a in arrays]
    flat = LSTMLayer.apply(*tensors, batch_sizes=(3, 2, 2, 1), reverse=True)
    flat.sum().backward()
    for array, tensor in zip(arrays, tensors):
        if array is not None:
            np.testing.assert_array_equal(tensor.detach().numpy(), array)


@pytest.mark.parametrize("op, hyper, gates", CELLS)
def test_values_are_the_same_with_and_without_recording(op, hyper, gates):
    arrays = _arrays(gates, 8, op is LSTMLayer, bias=True, seed=4)
    with_grad = [None if a is None else mt.tensor(a, requires_grad=True) for a in arrays]
    plain = [None if a is None else mt.tensor(a) for a in arrays]
    recorded = op.apply(*with_grad, batch_sizes=(3, 2, 2, 1), reverse=False, **hyper)
    with mt.no_grad():
        unrecorded = op.apply(*plain, batch_sizes=(3, 2, 2, 1), reverse=False, **hyper)
    assert recorded.grad_fn is not None and unrecorded.grad_fn is None
    np.testing.assert_array_equal(recorded.detach().numpy(), unrecorded.numpy())


def test_meta_runs_a_million_steps_as_one_node():
    """On meta the whole sequence is one shape rule: a 2-layer LSTM over 10**6 steps gives
    its shapes, and its graph has a handful of nodes, not one per step."""
    lstm = mt.nn.LSTM(64, 128, num_layers=2, device="meta")
    out, (h, c) = lstm(mt.empty(10**6, 32, 64, device="meta"))
    assert tuple(out.shape) == (10**6, 32, 128)
    assert tuple(h.shape) == tuple(c.shape) == (2, 32, 128)
    nodes, stack = set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in nodes:
            continue
        nodes.add(id(node))
        stack.extend(next_node for next_node, _ in node.next_functions)
    assert len(nodes) < 30
    out.sum().backward()
    assert tuple(lstm.weight_hh_l1.grad.shape) == (512, 128)


def test_a_weight_changed_in_place_before_backward_is_an_error():
    arrays = _arrays(3, 9, False, bias=True, seed=5)
    x, h0, _, w_hh, b_hh, _ = (None if a is None else mt.tensor(a, requires_grad=True)
                               for a in arrays)
    flat = GRULayer.apply(x, h0, None, w_hh, b_hh, None, batch_sizes=BATCH, reverse=False)
    with mt.no_grad():
        w_hh.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        flat.sum().backward()


def _call(op, shapes: dict, **hyper):
    def call(device):
        tensors = {name: mt.ones(*shape, device=device) if shape else None
                   for name, shape in shapes.items()}
        return op.apply(*tensors.values(), **hyper)
    return call


GOOD = {"x": (6, 12), "h0": (2, 3), "c0": (2, 3), "w_hh": (12, 3), "b_hh": (12,),
        "w_hr": None}
ERRORS = [
    ({"x": (6, 12, 1)}, {}, "lstm: expected the input projection to be 2-D, got shape "
                            "(6, 12, 1)"),
    ({"x": (6, 10)}, {}, "lstm: expected the input projection's width to be 4 * "
                         "hidden_size, got 10"),
    ({"w_hh": (12, 4)}, {}, "lstm: expected w_hh of shape (12, 3), got (12, 4)"),
    ({"b_hh": (3,)}, {}, "lstm: expected b_hh of shape (12,), got (3,)"),
    ({"c0": (2, 4)}, {}, "lstm: expected c0 of shape (2, 3), got (2, 4)"),
    ({"c0": None}, {}, "lstm: expected a cell state c0, got None"),
    ({"x": (5, 12)}, {}, "lstm: expected the input projection's rows to be steps * batch "
                         "(2), got 5"),
    ({}, {"batch_sizes": (2, 3, 1)}, "lstm: expected batch_sizes that do not grow, start at "
                                     "the batch (2) and add up to the input's rows (6), got "
                                     "[2, 3, 1]"),
    ({}, {"batch_sizes": (2, 2, 1)}, "lstm: expected batch_sizes that do not grow, start at "
                                     "the batch (2) and add up to the input's rows (6), got "
                                     "[2, 2, 1]"),
]


@pytest.mark.parametrize("changes, hyper, message", ERRORS)
def test_shape_rule_errors_are_the_same_on_cpu_and_meta(changes, hyper, message):
    call = _call(LSTMLayer, {**GOOD, **changes}, **{"batch_sizes": 2, "reverse": False,
                                                     **hyper})
    for device in ("cpu", "meta"):
        with pytest.raises(ShapeError) as info:
            call(device)
        assert str(info.value) == message, device


def test_mixed_dtypes_are_refused():
    x = mt.ones(6, 9, dtype=mt.float64)
    with pytest.raises(ShapeError, match="expected every state and weight in torch.float64 "
                                         "like the input, got torch.float32"):
        GRULayer.apply(x, mt.ones(2, 3), None, mt.ones(9, 3, dtype=mt.float64), None, None,
                       batch_sizes=2, reverse=False)

"""torch.rnn_tanh_cell, rnn_relu_cell, lstm_cell and gru_cell: values, gradients, meta
shapes, PyTorch's size checks, and the nn cells running the same step."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

N, H_IN, H = 3, 4, 5


def _weights(gates, bias=True):
    shapes = [(gates * H, H_IN), (gates * H, H)] + ([(gates * H,)] * 2 if bias else [])
    return [Arg(s) for s in shapes]


def _case(name, gates, call, bias=True, batch=N):
    return Case(name, call, [Arg((batch, H_IN)), Arg((batch, H))] + _weights(gates, bias))


CASES = [
    _case("rnn_tanh_cell", 1, lambda T, F, x, h, *w: T.rnn_tanh_cell(x, h, *w)),
    _case("rnn_tanh_cell_no_bias", 1, lambda T, F, x, h, *w: T.rnn_tanh_cell(x, h, *w),
          bias=False),
    _case("rnn_relu_cell", 1, lambda T, F, x, h, *w: T.rnn_relu_cell(x, h, *w)),
    _case("rnn_relu_cell_keywords", 1,
          lambda T, F, x, h, a, b, c, d: T.rnn_relu_cell(x, h, a, b, b_hh=d, b_ih=c)),
    _case("gru_cell", 3, lambda T, F, x, h, *w: T.gru_cell(x, h, *w)),
    _case("gru_cell_no_bias", 3, lambda T, F, x, h, *w: T.gru_cell(x, h, *w), bias=False),
    Case("gru_cell_hidden_bias_only", lambda T, F, x, h, a, b, d: T.gru_cell(x, h, a, b, None, d),
         [Arg((N, H_IN)), Arg((N, H))] + _weights(3, bias=False) + [Arg((3 * H,))]),
    _case("gru_cell_batch_1", 3, lambda T, F, x, h, *w: T.gru_cell(x, h, *w), batch=1),
    Case("lstm_cell_h", lambda T, F, x, h, c, *w: T.lstm_cell(x, (h, c), *w)[0],
         [Arg((N, H_IN)), Arg((N, H)), Arg((N, H))] + _weights(4)),
    Case("lstm_cell_c", lambda T, F, x, h, c, *w: T.lstm_cell(x, [h, c], *w)[1],
         [Arg((N, H_IN)), Arg((N, H)), Arg((N, H))] + _weights(4)),
    Case("lstm_cell_no_bias", lambda T, F, x, h, c, *w: T.lstm_cell(x, (h, c), *w)[1],
         [Arg((N, H_IN)), Arg((N, H)), Arg((N, H))] + _weights(4, bias=False)),
    # both states feed the loss: each gradient path through the one op
    Case("lstm_cell_both", lambda T, F, x, h, c, *w: T.lstm_cell(x, (h, c), *w)[0] * 2
         + T.lstm_cell(x, (h, c), *w)[1],
         [Arg((N, H_IN)), Arg((N, H)), Arg((N, H))] + _weights(4)),
]

# the step is one op (the recurrent layers' op); PyTorch's names are its last small op's
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=tuple(c.id for c in CASES if not c.id.startswith("lstm_cell_both")))


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _both(shape, device="cpu", seed=0):
    data = np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(np.float32)
    return mt.tensor(data, device=device), _torch().tensor(data)


def _call_both(name, shapes, lstm=False):
    """The call on our tensors and on PyTorch's: (our result or error, theirs)."""
    pairs = [_both(s, seed=k) for k, s in enumerate(shapes)]
    ours = [p[0] for p in pairs]
    theirs = [p[1] for p in pairs]
    if lstm:  # the states are the 2nd and 3rd shapes
        ours = [ours[0], tuple(ours[1:3]), *ours[3:]]
        theirs = [theirs[0], tuple(theirs[1:3]), *theirs[3:]]
    results = []
    for lib, args in ((mt, ours), (_torch(), theirs)):
        try:
            results.append(getattr(lib, name)(*args))
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            results.append(error)
    return results


SIZE_ERRORS = [
    ("rnn_tanh_cell", [(N, H_IN), (2, H), (H, H_IN), (H, H)]),
    ("rnn_tanh_cell", [(N, H_IN), (N, 4), (H, H_IN), (H, H)]),
    ("rnn_tanh_cell", [(N, H_IN), (N, H), (H, 3), (H, H)]),
    ("rnn_relu_cell", [(N, H_IN), (N, H), (6, H_IN), (H, H)]),
    ("rnn_relu_cell", [(N, H_IN), (N, H), (H, H_IN), (4, H)]),
    ("rnn_relu_cell", [(N, H_IN), (N, H), (H, H_IN), (H, 4)]),
    ("gru_cell", [(N, H_IN), (N, H), (H, H_IN), (H, H)]),
    ("gru_cell", [(N, H_IN), (N, H), (3 * H, H_IN), (3 * H, H + 1)]),
    ("gru_cell", [(1, N, H_IN), (N, H), (3 * H, H_IN), (3 * H, H)]),
    ("gru_cell", [(N, H_IN), (H,), (3 * H, H_IN), (3 * H, H)]),
    ("lstm_cell", [(N, H_IN), (N, H), (N, H), (3 * H, H_IN), (4 * H, H)]),
    ("lstm_cell", [(N, H_IN), (N, H), (2, H), (4 * H, H_IN), (4 * H, H)]),
    ("lstm_cell", [(N, H_IN), (N, H), (N, 4), (4 * H, H_IN), (4 * H, H)]),
]


@pytest.mark.parametrize("name, shapes", SIZE_ERRORS)
def test_size_errors_are_pytorchs(name, shapes):
    ours, theirs = _call_both(name, shapes, lstm=name == "lstm_cell")
    assert isinstance(theirs, RuntimeError), theirs
    assert isinstance(ours, RuntimeError), ours
    assert str(ours) == str(theirs)


def test_1d_input_is_an_index_error_as_pytorch():
    ours, theirs = _call_both("rnn_tanh_cell", [(H_IN,), (N, H), (H, H_IN), (H, H)])
    assert isinstance(theirs, IndexError) and isinstance(ours, IndexError)
    assert "Dimension out of range (expected to be in range of [-1, 0], but got 1)" in str(ours)


def test_lstm_cell_needs_a_pair_of_tensors():
    x, h, w_ih, w_hh = mt.ones(N, H_IN), mt.ones(N, H), mt.ones(4 * H, H_IN), mt.ones(4 * H, H)
    with pytest.raises(TypeError, match="must be tuple of Tensors, not Tensor"):
        mt.lstm_cell(x, h, w_ih, w_hh)
    with pytest.raises(RuntimeError, match="lstm_cell expects two hidden states, got 3"):
        mt.lstm_cell(x, (h, h, h), w_ih, w_hh)
    with pytest.raises(RuntimeError, match="lstm_cell expects two hidden states, got 1"):
        mt.lstm_cell(x, (h,), w_ih, w_hh)


@pytest.mark.parametrize("position", [0, 1, 2, 3, 4, 5])
def test_mixed_dtypes_are_a_runtime_error_as_pytorch(position):
    torch = _torch()
    shapes = [(N, H_IN), (N, H), (H, H_IN), (H, H), (H,), (H,)]
    for lib in (mt, torch):
        args = [lib.ones(*s, dtype=lib.float64 if k == position else lib.float32)
                for k, s in enumerate(shapes)]
        with pytest.raises(RuntimeError, match="dtype"):
            lib.rnn_tanh_cell(*args)


def test_integer_tensors_are_refused():
    shapes = [(N, H_IN), (N, H), (3 * H, H_IN), (3 * H, H)]
    with pytest.raises(RuntimeError, match="floating-point input.*int64"):
        mt.gru_cell(*(mt.ones(*s, dtype=mt.int64) for s in shapes))


def test_wrong_bias_size_is_a_runtime_error():
    x, h, w = mt.ones(N, H_IN), mt.ones(N, H), (mt.ones(H, H_IN), mt.ones(H, H))
    for biases in ((mt.ones(4), None), (None, mt.ones(4))):
        with pytest.raises(RuntimeError, match=r"\(4,\)"):
            mt.rnn_tanh_cell(x, h, *w, *biases)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dtype_kept_and_device(dtype, device):
    from tests.devices import tensor_device

    kind = getattr(mt, dtype)
    x, h, c = (mt.randn(N, H_IN, dtype=kind, device=device),
               mt.randn(N, H, dtype=kind, device=device), mt.randn(N, H, dtype=kind,
                                                                   device=device))
    w = [mt.randn(4 * H, H_IN, dtype=kind, device=device),
         mt.randn(4 * H, H, dtype=kind, device=device)]
    h2, c2 = mt.lstm_cell(x, (h, c), *w)
    assert h2.dtype is kind and c2.dtype is kind
    assert h2.device == tensor_device(device) and c2.device == tensor_device(device)


def test_empty_batch(any_device):
    out = mt.gru_cell(mt.ones(0, H_IN, device=any_device), mt.ones(0, H, device=any_device),
                      mt.ones(3 * H, H_IN, device=any_device),
                      mt.ones(3 * H, H, device=any_device))
    assert tuple(out.shape) == (0, H)


def test_lstm_cell_returns_a_tuple_as_pytorch():
    out = mt.lstm_cell(mt.ones(N, H_IN), [mt.ones(N, H), mt.ones(N, H)], mt.ones(4 * H, H_IN),
                       mt.ones(4 * H, H))
    assert type(out) is tuple and len(out) == 2


@pytest.mark.parametrize("layer, name", [("RNNCell", "rnn_tanh_cell"),
                                         ("GRUCell", "gru_cell"), ("LSTMCell", "lstm_cell")])
def test_nn_cells_step_as_the_functions(layer, name, device):
    cell = getattr(mt.nn, layer)(H_IN, H, device=device)
    x = mt.randn(N, H_IN, device=device)
    state = ((mt.randn(N, H, device=device), mt.randn(N, H, device=device))
             if name == "lstm_cell" else mt.randn(N, H, device=device))
    ours = cell(x, state)
    step = getattr(mt, name)(x, state, cell.weight_ih, cell.weight_hh, cell.bias_ih,
                             cell.bias_hh)
    for a, b in zip(ours if isinstance(ours, tuple) else (ours,),
                    step if isinstance(step, tuple) else (step,)):
        np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())


def test_relu_cell_against_nn_cell_of_pytorch():
    torch = _torch()
    torch.manual_seed(0)
    cell = torch.nn.RNNCell(H_IN, H, nonlinearity="relu")
    data = np.random.default_rng(3).standard_normal((N, H_IN)).astype(np.float32)
    ref = cell(torch.tensor(data))
    ours = mt.rnn_relu_cell(mt.tensor(data), mt.zeros(N, H),
                            *(mt.tensor(p.detach().numpy()) for p in cell.parameters()))
    np.testing.assert_allclose(ours.numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)

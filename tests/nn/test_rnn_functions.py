"""``torch.rnn_tanh``, ``rnn_relu``, ``lstm`` and ``gru`` (the functional multi-layer forms,
padded and packed): values and gradients of the input, states and every weight against
PyTorch's with the same weights, float64 gradcheck, meta shapes, keywords, and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.gradcheck import gradcheck

INPUT, HIDDEN, LENGTH, BATCH = 3, 4, 5, 3
GATES = {"rnn_tanh": 1, "rnn_relu": 1, "gru": 3, "lstm": 4}
#: packed steps' batch sizes: 3 sequences of lengths 5, 3 and 2
BATCH_SIZES = [3, 3, 2, 1, 1]

# (name, has_biases, num_layers, bidirectional, batch_first, proj_size)
CASES = [
    pytest.param("rnn_tanh", True, 1, False, False, 0, id="rnn_tanh"),
    pytest.param("rnn_relu", False, 2, False, True, 0, id="rnn_relu-nobias-2-batch-first"),
    pytest.param("rnn_tanh", True, 2, True, False, 0, id="rnn_tanh-2-bi"),
    pytest.param("gru", True, 1, False, False, 0, id="gru"),
    pytest.param("gru", False, 2, True, True, 0, id="gru-nobias-2-bi-batch-first"),
    pytest.param("lstm", True, 1, False, False, 0, id="lstm"),
    pytest.param("lstm", True, 2, True, False, 2, id="lstm-proj-2-bi"),
    pytest.param("lstm", False, 1, False, True, 2, id="lstm-proj-nobias-batch-first"),
]


def _arrays(name, has_biases, num_layers, bidirectional, proj, input_shape, batch, seed=0):
    """Input, hidden states and the flat weights in PyTorch's order, as float64 arrays."""
    rng = np.random.default_rng(seed)
    directions = 2 if bidirectional else 1
    width = proj or HIDDEN
    rows = GATES[name] * HIDDEN
    params = []
    for layer in range(num_layers):
        for _ in range(directions):
            params += [rng.standard_normal((rows, INPUT if layer == 0 else width * directions)),
                       rng.standard_normal((rows, width))]
            if has_biases:
                params += [rng.standard_normal(rows), rng.standard_normal(rows)]
            if proj:
                params.append(rng.standard_normal((proj, HIDDEN)))
    params = [p * 0.5 for p in params]
    states = [rng.standard_normal((num_layers * directions, batch, width))]
    if name == "lstm":
        states.append(rng.standard_normal((num_layers * directions, batch, HIDDEN)))
    return rng.standard_normal(input_shape), states, params


def _call(lib, name, x, states, params, flags, batch_sizes=None):
    """``lib.<name>`` on tensors (the padded form, or the packed one with batch_sizes)."""
    hx = tuple(states) if name == "lstm" else states[0]
    function = getattr(lib, name)
    if batch_sizes is None:
        return function(x, hx, params, *flags)
    return function(x, batch_sizes, hx, params, *flags[:-1])


def _run_both(torch_ref, name, arrays, flags, device, batch_sizes=None):
    """Both frameworks' results, and the gradients of the same loss on every input."""
    results = []
    for lib in (mt, torch_ref):
        kwargs = {"device": device} if lib is mt else {}
        x, states, params = ([lib.tensor(a, requires_grad=True, **kwargs) for a in group]
                             for group in ([arrays[0]], arrays[1], arrays[2]))
        sizes = None if batch_sizes is None else lib.tensor(batch_sizes)
        out = _call(lib, name, x[0], states, params, flags, sizes)
        loss = sum(((o ** 2) * (k + 1)).sum() for k, o in enumerate(out))
        loss.backward()
        results.append((out, [t.grad for t in x + states + params]))
    return results


def _assert_same(ours, theirs, device):
    (out_o, grads_o), (out_t, grads_t) = ours, theirs
    assert isinstance(out_o, tuple) and len(out_o) == len(out_t)
    for a, b in zip(out_o, out_t):
        assert a.device == tensor_device(device)
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    for a, b in zip(grads_o, grads_t):
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-9, atol=1e-11)


def _input_shape(batch_first):
    return (BATCH, LENGTH, INPUT) if batch_first else (LENGTH, BATCH, INPUT)


@pytest.mark.parametrize("name, has_biases, num_layers, bidirectional, batch_first, proj",
                         CASES)
def test_padded_matches_pytorch(torch_ref, name, has_biases, num_layers, bidirectional,
                                batch_first, proj, device):
    arrays = _arrays(name, has_biases, num_layers, bidirectional, proj,
                     _input_shape(batch_first), BATCH)
    flags = (has_biases, num_layers, 0.0, False, bidirectional, batch_first)
    _assert_same(*_run_both(torch_ref, name, arrays, flags, device), device)


@pytest.mark.parametrize("name, has_biases, num_layers, bidirectional, batch_first, proj",
                         CASES)
def test_packed_matches_pytorch(torch_ref, name, has_biases, num_layers, bidirectional,
                                batch_first, proj, device):
    arrays = _arrays(name, has_biases, num_layers, bidirectional, proj,
                     (sum(BATCH_SIZES), INPUT), BATCH, seed=1)
    flags = (has_biases, num_layers, 0.0, True, bidirectional, batch_first)
    _assert_same(*_run_both(torch_ref, name, arrays, flags, device, BATCH_SIZES), device)


@pytest.mark.parametrize("name", list(GATES))
def test_dropout_between_layers(torch_ref, name, device):
    """Dropout 1 after every layer but the last zeroes the last layer's input (a value
    both frameworks agree on); train=False turns dropout off."""
    arrays = _arrays(name, True, 2, False, 0, _input_shape(False), BATCH, seed=2)
    for dropout, train in ((1.0, True), (0.5, False)):
        flags = (True, 2, dropout, train, False, False)
        _assert_same(*_run_both(torch_ref, name, arrays, flags, device), device)
    x, states, params = ([mt.tensor(a, device=device) for a in group]
                         for group in ([arrays[0]], arrays[1], arrays[2]))
    out = _call(mt, name, x[0], states, params, (True, 2, 0.5, True, False, False))
    assert out[0].shape == (LENGTH, BATCH, HIDDEN)


@pytest.mark.parametrize("name, has_biases, num_layers, bidirectional, batch_first, proj",
                         CASES[::2])
def test_float64_gradcheck(name, has_biases, num_layers, bidirectional, batch_first, proj,
                           device):
    arrays = _arrays(name, has_biases, num_layers, bidirectional, proj,
                     _input_shape(batch_first), BATCH)
    flat = [arrays[0], *arrays[1], *arrays[2]]
    count = len(arrays[1])
    flags = (has_biases, num_layers, 0.0, False, bidirectional, batch_first)

    def loss(x, *rest):
        out = _call(mt, name, x, list(rest[:count]), list(rest[count:]), flags)
        return sum(((o ** 2) * (k + 1)).sum() for k, o in enumerate(out))

    gradcheck(loss, flat, device=device)


@pytest.mark.parametrize("name, has_biases, num_layers, bidirectional, batch_first, proj",
                         CASES)
@pytest.mark.parametrize("packed", [False, True], ids=["padded", "packed"])
def test_meta_shapes_equal_real_shapes(name, has_biases, num_layers, bidirectional,
                                       batch_first, proj, packed):
    shape = (sum(BATCH_SIZES), INPUT) if packed else _input_shape(batch_first)
    arrays = _arrays(name, has_biases, num_layers, bidirectional, proj, shape, BATCH)
    flags = (has_biases, num_layers, 0.0, False, bidirectional, batch_first)
    shapes = []
    for device in ("cpu", "meta"):
        x, states, params = ([mt.tensor(a, device=device, requires_grad=True) for a in group]
                             for group in ([arrays[0]], arrays[1], arrays[2]))
        out = _call(mt, name, x[0], states, params, flags,
                    mt.tensor(BATCH_SIZES) if packed else None)
        sum(o.sum() for o in out).backward()
        shapes.append([tuple(o.shape) for o in out] + [tuple(t.grad.shape) for t in
                                                       x + states + params])
        assert all(o.device == mt.device(device) for o in out)
    assert shapes[0] == shapes[1]


def test_keywords_and_layers_call_the_functional_forms(device):
    """Both overloads by keyword; ``nn.LSTM`` gives what ``torch.lstm`` gives on its
    ``_flat_weights``."""
    layer = mt.nn.LSTM(INPUT, HIDDEN, num_layers=2, proj_size=2, dtype=mt.float64,
                       device=device)
    x = mt.randn(LENGTH, BATCH, INPUT, dtype=mt.float64, device=device)
    h = mt.randn(2, BATCH, 2, dtype=mt.float64, device=device)
    c = mt.randn(2, BATCH, HIDDEN, dtype=mt.float64, device=device)
    out, (h_n, c_n) = layer(x, (h, c))
    common = dict(params=layer._flat_weights, has_biases=True, num_layers=2, dropout=0.0,
                  train=False, bidirectional=False)
    result = mt.lstm(input=x, hx=(h, c), batch_first=False, **common)
    for a, b in zip(result, (out, h_n, c_n)):
        assert mt.equal(a, b)
    data = x.reshape(-1, INPUT)
    sizes = mt.tensor([BATCH] * LENGTH)
    packed = mt.lstm(data=data, batch_sizes=sizes, hx=[h, c], **common)
    assert mt.allclose(packed[0], out.reshape(-1, 2), rtol=1e-12, atol=1e-14)


def _tensors(name, device, has_biases=True, num_layers=1, proj=0):
    x, states, params = _arrays(name, has_biases, num_layers, False, proj,
                                _input_shape(False), BATCH)
    return (mt.tensor(x, device=device), [mt.tensor(s, device=device) for s in states],
            [mt.tensor(p, device=device) for p in params])


@pytest.mark.parametrize("name", list(GATES))
def test_wrong_number_of_weights_raises_pytorchs_error(name, device):
    x, states, params = _tensors(name, device)
    hx = tuple(states) if name == "lstm" else states[0]
    function = getattr(mt, name)
    for wrong in (params[:3], params + params[:1]):
        with pytest.raises(RuntimeError, match="got an incorrect number of RNN parameters: "
                                               "expected 4"):
            function(x, hx, wrong, True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="incorrect number of RNN parameters: expected 8"):
        function(x, hx, params, True, 2, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="expected 2 .2 per layer"):
        function(x, hx, params, False, 1, 0.0, False, False, False)


def test_lstm_projections_follow_the_states_widths(device):
    """PyTorch turns projections on when h_0 and c_0 differ in width: then each layer has
    a w_hr, and 4 weights are too few."""
    x, states, params = _tensors("lstm", device)
    c_wide = mt.zeros(1, BATCH, HIDDEN + 1, dtype=mt.float64, device=device)
    with pytest.raises(RuntimeError, match=r"expected 5 \(5 per layer .*w_hr"):
        mt.lstm(x, (states[0], c_wide), params, True, 1, 0.0, False, False, False)


@pytest.mark.parametrize("name", list(GATES))
def test_wrong_shapes_raise(name, device):
    x, states, params = _tensors(name, device)
    hx = tuple(states) if name == "lstm" else states[0]
    function = getattr(mt, name)
    rows = GATES[name] * HIDDEN
    bad_ih = [mt.zeros(rows, INPUT + 1, dtype=mt.float64, device=device)] + params[1:]
    with pytest.raises(RuntimeError, match=rf"expected weight_ih_l0 of shape \({rows}, "
                                           rf"{INPUT}\), got \({rows}, {INPUT + 1}\)"):
        function(x, hx, bad_ih, True, 1, 0.0, False, False, False)
    bad_bias = params[:2] + [mt.zeros(rows + 1, dtype=mt.float64, device=device)] + params[3:]
    with pytest.raises(RuntimeError, match="expected bias_ih_l0 of shape"):
        function(x, hx, bad_bias, True, 1, 0.0, False, False, False)
    wrong_h = mt.zeros(2, BATCH, HIDDEN, dtype=mt.float64, device=device)
    hx_wrong = (wrong_h, wrong_h) if name == "lstm" else wrong_h
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 3, 4\), got "
                                           r"\[2, 3, 4\]"):
        function(x, hx_wrong, params, True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="input must have 3 dimensions"):
        function(x[0], hx, params, True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="sequence length to be larger than 0"):
        function(x[:0], hx, params, True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, "
                                           "but got 1.5"):
        function(x, hx, params, True, 1, 1.5, True, False, False)


def test_argument_errors_are_pytorchs(torch_ref, device):
    x, states, params = _tensors("lstm", device)
    for lib, args in ((mt, (x, states[0], params)),
                      (torch_ref, (torch_ref.zeros(2, 1, 3), torch_ref.zeros(1, 1, 4),
                                   [torch_ref.zeros(16, 3)]))):
        with pytest.raises(TypeError, match=r"lstm\(\) received an invalid combination of "
                                            r"arguments"):
            lib.lstm(*args, True, 1, 0.0, False, False, False)
    with pytest.raises(TypeError, match=r"lstm\(\) received an invalid combination"):
        mt.lstm(x, tuple(states), params, True, 1, 0.0, False, False)  # one missing
    with pytest.raises(RuntimeError, match="lstm expects two hidden states, got 1"):
        mt.lstm(x, states[:1], params, True, 1, 0.0, False, False, False)
    gx, gstates, gparams = _tensors("gru", device)
    with pytest.raises(TypeError, match=r"gru\(\) received an invalid combination"):
        mt.gru(gx, tuple(gstates), gparams, True, 1, 0.0, False, False, False)
    data = gx.reshape(-1, INPUT)
    with pytest.raises(RuntimeError, match="expected scalar type Long but found"):
        mt.gru(data, mt.tensor([3.0] * LENGTH), gstates[0], gparams, True, 1, 0.0, False,
               False)

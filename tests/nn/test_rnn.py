"""RNN, LSTM, GRU and their cells: values and every gradient against PyTorch (float64 and
float32), float64 gradcheck, meta shapes, hidden-state layouts, dropout, reprs, state-dict
names, and PyTorch's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from tests.gradcheck import gradcheck

LAYERS = [
    pytest.param("RNN", {}, id="rnn-tanh"),
    pytest.param("RNN", {"nonlinearity": "relu", "bias": False}, id="rnn-relu-nobias"),
    pytest.param("GRU", {}, id="gru"),
    pytest.param("LSTM", {}, id="lstm"),
    pytest.param("LSTM", {"proj_size": 3}, id="lstm-proj"),
    pytest.param("GRU", {"num_layers": 2, "bidirectional": True}, id="gru-2-bi"),
    pytest.param("LSTM", {"num_layers": 2, "bidirectional": True, "batch_first": True},
                 id="lstm-2-bi-batch-first"),
    pytest.param("RNN", {"num_layers": 3, "batch_first": True}, id="rnn-3-batch-first"),
]
INPUT, HIDDEN, LENGTH, BATCH = 5, 4, 6, 3


def _pair(torch, name, kwargs, device, dtype="float64"):
    """Our layer and PyTorch's with the same (PyTorch's) parameters, through state_dict."""
    theirs = getattr(torch.nn, name)(INPUT, HIDDEN, **kwargs).to(getattr(torch, dtype))
    ours = getattr(nn, name)(INPUT, HIDDEN, **kwargs, dtype=getattr(mt, dtype), device=device)
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    return ours, theirs


def _loss(output, hidden):
    """A loss that reads every output (squares, so the gradients differ per element)."""
    states = hidden if isinstance(hidden, tuple) else (hidden,)
    return (output ** 2).sum() + sum((s * (k + 2)).sum() for k, s in enumerate(states))


def _input_shape(kwargs, batched=True):
    if not batched:
        return (LENGTH, INPUT)
    return (BATCH, LENGTH, INPUT) if kwargs.get("batch_first") else (LENGTH, BATCH, INPUT)


def _compare(torch, ours, theirs, x, hx=None, device="cpu", rtol=1e-10, atol=1e-12):
    """Run both on x (and hx), then compare outputs, states and all gradients."""
    xo = mt.tensor(x, device=device, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    args_o = () if hx is None else (_to_ours(hx, device),)
    args_t = () if hx is None else (_to_torch(torch, hx),)
    out_o, hid_o = ours(xo, *args_o)
    out_t, hid_t = theirs(xt, *args_t)
    _loss(out_o, hid_o).backward()
    _loss(out_t, hid_t).backward()
    close = dict(rtol=rtol, atol=atol)
    np.testing.assert_allclose(out_o.detach().cpu().numpy(), out_t.detach().numpy(), **close)
    for a, b in zip(_flat(hid_o), _flat(hid_t)):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), **close)
    np.testing.assert_allclose(xo.grad.cpu().numpy(), xt.grad.numpy(), **close)
    for (name, p), (_, q) in zip(theirs.named_parameters(), ours.named_parameters()):
        np.testing.assert_allclose(q.grad.cpu().numpy(), p.grad.numpy(), err_msg=name, **close)
    for a, b in zip(_flat(args_o[0]) if args_o else (), _flat(args_t[0]) if args_t else ()):
        np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), **close)
    return args_o


def _flat(hidden):
    return hidden if isinstance(hidden, tuple) else (hidden,)


def _to_ours(hx, device):
    if isinstance(hx, tuple):
        return tuple(mt.tensor(h, device=device, requires_grad=True) for h in hx)
    return mt.tensor(hx, device=device, requires_grad=True)


def _to_torch(torch, hx):
    if isinstance(hx, tuple):
        return tuple(torch.tensor(h, requires_grad=True) for h in hx)
    return torch.tensor(hx, requires_grad=True)


def _hidden_shapes(name, kwargs, batched=True):
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    batch = (BATCH,) if batched else ()
    out = kwargs.get("proj_size") or HIDDEN
    h = (layers, *batch, out)
    return (h, (layers, *batch, HIDDEN)) if name == "LSTM" else (h,)


@pytest.mark.parametrize("name, kwargs", LAYERS)
def test_layers_match_pytorch_float64(torch_ref, name, kwargs, device):
    ours, theirs = _pair(torch_ref, name, kwargs, device)
    x = np.random.default_rng(0).standard_normal(_input_shape(kwargs))
    _compare(torch_ref, ours, theirs, x, device=device)


@pytest.mark.parametrize("name, kwargs", LAYERS)
def test_layers_with_initial_state_match_pytorch(torch_ref, name, kwargs, device):
    ours, theirs = _pair(torch_ref, name, kwargs, device)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(_input_shape(kwargs))
    states = tuple(rng.standard_normal(s) for s in _hidden_shapes(name, kwargs))
    hx_o = _compare(torch_ref, ours, theirs, x, states if name == "LSTM" else states[0],
                    device=device)
    for h in _flat(hx_o[0]):
        assert h.grad is not None and h.grad.abs().sum().item() > 0


@pytest.mark.parametrize("name, kwargs", LAYERS[:5])
def test_unbatched_input_matches_pytorch(torch_ref, name, kwargs, device):
    ours, theirs = _pair(torch_ref, name, kwargs, device)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(_input_shape(kwargs, batched=False))
    states = tuple(rng.standard_normal(s) for s in _hidden_shapes(name, kwargs, False))
    _compare(torch_ref, ours, theirs, x, device=device)
    _compare(torch_ref, ours, theirs, x, states if name == "LSTM" else states[0],
             device=device)


@pytest.mark.parametrize("name", ["RNN", "GRU", "LSTM"])
def test_float32_layers_match_pytorch(torch_ref, name, device):
    ours, theirs = _pair(torch_ref, name, {"num_layers": 2}, device, "float32")
    x = np.random.default_rng(3).standard_normal((LENGTH, BATCH, INPUT)).astype(np.float32)
    _compare(torch_ref, ours, theirs, x, device=device, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, kwargs", LAYERS)
def test_layers_pass_float64_gradcheck(name, kwargs, device):
    layer = getattr(nn, name)(INPUT, HIDDEN, **kwargs, dtype=mt.float64, device=device)
    x = np.random.default_rng(4).standard_normal(_input_shape(kwargs))[:3, :3]
    gradcheck(lambda t: _loss(*layer(t)), [x], device=device)


CELLS = [pytest.param("RNNCell", {}, id="rnn"), pytest.param("RNNCell", {"nonlinearity": "relu"},
                                                             id="rnn-relu"),
         pytest.param("GRUCell", {}, id="gru"), pytest.param("LSTMCell", {"bias": False},
                                                             id="lstm-nobias")]


@pytest.mark.parametrize("name, kwargs", CELLS)
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("with_state", [True, False], ids=["hx", "no-hx"])
def test_cells_match_pytorch(torch_ref, name, kwargs, batched, with_state, device):
    theirs = getattr(torch_ref.nn, name)(INPUT, HIDDEN, **kwargs).double()
    ours = getattr(nn, name)(INPUT, HIDDEN, **kwargs, dtype=mt.float64, device=device)
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    rng = np.random.default_rng(5)
    batch = (BATCH,) if batched else ()
    x = rng.standard_normal((*batch, INPUT))
    states = [rng.standard_normal((*batch, HIDDEN)) for _ in range(2)]
    xo, xt = mt.tensor(x, device=device, requires_grad=True), torch_ref.tensor(x,
                                                                           requires_grad=True)
    args_o, args_t = (), ()
    if with_state:
        pick = (lambda make: tuple(make(s) for s in states)) if name == "LSTMCell" else (
            lambda make: make(states[0]))
        args_o = (pick(lambda s: mt.tensor(s, device=device)),)
        args_t = (pick(torch_ref.tensor),)
    out_o, out_t = ours(xo, *args_o), theirs(xt, *args_t)
    for a, b in zip(_flat(out_o), _flat(out_t)):
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), rtol=1e-12)
    sum((o ** 2).sum() for o in _flat(out_o)).backward()
    sum((o ** 2).sum() for o in _flat(out_t)).backward()
    np.testing.assert_allclose(xo.grad.cpu().numpy(), xt.grad.numpy(), rtol=1e-10)
    for (key, p), (_, q) in zip(theirs.named_parameters(), ours.named_parameters()):
        np.testing.assert_allclose(q.grad.cpu().numpy(), p.grad.numpy(), rtol=1e-10,
                                   atol=1e-14, err_msg=key)


@pytest.mark.parametrize("name, kwargs", LAYERS)
def test_reprs_and_state_dict_names_are_pytorchs(torch_ref, name, kwargs):
    theirs = getattr(torch_ref.nn, name)(INPUT, HIDDEN, **kwargs)
    ours = getattr(nn, name)(INPUT, HIDDEN, **kwargs)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    assert len(ours.all_weights) == len(theirs.all_weights)


def test_cell_reprs_are_pytorchs(torch_ref):
    for name, kwargs in [("RNNCell", {"nonlinearity": "relu"}), ("GRUCell", {"bias": False}),
                         ("LSTMCell", {})]:
        assert repr(getattr(nn, name)(3, 4, **kwargs)) == \
            repr(getattr(torch_ref.nn, name)(3, 4, **kwargs))


def test_parameters_are_drawn_within_pytorchs_bound():
    layer = nn.LSTM(3, 16, num_layers=2)
    for p in layer.parameters():
        values = p.detach().numpy()
        assert np.abs(values).max() <= 0.25 and values.std() > 0.1  # U(±1/sqrt(16))


@pytest.mark.parametrize("name, kwargs", LAYERS)
def test_meta_shapes_match_real_ones(name, kwargs):
    real = getattr(nn, name)(INPUT, HIDDEN, **kwargs)
    meta = getattr(nn, name)(INPUT, HIDDEN, **kwargs, device="meta")
    x = mt.randn(*_input_shape(kwargs))
    out_r, hid_r = real(x)
    out_m, hid_m = meta(x.to("meta"))
    assert out_m.shape == out_r.shape and out_m.device.type == "meta"
    assert [h.shape for h in _flat(hid_m)] == [h.shape for h in _flat(hid_r)]
    _loss(out_m, hid_m).backward()
    assert all(p.grad.shape == p.shape for p in meta.parameters())


def test_dropout_between_layers_only_in_training():
    mt.manual_seed(0)
    layer = nn.GRU(3, 8, num_layers=2, dropout=0.5)
    x = mt.randn(4, 2, 3)
    layer.eval()
    first, _ = layer(x)
    again, _ = layer(x)
    assert mt.equal(first, again)
    layer.train()
    dropped, _ = layer(x)
    assert not mt.equal(first, dropped)


def test_a_sequence_model_learns(device):
    """An LSTM learns to output the running sum sign of its inputs (a few Adam steps)."""
    mt.manual_seed(0)
    lstm, head = nn.LSTM(1, 16, batch_first=True).to(device), nn.Linear(16, 1).to(device)
    opt = mt.optim.Adam([*lstm.parameters(), *head.parameters()], lr=0.02)
    x = mt.randn(64, 10, 1, device=device)
    target = (x.cumsum(1) > 0).float()
    losses = []
    for _ in range(60):
        opt.zero_grad()
        out, _ = lstm(x)
        loss = nn.functional.binary_cross_entropy_with_logits(head(out), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


ERRORS = [
    (lambda: nn.RNN(3, 4)(mt.randn(2, 3, 4, 5)), ValueError,
     "RNN: Expected input to be 2D or 3D, got 4D tensor instead"),
    (lambda: nn.LSTM(3, 4)(mt.randn(5)), ValueError,
     "LSTM: Expected input to be 2D or 3D, got 1D instead"),
    (lambda: nn.GRU(3, 4)(mt.randn(5, 2, 4)), RuntimeError,
     "input.size(-1) must be equal to input_size. Expected 3, got 4"),
    (lambda: nn.RNN(3, 4)(mt.randn(5, 2, 3), mt.zeros(2, 2, 4)), RuntimeError,
     "Expected hidden size (1, 2, 4), got [2, 2, 4]"),
    (lambda: nn.RNN(3, 4)(mt.randn(5, 2, 3), mt.zeros(2, 4)), RuntimeError,
     "For batched 3-D input, hx should also be 3-D but got 2-D tensor"),
    (lambda: nn.GRU(3, 4)(mt.randn(5, 3), mt.zeros(1, 2, 4)), RuntimeError,
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    (lambda: nn.LSTM(3, 4)(mt.randn(5, 2, 3), (mt.zeros(1, 2, 4), mt.zeros(1, 2, 5))),
     RuntimeError, "Expected hidden[1] size (1, 2, 4), got [1, 2, 5]"),
    (lambda: nn.LSTM(3, 4, proj_size=2)(mt.randn(5, 2, 3), (mt.zeros(1, 2, 4),
                                                           mt.zeros(1, 2, 4))),
     RuntimeError, "Expected hidden[0] size (1, 2, 2), got [1, 2, 4]"),
    (lambda: nn.LSTM(3, 4)(mt.randn(5, 2, 3), (mt.zeros(2, 4), mt.zeros(1, 2, 4))),
     RuntimeError, "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 3-D) "
                   "tensors"),
    (lambda: nn.LSTM(3, 4)(mt.randn(5, 2, 3, dtype=mt.float64)), ValueError,
     "RNN input dtype (torch.float64) does not match weight dtype (torch.float32)"),
    (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError,
     "Unknown nonlinearity 'sigmoid'. Select from 'tanh' or 'relu'."),
    (lambda: nn.LSTM(3, 4, proj_size=4), ValueError,
     "proj_size has to be smaller than hidden_size"),
    (lambda: nn.GRU(3, 0), ValueError, "hidden_size must be greater than zero"),
    (lambda: nn.GRU(3, 4, num_layers=0), ValueError, "num_layers must be greater than zero"),
    (lambda: nn.GRU(3.0, 4), TypeError, "input_size should be of type int, got: float"),
    (lambda: nn.LSTM(3, 4, dropout=1.5), ValueError,
     "dropout should be a number in range [0, 1]"),
    (lambda: nn.LSTMCell(3, 4)(mt.randn(2, 3, 3)), ValueError,
     "LSTMCell: Expected input to be 1D or 2D, got 3D instead"),
    (lambda: nn.GRUCell(3, 4)(mt.randn(2, 3), mt.zeros(1, 2, 4)), ValueError,
     "GRUCell: Expected hidden to be 1D or 2D, got 3D instead"),
]


@pytest.mark.parametrize("make, kind, message", ERRORS)
def test_errors_are_pytorchs(torch_ref, make, kind, message):
    with pytest.raises(kind) as ours:
        make()
    assert message in str(ours.value)
    # the same call in PyTorch raises the same type with the same words
    with pytest.raises(kind) as theirs:
        _in_torch(torch_ref, make)
    assert message in str(theirs.value)


def _in_torch(torch, make):
    """Run ``make`` with ``nn`` and ``mt`` standing for PyTorch's."""
    globals_ = dict(make.__globals__, nn=torch.nn, mt=torch)
    fn = type(make)(make.__code__, globals_)
    return fn()


def test_dropout_with_one_layer_warns_as_pytorch():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, "
                                         "but got dropout=0.2 and num_layers=1"):
        nn.LSTM(3, 4, dropout=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.LSTM(3, 4, num_layers=2, dropout=0.2)


def test_flatten_parameters_keeps_results():
    layer = nn.LSTM(3, 4)
    x = mt.randn(5, 2, 3)
    before, _ = layer(x)
    layer.flatten_parameters()
    after, _ = layer(x)
    assert mt.equal(before, after)

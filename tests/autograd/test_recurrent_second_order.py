"""Gradients of gradients through the recurrent layers (``torch.lstm``, ``gru``,
``rnn_tanh``, ``rnn_relu``, padded and packed, and the ``*_cell`` steps): the gradients
made with ``create_graph=True`` and the gradient of their squared sum against PyTorch's,
a Hessian-vector product against finite differences, meta shapes, and forward-mode
products (``torch.func.jvp``, ``autograd.forward_ad``) through ``nn.LSTM``."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.autograd.forward_ad as mt_forward_ad
from tests.autograd.second_order import (
    assert_hvp_matches_finite_differences,
    assert_second_order_equal_pytorchs,
    seeded_arrays,
)


def _sizes(lib, values):
    """Packed batch sizes: an int64 CPU tensor in both frameworks, as PyTorch keeps them."""
    return lib.tensor(values)


def _penalty(outputs):
    """A loss that reads every output differently (cubes and weights per output)."""
    return sum(((o ** 3) * (k + 1)).sum() + (o * (k + 2)).sum() for k, o in enumerate(outputs))


def _lstm_projected_bidirectional(L, d, x, h, c, *params):
    return _penalty(L.lstm(x, (h, c), list(params), True, 1, 0.0, False, True, True))


def _lstm_packed_two_layers(L, d, x, h, c, *params):
    return _penalty(L.lstm(x, _sizes(L, [3, 2, 2, 1]), (h, c), list(params), False, 2, 0.0,
                           False, False))


def _gru_packed_bidirectional(L, d, x, h, *params):
    return _penalty(L.gru(x, _sizes(L, [3, 3, 1]), h, list(params), True, 1, 0.0, False,
                          True))


def _rnn_tanh_two_layers(L, d, x, h, *params):
    return _penalty(L.rnn_tanh(x, h, list(params), True, 2, 0.0, False, False, False))


def _rnn_relu(L, d, x, h, *params):
    return _penalty(L.rnn_relu(x, h, list(params), True, 1, 0.0, False, False, True))


def _cells(L, d, x, h, c, w4_ih, w4_hh, b4, w3_ih, w3_hh, w1_ih, w1_hh, b1):
    h1, c1 = L.lstm_cell(x, (h, c), w4_ih, w4_hh, b4, b4 * 2)
    h2 = L.gru_cell(x, h1, w3_ih, w3_hh)
    h3 = L.rnn_tanh_cell(x, h2, w1_ih, w1_hh, b1, None)
    return _penalty([h1, c1, h2, h3, L.rnn_relu_cell(x, h3, w1_ih, w1_hh, None, b1)])


def _weights(gates, hidden, inputs, biases=True, proj=0, layers=1, directions=1):
    """Shapes of the flat weights in PyTorch's order."""
    shapes, width = [], proj or hidden
    for layer in range(layers):
        for _ in range(directions):
            shapes += [(gates * hidden, inputs if layer == 0 else width * directions),
                       (gates * hidden, width)]
            shapes += [(gates * hidden,)] * 2 if biases else []
            shapes += [(proj, hidden)] if proj else []
    return shapes


# name -> (f(lib, device, *inputs) -> scalar, input shapes)
CASES = {
    "lstm-proj-bidirectional-batch-first": (
        _lstm_projected_bidirectional,
        [(2, 3, 2), (2, 2, 2), (2, 2, 3)] + _weights(4, 3, 2, proj=2, directions=2)),
    "lstm-packed-two-layers-no-bias": (
        _lstm_packed_two_layers,
        [(8, 2), (2, 3, 3), (2, 3, 3)] + _weights(4, 3, 2, biases=False, layers=2)),
    "gru-packed-bidirectional": (
        _gru_packed_bidirectional, [(7, 2), (2, 3, 2)] + _weights(3, 2, 2, directions=2)),
    "rnn_tanh-two-layers": (
        _rnn_tanh_two_layers, [(3, 2, 2), (2, 2, 3)] + _weights(1, 3, 2, layers=2)),
    "rnn_relu-batch-first": (_rnn_relu, [(2, 3, 2), (1, 2, 3)] + _weights(1, 3, 2)),
    "cells": (_cells, [(2, 3), (2, 2), (2, 2), (8, 3), (8, 2), (8,), (6, 3), (6, 2), (2, 3),
                       (2, 2), (2,)]),
}


def _arrays(name):
    # relu's kink: keep the pre-activations away from 0 by scaling the inputs down
    return [a * 0.7 for a in seeded_arrays(name, CASES[name][1])]


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_matches_pytorch(name, device):
    fn, _ = CASES[name]
    assert_second_order_equal_pytorchs(fn, _arrays(name), device)


@pytest.mark.parametrize("name", ["lstm-proj-bidirectional-batch-first",
                                  "gru-packed-bidirectional", "rnn_tanh-two-layers"])
def test_hessian_vector_product_matches_finite_differences(name):
    fn, shapes = CASES[name]
    directions = seeded_arrays(name + "-direction", shapes)
    assert_hvp_matches_finite_differences(fn, _arrays(name), directions, atol=1e-5)


def test_third_order_matches_pytorch():
    """The gradients of a gradient are recorded too: a third derivative."""
    import torch

    values = []
    for lib in (mt, torch):
        x = lib.tensor([[[0.3, -0.2]], [[0.5, 0.1]]], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([[0.4, -0.3], [0.2, 0.6]], dtype=lib.float64, requires_grad=True)
        h = lib.zeros(1, 1, 2, dtype=lib.float64)
        out, _ = lib.rnn_tanh(x, h, [w, w * 0.5], False, 1, 0.0, False, False, False)
        (g,) = lib.autograd.grad(out.sum(), w, create_graph=True)
        (gg,) = lib.autograd.grad((g ** 2).sum(), w, create_graph=True)
        (ggg,) = lib.autograd.grad(gg.sum(), x)
        values.append(ggg.numpy())
    np.testing.assert_allclose(values[0], values[1], rtol=1e-9, atol=1e-12)


def test_meta_gives_second_order_shapes():
    fn, shapes = CASES["lstm-packed-two-layers-no-bias"]
    xs = [mt.empty(s, dtype=mt.float64, device="meta", requires_grad=True) for s in shapes]
    grads = mt.autograd.grad(fn(mt, "meta", *xs), xs, create_graph=True)
    second = mt.autograd.grad(sum((g * g).sum() for g in grads), xs)
    assert [tuple(g.shape) for g in second] == [tuple(s) for s in shapes]
    assert all(g.device == mt.device("meta") for g in second)


def _lstm_pair(torch):
    """PyTorch's LSTM (2 layers, both directions, projections) and ours with its weights."""
    torch.manual_seed(0)
    theirs = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2).double()
    ours = mt.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2, dtype=mt.float64)
    ours.load_state_dict({k: mt.tensor(v.detach().numpy())
                          for k, v in theirs.state_dict().items()})
    return ours, theirs


@contextlib.contextmanager
def _quiet_torch_jit():
    """PyTorch's forward-mode LSTM goes through ``torch.jit.script``, which warns that it is
    deprecated (PyTorch's own noise, not this test's subject)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*torch.jit.script.* is deprecated",
                                category=DeprecationWarning)
        yield


def test_jvp_through_lstm_matches_pytorch():
    import torch

    ours, theirs = _lstm_pair(torch)
    rng = np.random.default_rng(0)
    x, t = rng.standard_normal((5, 2, 3)), rng.standard_normal((5, 2, 3))
    _, ours_jvp = mt.func.jvp(lambda v: ours(v)[1][1], (mt.tensor(x),), (mt.tensor(t),))
    with _quiet_torch_jit():
        _, their_jvp = torch.func.jvp(lambda v: theirs(v)[1][1], (torch.tensor(x),),
                                      (torch.tensor(t),))
    np.testing.assert_allclose(ours_jvp.detach().numpy(), their_jvp.detach().numpy(),
                               rtol=1e-9, atol=1e-11)


def test_forward_ad_through_lstm_matches_pytorch():
    import torch
    import torch.autograd.forward_ad as torch_forward_ad

    ours, theirs = _lstm_pair(torch)
    rng = np.random.default_rng(1)
    x, t = rng.standard_normal((5, 2, 3)), rng.standard_normal((5, 2, 3))
    tangents = []
    for lib, fwd, layer in ((mt, mt_forward_ad, ours), (torch, torch_forward_ad, theirs)):
        with fwd.dual_level(), _quiet_torch_jit():
            output, (h_n, c_n) = layer(fwd.make_dual(lib.tensor(x), lib.tensor(t)))
            tangents.append([fwd.unpack_dual(y).tangent.detach().numpy()
                             for y in (output, h_n, c_n)])
    for a, b in zip(*tangents):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


def test_torch_autograd_forward_ad_is_the_forward_ad_module():
    assert mt.autograd.forward_ad is mt_forward_ad

"""nn.init and the layers' default initialisation: formulas and statistics as PyTorch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from minitorch_meta.nn import init


@pytest.mark.parametrize("name, param, expected", [
    ("linear", None, 1.0), ("conv2d", None, 1.0), ("sigmoid", None, 1.0),
    ("tanh", None, 5 / 3), ("relu", None, math.sqrt(2)), ("selu", None, 0.75),
    ("leaky_relu", None, math.sqrt(2 / (1 + 0.01 ** 2))),
    ("leaky_relu", math.sqrt(5), math.sqrt(1 / 3)),
])
def test_calculate_gain(name, param, expected):
    assert init.calculate_gain(name, param) == pytest.approx(expected)


def test_calculate_gain_equals_pytorch(torch_ref):
    for name in ("linear", "tanh", "relu", "selu", "leaky_relu"):
        assert init.calculate_gain(name) == pytest.approx(torch_ref.nn.init.calculate_gain(name))


def test_fans():
    assert init._calculate_fan_in_and_fan_out(mt.empty(6, 3, 5, 5)) == (75, 150)
    assert init._calculate_fan_in_and_fan_out(mt.empty(120, 400)) == (400, 120)


@pytest.mark.parametrize("call, error, message", [
    (lambda: init.calculate_gain("swish"), ValueError, "Unsupported nonlinearity swish"),
    (lambda: init.calculate_gain("leaky_relu", True), ValueError, "not a valid number"),
    (lambda: init._calculate_fan_in_and_fan_out(mt.empty(3)), ValueError, "fewer than 2"),
    (lambda: init.kaiming_uniform_(mt.empty(2, 2), mode="fan"), ValueError, "Mode fan not"),
])
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_zero_element_tensor_is_a_no_op_with_a_warning():
    with pytest.warns(UserWarning, match="zero-element tensors is a no-op"):
        init.kaiming_uniform_(mt.empty(0, 3))


def test_fillers():
    t = mt.empty(2, 3)
    assert init.zeros_(t).tolist() == [[0.0] * 3] * 2
    assert init.ones_(t).tolist() == [[1.0] * 3] * 2
    assert init.constant_(t, 2.5).tolist() == [[2.5] * 3] * 2


def _moments(values):
    values = np.asarray(values, dtype=np.float64).ravel()
    return values.min(), values.max(), values.mean(), values.std()


@pytest.mark.parametrize("fill, bound", [
    (lambda t: init.kaiming_uniform_(t, a=math.sqrt(5)), 1 / math.sqrt(200)),
    (lambda t: init.kaiming_uniform_(t, nonlinearity="relu"), math.sqrt(6 / 200)),
    (lambda t: init.xavier_uniform_(t), math.sqrt(6 / 300)),
    (lambda t: init.uniform_(t, -0.3, 0.3), 0.3),
])
def test_uniform_initialisers_bounds_and_moments(fill, bound):
    low, high, mean, std = _moments(fill(mt.empty(100, 200)).numpy())
    assert -bound <= low < -0.99 * bound and 0.99 * bound < high <= bound
    assert abs(mean) < 0.01 * bound * 3
    assert std == pytest.approx(bound / math.sqrt(3), rel=0.02)


@pytest.mark.parametrize("fill, std", [
    (lambda t: init.normal_(t, 0.0, 0.5), 0.5),
    (lambda t: init.kaiming_normal_(t, nonlinearity="relu"), math.sqrt(2 / 200)),
    (lambda t: init.xavier_normal_(t), math.sqrt(2 / 300)),
])
def test_normal_initialisers_moments(fill, std):
    _, _, mean, sample_std = _moments(fill(mt.empty(100, 200)).numpy())
    assert abs(mean) < 0.02 * std
    assert sample_std == pytest.approx(std, rel=0.02)


def _layer_samples(nn_, draws=40):
    weights, biases = [], []
    for _ in range(draws):
        linear, conv = nn_.Linear(48, 16), nn_.Conv2d(3, 8, 3)
        weights.append(np.concatenate([linear.weight.detach().numpy().ravel() * math.sqrt(48),
                                       conv.weight.detach().numpy().ravel() * math.sqrt(27)]))
        biases.append(np.concatenate([linear.bias.detach().numpy() * math.sqrt(48),
                                      conv.bias.detach().numpy() * math.sqrt(27)]))
    return np.concatenate(weights), np.concatenate(biases)


def test_layer_defaults_match_pytorch_statistics(torch_ref):
    # Scaled by sqrt(fan_in), PyTorch's defaults are U(-1, 1) for weights and biases alike.
    for ours, theirs in zip(_layer_samples(nn), _layer_samples(torch_ref.nn)):
        o, t = _moments(ours), _moments(theirs)
        assert -1 <= o[0] and o[1] <= 1
        assert o[0] == pytest.approx(t[0], abs=0.02) and o[1] == pytest.approx(t[1], abs=0.02)
        assert o[2] == pytest.approx(t[2], abs=0.05)
        assert o[3] == pytest.approx(t[3], rel=0.05)


def test_initialisers_use_the_generator():
    a = init.uniform_(mt.empty(5), generator=mt.Generator().manual_seed(1)).tolist()
    b = init.uniform_(mt.empty(5), generator=mt.Generator().manual_seed(1)).tolist()
    assert a == b


def test_meta_initialisation_is_free():
    t = mt.empty(10**6, 10**6, device="meta")
    assert init.kaiming_uniform_(t, a=math.sqrt(5)) is t

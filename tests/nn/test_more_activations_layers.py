"""GLU, Softmin, Hardshrink, Softshrink, Tanhshrink, Threshold, CELU and RReLU as layers:
reprs, defaults, float64 values and gradients against PyTorch's layers, train/eval."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from tests.ops.harness import Arg, Case, three_way_tests

LAYERS = [
    ("GLU", (), {}), ("GLU", (0,), {}), ("Softmin", (1,), {}), ("Softmin", (), {"dim": 0}),
    ("Hardshrink", (), {}), ("Hardshrink", (0.3,), {}), ("Softshrink", (), {}),
    ("Softshrink", (), {"lambd": 1}), ("Tanhshrink", (), {}),
    ("Threshold", (0.1, 20), {}), ("Threshold", (0.1, 20.0, True), {}),
    ("CELU", (), {}), ("CELU", (2.0,), {"inplace": True}), ("CELU", (0.5,), {}),
    ("RReLU", (), {}), ("RReLU", (0.1, 0.3, True), {}), ("RReLU", (), {"upper": 0.5}),
]


def _ids():
    return [f"{name}{args}{kwargs}" for name, args, kwargs in LAYERS]


@pytest.mark.parametrize("name, args, kwargs", LAYERS, ids=_ids())
def test_repr_equals_pytorchs(name, args, kwargs, torch_ref):
    assert repr(getattr(nn, name)(*args, **kwargs)) == repr(
        getattr(torch_ref.nn, name)(*args, **kwargs))


@pytest.mark.parametrize("name, args, kwargs", LAYERS, ids=_ids())
def test_float64_values_and_gradients_equal_pytorchs_layer(name, args, kwargs, torch_ref,
                                                           device):
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch_ref.nn, name)(*args,
                                                                                   **kwargs)
    ours.eval(), theirs.eval()  # RReLU: the fixed mean slope; the others ignore the mode
    values = np.random.default_rng(0).standard_normal((4, 6)) * 2
    x = mt.tensor(values, device=device, requires_grad=True)
    x_ref = torch_ref.tensor(values, requires_grad=True)
    out = ours(x)
    ref = theirs(x_ref * 1)  # PyTorch's inplace=True writes into its input: not a leaf's
    assert out.dtype is mt.float64 and tuple(out.shape) == tuple(ref.shape)
    if not getattr(ours, "inplace", False):  # PyTorch's in-place nodes are named ...1
        assert out.grad_fn.name() == ref.grad_fn.name()
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-12,
                               atol=1e-15)
    upstream = np.random.default_rng(1).standard_normal(tuple(ref.shape))
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch_ref.tensor(upstream))
    np.testing.assert_allclose(x.grad.cpu().numpy(), x_ref.grad.numpy(), rtol=1e-12,
                               atol=1e-15)


def test_constructor_arguments_are_stored_as_in_pytorch():
    layer = nn.RReLU()
    assert (layer.lower, layer.upper, layer.inplace) == (1 / 8, 1 / 3, False)
    assert nn.GLU().dim == -1 and nn.Softmin().dim is None
    assert nn.Softshrink().lambd == 0.5 and nn.Hardshrink(0.2).lambd == 0.2
    threshold = nn.Threshold(0.5, -1.0, inplace=True)
    assert (threshold.threshold, threshold.value, threshold.inplace) == (0.5, -1.0, True)
    assert (nn.CELU().alpha, nn.CELU().inplace) == (1.0, False)
    for layer in (nn.GLU(), nn.Softmin(1), nn.Hardshrink(), nn.Softshrink(), nn.Tanhshrink(),
                  nn.Threshold(0, 0), nn.CELU(), nn.RReLU()):
        assert list(layer.parameters()) == [] and list(layer.buffers()) == []


def test_rrelu_layer_is_random_while_training_and_fixed_in_eval(device):
    layer = nn.RReLU(0.1, 0.3)
    x = -mt.ones(1000, device=device)
    slopes = -layer(x).cpu().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and len(np.unique(slopes)) > 900
    layer.eval()
    np.testing.assert_allclose(layer(x).cpu().numpy(), -0.2)


def test_arguments_are_checked_when_called_as_in_pytorch():
    layer = nn.RReLU(0.5, 0.2)  # accepted, as PyTorch accepts it
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal"):
        layer(mt.ones(2))
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        nn.Softshrink(-1)(mt.ones(2))
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):
        nn.CELU(0.0)(mt.ones(2))
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        nn.GLU()(mt.ones(2, 3))


def test_softmin_layer_without_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        out = nn.Softmin()(mt.ones(2, 4))
    np.testing.assert_allclose(out.numpy(), 0.25)


CASES = [
    Case("stack", lambda T, F, a: T.nn.Sequential(
        T.nn.GLU(1), T.nn.CELU(0.7), T.nn.Threshold(-0.1, 0.5), T.nn.Hardshrink(0.2),
        T.nn.Softshrink(0.1), T.nn.Tanhshrink(), T.nn.Softmin(1))(a), [Arg((2, 6, 3))]),
    Case("rrelu_eval", lambda T, F, a: T.nn.RReLU(0.2, 0.4).eval()(a), [Arg((3, 4), "away0")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)

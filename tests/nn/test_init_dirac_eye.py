"""nn.init.eye_ and nn.init.dirac_ against PyTorch: values for every kernel rank, groups
and channel counts, dtypes, requires_grad kept and no graph, identity convolutions, meta,
and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.nn import init


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2), (0, 3), (1, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_eye_like_torch(device, torch_ref, shape, dtype):
    w = mt.full(shape, 7, dtype=getattr(mt, dtype), device=device)
    assert init.eye_(w) is w
    expected = torch_ref.nn.init.eye_(torch_ref.empty(shape, dtype=getattr(torch_ref, dtype)))
    np.testing.assert_array_equal(w.cpu().numpy(), expected.numpy())
    assert w.dtype == getattr(mt, dtype)


def test_eye_keeps_requires_grad_without_graph(device):
    w = mt.nn.Parameter(mt.randn(3, 4, device=device))
    init.eye_(w)
    assert w.requires_grad and w.grad_fn is None and w.is_leaf
    assert w.sum().item() == 3.0


def test_eye_makes_linear_an_identity(device):
    layer = mt.nn.Linear(4, 4, bias=False).to(device)
    init.eye_(layer.weight)
    x = mt.randn(2, 4, device=device)
    assert mt.equal(layer(x), x)


def test_eye_on_meta():
    w = mt.empty(2, 3, device="meta")
    assert init.eye_(w) is w and w.is_meta


@pytest.mark.parametrize("shape", [(3,), (2, 3, 4), ()])
def test_eye_refuses_other_ranks(shape):
    with pytest.raises(ValueError, match="^Only tensors with 2 dimensions are supported$"):
        init.eye_(mt.empty(shape))


DIRAC_CASES = [
    ((3, 3, 5), 1), ((4, 2, 3), 1), ((2, 4, 3), 1), ((4, 2, 3), 2), ((6, 1, 4), 3),
    ((3, 3, 3, 3), 1), ((4, 2, 2, 5), 2), ((6, 4, 3, 3), 3), ((2, 2, 1, 1), 1),
    ((3, 3, 3, 3, 3), 1), ((4, 1, 2, 3, 4), 2), ((0, 2, 3), 1), ((3, 0, 3, 3), 1),
]


@pytest.mark.parametrize("shape, groups", DIRAC_CASES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirac_like_torch(device, torch_ref, shape, groups, dtype):
    w = mt.full(shape, 7.0, dtype=getattr(mt, dtype), device=device)
    assert init.dirac_(w, groups) is w
    expected = torch_ref.nn.init.dirac_(torch_ref.empty(shape, dtype=getattr(torch_ref, dtype)),
                                        groups)
    np.testing.assert_array_equal(w.cpu().numpy(), expected.numpy())


def test_dirac_makes_conv_an_identity(device):
    # (grouped convolutions are not supported here: the groups are checked against torch)
    conv = mt.nn.Conv2d(4, 4, 3, padding=1, bias=False).to(device)
    init.dirac_(conv.weight)
    x = mt.randn(2, 4, 5, 5, device=device)
    np.testing.assert_allclose(conv(x).detach().cpu().numpy(), x.cpu().numpy(), atol=1e-6)


def test_dirac_keeps_requires_grad_without_graph(device):
    w = mt.nn.Parameter(mt.randn(2, 2, 3, 3, device=device))
    init.dirac_(w)
    assert w.requires_grad and w.grad_fn is None and w.is_leaf


def test_dirac_on_meta_checks_then_does_nothing():
    w = mt.empty(4, 2, 3, device="meta")
    assert init.dirac_(w, 2) is w
    with pytest.raises(ValueError, match="divisible by groups"):
        init.dirac_(w, 3)


@pytest.mark.parametrize("shape, groups, error, message", [
    ((2, 3), 1, ValueError, "^Only tensors with 3, 4, or 5 dimensions are supported$"),
    ((2, 3, 1, 1, 1, 1), 1, ValueError, "^Only tensors with 3, 4, or 5 dimensions"),
    ((3, 2, 3), 2, ValueError, "^dim 0 must be divisible by groups$"),
    ((2, 2, 0), 1, IndexError, "out of"),
])
def test_dirac_errors_like_torch(torch_ref, shape, groups, error, message):
    with pytest.raises(error):
        torch_ref.nn.init.dirac_(torch_ref.empty(shape), groups)
    with pytest.raises(error, match=message):
        init.dirac_(mt.empty(shape), groups)


@pytest.mark.parametrize("groups", [0, -2])
def test_dirac_refuses_groups_below_one(groups):
    # PyTorch divides by zero (0) or silently leaves zeros (-2): docs/differences.md
    with pytest.raises(ValueError, match=f"groups must be a positive .* got {groups}"):
        init.dirac_(mt.empty(4, 2, 3), groups)


def test_names_in_nn_init():
    assert mt.nn.init.dirac_ is init.dirac_ and mt.nn.init.eye_ is init.eye_

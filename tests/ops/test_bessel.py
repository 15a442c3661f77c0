"""The modified Bessel functions i0, i0e, i1, i1e: values and gradients three ways, the
spellings (torch.i0, torch.special.*, Tensor.i0, i0_), dtypes, special values, the gradient
at 0, and gradients of gradients against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests

S = (3, 4)
FUNCTIONS = ("i0", "i0e", "i1", "i1e")


def _special(T, name):
    return getattr(T.special, name)


CASES = [
    Case("i0", lambda T, F, a: T.i0(a * 3), [Arg(S)]),
    Case("i0_method", lambda T, F, a: (a * 8).i0(), [Arg((5,))]),
    Case("special_i0_0d", lambda T, F, a: T.special.i0(a), [Arg(())]),
    Case("i0e", lambda T, F, a: T.special.i0e(a * 10), [Arg(S, "away0")]),
    Case("i1", lambda T, F, a: T.special.i1(a * 3), [Arg(S)]),
    Case("i1_wide", lambda T, F, a: T.special.i1(a * 4), [Arg((2, 3), "away0")]),
    Case("i1e", lambda T, F, a: T.special.i1e(a * 10), [Arg(S, "away0")]),
    Case("i1e_empty", lambda T, F, a: T.special.i1e(a), [Arg((0, 3))]),
    Case("i0e_batch", lambda T, F, a: T.special.i0e(a * 25), [Arg((2, 3, 2), "away0")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, rtol=2e-5)

# wide grids: the series (|x| < 20), the asymptotic expansion and the switch between them
GRID = np.concatenate([np.linspace(-60, 60, 1201), np.linspace(19.9, 20.1, 41),
                       [0.0, -0.0, 1e-30, -1e-8, 700.0, -700.0]])


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_equal_pytorchs_over_the_real_line(name, dtype, device):
    ours = _special(mt, name)(mt.tensor(GRID, dtype=getattr(mt, dtype), device=device))
    theirs = _special(torch, name)(torch.tensor(GRID, dtype=getattr(torch, dtype)))
    assert ours.dtype is getattr(mt, dtype) and ours.device == tensor_device(device)
    rtol = 4e-15 if dtype == "float64" else 2e-6
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=rtol, atol=0)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_special_values_as_pytorch(name, device):
    values = [0.0, -0.0, float("inf"), -float("inf"), float("nan"), 711.0, -711.0]
    ours = _special(mt, name)(mt.tensor(values, dtype=mt.float64, device=device)).cpu().numpy()
    theirs = _special(torch, name)(torch.tensor(values, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=0)  # NaN where PyTorch's is
    numbers = ~np.isnan(theirs)
    np.testing.assert_array_equal(np.signbit(ours[numbers]), np.signbit(theirs[numbers]))


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("dtype", ["int64", "bool", "float16"])
def test_dtypes_as_pytorch(name, dtype, device):
    data = [0, 1, 1] if dtype == "bool" else [0, 1, 3]
    ours = _special(mt, name)(mt.tensor(data, dtype=getattr(mt, dtype), device=device))
    theirs = _special(torch, name)(torch.tensor(data, dtype=getattr(torch, dtype)))
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.cpu().float().numpy(), theirs.float().numpy(), rtol=1e-3)


def test_spellings(device):
    x = mt.tensor([0.5, -1.5, 4.0], device=device)
    expected = mt.special.i0(x).cpu().numpy()
    for value in (mt.i0(x), x.i0(), mt.special.i0(input=x)):
        np.testing.assert_array_equal(value.cpu().numpy(), expected)
    y = x.clone()
    assert y.i0_() is y
    np.testing.assert_array_equal(y.cpu().numpy(), expected)
    z = x.clone()
    assert mt.i0_(z) is z
    np.testing.assert_array_equal(z.cpu().numpy(), expected)
    out = mt.empty(3, device=device)
    assert mt.special.i1e(x, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), mt.special.i1e(x).cpu().numpy())


def test_in_place_refuses_an_integer_tensor():
    with pytest.raises(RuntimeError, match="i0_"):
        mt.tensor([1, 2]).i0_()
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).i0_()


@pytest.mark.parametrize("name", FUNCTIONS)
def test_gradient_at_zero_and_at_epsilon_as_pytorch(name, device):
    values = [0.0, -0.0, 1e-9, -2e-16, 1e-300, 3.0]
    x = mt.tensor(values, dtype=mt.float64, device=device, requires_grad=True)
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    _special(mt, name)(x).sum().backward()
    _special(torch, name)(t).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-12, atol=0)


def _second_order(lib, name, values, device):
    kwargs = {"device": device} if lib is mt else {}
    x = lib.tensor(values, dtype=lib.float64, requires_grad=True, **kwargs)
    y = (_special(lib, name)(x) * lib.tensor(np.linspace(1, 2, len(values)), **kwargs)).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    (h,) = lib.autograd.grad((g * g).sum(), x)
    return g.detach().cpu().numpy(), h.cpu().numpy()


@pytest.mark.parametrize("name", FUNCTIONS)
def test_gradients_of_gradients_equal_pytorchs(name, device):
    values = [0.0, 1e-20, -0.7, 1.3, -5.0, 19.5, 25.0, -40.0]
    for ours, theirs in zip(_second_order(mt, name, values, device),
                            _second_order(torch, name, values, None)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-11, atol=1e-300)


def test_third_derivative_of_i0_is_i1_second_derivative():
    x = mt.tensor([0.3, -2.0, 7.0], dtype=mt.float64, requires_grad=True)
    (g,) = mt.autograd.grad(mt.i0(x).sum(), x, create_graph=True)
    (h,) = mt.autograd.grad(g.sum(), x, create_graph=True)
    (k,) = mt.autograd.grad(h.sum(), x)
    t = torch.tensor([0.3, -2.0, 7.0], dtype=torch.float64, requires_grad=True)
    (tg,) = torch.autograd.grad(torch.i0(t).sum(), t, create_graph=True)
    (th,) = torch.autograd.grad(tg.sum(), t, create_graph=True)
    (tk,) = torch.autograd.grad(th.sum(), t)
    np.testing.assert_allclose(k.numpy(), tk.numpy(), rtol=1e-12)

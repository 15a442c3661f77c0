"""Gradients of gradients through products and running products, logcumsumexp, the binary
cross-entropies, affine_grid, rounded division and remainders, rounding, the float-part
ops, the band activations, glu, prelu, rrelu and sinc (their ``backward_graph``). Each case
compares, in float64, the first-order gradient made with ``create_graph=True`` and the
gradient of its squared sum with PyTorch's; a few Hessian-vector products are checked
against finite differences, and the places where the data picks the formula (zeros in a
product) are tested one by one."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.autograd.second_order import (
    assert_graph_and_array_gradients_agree,
    assert_hvp_matches_finite_differences,
    assert_second_order_equal_pytorchs,
    seeded_arrays,
)

# short local names: the case tables call them on nearly every line
from tests.autograd.second_order import constant_on as _on
from tests.autograd.second_order import functional as _f
from tests.devices import tensor_device


def _with_zeros(x, *positions):
    """``x`` with exact zeros at ``positions`` (flat indices), kept in the graph."""
    lib = mt if isinstance(x, mt.Tensor) else torch
    mask = np.ones(x.numel())
    mask[list(positions)] = 0
    return x * _on(lib, str(x.device) if lib is mt else None, mask.reshape(tuple(x.shape)))


_WEIGHTS = np.random.default_rng(5).uniform(0.5, 2.0, (3, 4))
_POS_WEIGHTS = np.random.default_rng(6).uniform(0.5, 2.0, (4,))
_SIGNED = [[1.0, 0.5, -2.0, 3.0]] * 3
_SIGNS = [[1.0, -1.0, -1.0, 1.0], [-1.0, 1.0, 1.0, 1.0], [1.0, 1.0, -1.0, -1.0]]


def _probabilities(x):
    return x.sigmoid() * 0.8 + 0.1  # inside (0.1, 0.9): the clamps stay out of the way


# name -> (f(lib, device, *inputs) -> scalar, input shapes). Inputs are standard normal.
CASES = {
    # -- products ------------------------------------------------------------------------
    "prod_without_zeros": (lambda L, d, x: x.prod() ** 2 + (x.prod(1) ** 2).sum()
                           + (x.prod(0, keepdim=True) ** 3).sum() + (x.prod(-1) * x[:, 0]).sum()
                           + x[0, 0].prod() ** 3, [(3, 4)]),
    "prod_one_zero": (lambda L, d, x: _with_zeros(x, 6).prod() ** 2
                      + (_with_zeros(x, 6) ** 2).sum(), [(3, 4)]),
    "prod_several_zeros": (lambda L, d, x: _with_zeros(x, 1, 6).prod() * x.sum()
                           + (_with_zeros(x, 1, 6) ** 2).sum(), [(3, 4)]),
    "prod_dim_with_zeros": (lambda L, d, x: (_with_zeros(x, 1, 6, 7).prod(1) ** 2).sum()
                            + (_with_zeros(x, 1, 6, 7).prod(0) * x[0]).sum()
                            + (_with_zeros(x, 1).prod(1, keepdim=True) ** 3).sum(), [(3, 4)]),
    "cumprod": (lambda L, d, x: (x.cumprod(1) ** 2).sum() + (L.cumprod(x, 0) ** 3).sum()
                + (x.cumprod(-1) * _on(L, d, _SIGNED)).sum(), [(3, 4)]),
    "cumprod_with_zeros": (lambda L, d, x: (_with_zeros(x, 1, 6, 7).cumprod(1) ** 2).sum()
                           + (_with_zeros(x, 1, 6, 7).cumprod(0) ** 3).sum(), [(3, 4)]),
    "cumprod_3d": (lambda L, d, x: (_with_zeros(x, 3).cumprod(1) ** 2).sum()
                   + (x.cumprod(2) ** 2).sum() + (x[0, :1].cumprod(0) ** 3).sum(), [(2, 3, 2)]),
    "logcumsumexp": (lambda L, d, x: (x.logcumsumexp(1) ** 2).sum()
                     + (L.logcumsumexp(x * 3, 0) ** 3).sum()
                     + (x.logcumsumexp(-1) * _on(L, d, _SIGNED)).sum(), [(3, 4)]),
    # -- losses, affine_grid ---------------------------------------------------------------
    "binary_cross_entropy": (
        lambda L, d, x, t: _f(L).binary_cross_entropy(_probabilities(x), _probabilities(t))
        + _f(L).binary_cross_entropy(_probabilities(x), _probabilities(t),
                                     weight=_on(L, d, _WEIGHTS), reduction="sum")
        + (_f(L).binary_cross_entropy(_probabilities(x), _probabilities(t),
                                      reduction="none") ** 2).sum(), [(3, 4), (3, 4)]),
    "binary_cross_entropy_with_logits": (
        lambda L, d, x, t: _f(L).binary_cross_entropy_with_logits(x, t.sigmoid())
        + _f(L).binary_cross_entropy_with_logits(x * 3, t.sigmoid(), weight=_on(L, d, _WEIGHTS),
                                                 pos_weight=_on(L, d, _POS_WEIGHTS),
                                                 reduction="sum")
        + (_f(L).binary_cross_entropy_with_logits(x, t, pos_weight=_on(L, d, _POS_WEIGHTS),
                                                  reduction="none") ** 2).sum(),
        [(3, 4), (3, 4)]),
    "affine_grid": (lambda L, d, a, b: (_f(L).affine_grid(a, (2, 1, 3, 4), align_corners=False)
                                        ** 3).sum()
                    + (_f(L).affine_grid(b, (2, 1, 2, 3, 2), align_corners=True) ** 3).sum(),
                    [(2, 2, 3), (2, 3, 4)]),
    # -- division, rounding, float parts ---------------------------------------------------
    "rounded_division": (lambda L, d, x, y: (L.div(x, y, rounding_mode="floor") * x).sum()
                         + (L.div(x, 0.5, rounding_mode="trunc") * y).sum()
                         + (L.remainder(x * 2, y) ** 3).sum() + ((x * 2) % 0.7 ** 3).sum()
                         + (L.fmod(x * 2, y) ** 3).sum() + (L.fmod(x * 2, y[0]) ** 3).sum(),
                         [(3, 4), (3, 4)]),
    "rounding": (lambda L, d, x: (x.floor() * x + x.ceil() * x + x.round() * x
                                  + x.round(decimals=1) * x + x.trunc() * x + x.sign() * x
                                  + L.sgn(x) * x + (x * 2).frac() ** 3).sum(), [(3, 4)]),
    "fmax_fmin_nan_to_num": (lambda L, d, x, y: (L.fmax(x, y) ** 3).sum()
                             + (L.fmin(x, y[1]) ** 3).sum()
                             + (L.nan_to_num(x / (y > 0).to(x.dtype), posinf=2.0) ** 3).sum(),
                             [(3, 4), (3, 4)]),
    # -- activations ---------------------------------------------------------------------
    "band_activations": (lambda L, d, x: (_f(L).hardshrink(x, 0.5) ** 3
                                          + _f(L).softshrink(x, 0.7) ** 3
                                          + _f(L).threshold(x, 0.2, -1.0) ** 3
                                          + (_f(L).hardshrink(x, 0.5) + _f(L).softshrink(x, 0.7)
                                             + _f(L).threshold(x, 0.2, -1.0)) * x).sum(),
                         [(3, 4)]),
    "glu": (lambda L, d, x: (_f(L).glu(x, 1) ** 3).sum() + (_f(L).glu(x, 0) ** 2).sum(),
            [(4, 6)]),
    "prelu": (lambda L, d, x, w: (_f(L).prelu(x, w[:2]) ** 3).sum()
              + (_f(L).prelu(x, w[2:]) ** 3).sum() + (_f(L).prelu(x[0, 0], w[2:]) ** 3).sum(),
              [(3, 2, 2), (3,)]),
    "rrelu_eval": (lambda L, d, x: (_f(L).rrelu(x, 0.1, 0.3) ** 3).sum(), [(3, 4)]),
    "sinc": (lambda L, d, x: (L.sinc(x) ** 2).sum() + (x.sinc() * x).sum(), [(3, 4)]),
    # -- soft margin, cosine similarity ----------------------------------------------------
    "soft_margin_loss": (lambda L, d, x: _f(L).soft_margin_loss(x, _on(L, d, _SIGNS))
                         + _f(L).soft_margin_loss(x * x, _on(L, d, _SIGNS[0]), reduction="sum")
                         + (_f(L).soft_margin_loss(x, _on(L, d, _SIGNS), reduction="none")
                            ** 2).sum(), [(3, 4)]),
    "cosine_similarity": (lambda L, d, x, y: (_f(L).cosine_similarity(x, y) ** 2).sum()
                          + (_f(L).cosine_similarity(x, y[0], dim=0) ** 3).sum()
                          + _f(L).cosine_similarity(x[0], y[1], dim=0) ** 2
                          + (_f(L).cosine_similarity(x * 1e-9, y, eps=1e-6) ** 2).sum(),
                          [(3, 4), (3, 4)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_gradients_equal_pytorchs(name, device):
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    assert_second_order_equal_pytorchs(fn, arrays, device)


@pytest.mark.parametrize("name", ["prod_without_zeros", "prod_one_zero", "prod_dim_with_zeros",
                                  "cumprod", "cumprod_with_zeros", "logcumsumexp",
                                  "binary_cross_entropy", "binary_cross_entropy_with_logits",
                                  "glu", "prelu", "sinc", "soft_margin_loss",
                                  "cosine_similarity"])
def test_hessian_vector_products_match_finite_differences(name):
    """``d/dx <grad f(x), v>`` against ``(grad f(x + eps v) - grad f(x - eps v)) / 2 eps``:
    independent of PyTorch."""
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    directions = [np.random.default_rng(7).standard_normal(shape) for shape in shapes]

    assert_hvp_matches_finite_differences(fn, arrays, directions, atol=1e-6)


@pytest.mark.parametrize("name", list(CASES))
def test_first_order_gradients_are_the_same_with_and_without_create_graph(name):
    """The graph formula (``backward_graph``) and the array one (``backward``) agree."""
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    assert_graph_and_array_gradients_agree(fn, arrays, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("values", [[[2.0, 0.0], [0.0, 3.0]], [[0.0, 0.0], [0.0, 3.0]],
                                    [[2.0, 0.0], [0.0, math.inf]]])
def test_product_of_everything_with_several_zeros_is_differentiated_exactly(values, device):
    """With two zeros the gradient is 0 but its derivative is not (the product of the two
    others); PyTorch's graph gives that, and NaN with an inf, as ours."""
    results = []
    for lib in (mt, torch):
        kwargs = {"device": device} if lib is mt else {}
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True, **kwargs)
        (g,) = lib.autograd.grad(x.prod(), x, create_graph=True)
        (h,) = lib.autograd.grad((g * lib.arange(1.0, 5.0, dtype=lib.float64, **kwargs)
                                  .reshape(2, 2)).sum(), x)
        results.append((g.detach().cpu().numpy(), h.cpu().numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


def test_sinc_second_derivative_at_zero_is_exact(device):
    """PyTorch's formula gives NaN at 0 (see docs/differences.md); sinc''(0) = -pi^2 / 3,
    and the fourth derivative there is pi^4 / 5."""
    x = mt.tensor([0.0, 0.5], dtype=mt.float64, device=device, requires_grad=True)
    (g,) = mt.autograd.grad(mt.sinc(x).sum(), x, create_graph=True)
    (h,) = mt.autograd.grad(g.sum(), x, create_graph=True)
    (third,) = mt.autograd.grad(h.sum(), x, create_graph=True)
    (fourth,) = mt.autograd.grad(third.sum(), x)
    assert g.detach().cpu().numpy()[0] == 0
    np.testing.assert_allclose(h.detach().cpu().numpy()[0], -math.pi ** 2 / 3, rtol=1e-14)
    assert third.detach().cpu().numpy()[0] == 0
    np.testing.assert_allclose(fourth.cpu().numpy()[0], math.pi ** 4 / 5, rtol=1e-14)
    t = torch.tensor([0.0, 0.5], dtype=torch.float64, requires_grad=True)
    (tg,) = torch.autograd.grad(torch.sinc(t).sum(), t, create_graph=True)
    (th,) = torch.autograd.grad(tg.sum(), t)
    np.testing.assert_allclose(h.detach().cpu().numpy()[1], th.numpy()[1], rtol=1e-12)


def test_rrelu_training_second_derivative_uses_each_elements_slope(device):
    """The noise differs from PyTorch's draw: checked against the closed form instead.
    For ``f = sum(rrelu(x)^3) = sum(s^3 x^3)``, ``d/dx sum(g^2) = 36 s^6 x^3``."""
    x = mt.tensor(seeded_arrays("rrelu", [(3, 4)])[0], device=device, requires_grad=True)
    out = _f(mt).rrelu(x, 0.1, 0.3, training=True)
    (g,) = mt.autograd.grad((out ** 3).sum(), x, create_graph=True)
    (h,) = mt.autograd.grad((g * g).sum(), x)
    xs = x.detach().cpu().numpy()
    slopes = out.detach().cpu().numpy() / xs
    assert ((slopes[xs < 0] >= 0.1) & (slopes[xs < 0] <= 0.3)).all()
    np.testing.assert_allclose(h.cpu().numpy(), 36 * slopes ** 6 * xs ** 3, rtol=1e-12)


@pytest.mark.parametrize("name", ["floor_divide", "scalar_remainder", "heaviside"])
def test_ops_without_a_derivative_still_refuse_under_create_graph(name):
    fns = {"floor_divide": lambda L, x: L.floor_divide(x, 0.3),
           "scalar_remainder": lambda L, x: 2.0 % x,
           "heaviside": lambda L, x: L.heaviside(x, x)}
    messages = []
    for lib in (mt, torch):
        x = lib.tensor([0.5, -1.5], dtype=lib.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="derivative for aten::") as error:
            lib.autograd.grad(fns[name](lib, x).sum(), x, create_graph=True)
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_zero_gradients_of_piecewise_constant_ops_have_no_graph(device):
    """As PyTorch's ``zeros_like``: the gradient through floor is a constant zero, and a
    second backward through a graph that uses it works."""
    x = mt.tensor([0.5, -1.5], dtype=mt.float64, device=device, requires_grad=True)
    (g,) = mt.autograd.grad(x.floor().sum() + mt.div(x, 2, rounding_mode="floor").sum(), x,
                            create_graph=True)
    assert not g.requires_grad and (g.cpu().numpy() == 0).all()
    (g,) = mt.autograd.grad((x.ceil() * x ** 2).sum(), x, create_graph=True)
    (h,) = mt.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(h.cpu().numpy(), 2 * np.ceil([0.5, -1.5]))
    assert tensor_device(device) == h.device


def test_float32_gradients_keep_their_dtype(device):
    x = mt.randn(3, 4, device=device, requires_grad=True)
    target = mt.rand(3, 4, dtype=mt.float64, device=device)
    y = (_f(mt).binary_cross_entropy_with_logits(x, target) + x.cumprod(1).sum()
         + x.logcumsumexp(0).sum() + x.prod() + _f(mt).glu(x, 1).sum())
    (g,) = mt.autograd.grad(y, x, create_graph=True)
    (h,) = mt.autograd.grad(g.sum(), x)
    assert g.dtype == h.dtype == mt.float32


def test_cosine_similarity_of_a_zero_vector_has_finite_second_derivatives(device):
    x = mt.tensor([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]], dtype=mt.float64, device=device,
                  requires_grad=True)
    y = mt.tensor([[1.0, -1.0, 0.5], [0.5, 1.0, 3.0]], dtype=mt.float64, device=device,
                  requires_grad=True)
    gx, gy = mt.autograd.grad(_f(mt).cosine_similarity(x, y).sum(), [x, y], create_graph=True)
    hx, hy = mt.autograd.grad((gx * gx).sum() + (gy * gy).sum(), [x, y])
    assert all(np.isfinite(h.cpu().numpy()).all() for h in (hx, hy))
    (plain,) = mt.autograd.grad(_f(mt).cosine_similarity(x, y).sum(), x)
    np.testing.assert_allclose(gx.detach().cpu().numpy(), plain.cpu().numpy())


def test_on_meta_second_order_shapes():
    x = mt.empty(4, 3, device="meta", requires_grad=True)
    y = (x.prod(1) ** 2).sum() + x.cumprod(0).sum() + (x.logcumsumexp(1) ** 2).sum()
    (g,) = mt.autograd.grad(y, x, create_graph=True)
    (h,) = mt.autograd.grad((g ** 2).sum(), x)
    assert g.shape == h.shape == (4, 3)

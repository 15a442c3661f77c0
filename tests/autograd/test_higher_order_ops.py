"""Gradients of gradients through the common non-conv ops (their ``backward_graph``):
norms, activations, softmax and cross-entropy, views, trigonometric, exponential and
ternary ops, reductions and batched products. Each case compares, in float64, the
first-order gradient made with ``create_graph=True`` and the gradient of its squared sum
with PyTorch's; a few Hessian-vector products are checked against finite differences."""

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


def _hardsigmoid(lib, x):
    """PyTorch has no second derivative of ``hardsigmoid`` (it raises): its reference here
    is the same function composed, whose gradients agree away from the kinks."""
    if lib is torch:
        return (x + 3).clamp(0, 6) / 6
    return _f(lib).hardsigmoid(x)


def _penalty(lib, x, w):
    """The WGAN-GP pattern: the norm of a gradient, itself differentiated (twice here)."""
    (g,) = lib.autograd.grad(lib.tanh(x @ w.t()).sum(), x, create_graph=True)
    return ((g.norm(2, dim=1) - 1) ** 2).mean()


# name -> (f(lib, device, *inputs) -> scalar, input shapes). Inputs are standard normal;
# a case scales them itself where a branch needs wider values.
CASES = {
    # -- norms ---------------------------------------------------------------------------
    "norm_all": (lambda L, d, x: x.norm() ** 3, [(3, 4)]),
    "norm_dim": (lambda L, d, x: (x.norm(dim=1) ** 3).sum()
                 + (L.linalg.vector_norm(x, dim=(0,), keepdim=True) ** 2).sum(), [(3, 4)]),
    "norm_orders": (lambda L, d, x: (L.linalg.vector_norm(x, 3, dim=1) ** 2).sum()
                    + (L.linalg.vector_norm(x, 1.5) ** 3) + (x.norm(1, dim=0) ** 2).sum(),
                    [(3, 4)]),
    "norm_small_orders": (lambda L, d, x: (L.linalg.vector_norm(x, 0.5, dim=1) ** 2).sum()
                          + (L.linalg.vector_norm(x, -1.5, dim=0) ** 3).sum(), [(3, 4)]),
    "norm_extremes": (lambda L, d, x: (L.linalg.vector_norm(x * x, math.inf, dim=1) ** 2).sum()
                      + (L.linalg.vector_norm(x ** 3, -math.inf) ** 2)
                      + (L.linalg.vector_norm(x, 0) * x).sum(), [(3, 4)]),
    "gradient_penalty": (lambda L, d, x, w: _penalty(L, x, w), [(4, 3), (2, 3)]),
    # -- activations ---------------------------------------------------------------------
    "erf_gelu": (lambda L, d, x: (L.erf(x) * x).sum() + (_f(L).gelu(x * 2) ** 2).sum()
                 + (_f(L).gelu(x * 2, approximate="tanh") ** 2).sum(), [(3, 4)]),
    "silu_softplus": (lambda L, d, x: (_f(L).silu(x * 2) ** 2).sum()
                      + (_f(L).softplus(x) ** 2).sum()
                      + (_f(L).softplus(x * 2, beta=2, threshold=1.5) ** 2).sum(), [(3, 4)]),
    "elu_family": (lambda L, d, x: (_f(L).elu(x * 2, alpha=0.7) ** 2).sum()
                   + (_f(L).celu(x * 2, alpha=0.5) ** 2).sum() + (_f(L).selu(x * 2) ** 2).sum(),
                   [(3, 4)]),
    "logsigmoid_mish": (lambda L, d, x: (_f(L).logsigmoid(x * 3) ** 2).sum()
                        + (_f(L).mish(x * 2) ** 2).sum(), [(3, 4)]),
    "hard_activations": (lambda L, d, x: (_f(L).hardtanh(x * 2, -0.5, 0.7) ** 2).sum()
                         + (_f(L).relu6(x * 4) ** 2).sum()
                         + (_hardsigmoid(L, x * 4) ** 2).sum()
                         + (_f(L).hardswish(x * 4) ** 2).sum(), [(4, 5)]),
    # -- softmax and cross-entropy -------------------------------------------------------
    "softmax_dims": (lambda L, d, x: (_f(L).softmax(x, 0) ** 2).sum()
                     + (_f(L).softmax(x, -1) ** 3).sum() + (_f(L).log_softmax(x, 1) ** 2).sum(),
                     [(2, 3, 4)]),
    "cross_entropy_smoothed": (
        lambda L, d, x: _f(L).cross_entropy(x, _on(L, d, [0, 2, 1], L.int64),
                                            label_smoothing=0.2), [(3, 4)]),
    "cross_entropy_probabilities": (
        lambda L, d, x, t: _f(L).cross_entropy(x, _f(L).softmax(t, 1), label_smoothing=0.1)
        + _f(L).cross_entropy(x * 2, _f(L).softmax(t, 1), reduction="sum"),
        [(3, 4), (3, 4)]),
    # -- views, split, stack ---------------------------------------------------------------
    "views": (lambda L, d, x: (x.narrow(1, 1, 2) ** 3).sum() + (x.select(2, -1) ** 3).sum()
              + (x.movedim(0, -1).sin() * _weights(L, d, 3, 4, 2)).sum()
              + (x.unflatten(2, (2, 2)).cos() * _weights(L, d, 2, 3, 2, 2)).sum()
              + (x.mT ** 3 * _weights(L, d, 2, 4, 3)).sum(), [(2, 3, 4)]),
    "split_stack": (lambda L, d, x: sum(((p ** 3) * (i + 1)).sum()
                                        for i, p in enumerate(x.split([1, 2], dim=1)))
                    + sum((p.sin() * (i + 1)).sum() for i, p in enumerate(x.chunk(2, dim=0)))
                    + sum((p ** 3 * (i + 1)).sum() for i, p in enumerate(x.unbind(1)))
                    + (L.stack([x, x.sin()], dim=1) ** 3 * _weights(L, d, 4, 2, 3)).sum(),
                    [(4, 3)]),
    # -- trigonometric ---------------------------------------------------------------------
    "trigonometric": (lambda L, d, x: (L.tan(x * 0.5) ** 2 + L.asin(x * 0.3) ** 2
                                       + L.acos(x * 0.3) ** 2 + L.atan(x) ** 2
                                       + L.sinh(x) ** 2 + L.cosh(x) ** 2 + L.asinh(x) ** 2
                                       + L.acosh(x * x + 1.5) ** 2 + L.atanh(x * 0.3) ** 2
                                       + L.deg2rad(x) ** 3 + L.rad2deg(x * 0.01) ** 3).sum(),
                      [(3, 4)]),
    "atan2_hypot": (lambda L, d, x, y: (L.atan2(x, y) ** 2).sum() + (L.hypot(x, y) ** 3).sum()
                    + (L.atan2(x, y[0]) * x).sum(), [(3, 4), (3, 4)]),
    # -- exponential, ternary ----------------------------------------------------------------
    "exponential": (lambda L, d, x, y: (L.exp2(x) ** 2).sum() + (L.logaddexp(x, y) ** 2).sum()
                    + (L.logaddexp2(x, y[1]) ** 3).sum() + (L.xlogy(x, y * y + 0.5) ** 2).sum()
                    + (L.special.xlogy(x * x, 2.0) ** 2).sum()
                    + (L.logit(L.sigmoid(x)) ** 3).sum()
                    + (L.logit(L.sigmoid(x * 3), eps=0.1) ** 3).sum()
                    + (L.special.entr(x * x + 0.1) ** 2).sum(), [(3, 4), (3, 4)]),
    "ternary": (lambda L, d, a, b, w: (L.lerp(a, b, 0.3) ** 3).sum()
                + (L.lerp(a, b, 0.8) ** 3).sum() + (L.lerp(a, b[0], w) ** 3).sum()
                + (L.addcmul(a, b, w, value=0.5) ** 3).sum()
                + (L.addcdiv(a[0], b, w * w + 1, value=-2) ** 3).sum(), [(3, 4), (3, 4), (3, 4)]),
    # -- reductions, products ----------------------------------------------------------------
    "logsumexp_cumsum": (lambda L, d, x: (L.logsumexp(x, 1) ** 2).sum()
                         + L.logsumexp(x, (0, 2)).sin().sum()
                         + (L.logsumexp(x, 0, keepdim=True) ** 3).sum()
                         + (x.cumsum(1) ** 3).sum() + (L.cumsum(x, -1).sin()).sum()
                         + (x.flip(0, 2) ** 3 * _weights(L, d, 2, 3, 4)).sum(),
                         [(2, 3, 4)]),
    "batched_products": (lambda L, d, a, b, m, v, u: (L.bmm(a, b) ** 2).sum()
                         + (L.baddbmm(m, a, b, beta=0.5, alpha=2) ** 2).sum()
                         + (L.addbmm(m[0], a, b, alpha=0.5) ** 2).sum()
                         + (L.addmv(v, m[1].t(), u[:2], beta=2) ** 3).sum()
                         + (L.addr(m[0], u[:2], v) ** 3).sum() + L.vdot(u, u * u) ** 2,
                         [(2, 2, 3), (2, 3, 4), (2, 2, 4), (4,), (4,)]),
    "einsum": (lambda L, d, a, b, s: (L.einsum("bij,bjk->bik", a, b) ** 2).sum()
               + (L.einsum("ii->i", s) ** 3).sum() + (L.einsum("ij,k->ik", s, s[0]) ** 3).sum()
               + L.einsum("bij->", a) ** 2 + (L.einsum("...ij,jk", a, s) ** 3).sum()
               + (L.einsum("iji->j", b.permute(1, 0, 2)[:2, :, :2]) ** 3).sum(),
               [(2, 2, 3), (2, 3, 3), (3, 3)]),
    # -- normalisations and losses -----------------------------------------------------------
    "layer_and_rms_norm": (lambda L, d, x, w, b: (_f(L).layer_norm(x, (3, 4), w, b) ** 3).sum()
                           + (_f(L).layer_norm(x, (4,)) ** 3 * _weights(L, d, 2, 3, 4)).sum()
                           + (_f(L).rms_norm(x, (3, 4), w, eps=1e-6) ** 3).sum()
                           + (_f(L).rms_norm(x, (4,)) ** 3 * _weights(L, d, 2, 3, 4)).sum(),
                           [(2, 3, 4), (3, 4), (3, 4)]),
    # an input that is all normalised dims (no batch): the parameters' gradients sum nothing
    "layer_and_rms_norm_unbatched": (
        lambda L, d, x, w, b: (_f(L).layer_norm(x, (3, 4), w, b) ** 3).sum()
        + (_f(L).rms_norm(x, (3, 4), w) ** 3 * _weights(L, d, 3, 4)).sum(),
        [(3, 4), (3, 4), (3, 4)]),
    "group_and_batch_norm": (lambda L, d, x, w, b: (_f(L).group_norm(x, 2, w, b) ** 3).sum()
                             + (_f(L).group_norm(x, 4) ** 3 * _weights(L, d, 2, 4, 3)).sum()
                             + (_f(L).batch_norm(x, None, None, w, b, training=True) ** 3).sum()
                             + (_f(L).batch_norm(x, w.detach() * 0, (b * b).detach() + 1,
                                                 w) ** 3).sum()
                             + (_f(L).instance_norm(x) ** 3 * _weights(L, d, 2, 4, 3)).sum(),
                             [(2, 4, 3), (4,), (4,)]),
    "pointwise_losses": (lambda L, d, x, t: _f(L).l1_loss(x ** 3, t)
                         + _f(L).smooth_l1_loss(x ** 3, t, beta=0.5)
                         + _f(L).smooth_l1_loss(x ** 3, t * 2, reduction="sum")
                         + _f(L).huber_loss(x ** 3, t, delta=0.7, reduction="sum")
                         + _f(L).huber_loss(x * t, t, reduction="none").sum()
                         + _f(L).mse_loss(x ** 3, t), [(3, 4), (3, 4)]),
    "kl_div": (lambda L, d, x, t: _f(L).kl_div(_f(L).log_softmax(x, 1), _f(L).softmax(t, 1),
                                               reduction="batchmean")
               + _f(L).kl_div(x.sin(), t, reduction="sum", log_target=True)
               + _f(L).kl_div(x ** 3, _f(L).softmax(t, 1)[0], reduction="none").sum(),
               [(3, 4), (3, 4)]),
}


def _weights(lib, device, *shape):
    """A constant that tells the elements apart, so that a wrong layout shows."""
    return _on(lib, device, np.arange(1, math.prod(shape) + 1).reshape(shape) / 10)


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_gradients_equal_pytorchs(name, device):
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    assert_second_order_equal_pytorchs(fn, arrays, device)


@pytest.mark.parametrize("name", ["norm_dim", "norm_orders", "erf_gelu", "logsigmoid_mish",
                                  "elu_family", "softmax_dims"])
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


def test_float32_gradients_keep_their_dtype(device):
    x = mt.randn(3, 4, device=device, requires_grad=True)
    y = (_f(mt).gelu(x, approximate="tanh") + _f(mt).mish(x) + x.norm(dim=1, keepdim=True)
         + _f(mt).softplus(x, beta=2) + _f(mt).elu(x)).sum()
    (g,) = mt.autograd.grad(y, x, create_graph=True)
    (h,) = mt.autograd.grad(g.sum(), x)
    assert g.dtype == h.dtype == mt.float32


def test_vector_norm_of_zeros_has_finite_second_derivatives():
    """PyTorch defines the first derivative of a zero norm as 0; the second is 0 here too
    (PyTorch's own formula gives NaN for the 2-norm there: see docs/differences.md)."""
    x = mt.tensor([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]], dtype=mt.float64, requires_grad=True)
    (g,) = mt.autograd.grad(x.norm(dim=1).sum(), x, create_graph=True)
    (h,) = mt.autograd.grad((g * g).sum() + g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), [[0, 0, 0], [1 / 3, 2 / 3, 2 / 3]])
    assert np.isfinite(h.numpy()).all() and (h.numpy()[0] == 0).all()


def test_on_meta_second_order_shapes():
    x = mt.empty(4, 3, device="meta", requires_grad=True)
    (g,) = mt.autograd.grad((_f(mt).gelu(x).norm(dim=1) ** 2).sum(), x, create_graph=True)
    (h,) = mt.autograd.grad((g ** 2).sum(), x)
    assert g.shape == h.shape == (4, 3)

"""Gradients of gradients through the ops that select or move elements (their
``backward_graph``): gather and index_select, embedding, masked ops, scatter, index
updates, index_put, take/put, the extrema and order statistics, and the layout ops. Each
case compares, in float64, the first-order gradient made with ``create_graph=True`` and
the gradient of its squared sum with PyTorch's; a few Hessian-vector products are checked
against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.autograd.second_order import (
    assert_graph_and_array_gradients_agree,
    assert_hvp_matches_finite_differences,
    assert_second_order_equal_pytorchs,
    seeded_arrays,
)
from tests.autograd.selection_inputs import cube as _cube
from tests.autograd.selection_inputs import functional as _f
from tests.autograd.selection_inputs import long as _long
from tests.autograd.selection_inputs import mask as _mask

_MASK = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]

# name -> (f(lib, device, *inputs) -> scalar, input shapes)
CASES = {
    # -- indexing ------------------------------------------------------------------------
    "gather": (lambda L, d, x: _cube(L.gather(x, 1, _long(L, d, [[0, 0, 3], [2, 1, 2],
                                                                     [3, 3, 3]])), L, d)
               + _cube(x.gather(0, _long(L, d, [[2, 0], [2, 2]])), L, d)
               + _cube(L.gather(x, -1, _long(L, d, [[1], [0], [2]])), L, d), [(3, 4)]),
    "index_select": (lambda L, d, x, s: _cube(L.index_select(x, 1, _long(L, d, [3, 0, 3])), L, d)
                     + _cube(x.index_select(0, _long(L, d, [2, 2])), L, d)
                     + _cube(L.index_select(s, 0, _long(L, d, [0])), L, d),
                     [(3, 4), ()]),
    "embedding": (lambda L, d, w: _cube(_f(L).embedding(_long(L, d, [[0, 2, 2], [4, 1, 2]]), w),
                                        L, d)
                  + _cube(_f(L).embedding(_long(L, d, [3, 1, 1, 0]), w, padding_idx=1), L, d)
                  + _cube(_f(L).embedding(_long(L, d, [[2, 2, 3], [0, 2, 1]]), w,
                                          padding_idx=-5), L, d),
                  [(5, 3)]),
    "masked_fill": (lambda L, d, x, v: _cube(x.masked_fill(_mask(L, d, _MASK), 0.5), L, d)
                    + _cube(L.masked_fill(x, _mask(L, d, [True, False, False, True]), v), L, d)
                    + _cube(x[0].masked_fill(_mask(L, d, _MASK), v * 2), L, d),
                    [(3, 4), ()]),
    "masked_select_scatter": (
        lambda L, d, x, s: _cube(x.masked_select(_mask(L, d, _MASK)), L, d)
        + _cube(L.masked_select(x[1], _mask(L, d, _MASK)), L, d)
        + _cube(x.masked_scatter(_mask(L, d, _MASK), s), L, d)
        + _cube(x[0].masked_scatter(_mask(L, d, [[True], [False], [True]]), s), L, d),
        [(3, 4), (3, 3)]),
    "scatter": (lambda L, d, x, s, a: _cube(x.scatter(1, _long(L, d, [[0, 2], [3, 1], [1, 0]]),
                                                      s), L, d)
                + _cube(L.scatter_add(x, 0, _long(L, d, [[2, 0, 2], [2, 1, 0]]), a), L, d)
                + _cube(x.scatter(1, _long(L, d, [[1], [0], [3]]), 0.25), L, d),
                [(3, 4), (3, 2), (2, 3)]),
    "index_updates": (
        lambda L, d, x, s, v: _cube(x.index_add(0, _long(L, d, [2, 0, 2]), s, alpha=-1.5), L, d)
        + _cube(L.index_copy(x, 0, _long(L, d, [1, 2, 0]), s), L, d)
        + _cube(x.index_fill(1, _long(L, d, [3, 0, -1]), 0.5), L, d)
        + _cube(x.index_fill(1, _long(L, d, [1]), v), L, d),
        [(3, 4), (3, 4), ()]),
    "index_put": (
        lambda L, d, x, v, w: _cube(L.index_put(x, (_long(L, d, [0, 2, -1]),
                                                    _long(L, d, [1, 3, 1])), v), L, d)
        + _cube(x.index_put((_long(L, d, [2, 0, 2]),), w, accumulate=True), L, d)
        + _cube(x.index_put((_mask(L, d, _MASK),), v[:1]), L, d)
        + _cube(x.index_put((_mask(L, d, [True, False, True]), _long(L, d, [1, 0])), v[1:]),
                L, d),
        [(3, 4), (3,), (4,)]),
    "take_put": (
        lambda L, d, x, s: _cube(L.take(x, _long(L, d, [[0, 11], [-1, 5]])), L, d)
        + _cube(x.put(_long(L, d, [1, -1, 6]), s), L, d)
        + _cube(x.put(_long(L, d, [1, 1, 6]), s, accumulate=True), L, d),
        [(3, 4), (3,)]),
    # -- extrema and order statistics (``cat([x, x])`` makes ties, which share the gradient)
    "max_min_amax": (
        lambda L, d, x: L.cat([x, x], 1).max() ** 3 + _cube(L.cat([x, x], 0).amax(0), L, d)
        + _cube(x.amin((0, 1), keepdim=True), L, d) + _cube(x.max(1).values, L, d)
        + _cube(L.min(x, 0, keepdim=True)[0], L, d) + _cube(L.amax(x, -1, True), L, d)
        + L.cat([x, x]).min() ** 3, [(3, 4)]),
    "sort_topk": (lambda L, d, x, s: _cube(x.sort(1).values, L, d)
                  + _cube(L.sort(x, dim=0, descending=True, stable=True)[0], L, d)
                  + _cube(x.topk(2, 1).values, L, d)
                  + _cube(L.topk(x, 2, 0, largest=False)[0], L, d) + s.sort()[0] ** 3,
                  [(3, 4), ()]),
    "order_statistics": (lambda L, d, x: _cube(x.kthvalue(2, 1).values, L, d)
                         + _cube(L.median(x, 0)[0], L, d)
                         + _cube(L.nanmedian(x, 1, keepdim=True)[0], L, d)
                         + _cube(x.mode(1).values, L, d) + L.cat([x, x]).median() ** 3
                         + L.cat([x, x]).nanmedian() ** 3, [(3, 4)]),
    "cummax_cummin": (lambda L, d, x: _cube(x.cummax(1).values, L, d)
                      + _cube(L.cummin(x, 0)[0], L, d), [(3, 4)]),
    # -- layout ----------------------------------------------------------------------------
    "diag_trace": (lambda L, d, x, v: _cube(L.diag(x), L, d) + _cube(x.diag(1), L, d)
                   + _cube(L.diag(v, -1), L, d) + L.trace(x) ** 3 + (x[:, :3] ** 2).trace() ** 2,
                   [(3, 4), (3,)]),
    "diagonal_diag_embed": (lambda L, d, x: _cube(x.diagonal(1, 1, 2), L, d)
                            + _cube(L.diagonal(x, -1, 2, 0), L, d)
                            + _cube(L.diag_embed(x, 1, 0, 2), L, d)
                            + _cube(x.diag_embed(), L, d), [(2, 3, 4)]),
    "tril_triu": (lambda L, d, x: _cube(x.tril(), L, d) + _cube(L.triu(x, 1), L, d)
                  + _cube(L.tril(x, -1), L, d) + _cube(x.triu(-2), L, d), [(2, 3, 4)]),
    "roll_rot90_repeat": (lambda L, d, x: _cube(x.roll(1, 0), L, d)
                          + _cube(L.roll(x, (2, -1), (2, 1)), L, d) + _cube(x.roll(5), L, d)
                          + _cube(x.rot90(1, (1, 2)), L, d) + _cube(L.rot90(x, -3, (2, 0)), L, d)
                          + _cube(x.rot90(2), L, d) + _cube(x.repeat(2, 1, 3), L, d)
                          + _cube(x[0].repeat(2, 1, 1), L, d), [(2, 3, 4)]),
    "channel_shuffle": (lambda L, d, x: _cube(_f(L).channel_shuffle(x, 3), L, d)
                        + _cube(_f(L).channel_shuffle(x, 2), L, d), [(2, 6, 2)]),
    "view_scatters": (lambda L, d, x, s, r, c: _cube(L.diagonal_scatter(x, s, 1), L, d)
                      + _cube(x.select_scatter(r, 0, 1), L, d)
                      + _cube(L.slice_scatter(x, c, 1, 1, 4, 2), L, d), [(3, 4), (3,), (4,),
                                                                         (3, 2)]),
    "fold_unfold": (lambda L, d, x, c: _cube(_f(L).unfold(x, 2, dilation=(1, 2), padding=1,
                                                          stride=(2, 1)), L, d)
                    + _cube(_f(L).unfold(x[0], (2, 3)), L, d)
                    + _cube(_f(L).fold(c, (3, 4), 2), L, d)
                    + _cube(_f(L).fold(c[0], (4, 4), 2, stride=(2, 1)), L, d),
                    [(2, 2, 3, 4), (2, 8, 6)]),
}


# Checked against finite differences only: PyTorch's double backward of scatter and
# scatter_add fails when the index is smaller than src (it returns src's gradient in the
# index's shape).
FD_CASES = {
    "scatter_index_smaller_than_src": (
        lambda L, d, x, s: _cube(x.scatter(1, _long(L, d, [[0, 2], [3, 1], [1, 0]]), s), L, d)
        + _cube(L.scatter_add(x, 0, _long(L, d, [[2, 0], [2, 1]]), s), L, d),
        [(3, 4), (3, 3)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_gradients_equal_pytorchs(name, device):
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    assert_second_order_equal_pytorchs(fn, arrays, device)


@pytest.mark.parametrize("name", ["gather", "embedding", "scatter", "index_put",
                                  "max_min_amax", "sort_topk", "cummax_cummin", "diag_trace",
                                  "diagonal_diag_embed", "view_scatters", "fold_unfold"]
                         + list(FD_CASES))
def test_hessian_vector_products_match_finite_differences(name):
    """``d/dx <grad f(x), v>`` against ``(grad f(x + eps v) - grad f(x - eps v)) / 2 eps``:
    independent of PyTorch."""
    fn, shapes = {**CASES, **FD_CASES}[name]
    arrays = seeded_arrays(name, shapes)
    directions = [np.random.default_rng(7).standard_normal(shape) for shape in shapes]

    assert_hvp_matches_finite_differences(fn, arrays, directions, atol=1e-6)


@pytest.mark.parametrize("name", list(CASES) + list(FD_CASES))
def test_first_order_gradients_are_the_same_with_and_without_create_graph(name):
    """The graph formula (``backward_graph``) and the array one (``backward``) agree."""
    fn, shapes = {**CASES, **FD_CASES}[name]
    arrays = seeded_arrays(name, shapes)
    assert_graph_and_array_gradients_agree(fn, arrays, rtol=1e-12, atol=1e-14)


def test_embedding_scaled_by_frequency_differentiates_the_gradient_it_computed(device):
    """With ``scale_grad_by_freq`` the weight's gradient is linear in the output's gradient
    ``u`` (each pick divided by its index's count); differentiating it by ``u`` (the
    double-vjp) gives that map's adjoint, scaled alike. (PyTorch's double backward drops the
    scaling there: see docs/differences.md.)"""
    indices = mt.tensor([[2, 2, 3], [0, 2, 1]], device=device)
    w = mt.randn(5, 3, dtype=mt.float64, device=device, requires_grad=True)
    u = mt.randn(2, 3, 3, dtype=mt.float64, device=device, requires_grad=True)
    out = _f(mt).embedding(indices, w, padding_idx=1, scale_grad_by_freq=True)
    (gw,) = mt.autograd.grad(out, w, grad_outputs=u, create_graph=True)
    v = mt.randn(5, 3, dtype=mt.float64, device=device)
    (adjoint,) = mt.autograd.grad(gw, u, grad_outputs=v)
    counts = np.array([1.0, 1.0, 3.0, 1.0, 1.0])  # of each row among the indices
    flat = indices.cpu().numpy().reshape(-1)
    expected = v.cpu().numpy()[flat] / counts[flat, None] * (flat != 1)[:, None]
    np.testing.assert_allclose(adjoint.cpu().numpy(), expected.reshape(2, 3, 3), rtol=1e-12)
    (again,) = mt.autograd.grad(out, w, grad_outputs=u.detach())
    np.testing.assert_allclose(gw.detach().cpu().numpy(), again.cpu().numpy(), rtol=1e-12)


# masked_select's length and index_put's mask counts depend on values: not on meta
_META_CASES = [name for name in CASES if name not in ("masked_select_scatter", "index_put")]


@pytest.mark.parametrize("name", _META_CASES)
def test_on_meta_second_order_gradients_have_the_inputs_shapes(name):
    fn, shapes = CASES[name]
    xs = [mt.empty(*shape, dtype=mt.float64, device="meta", requires_grad=True)
          for shape in shapes]
    grads = mt.autograd.grad(fn(mt, "meta", *xs), xs, create_graph=True)
    second = mt.autograd.grad(sum((g * g).sum() for g in grads), xs)
    for x, g, h in zip(xs, grads, second):
        assert tuple(g.shape) == tuple(h.shape) == tuple(x.shape)
        assert h.device.type == "meta"

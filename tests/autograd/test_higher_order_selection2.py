"""Gradients of gradients through the remaining ops that select or move elements (their
``backward_graph``): scatter_reduce, embedding_bag, max_unpool, block_diag,
``Tensor.unfold``, quantile/nanquantile and nansum. Each case compares, in float64, the
first-order gradient made with ``create_graph=True`` and the gradient of its squared sum
with PyTorch's; Hessian-vector products are checked against finite differences (the only
check for embedding_bag, whose second derivative PyTorch refuses)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.autograd.second_order import (
    assert_graph_and_array_gradients_agree,
    assert_hvp_matches_finite_differences,
    assert_second_order_equal_pytorchs,
    gradients_and_their_gradient,
    seeded_arrays,
)
from tests.autograd.selection_inputs import constant as _on
from tests.autograd.selection_inputs import cube as _cube
from tests.autograd.selection_inputs import functional as _f
from tests.autograd.selection_inputs import long as _long
from tests.autograd.selection_inputs import mask as _mask


def _zeros_at(t, lib, device, mask):
    """``t`` with exact zeros where ``mask`` holds (recorded: their gradient is zero)."""
    return t.masked_fill(_mask(lib, device, mask), 0.0)


def _unit(q):
    """``q`` in (0, 1), so that random values make valid quantiles."""
    return q.sigmoid()


def _nans_at(t, lib, device, mask):
    return t.masked_fill(_mask(lib, device, mask), float("nan"))


_INDEX = [[0, 2], [3, 1], [1, 1]]  # two values meet at row 2's position 1
_TIES = [[0, 0, 2, 2], [3, 3, 1, 1], [1, 1, 1, 1]]  # with ``cat([s, s], 1)``: tied values


def _scatter_reduce(reduce):
    """Both ``include_self``, the function and method spellings, a negative dim."""
    return lambda L, d, x, s: (
        _cube(x.scatter_reduce(1, _long(L, d, _INDEX), s, reduce), L, d)
        + _cube(L.scatter_reduce(x, -1, _long(L, d, _INDEX), s, reduce, include_self=False),
                L, d)
        + _cube(x.scatter_reduce(0, _long(L, d, [[2, 0], [2, 1]]), s[:2], reduce), L, d))


# name -> (f(lib, device, *inputs) -> scalar, input shapes)
CASES = {
    "scatter_reduce_sum": (_scatter_reduce("sum"), [(3, 4), (3, 2)]),
    "scatter_reduce_mean": (_scatter_reduce("mean"), [(3, 4), (3, 2)]),
    "scatter_reduce_prod": (_scatter_reduce("prod"), [(3, 4), (3, 2)]),
    # zeros in the input and one zero alone at its position in src (the product of the others)
    "scatter_reduce_prod_zeros": (
        lambda L, d, x, s: _scatter_reduce("prod")(
            L, d, _zeros_at(x, L, d, [[True, False, False, False], [False] * 4,
                                      [False, True, False, False]]),
            _zeros_at(s, L, d, [[False, False], [True, False], [False, True]])),
        [(3, 4), (3, 2)]),
    "scatter_reduce_amax": (
        lambda L, d, x, s: _scatter_reduce("amax")(L, d, x, s)
        + _cube(x.scatter_reduce(1, _long(L, d, _TIES), L.cat([s, s], 1), "amax"), L, d),
        [(3, 4), (3, 2)]),
    "scatter_reduce_amin": (
        lambda L, d, x, s: _scatter_reduce("amin")(L, d, x, s)
        + _cube(L.scatter_reduce(x, 1, _long(L, d, _TIES), L.cat([s, s], 1), "amin",
                                 include_self=False), L, d),
        [(3, 4), (3, 2)]),
    "max_unpool": (
        lambda L, d, x, v: _cube(_f(L).max_unpool2d(x, _long(L, d, [[[[0, 3], [8, 15]],
                                                                     [[1, 1], [5, 6]]]]),
                                                    2, output_size=(4, 4)), L, d)
        + _cube(_f(L).max_unpool2d(x[0], _long(L, d, [[[0, 3], [2, 1]], [[4, 8], [0, 0]]]), 2,
                                   stride=1), L, d)
        + _cube(_f(L).max_unpool1d(v, _long(L, d, [[[0, 3, 5]]]), 2, output_size=(7,)), L, d),
        [(1, 2, 2, 2), (1, 1, 3)]),
    "block_diag": (lambda L, d, a, b, c: _cube(L.block_diag(a, b, c, a), L, d)
                   + _cube(L.block_diag(b), L, d), [(2, 3), (3,), ()]),
    "unfold": (lambda L, d, x, s: _cube(x.unfold(1, 2, 1), L, d) + _cube(x.unfold(0, 2, 1), L, d)
               + _cube(x.unfold(-1, 2, 3), L, d) + _cube(x[1].unfold(0, 4, 1), L, d)
               + _cube(s.unfold(0, 1, 2), L, d) + _cube(x.unfold(1, 0, 1), L, d),
               [(3, 4), ()]),
    "quantile": (lambda L, d, x: _cube(L.quantile(x, _on(L, d, [0.3, 0.5], L.float64), dim=1),
                                       L, d)
                 + L.quantile(x, 0.4) ** 3
                 + _cube(x.quantile(0.7, 0, keepdim=True, interpolation="midpoint"), L, d)
                 + _cube(x.quantile(0.7, 0, interpolation="lower"), L, d)
                 + _cube(x.quantile(0.2, -1, interpolation="higher"), L, d)
                 + _cube(x.quantile(0.6, 1, interpolation="nearest"), L, d), [(3, 5)]),
    # q requires grad: the weight depends on q, and q's gradient on the input
    "quantile_q": (lambda L, d, x, q: _cube(L.quantile(x, _unit(q), dim=1), L, d)
                   + L.quantile(x, _unit(q)[0]) ** 3
                   + _cube(x.quantile(_unit(q), 0, keepdim=True), L, d)
                   + _cube(L.quantile(x[0, 0], _unit(q)), L, d)
                   + _cube(x.quantile(_unit(q), 1, interpolation="midpoint"), L, d),
                   [(3, 5), (2,)]),
    "nanquantile": (lambda L, d, x, q: _cube(L.nanquantile(_nans_at(x, L, d, _NANS), _unit(q),
                                                           dim=1), L, d)
                    + _cube(_nans_at(x, L, d, _NANS).nanquantile(_unit(q), 0), L, d)
                    + L.nanquantile(_nans_at(x, L, d, _NANS), _unit(q)[1]) ** 3
                    + _cube(L.quantile(_nans_at(x, L, d, _NANS), _unit(q), dim=0), L, d),
                    [(3, 5), (2,)]),
    # the input holds NaNs at ``_NANS`` (``_arrays``): their gradient is zero
    "nansum": (lambda L, d, x: _cube(L.nansum(x, 1), L, d) + L.nansum(x) ** 3
               + _cube(x.nansum((0, 1), keepdim=True), L, d) + _cube(L.nanmean(x, 0), L, d)
               + L.nansum(x[0, 0]) ** 3, [(3, 5)]),
}

_NANS = [[False, False, True, False, False], [False] * 5, [True, False, False, True, False]]


def _bag(L, d, w, mode, offsets, **kwargs):
    return _f(L).embedding_bag(_long(L, d, [0, 2, 2, 4, 1, 3]), w, _long(L, d, offsets),
                               mode=mode, **kwargs)


# Checked against finite differences only: PyTorch refuses embedding_bag's double
# backward; and max_unpool without an index named twice (where the value kept is one of
# them, but each gets the gradient, as in PyTorch: not the gradient of a function).
FD_CASES = {
    "max_unpool_distinct": (
        lambda L, d, x: _cube(_f(L).max_unpool2d(x, _long(L, d, [[[[0, 3], [8, 15]],
                                                                  [[1, 2], [5, 6]]]]),
                                                 2, output_size=(4, 4)), L, d), [(1, 2, 2, 2)]),
    "embedding_bag_sum": (lambda L, d, w, p: _cube(_bag(L, d, w, "sum", [0, 2, 2, 4],
                                                        per_sample_weights=p), L, d)
                          + _cube(_bag(L, d, w, "sum", [0, 3], include_last_offset=True), L, d),
                          [(5, 3), (6,)]),
    "embedding_bag_mean": (lambda L, d, w: _cube(_bag(L, d, w, "mean", [0, 2, 2, 4]), L, d)
                           + _cube(_bag(L, d, w, "mean", [0, 1, 5], padding_idx=2), L, d),
                           [(5, 3)]),
    # the plain sum gives the empty bag (output 0) a gradient, which must reach no row
    "embedding_bag_max": (lambda L, d, w: _cube(_bag(L, d, w, "max", [0, 2, 2, 4]), L, d)
                          + _bag(L, d, w, "max", [0, 2, 2, 4]).sum()
                          + _cube(_bag(L, d, w, "max", [0, 3], padding_idx=4), L, d),
                          [(5, 3)]),
}


def _arrays(name, shapes):
    arrays = seeded_arrays(name, shapes)
    if name == "nansum":
        arrays[0][np.array(_NANS)] = np.nan
    return arrays


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_gradients_equal_pytorchs(name, device):
    fn, shapes = CASES[name]
    arrays = _arrays(name, shapes)
    assert_second_order_equal_pytorchs(fn, arrays, device)


@pytest.mark.parametrize("name", ["scatter_reduce_mean", "scatter_reduce_prod",
                                  "scatter_reduce_prod_zeros", "scatter_reduce_amax",
                                  "block_diag", "unfold", "quantile_q", "nanquantile",
                                  "nansum"] + list(FD_CASES))
def test_hessian_vector_products_match_finite_differences(name):
    """``d/dx <grad f(x), v>`` against ``(grad f(x + eps v) - grad f(x - eps v)) / 2 eps``:
    independent of PyTorch."""
    fn, shapes = {**CASES, **FD_CASES}[name]
    arrays = _arrays(name, shapes)
    directions = [np.random.default_rng(7).standard_normal(shape) for shape in shapes]

    assert_hvp_matches_finite_differences(fn, arrays, directions, atol=1e-6)


@pytest.mark.parametrize("name", list(CASES) + list(FD_CASES))
def test_first_order_gradients_are_the_same_with_and_without_create_graph(name):
    """The graph formula (``backward_graph``) and the array one (``backward``) agree."""
    fn, shapes = {**CASES, **FD_CASES}[name]
    arrays = _arrays(name, shapes)
    assert_graph_and_array_gradients_agree(fn, arrays, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", [name for name in FD_CASES if "embedding_bag" in name])
def test_embedding_bag_second_order_gradients_run_on_device(name, device):
    """The graph formulas on the case's device give the CPU's results."""
    fn, shapes = FD_CASES[name]
    arrays = _arrays(name, shapes)
    ours = gradients_and_their_gradient(mt, device, fn, arrays)
    on_cpu = gradients_and_their_gradient(mt, "cpu", fn, arrays)
    for our_list, cpu_list in zip(ours, on_cpu):
        for a, b in zip(our_list, cpu_list):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def _third(lib, device, fn, arrays):
    """Gradients to the third order, each made with ``create_graph``."""
    kwargs = {"device": device} if lib is mt else {}
    xs = [lib.tensor(a, requires_grad=True, **kwargs) for a in arrays]
    grads = lib.autograd.grad(fn(lib, device, *xs), xs, create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in grads), xs, create_graph=True)
    third = lib.autograd.grad(sum((h * h * h).sum() for h in second), xs)
    return [t.cpu().numpy() for t in third]


@pytest.mark.parametrize("name", ["scatter_reduce_prod_zeros", "scatter_reduce_amax",
                                  "max_unpool", "block_diag", "unfold", "quantile_q",
                                  "nansum"])
def test_third_order_gradients_equal_pytorchs(name, device):
    """The twin ops (``WindowsSum``, the recorded reads and writes) differentiate again."""
    fn, shapes = CASES[name]
    arrays = _arrays(name, shapes)
    for a, b in zip(_third(mt, device, fn, arrays), _third(torch, None, fn, arrays)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def test_unfold_gradient_node_is_named_as_pytorchs(device):
    x = mt.randn(3, 4, dtype=mt.float64, device=device, requires_grad=True)
    (g,) = mt.autograd.grad((x.unfold(1, 2, 1) ** 3).sum(), x, create_graph=True)
    tx = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    (tg,) = torch.autograd.grad((tx.unfold(1, 2, 1) ** 3).sum(), tx, create_graph=True)
    assert g.grad_fn.name() == tg.grad_fn.name() == "UnfoldBackwardBackward0"


def test_scatter_reduce_prod_refuses_to_differentiate_src_gradient_with_two_zeros(device):
    """The division by each factor hides how the product depends on two zeros at one
    position: as in PyTorch, src's gradient is right but refuses a second derivative
    (behind an ``Error`` node), while the input's gradient differentiates again."""
    def run(lib, device):
        x = _on(lib, device, [[1.0, 2.0], [3.0, 4.0]], lib.float64).requires_grad_()
        s = _on(lib, device, [[0.0, 0.0], [5.0, 0.0]], lib.float64).requires_grad_()
        out = x.scatter_reduce(1, _long(lib, device, [[1, 1], [0, 1]]), s, "prod")
        gx, gs = lib.autograd.grad((out ** 2).sum(), (x, s), create_graph=True)
        assert gs.grad_fn.name() == "torch::autograd::Error"
        with pytest.raises(RuntimeError, match="Double backward is unsupported for src when "
                                               ">1 zeros in src are scattered to the same "
                                               "position in self"):
            lib.autograd.grad(gs.sum(), x, retain_graph=True)
        (h,) = lib.autograd.grad((gx ** 2).sum(), x)
        return [t.detach().cpu().numpy() for t in (gx, gs, h)]

    for a, b in zip(run(mt, device), run(torch, None)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_scatter_reduce_prod_input_alone_allows_two_src_zeros(device):
    """Without src's gradient the refusal does not apply (as in PyTorch): the input's
    gradient is the product of the src values, zero there, and differentiates again."""
    def run(lib, device):
        x = _on(lib, device, [[1.0, 2.0], [3.0, 4.0]], lib.float64).requires_grad_()
        s = _on(lib, device, [[0.0, 0.0], [5.0, 0.0]], lib.float64)
        out = x.scatter_reduce(1, _long(lib, device, [[1, 1], [0, 1]]), s, "prod")
        (g,) = lib.autograd.grad((out ** 2).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad((g ** 2).sum(), x)
        return g.detach().cpu().numpy(), h.cpu().numpy()

    for a, b in zip(run(mt, device), run(torch, None)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_embedding_bag_scaled_by_frequency_differentiates_the_gradient_it_computed(device):
    """With ``scale_grad_by_freq`` the weight's gradient is linear in the output's gradient
    ``u`` (each index's share divided by its count in the input); differentiating it by
    ``u`` gives that map's adjoint, scaled alike."""
    indices, offsets = [0, 2, 2, 4, 1, 2], [0, 2, 2, 4]
    w = mt.randn(5, 3, dtype=mt.float64, device=device, requires_grad=True)
    u = mt.randn(4, 3, dtype=mt.float64, device=device, requires_grad=True)
    out = _f(mt).embedding_bag(mt.tensor(indices, device=device), w,
                               mt.tensor(offsets, device=device), mode="mean",
                               scale_grad_by_freq=True)
    (gw,) = mt.autograd.grad(out, w, grad_outputs=u, create_graph=True)
    v = mt.randn(5, 3, dtype=mt.float64, device=device)
    (adjoint,) = mt.autograd.grad(gw, u, grad_outputs=v)
    counts = np.array([1.0, 1.0, 3.0, 1.0, 1.0])  # of each row among the indices
    bags, sizes = np.array([0, 0, 2, 2, 3, 3]), np.array([2.0, 1.0, 2.0, 2.0])
    expected = np.zeros((4, 3))
    for k, row in enumerate(indices):
        expected[bags[k]] += v.cpu().numpy()[row] / counts[row] / sizes[bags[k]]
    np.testing.assert_allclose(adjoint.cpu().numpy(), expected, rtol=1e-12)
    (again,) = mt.autograd.grad(out, w, grad_outputs=u.detach())
    np.testing.assert_allclose(gw.detach().cpu().numpy(), again.cpu().numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", list(CASES) + list(FD_CASES))
def test_on_meta_second_order_gradients_have_the_inputs_shapes(name):
    fn, shapes = {**CASES, **FD_CASES}[name]
    xs = [mt.empty(*shape, dtype=mt.float64, device="meta", requires_grad=True)
          for shape in shapes]
    grads = mt.autograd.grad(fn(mt, "meta", *xs), xs, create_graph=True)
    second = mt.autograd.grad(sum((g * g).sum() for g in grads), xs)
    for x, g, h in zip(xs, grads, second):
        assert tuple(g.shape) == tuple(h.shape) == tuple(x.shape)
        assert h.device.type == "meta"

"""Gradients of gradients (``create_graph=True``) through the distance, sampling and loss
ops: cdist, pdist, grid_sample, multi_margin_loss, multilabel_margin_loss and
index_reduce(``'prod'``), and the refusals of ctc_loss and ``_standard_gamma``.

Each case compares, in float64, the first-order gradient made with ``create_graph`` and
the gradient of its squared sum with PyTorch's. Where PyTorch refuses a second derivative
that ours gives (cdist and pdist but on its matrix-product path, the margin losses), the
reference is PyTorch's differentiation of the same function composed of ops it
differentiates twice. ``gradgradcheck`` and Hessian-vector products against finite
differences check ours independently of PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.autograd.second_order import (
    assert_graph_and_array_gradients_agree,
    assert_hvp_matches_finite_differences,
    assert_second_order_equal_pytorchs,
    constant_on,
    seeded_arrays,
)
from tests.autograd.second_order import functional as _f
from tests.autograd.selection_inputs import cube as _cube
from tests.autograd.selection_inputs import long as _long

INF = float("inf")
# PyTorch warns (once per process) that index_reduce is in beta; we do not.
pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")


def _differences(a, b):
    """``a[..., i, :] - b[..., j, :]`` for every pair of rows."""
    return a[..., :, None, :] - b[..., None, :, :]


def _cdist(lib, a, b, p, **kwargs):
    """Ours, or PyTorch's norms of the differences (which it differentiates twice)."""
    if lib is mt:
        return mt.cdist(a, b, p=p, **kwargs)
    return torch.linalg.vector_norm(_differences(a, b), ord=p, dim=-1)


def _pdist(lib, x, p):
    """Ours, or PyTorch's norms of the differences of the pairs ``i < j``."""
    if lib is mt:
        return mt.pdist(x, p=p)
    i, j = torch.triu_indices(x.shape[0], x.shape[0], 1)
    return torch.linalg.vector_norm(x[i] - x[j], ord=p, dim=-1)


def _cdist_case(p, shapes):
    return (lambda L, d, a, b: _cube(_cdist(L, a, b, p), L, d), shapes)


def _pdist_case(p, rows=5):
    return (lambda L, d, x: _cube(_pdist(L, x, p), L, d), [(rows, 4)])


# name -> (f(lib, device, *inputs) -> scalar, input shapes): PyTorch's own op
CASES = {
    "cdist_matrix_product_path": (lambda L, d, a, b: _cube(L.cdist(
        a, b, compute_mode="use_mm_for_euclid_dist"), L, d), [(2, 4, 3), (5, 3)]),
    "cdist_more_than_25_rows": (lambda L, d, a, b: _cube(L.cdist(a, b), L, d),
                                [(27, 3), (4, 3)]),
}



def _grid_sample_case(mode, padding_mode, align_corners):
    """A cube of the sampled values; the grid scaled to reach past the edges."""
    return (lambda L, d, x, g: _cube(_f(L).grid_sample(
        x, g * 0.7, mode=mode, padding_mode=padding_mode, align_corners=align_corners),
        L, d), [(2, 3, 4, 5), (2, 3, 4, 2)])


CASES.update({f"grid_sample_{mode}_{padding}_{'aligned' if aligned else 'edges'}":
              _grid_sample_case(mode, padding, aligned)
              for mode in ("bilinear", "nearest", "bicubic")
              for padding in ("zeros", "border", "reflection") for aligned in (False, True)})



def _index_reduce_prod_case(dim, shapes, index, include_self, zeros=None):
    """``index_reduce(..., "prod")`` squared and summed; ``zeros``: a mask of ``source``
    set to exact zeros (recorded, so their gradient is zero)."""
    def fn(L, d, x, source):
        if zeros is not None:
            source = source.masked_fill(constant_on(L, d, zeros, L.bool), 0.0)
        return _cube(x.index_reduce(dim, _long(L, d, index), source, "prod",
                                    include_self=include_self), L, d)
    return fn, shapes


CASES.update({
    "index_reduce_prod": _index_reduce_prod_case(0, [(5, 3), (4, 3)], [0, 2, 2, 4], True),
    "index_reduce_prod_exclude_self": _index_reduce_prod_case(
        1, [(2, 4, 3), (2, 5, 3)], [3, 0, 3, 1, 0], False),
    "index_reduce_prod_last_dim": _index_reduce_prod_case(-1, [(3, 4), (3, 2)], [1, 1], True),
    "index_reduce_prod_a_zero": _index_reduce_prod_case(
        0, [(3, 2), (4, 2)], [0, 2, 2, 0], False,
        zeros=[[True, False], [False, False], [False, True], [False, False]]),
})

# name -> case, against PyTorch's differentiation of the composed function
COMPOSED_CASES = {
    **{f"cdist_p{p:g}": _cdist_case(p, [(2, 3, 4), (5, 4)])
       for p in (0.5, 1, 1.5, 2, 3, INF)},
    "cdist_batch_broadcast": _cdist_case(2.5, [(3, 1, 2, 3), (2, 4, 3)]),
    **{f"pdist_p{p:g}": _pdist_case(p) for p in (0.5, 1, 1.5, 2, 3, INF)},
}



def _multi_margin(lib, x, target, p, margin, weight, reduction):
    """Ours, or the hinge of each other class against the sample's own, composed."""
    if lib is mt:
        return mt.nn.functional.multi_margin_loss(x, target, p=p, margin=margin,
                                                  weight=weight, reduction=reduction)
    rows, t = x.reshape(-1, x.shape[-1]), target.reshape(-1)
    hinge = (margin - rows.gather(1, t[:, None]) + rows).clamp(min=0) ** p
    if weight is not None:
        hinge = hinge * weight[t][:, None]
    others = torch.arange(rows.shape[1])[None, :] != t[:, None]
    losses = (hinge * others).sum(1) / rows.shape[1]
    return _reduced(losses.reshape(target.shape), reduction)


def _multilabel_margin(lib, x, target, reduction):
    """Ours, or each listed class against each unlisted one, composed (a class listed
    twice counts twice, as in PyTorch's kernel)."""
    if lib is mt:
        return mt.nn.functional.multilabel_margin_loss(x, target, reduction=reduction)
    rows, t = x.reshape(-1, x.shape[-1]), target.reshape(-1, x.shape[-1]).numpy()
    counts = np.zeros(rows.shape)
    for n, row in enumerate(t):
        for j in row[:list(row).index(-1) if -1 in row else len(row)]:
            counts[n, j] += 1
    pairs = torch.tensor(counts[:, :, None] * (counts == 0)[:, None, :])
    hinge = (1 - rows[:, :, None] + rows[:, None, :]).clamp(min=0)
    losses = (pairs * hinge).sum((1, 2)) / rows.shape[1]
    return _reduced(losses.reshape(x.shape[:-1]), reduction)


def _reduced(losses, reduction):
    return {"none": losses, "sum": losses.sum(), "mean": losses.mean()}[reduction]


def _multi_margin_case(p, reduction, weighted, shape=(4, 5), target=(1, 0, 4, 2)):
    def fn(L, d, x):
        weight = constant_on(L, d, [0.5, 1.0, 2.0, 0.3, 1.5]) if weighted else None
        t = _long(L, d, list(target) if len(shape) == 2 else target[0])
        return (_multi_margin(L, x, t, p, 0.7, weight, reduction) ** 2).sum()
    return fn, [shape]


def _multilabel_case(reduction, shape=(3, 5)):
    targets = [[1, 3, -1, 0, 0], [2, 2, 0, -1, 4], [4, 3, 2, 1, 0]]
    def fn(L, d, x):
        t = _long(L, d, targets if len(shape) == 2 else targets[0])
        return (_multilabel_margin(L, x * 0.3, t, reduction) ** 2).sum()
    return fn, [shape]


COMPOSED_CASES.update({
    **{f"multi_margin_p{p}_{reduction}{'_weighted' if weighted else ''}":
       _multi_margin_case(p, reduction, weighted)
       for p in (1, 2) for reduction in ("mean", "sum", "none") for weighted in (False, True)},
    "multi_margin_p2_vector": _multi_margin_case(2, "none", True, shape=(5,)),
    **{f"multilabel_margin_{reduction}": _multilabel_case(reduction)
       for reduction in ("mean", "sum", "none")},
    "multilabel_margin_vector": _multilabel_case("none", shape=(5,)),
})

CDIST_ORDERS = (0, 0.5, 1, 1.5, 2, 3, INF)


def _arrays(name, shapes):
    return seeded_arrays(name, shapes)


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_gradients_equal_pytorchs(name, device):
    fn, shapes = CASES[name]
    assert_second_order_equal_pytorchs(fn, _arrays(name, shapes), device, rtol=1e-7,
                                       atol=1e-9)


@pytest.mark.parametrize("name", list(COMPOSED_CASES))
def test_second_order_gradients_equal_pytorchs_composed(name, device):
    fn, shapes = COMPOSED_CASES[name]
    assert_second_order_equal_pytorchs(fn, _arrays(name, shapes), device, rtol=1e-9,
                                       atol=1e-9)


@pytest.mark.parametrize("name", ["cdist_p0.5", "cdist_p1.5", "cdist_p2", "cdist_p3",
                                  "cdist_batch_broadcast", "pdist_p1.5", "pdist_p3",
                                  "grid_sample_bilinear_zeros_edges",
                                  "grid_sample_bicubic_reflection_aligned",
                                  "multi_margin_p2_none_weighted", "multilabel_margin_none"])
def test_hessian_vector_products_match_finite_differences(name):
    """``d/dx <grad f(x), v>`` against ``(grad f(x + eps v) - grad f(x - eps v)) / 2 eps``:
    independent of PyTorch."""
    fn, shapes = {**CASES, **COMPOSED_CASES}[name]
    directions = [np.random.default_rng(7).standard_normal(shape) for shape in shapes]
    assert_hvp_matches_finite_differences(fn, _arrays(name, shapes), directions, atol=1e-5)


@pytest.mark.parametrize("name", list(CASES) + list(COMPOSED_CASES))
def test_first_order_gradients_are_the_same_with_and_without_create_graph(name):
    """The graph formula (``backward_graph``) and the array one (``backward``) agree."""
    fn, shapes = {**CASES, **COMPOSED_CASES}[name]
    assert_graph_and_array_gradients_agree(fn, _arrays(name, shapes), rtol=1e-12,
                                           atol=1e-12)


@pytest.mark.parametrize("p", CDIST_ORDERS)
def test_cdist_and_pdist_pass_gradgradcheck(p):
    a, b = (mt.tensor(x, requires_grad=True) for x in seeded_arrays("gg", [(3, 4), (2, 4)]))
    assert mt.autograd.gradgradcheck(lambda u, v: mt.cdist(u, v, p=p), (a, b))
    assert mt.autograd.gradgradcheck(lambda u: mt.pdist(u, p=p), (a,))


@pytest.mark.parametrize("p", CDIST_ORDERS)
def test_cdist_second_derivative_at_zero_distances_is_finite(p, device):
    """Equal rows (a zero distance) and equal coordinates (a zero difference): the
    first-order gradient there is PyTorch's 0, and its own gradient is finite."""
    x = mt.tensor([[1.0, 2.0, 3.0], [1.0, 0.5, -1.0]], dtype=mt.float64, device=device,
                  requires_grad=True)
    y = mt.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], dtype=mt.float64, device=device,
                  requires_grad=True)
    for out in (mt.cdist(x, y, p=p), mt.pdist(mt.cat([x, y]), p=p)):
        gx, gy = mt.autograd.grad((out ** 2).sum(), (x, y), create_graph=True)
        hx, hy = mt.autograd.grad((gx ** 2).sum() + (gy ** 2).sum(), (x, y))
        for t in (gx, gy, hx, hy):
            assert np.isfinite(t.detach().cpu().numpy()).all()
    (g,) = mt.autograd.grad(mt.cdist(x, y, p=p)[0, 0], x, create_graph=True)
    np.testing.assert_array_equal(g.detach().cpu().numpy(), 0)


def test_cdist_p0_gradient_is_zero_to_every_order(device):
    x = mt.randn(3, 2, dtype=mt.float64, device=device, requires_grad=True)
    out = (mt.cdist(x, x[:2], p=0) ** 2).sum() + (mt.pdist(x, p=0) ** 2).sum() + \
        (x ** 3).sum()
    (g,) = mt.autograd.grad(out, x, create_graph=True)
    (h,) = mt.autograd.grad((g ** 2).sum(), x)
    expected = 3 * x.detach() ** 2
    np.testing.assert_allclose(g.detach().cpu().numpy(), expected.cpu().numpy())
    np.testing.assert_allclose(h.cpu().numpy(), (12 * x.detach() * expected).cpu().numpy())


def test_cdist_without_coordinates_has_empty_second_order_gradients(device):
    x = mt.zeros(3, 0, dtype=mt.float64, device=device, requires_grad=True)
    y = mt.zeros(2, 0, dtype=mt.float64, device=device, requires_grad=True)
    gx, gy = mt.autograd.grad((mt.cdist(x, y) + 1).sum() + (mt.pdist(x) ** 2).sum(),
                              (x, y), create_graph=True, allow_unused=True)
    assert tuple(gx.shape) == (3, 0) and tuple(gy.shape) == (2, 0)


@pytest.mark.parametrize("name", list(CASES) + list(COMPOSED_CASES))
def test_on_meta_second_order_gradients_have_the_inputs_shapes(name):
    fn, shapes = {**CASES, **COMPOSED_CASES}[name]
    xs = [mt.empty(*shape, dtype=mt.float64, device="meta", requires_grad=True)
          for shape in shapes]
    grads = mt.autograd.grad(fn(mt, "meta", *xs), xs, create_graph=True)
    second = mt.autograd.grad(sum((g * g).sum() for g in grads), xs)
    for x, g, h in zip(xs, grads, second):
        assert tuple(g.shape) == tuple(h.shape) == tuple(x.shape)
        assert h.device.type == "meta"


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_passes_gradgradcheck(mode, padding_mode):
    x, g = (mt.tensor(a, requires_grad=True) for a in seeded_arrays(mode, [(1, 2, 3, 4),
                                                                          (1, 2, 3, 2)]))
    assert mt.autograd.gradgradcheck(lambda u, v: _f(mt).grid_sample(
        u, v * 0.7, mode=mode, padding_mode=padding_mode, align_corners=False), (x, g))


def test_grid_sample_gradients_at_a_non_finite_grid_keep_forwards_values(device):
    """A grid value of inf or NaN reads what forward read (the border's pixel here): the
    bilinear graph formula gives the array formula's first-order gradients, and finite
    second ones. (Bicubic weights are NaN there, in forward already.)"""
    mode = "bilinear"

    def fn(lib, device, x, g):
        g = g + constant_on(lib, device, [[[[np.inf, 0.0], [0.0, np.nan], [0.1, 0.2]]]])
        return _cube(_f(lib).grid_sample(x, g, mode=mode, padding_mode="border",
                                         align_corners=True), lib, device)

    arrays = seeded_arrays(mode, [(1, 2, 3, 4), (1, 1, 3, 2)])
    assert_graph_and_array_gradients_agree(fn, arrays, rtol=1e-12, atol=1e-12)
    xs = [mt.tensor(a, device=device, requires_grad=True) for a in arrays]
    gx, gg = mt.autograd.grad(fn(mt, device, *xs), xs, create_graph=True)
    hx, hg = mt.autograd.grad((gx ** 2).sum() + (gg[0, 0, 2] ** 2).sum(), xs)
    assert np.isfinite(hx.cpu().numpy()).all() and np.isfinite(hg.cpu().numpy()[0, 0, 2]).all()


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_grid_sample_second_order_gradients_keep_the_dtype(dtype, device):
    x = mt.randn(1, 2, 3, 4, dtype=getattr(mt, dtype), device=device, requires_grad=True)
    g = (mt.rand(1, 2, 3, 2, dtype=getattr(mt, dtype), device=device) * 2 - 1)
    g.requires_grad_()
    out = _f(mt).grid_sample(x, g, mode="bicubic", align_corners=False)
    gx, gg = mt.autograd.grad((out ** 2).sum(), (x, g), create_graph=True)
    hx, hg = mt.autograd.grad((gx ** 2).sum() + (gg ** 2).sum(), (x, g))
    assert {t.dtype for t in (gx, gg, hx, hg)} == {getattr(mt, dtype)}


@pytest.mark.parametrize("p", [1, 2])
def test_margin_losses_pass_gradgradcheck(p):
    x = mt.tensor(seeded_arrays("margin", [(3, 4)])[0], requires_grad=True)
    weight = mt.tensor([0.5, 1.0, 2.0, 0.3], dtype=mt.float64)
    assert mt.autograd.gradgradcheck(lambda u: _f(mt).multi_margin_loss(
        u, mt.tensor([1, 0, 3]), p=p, margin=0.6, weight=weight, reduction="none"), (x,))
    assert mt.autograd.gradgradcheck(lambda u: _f(mt).multilabel_margin_loss(
        u * 0.3, mt.tensor([[1, 3, -1, 0], [2, 2, 0, 1], [-1, 0, 1, 2]])), (x,))


@pytest.mark.parametrize("name", ["multi_margin_loss", "multilabel_margin_loss"])
def test_margin_losses_reference_is_pytorchs_loss(name):
    """The composed references above give PyTorch's own losses and gradients."""
    x = torch.tensor(seeded_arrays(name, [(3, 5)])[0], requires_grad=True)
    if name == "multi_margin_loss":
        t = torch.tensor([1, 0, 4])
        args = (t, 2, 0.7, torch.tensor([0.5, 1.0, 2.0, 0.3, 1.5], dtype=torch.float64))
        ours, theirs = _multi_margin(torch, x, *args, "none"), torch.nn.functional \
            .multi_margin_loss(x, t, p=2, margin=0.7, weight=args[-1], reduction="none")
    else:
        t = torch.tensor([[1, 3, -1, 0, 0], [2, 2, 0, -1, 4], [4, 3, 2, 1, 0]])
        ours = _multilabel_margin(torch, x, t, "none")
        theirs = torch.nn.functional.multilabel_margin_loss(x, t, reduction="none")
    torch.testing.assert_close(ours, theirs)
    torch.testing.assert_close(torch.autograd.grad(ours.sum(), x)[0],
                               torch.autograd.grad(theirs.sum(), x)[0])


def _ctc_gradient(lib, device, reduction):
    """``ctc_loss``'s gradient made with ``create_graph``, in ``lib``."""
    kwargs = {"device": device} if lib is mt else {}
    raw = seeded_arrays("ctc", [(6, 2, 4)])[0]
    log_probs = lib.tensor(raw, **kwargs).log_softmax(2).detach().requires_grad_()
    loss = lib.nn.functional.ctc_loss(log_probs, _long(lib, device, [[1, 2], [3, 3]]),
                                      _long(lib, device, [6, 5]), _long(lib, device, [2, 2]),
                                      reduction=reduction)
    return log_probs, lib.autograd.grad(loss.sum(), log_probs, create_graph=True)[0]


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_ctc_loss_gradient_refuses_a_second_derivative_as_pytorchs(reduction, device):
    (x, g), (tx, tg) = _ctc_gradient(mt, device, reduction), _ctc_gradient(torch, None,
                                                                           reduction)
    np.testing.assert_allclose(g.detach().cpu().numpy(), tg.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    assert g.grad_fn.name() == tg.grad_fn.name() == "torch::autograd::NotImplemented"
    assert repr(g.grad_fn) == "<NotImplemented object>"
    for lib, grad, inputs in ((mt, g, x), (torch, tg, tx)):
        with pytest.raises(RuntimeError,
                           match="derivative for aten::_ctc_loss_backward is not implemented"):
            lib.autograd.grad((grad ** 2).sum(), inputs)


def test_standard_gamma_gradient_is_linear_in_the_output_gradient_only(device):
    """As PyTorch's: the gradient is ``grad * _standard_gamma_grad(alpha, x)``, which
    differentiates in ``grad``; the implicit gradient itself raises NotImplementedError."""
    names = {}
    for lib in (mt, torch):
        kwargs = {"device": device} if lib is mt else {}
        alpha = lib.tensor([0.5, 1.5, 4.0], dtype=lib.float64, requires_grad=True, **kwargs)
        u = lib.tensor([1.0, 2.0, -1.0], dtype=lib.float64, requires_grad=True, **kwargs)
        draws = lib._standard_gamma(alpha)
        (g,) = lib.autograd.grad(draws, alpha, grad_outputs=u, create_graph=True)
        (by_u,) = lib.autograd.grad(g.sum(), u, retain_graph=True)
        np.testing.assert_allclose((by_u * u).detach().cpu().numpy(),
                                   g.detach().cpu().numpy(), rtol=1e-12)
        names[lib] = (g.grad_fn.name(), g.grad_fn.next_functions[1])
        with pytest.raises(NotImplementedError, match="the derivative for "
                                                      "'_standard_gamma_grad' is not "
                                                      "implemented."):
            lib.autograd.grad(g.sum(), alpha)
    assert names[mt][0] == names[torch][0] == "MulBackward0"
    assert names[mt][1][0].name() == names[torch][1][0].name() == "StandardGammaGradBackward0"


def test_gamma_rsample_second_derivative_raises_as_pytorchs(device):
    concentration = mt.tensor([0.5, 2.0], dtype=mt.float64, device=device, requires_grad=True)
    sample = mt.distributions.Gamma(concentration, mt.ones(2, dtype=mt.float64,
                                                           device=device)).rsample()
    (g,) = mt.autograd.grad(sample.sum(), concentration, create_graph=True)
    with pytest.raises(NotImplementedError, match="_standard_gamma_grad"):
        g.sum().backward()


def test_index_reduce_prod_refuses_to_differentiate_source_gradient_with_two_zeros(device):
    """As PyTorch's: two zeros of ``source`` at one position hide how the product depends
    on them, so ``source``'s gradient refuses a second derivative (behind an ``Error``
    node); the input's gradient differentiates again."""
    def run(lib, device):
        x = constant_on(lib, device, [[1.0, 2.0], [3.0, 4.0]]).requires_grad_()
        source = constant_on(lib, device, [[0.0, 0.0], [5.0, 0.0], [0.0, 1.0]])
        source.requires_grad_()
        out = x.index_reduce(0, _long(lib, device, [1, 1, 1]), source, "prod")
        gx, gs = lib.autograd.grad((out ** 2).sum(), (x, source), create_graph=True)
        assert gs.grad_fn.name() == "torch::autograd::Error"
        with pytest.raises(RuntimeError, match="index_reduce\\(\\): Double backward is "
                                               "unsupported for source when >1 zeros in source "
                                               "are scattered to the same position in self"):
            lib.autograd.grad(gs.sum(), x, retain_graph=True)
        (h,) = lib.autograd.grad((gx ** 2).sum(), x)
        return [t.detach().cpu().numpy() for t in (gx, gs, h)]

    for a, b in zip(run(mt, device), run(torch, None)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_prod_passes_gradgradcheck(include_self):
    x, source = (mt.tensor(a, requires_grad=True) for a in seeded_arrays("ir", [(4, 3),
                                                                               (5, 3)]))
    assert mt.autograd.gradgradcheck(lambda u, v: u.index_reduce(
        0, mt.tensor([1, 3, 1, 0, 1]), v, "prod", include_self=include_self), (x, source))

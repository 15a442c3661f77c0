"""F.grid_sample on 5-D (volumetric) inputs, torch.grid_sampler_3d and 3-D F.affine_grid:
every mode x padding mode x align_corners three ways, points on the edges, dtypes, empty
sizes, errors, graph names, and second-order gradients against PyTorch's."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.autograd.second_order import (
    assert_graph_and_array_gradients_agree,
    assert_hvp_matches_finite_differences,
    assert_second_order_equal_pytorchs,
    seeded_arrays,
)
from tests.autograd.second_order import functional as _f
from tests.autograd.selection_inputs import cube as _cube
from tests.ops.harness import Arg, Case, three_way_tests

MODES = ("bilinear", "nearest")  # bicubic is 4-D only, as in PyTorch
PADDINGS = ("zeros", "border", "reflection")
X, GRID = (2, 2, 3, 4, 3), (2, 2, 2, 3, 3)


def _name(mode, padding, align):
    return f"{mode}_{padding}_{'aligned' if align else 'unaligned'}"


def _sample_case(mode, padding, align):
    # normal grid values: about a third fall outside [-1, 1] (the padding's work), some
    # beyond 2 (reflected more than once); none within the gradcheck's step of a kink
    def fn(T, F, x, g):
        return F.grid_sample(x, g * 1.2, mode=mode, padding_mode=padding, align_corners=align)
    return Case(f"grid_sample_3d_{_name(mode, padding, align)}", fn, [Arg(X), Arg(GRID)])


def _native_case(mode, padding, align):
    def fn(T, F, x, g):
        return T.grid_sampler_3d(x, g * 1.2, MODES.index(mode), PADDINGS.index(padding), align)
    return Case(f"grid_sampler_3d_{_name(mode, padding, align)}", fn, [Arg(X), Arg(GRID)])


def _transform(T, F, x, theta):
    grid = F.affine_grid(theta * 0.5, tuple(x.shape), align_corners=False)
    return F.grid_sample(x, grid, align_corners=False)


CASES = [_sample_case(m, p, a) for m, p, a in itertools.product(MODES, PADDINGS, (False, True))]
CASES += [_native_case("bilinear", p, a) for p, a in (("zeros", False), ("reflection", True))]
CASES += [
    Case("affine_grid_3d_then_sample_3d", _transform, [Arg((2, 2, 3, 4, 2)), Arg((2, 3, 4))]),
    Case("grid_sampler_dispatches_5d",
         lambda T, F, x, g: T.grid_sampler(x, g, 0, 1, False), [Arg(X), Arg(GRID)]),
    Case("grid_sample_3d_one_voxel_deep",
         lambda T, F, x, g: F.grid_sample(x, g, padding_mode="reflection", align_corners=True),
         [Arg((1, 2, 1, 3, 2)), Arg((1, 2, 2, 1, 3))]),
    Case("grid_sample_3d_input_only",
         lambda T, F, x, g: F.grid_sample(x, g, align_corners=False),
         [Arg(X), Arg(GRID, grad=False)]),
]
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _both(torch, device, array, grad=True):
    return (mt.tensor(array, device=device, requires_grad=grad),
            torch.tensor(array, requires_grad=grad))


def _close(ours, theirs, **tolerance):
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(),
                               **(tolerance or {"rtol": 1e-5, "atol": 1e-6}))


# -- edges and one-voxel axes ------------------------------------------------------------------

# every combination of -1, 0 and 1 (the corners, edges and centre of the volume) and a few
# points between
EDGES = np.array(list(itertools.product((-1.0, 0.0, 1.0), repeat=3))
                 + [[0.5, -0.25, 1.0], [-1.0, 0.75, -0.5], [0.25, 1.0, -1.0]],
                 dtype=np.float32).reshape(1, 2, 3, 5, 3)


@pytest.mark.parametrize("mode, padding, align",
                         list(itertools.product(MODES, PADDINGS, (False, True))))
@pytest.mark.parametrize("shape", [(1, 2, 1, 1, 1), (1, 2, 1, 3, 4), (1, 2, 3, 1, 2),
                                   (1, 2, 2, 3, 1), (1, 2, 3, 2, 4)])
def test_grid_points_on_the_edges_match_torch(torch_ref, mode, padding, align, shape, device):
    """At -1, 0 and 1 the coordinates sit on a voxel's centre or face (a kink): the values
    and both gradients follow PyTorch's conventions there (the faces count as outside)."""
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    (ox, tx), (og, tg) = _both(torch_ref, device, x), _both(torch_ref, device, EDGES)
    out = mF.grid_sample(ox, og, mode=mode, padding_mode=padding, align_corners=align)
    ref = torch_ref.nn.functional.grid_sample(tx, tg, mode=mode, padding_mode=padding,
                                              align_corners=align)
    _close(out, ref)
    upstream = np.arange(ref.numel(), dtype=np.float32).reshape(tuple(ref.shape)) - 2
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch_ref.tensor(upstream))
    _close(ox.grad, tx.grad)
    _close(og.grad, tg.grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode, padding, align",
                         list(itertools.product(MODES, PADDINGS, (False, True))))
def test_a_grid_of_nan_and_inf_samples_as_torch(torch_ref, mode, padding, align, device):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(X).astype(np.float32)
    grid = rng.uniform(-1.5, 1.5, GRID).astype(np.float32)
    grid[0, 0, 0, 0, 0], grid[0, 1, 1, 1, 2], grid[1, 0, 0, 0, 1] = np.nan, np.inf, -np.inf
    out = mF.grid_sample(mt.tensor(x, device=device), mt.tensor(grid, device=device), mode=mode,
                         padding_mode=padding, align_corners=align)
    ref = torch_ref.nn.functional.grid_sample(torch_ref.tensor(x), torch_ref.tensor(grid),
                                              mode=mode, padding_mode=padding,
                                              align_corners=align)
    _close(out, ref)


# -- dtypes, empty sizes, graph names ----------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_float64_stays_float64_and_matches_torch_closely(torch_ref, mode, device):
    rng = np.random.default_rng(4)
    (ox, tx), (og, tg) = (_both(torch_ref, device, rng.standard_normal(s))
                          for s in ((2, 3, 3, 4, 5), (2, 3, 2, 3, 3)))
    out = mF.grid_sample(ox, og, mode=mode, padding_mode="reflection", align_corners=False)
    ref = torch_ref.nn.functional.grid_sample(tx, tg, mode=mode, padding_mode="reflection",
                                              align_corners=False)
    out.sum().backward()
    ref.sum().backward()
    assert out.dtype is mt.float64 and og.grad.dtype is mt.float64
    for ours, theirs in ((out, ref), (ox.grad, tx.grad), (og.grad, tg.grad)):
        _close(ours, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_float16_is_computed_in_float32_and_kept_float16(torch_ref, mode, device):
    """PyTorch's half kernel rounds on the way; ours rounds once, so both are compared with
    the float32 result."""
    rng = np.random.default_rng(5)
    x, grid = rng.standard_normal((2, 3, 3, 4, 5)), rng.uniform(-1.2, 1.2, (2, 3, 2, 3, 3))
    ox = mt.tensor(x.astype(np.float16), device=device, requires_grad=True)
    og = mt.tensor(grid.astype(np.float16), device=device, requires_grad=True)
    out = mF.grid_sample(ox, og, mode=mode, align_corners=True)
    out.sum().backward()
    tx, tg = (torch_ref.tensor(a.astype(np.float16).astype(np.float32), requires_grad=True)
              for a in (x, grid))
    ref = torch_ref.nn.functional.grid_sample(tx, tg, mode=mode, align_corners=True)
    ref.sum().backward()
    assert out.dtype is mt.float16 and ox.grad.dtype is mt.float16
    assert og.grad.dtype is mt.float16
    for ours, theirs in ((out, ref), (ox.grad, tx.grad), (og.grad, tg.grad)):
        _close(ours, theirs, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("x_shape, grid_shape", [
    ((2, 0, 3, 4, 5), (2, 1, 3, 3, 3)), ((0, 3, 3, 4, 5), (0, 1, 3, 3, 3)),
    ((2, 3, 3, 4, 5), (2, 1, 0, 3, 3)), ((2, 3, 3, 4, 5), (2, 0, 2, 2, 3)),
])
@pytest.mark.parametrize("mode", MODES)
def test_empty_batch_channels_or_grid_give_empty_results(x_shape, grid_shape, mode,
                                                         any_device):
    x = mt.ones(x_shape, device=any_device, requires_grad=True)
    grid = mt.zeros(grid_shape, device=any_device, requires_grad=True)
    out = mF.grid_sample(x, grid, mode=mode, align_corners=False)
    out.sum().backward()
    assert tuple(out.shape) == x_shape[:2] + grid_shape[1:4]
    assert x.grad.shape == x.shape and grid.grad.shape == grid.shape
    if any_device != "meta":
        assert not x.grad.cpu().numpy().any() and not grid.grad.cpu().numpy().any()


@pytest.mark.parametrize("call", [
    lambda x, g: mF.grid_sample(x, g, align_corners=False),
    lambda x, g: mt.grid_sampler(x, g, 1, 0, True),
    lambda x, g: mt.grid_sampler_3d(x, g, 0, 2, False),
])
def test_grad_fn_is_torchs_3d_node_on_every_device(call, any_device):
    x = mt.ones(X, device=any_device, requires_grad=True)
    out = call(x, mt.zeros(GRID, device=any_device, requires_grad=True))
    assert out.grad_fn.name() == "GridSampler3DBackward0"
    assert out.shape == (2, 2, 2, 2, 3)


def test_4d_inputs_keep_the_2d_node():
    out = mt.grid_sampler(mt.ones(1, 1, 2, 2, requires_grad=True), mt.zeros(1, 1, 1, 2), 0, 0,
                          False)
    assert out.grad_fn.name() == "GridSampler2DBackward0"


def test_huge_meta_volumes_are_sampled_without_data():
    x = mt.empty(2**6, 3, 2**10, 2**10, 2**10, device="meta", requires_grad=True)
    theta = mt.empty(2**6, 3, 4, device="meta", requires_grad=True)
    out = mF.grid_sample(x, mF.affine_grid(theta, x.shape, align_corners=False),
                         mode="nearest", align_corners=False)
    out.sum().backward()
    assert out.shape == x.shape and x.grad.shape == x.shape
    assert theta.grad.shape == theta.shape


def test_a_saved_grid_changed_in_place_is_detected():
    x = mt.ones(1, 1, 2, 3, 3, requires_grad=True)
    grid = mt.zeros(1, 1, 2, 2, 3)
    out = mF.grid_sample(x, grid, align_corners=False)
    grid.add_(0.5)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_affine_grid_3d_values_and_gradient_match_torch(torch_ref, device):
    theta = np.random.default_rng(8).standard_normal((2, 3, 4))
    for align in (False, True):
        (ot, tt) = _both(torch_ref, device, theta)
        out = mF.affine_grid(ot, (2, 1, 2, 3, 4), align_corners=align)
        ref = torch_ref.nn.functional.affine_grid(tt, (2, 1, 2, 3, 4), align_corners=align)
        (out ** 2).sum().backward()
        (ref ** 2).sum().backward()
        assert out.grad_fn.name() == ref.grad_fn.name() == "AffineGridGeneratorBackward0"
        _close(out, ref, rtol=1e-12, atol=1e-12)
        _close(ot.grad, tt.grad, rtol=1e-12, atol=1e-12)


# -- errors ------------------------------------------------------------------------------------

def _sample(**kwargs):
    return lambda T, x, g: T.nn.functional.grid_sample(x, g, **{"align_corners": False,
                                                              **kwargs})


def _native(fn, interpolation=0, padding=0):
    return lambda T, x, g: getattr(T, fn)(x, g, interpolation, padding, False)


@pytest.mark.parametrize("x_shape, grid_shape, call, message", [
    (X, (1, 2, 2, 3, 3), _sample(),
     "grid_sampler(): expected grid and input to have same batch size, but got input with "
     "sizes [2, 2, 3, 4, 3] and grid with sizes [1, 2, 2, 3, 3]"),
    (X, (2, 2, 2, 3, 2), _sample(),
     "grid_sampler(): expected grid to have size 3 in last dimension, but got grid with "
     "sizes [2, 2, 2, 3, 2]"),
    ((2, 2, 3, 0, 3), GRID, _sample(),
     "grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
     "sizes [2, 2, 3, 0, 3] with dimension 3 being empty"),
    (X, GRID, _sample(mode="bicubic"),
     "grid_sampler(): bicubic interpolation only supports 4D input"),
    (X, GRID, _native("grid_sampler_3d", 2),
     "grid_sampler(): bicubic interpolation only supports 4D input"),
    (X, GRID, _native("grid_sampler", 2, 1),
     "grid_sampler(): bicubic interpolation only supports 4D input"),
    ((2, 3, 4, 5), (2, 2, 3, 2), _native("grid_sampler_3d"),
     "grid_sampler(): expected 5D input and grid with same number of dimensions, but got "
     "input with sizes [2, 3, 4, 5] and grid with sizes [2, 2, 3, 2]"),
    (X, GRID, _native("grid_sampler_2d"),
     "grid_sampler(): expected 4D input and grid with same number of dimensions, but got "
     "input with sizes [2, 2, 3, 4, 3] and grid with sizes [2, 2, 2, 3, 3]"),
    ((2, 3, 4, 5), (2, 1, 2, 3, 2), _sample(),
     "grid_sampler(): expected 4D input and grid with same number of dimensions, but got "
     "input with sizes [2, 3, 4, 5] and grid with sizes [2, 1, 2, 3, 2]"),
    ((2, 3, 4, 5, 6), (2, 2, 3, 3), _sample(),
     "grid_sampler(): expected 5D input and grid with same number of dimensions, but got "
     "input with sizes [2, 3, 4, 5, 6] and grid with sizes [2, 2, 3, 3]"),
    ((2, 4, 5), (2, 4, 1), _sample(),
     "grid_sampler(): expected 5D input and grid with same number of dimensions, but got "
     "input with sizes [2, 4, 5] and grid with sizes [2, 4, 1]"),
    ((2, 1, 2, 3, 4, 5), (2, 1, 1, 2, 2, 4), _sample(),
     "grid_sampler(): expected 5D input and grid with same number of dimensions, but got "
     "input with sizes [2, 1, 2, 3, 4, 5] and grid with sizes [2, 1, 1, 2, 2, 4]"),
])
def test_shape_errors_as_torch_on_cpu_and_meta(torch_ref, x_shape, grid_shape, call, message):
    for device in ("cpu", "meta"):
        x, grid = mt.zeros(x_shape, device=device), mt.zeros(grid_shape, device=device)
        with pytest.raises(RuntimeError) as info:
            call(mt, x, grid)
        assert str(info.value) == message, device
    with pytest.raises(RuntimeError) as info:
        call(torch_ref, torch_ref.zeros(x_shape), torch_ref.zeros(grid_shape))
    assert str(info.value) == message


@pytest.mark.parametrize("call, error, message", [
    (lambda x, g: mt.grid_sampler_3d(x.int(), g.int(), 0, 0, False), NotImplementedError,
     "\"grid_sampler3d_cpu\" not implemented for 'Int'"),
    (lambda x, g: mt.grid_sampler_3d(x, g.double(), 0, 0, False), RuntimeError,
     "grid_sampler(): expected input and grid to have the same dtype, but input is "
     "torch.float32 and grid is torch.float64; convert the grid with .to(torch.float32)"),
    (lambda x, g: mt.grid_sampler_3d(x, g, 1.0, 0, False), TypeError,
     "grid_sampler_3d(): argument 'interpolation_mode' (position 3) must be int, not float"),
    (lambda x, g: mt.grid_sampler_3d(x, g, 0, 0, 1), TypeError,
     "grid_sampler_3d(): argument 'align_corners' (position 5) must be bool, not int"),
    (lambda x, g: mt.grid_sampler_3d(x, g, 0, 3, False), RuntimeError,
     "grid_sampler_3d(): expected padding_mode to be one of 0 (zeros), 1 (border), "
     "2 (reflection), but got 3"),
])
def test_grid_sampler_3d_argument_errors_on_cpu_and_meta(call, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt.zeros(X, device=device), mt.zeros(GRID, device=device))
        assert str(info.value) == message, device


def test_grid_sampler_3d_error_types_match_torch(torch_ref):
    for call, error in [
            (lambda T, x, g: T.grid_sampler_3d(x.int(), g.int(), 0, 0, False),
             NotImplementedError),
            (lambda T, x, g: T.grid_sampler_3d(x, g.double(), 0, 0, False), RuntimeError),
            (lambda T, x, g: T.grid_sampler_3d(x, g, 1.0, 0, False), TypeError),
            (lambda T, x, g: T.grid_sampler_3d(x, g, 0, 0, 1), TypeError),
            (lambda T, x, g: T.grid_sampler_3d(x, g, 0, 0), TypeError)]:
        for T in (mt, torch_ref):
            with pytest.raises(error):
                call(T, T.zeros(X), T.zeros(GRID))


# -- gradients of gradients --------------------------------------------------------------------

def _second_order_case(mode, padding, align):
    """A cube of the sampled values; the grid scaled to reach past the faces."""
    return lambda L, d, x, g: _cube(_f(L).grid_sample(
        x, g * 0.7, mode=mode, padding_mode=padding, align_corners=align), L, d)


SECOND_ORDER = {_name(m, p, a): _second_order_case(m, p, a)
                for m, p, a in itertools.product(MODES, PADDINGS, (False, True))}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_second_order_gradients_equal_pytorchs(name, device):
    """PyTorch differentiates ``grid_sampler_3d``'s backward (``GridSampler3DBackward
    Backward0``): our recorded formulas give its second-order gradients."""
    assert_second_order_equal_pytorchs(SECOND_ORDER[name], seeded_arrays(name, [X, GRID]),
                                       device, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_first_order_gradients_are_the_same_with_and_without_create_graph(name):
    assert_graph_and_array_gradients_agree(SECOND_ORDER[name], seeded_arrays(name, [X, GRID]),
                                           rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["bilinear_zeros_unaligned", "bilinear_reflection_aligned"])
def test_hessian_vector_products_match_finite_differences(name):
    directions = [np.random.default_rng(7).standard_normal(s) for s in (X, GRID)]
    assert_hvp_matches_finite_differences(SECOND_ORDER[name], seeded_arrays(name, [X, GRID]),
                                          directions, atol=1e-5)


@pytest.mark.parametrize("padding", PADDINGS)
def test_grid_sample_3d_passes_gradgradcheck(padding):
    x, g = (mt.tensor(a, requires_grad=True)
            for a in seeded_arrays(padding, [(1, 2, 2, 3, 2), (1, 1, 2, 2, 3)]))
    assert mt.autograd.gradgradcheck(lambda u, v: mF.grid_sample(
        u, v * 0.7, padding_mode=padding, align_corners=False), (x, g))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_second_order_gradients_keep_the_dtype(dtype, device):
    x = mt.randn(1, 2, 2, 3, 4, dtype=getattr(mt, dtype), device=device, requires_grad=True)
    g = (mt.rand(1, 2, 2, 2, 3, dtype=getattr(mt, dtype), device=device) * 2 - 1)
    g.requires_grad_()
    out = mF.grid_sample(x, g, align_corners=False)
    gx, gg = mt.autograd.grad((out ** 2).sum(), (x, g), create_graph=True)
    hx, hg = mt.autograd.grad((gx ** 2).sum() + (gg ** 2).sum(), (x, g))
    assert {t.dtype for t in (gx, gg, hx, hg)} == {getattr(mt, dtype)}

"""F.affine_grid and F.grid_sample: every mode x padding mode x align_corners three ways, the
edges and one-pixel axes, non-finite grids, dtypes, empty sizes, errors and warnings, and a
small spatial transformer network against PyTorch."""

from __future__ import annotations

import itertools
import tracemalloc
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, three_way_tests

MODES = ("bilinear", "nearest", "bicubic")
PADDINGS = ("zeros", "border", "reflection")


def _sample_case(mode, padding, align):
    # normal grid values: about a third fall outside [-1, 1] (the padding's work), some
    # beyond 2 (reflected more than once); none within the gradcheck's step of a kink
    def fn(T, F, x, g):
        return F.grid_sample(x, g * 1.2, mode=mode, padding_mode=padding, align_corners=align)
    return Case(f"grid_sample_{mode}_{padding}_{'aligned' if align else 'unaligned'}", fn,
                [Arg((2, 3, 5, 6)), Arg((2, 4, 3, 2))])


def _affine_case(size, align):
    k = len(size) - 2
    name = "x".join(map(str, size))
    return Case(f"affine_grid_{name}_{'aligned' if align else 'unaligned'}",
                lambda T, F, theta: F.affine_grid(theta, size, align_corners=align),
                [Arg((size[0], k, k + 1))])


def _transform(T, F, x, theta):
    grid = F.affine_grid(theta * 0.5, tuple(x.shape), align_corners=False)
    return F.grid_sample(x, grid, align_corners=False)


CASES = [_sample_case(m, p, a) for m, p, a in itertools.product(MODES, PADDINGS, (False, True))]
# (a one-pixel size with align_corners warns: tested on its own below)
CASES += [_affine_case(size, align)
          for size, align in itertools.product(((2, 3, 4, 5), (2, 1, 3, 4, 2), (3, 1, 1, 4)),
                                               (False, True))
          if not align or 1 not in size[2:]]
CASES += [
    Case("affine_then_sample", _transform, [Arg((2, 2, 4, 5)), Arg((2, 2, 3))]),
    Case("grid_sample_one_pixel_rows",
         lambda T, F, x, g: F.grid_sample(x, g, padding_mode="reflection", align_corners=True),
         [Arg((1, 2, 1, 4)), Arg((1, 3, 2, 2))]),
    Case("grid_sample_bicubic_input_only",
         lambda T, F, x, g: F.grid_sample(x, g, mode="bicubic", align_corners=False),
         [Arg((2, 1, 4, 4)), Arg((2, 2, 5, 2), grad=False)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _both(torch, device, array, grad=True):
    return (mt.tensor(array, device=device, requires_grad=grad),
            torch.tensor(array, requires_grad=grad))


def _close(ours, theirs, **tolerance):
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(),
                               **(tolerance or {"rtol": 1e-5, "atol": 1e-6}))


# -- edges, one-pixel axes and grids that are not finite ---------------------------------------

EDGES = np.array([[-1.0, 1.0], [-1.0, 0.5], [1.0, -0.25], [0.0, 0.0], [1.0, 1.0],
                  [-1.0, -1.0]], dtype=np.float32).reshape(1, 2, 3, 2)


@pytest.mark.parametrize("mode, padding, align",
                         list(itertools.product(MODES, PADDINGS, (False, True))))
@pytest.mark.parametrize("shape", [(1, 2, 1, 1), (1, 2, 1, 4), (1, 2, 3, 1), (1, 2, 3, 4)])
def test_grid_points_on_the_edges_match_torch(mode, padding, align, shape, device):
    """At -1, 0 and 1 the coordinates sit on a pixel's centre or edge (a kink): the values
    and both gradients follow PyTorch's conventions there (the edges count as outside)."""
    torch = _torch()
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    (ox, tx), (og, tg) = _both(torch, device, x), _both(torch, device, EDGES)
    out = mF.grid_sample(ox, og, mode=mode, padding_mode=padding, align_corners=align)
    ref = torch.nn.functional.grid_sample(tx, tg, mode=mode, padding_mode=padding,
                                          align_corners=align)
    _close(out, ref)
    upstream = np.arange(ref.numel(), dtype=np.float32).reshape(tuple(ref.shape)) - 2
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch.tensor(upstream))
    _close(ox.grad, tx.grad)
    _close(og.grad, tg.grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode, padding, align",
                         list(itertools.product(MODES, PADDINGS, (False, True))))
def test_a_grid_of_nan_and_inf_samples_as_torch(mode, padding, align, device):
    """NaN and inf coordinates: clamped to the first pixel (NaN) or the edge by ``border``
    and ``reflection``; NaN out with ``zeros``, as in PyTorch (forward only: PyTorch's CPU
    backward crashes on such grids)."""
    torch = _torch()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 2, 4, 5)).astype(np.float32)
    grid = rng.uniform(-1.5, 1.5, (2, 3, 3, 2)).astype(np.float32)
    grid[0, 0, 0, 0], grid[0, 1, 1, 1], grid[1, 0, 0, 0], grid[1, 2, 2] = (
        np.nan, np.inf, -np.inf, (np.inf, np.nan))
    out = mF.grid_sample(mt.tensor(x, device=device), mt.tensor(grid, device=device), mode=mode,
                         padding_mode=padding, align_corners=align)
    ref = torch.nn.functional.grid_sample(torch.tensor(x), torch.tensor(grid), mode=mode,
                                          padding_mode=padding, align_corners=align)
    _close(out, ref)


# -- dtypes and empty sizes --------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_float64_stays_float64_and_matches_torch_closely(mode, device):
    torch = _torch()
    rng = np.random.default_rng(4)
    (ox, tx), (og, tg) = (_both(torch, device, rng.standard_normal(s))
                          for s in ((2, 3, 4, 5), (2, 3, 3, 2)))
    out = mF.grid_sample(ox, og, mode=mode, padding_mode="reflection", align_corners=False)
    ref = torch.nn.functional.grid_sample(tx, tg, mode=mode, padding_mode="reflection",
                                          align_corners=False)
    out.sum().backward()
    ref.sum().backward()
    assert out.dtype is mt.float64 and og.grad.dtype is mt.float64
    for ours, theirs in ((out, ref), (ox.grad, tx.grad), (og.grad, tg.grad)):
        _close(ours, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_float16_is_computed_in_float32_and_kept_float16(mode, device):
    """PyTorch's half kernel rounds on the way; ours rounds once, so both are compared with
    the float32 result."""
    torch = _torch()
    rng = np.random.default_rng(5)
    x, grid = rng.standard_normal((2, 3, 4, 5)), rng.uniform(-1.2, 1.2, (2, 3, 3, 2))
    ox = mt.tensor(x.astype(np.float16), device=device, requires_grad=True)
    og = mt.tensor(grid.astype(np.float16), device=device, requires_grad=True)
    out = mF.grid_sample(ox, og, mode=mode, align_corners=True)
    out.sum().backward()
    tx, tg = (torch.tensor(a.astype(np.float16).astype(np.float32), requires_grad=True)
              for a in (x, grid))
    ref = torch.nn.functional.grid_sample(tx, tg, mode=mode, align_corners=True)
    ref.sum().backward()
    assert out.dtype is mt.float16 and ox.grad.dtype is mt.float16
    assert og.grad.dtype is mt.float16
    for ours, theirs in ((out, ref), (ox.grad, tx.grad), (og.grad, tg.grad)):
        _close(ours, theirs, rtol=2e-3, atol=2e-3)


def test_affine_grid_keeps_float16_and_float64():
    for dtype in (mt.float16, mt.float64):
        theta = mt.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=dtype, requires_grad=True)
        grid = mF.affine_grid(theta, (1, 1, 2, 3), align_corners=True)
        grid.sum().backward()
        assert grid.dtype is dtype and theta.grad.dtype is dtype
        assert grid[0, :, :, 0].tolist() == [[-1.0, 0.0, 1.0]] * 2
        assert grid[0, :, :, 1].tolist() == [[-1.0] * 3, [1.0] * 3]


@pytest.mark.parametrize("x_shape, grid_shape", [
    ((2, 0, 4, 5), (2, 3, 3, 2)), ((0, 3, 4, 5), (0, 3, 3, 2)), ((2, 3, 4, 5), (2, 0, 3, 2)),
])
@pytest.mark.parametrize("mode", MODES)
def test_empty_batch_channels_or_grid_give_empty_results(x_shape, grid_shape, mode,
                                                         any_device):
    x = mt.ones(x_shape, device=any_device, requires_grad=True)
    grid = mt.zeros(grid_shape, device=any_device, requires_grad=True)
    out = mF.grid_sample(x, grid, mode=mode, align_corners=False)
    out.sum().backward()
    assert tuple(out.shape) == x_shape[:2] + grid_shape[1:3]
    assert x.grad.shape == x.shape and grid.grad.shape == grid.shape
    if any_device != "meta":
        assert not x.grad.cpu().numpy().any() and not grid.grad.cpu().numpy().any()


def test_affine_grid_of_an_empty_batch():
    theta = mt.zeros(0, 2, 3, requires_grad=True)
    with pytest.warns(UserWarning, match="unit-size grids"):
        grid = mF.affine_grid(theta, (0, 3, 1, 5), align_corners=True)
    grid.sum().backward()
    assert grid.shape == (0, 1, 5, 2) and theta.grad.shape == (0, 2, 3)


# -- meta, graph names and saved tensors -------------------------------------------------------

def test_huge_meta_inputs_are_sampled_without_data():
    x = mt.empty(2**10, 3, 2**14, 2**14, device="meta", requires_grad=True)
    theta = mt.empty(2**10, 2, 3, device="meta", requires_grad=True)
    mF.grid_sample(x, mF.affine_grid(theta, x.shape, align_corners=False),
                   align_corners=False)  # warm up: imports and caches are not measured
    tracemalloc.start()
    try:
        grid = mF.affine_grid(theta, x.shape, align_corners=False)
        out = mF.grid_sample(x, grid, mode="bicubic", align_corners=False)
        out.sum().backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.shape == x.shape and out.grad_fn.name() == "GridSampler2DBackward0"
    assert grid.grad_fn.name() == "AffineGridGeneratorBackward0"
    assert x.grad.shape == x.shape and theta.grad.shape == theta.shape
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


def test_a_saved_input_changed_in_place_is_detected():
    x = mt.ones(1, 1, 3, 3, requires_grad=True)
    grid = mt.zeros(1, 2, 2, 2)
    out = mF.grid_sample(x, grid, align_corners=False)
    grid.add_(0.5)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


# -- a spatial transformer network, as in PyTorch's tutorial ---------------------------------

def _stn(T):
    nn, F = T.nn, T.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.localization = nn.Sequential(nn.Conv2d(1, 4, kernel_size=5),
                                              nn.MaxPool2d(2, stride=2), nn.ReLU(True))
            self.fc_loc = nn.Sequential(nn.Linear(4 * 4 * 4, 8), nn.ReLU(True), nn.Linear(8, 6))
            self.conv = nn.Conv2d(1, 2, kernel_size=3)
            self.fc = nn.Linear(2 * 10 * 10, 3)

        def stn(self, x):
            theta = self.fc_loc(self.localization(x).view(-1, 4 * 4 * 4)).view(-1, 2, 3)
            grid = F.affine_grid(theta, x.size(), align_corners=False)
            return F.grid_sample(x, grid, align_corners=False)

        def forward(self, x):
            x = F.relu(self.conv(self.stn(x)))
            return F.log_softmax(self.fc(x.view(x.shape[0], -1)), dim=1)

    return Net()


def test_spatial_transformer_network_matches_torch(device):
    torch = _torch()
    torch.manual_seed(0)
    reference = _stn(torch)
    with torch.no_grad():  # the tutorial starts at the identity map; a little off it here
        reference.fc_loc[2].weight.mul_(0.1)
        reference.fc_loc[2].bias.copy_(torch.tensor([1.0, 0.1, 0.0, -0.1, 0.9, 0.05]))
    model = _stn(mt)
    model.load_state_dict({name: mt.tensor(value.detach().numpy())
                           for name, value in reference.state_dict().items()})
    model.to(device)
    rng = np.random.default_rng(6)
    images = rng.standard_normal((4, 1, 12, 12)).astype(np.float32)
    labels = np.array([0, 2, 1, 2])
    ours = mF.nll_loss(model(mt.tensor(images, device=device)),
                       mt.tensor(labels, device=device))
    theirs = torch.nn.functional.nll_loss(reference(torch.tensor(images)),
                                          torch.tensor(labels))
    ours.backward()
    theirs.backward()
    _close(ours, theirs, rtol=1e-5, atol=1e-6)
    grads = dict(reference.named_parameters())
    for name, parameter in model.named_parameters():
        _close(parameter.grad, grads[name].grad, rtol=1e-4, atol=1e-6)


# -- warnings and errors -----------------------------------------------------------------------

def test_align_corners_none_warns_and_means_false_as_in_torch():
    torch = _torch()
    theta = np.array([[[0.8, 0.2, 0.1], [-0.1, 0.9, 0.0]]], dtype=np.float32)
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    results = []
    for T in (mt, torch):
        F = T.nn.functional
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior "
                                             "has changed to align_corners=False"):
            grid = F.affine_grid(T.tensor(theta), (1, 1, 3, 4))
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            results.append(F.grid_sample(T.tensor(x), grid).numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        explicit = mF.grid_sample(mt.tensor(x), mF.affine_grid(mt.tensor(theta), (1, 1, 3, 4),
                                                               align_corners=False),
                                  align_corners=False)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(results[0], explicit.numpy())


def test_unit_size_grids_warn_with_align_corners_as_in_torch():
    torch = _torch()
    theta = np.eye(2, 3, dtype=np.float32)[None]
    for T in (mt, torch):
        with pytest.warns(UserWarning, match="affine_grid behavior has changed for unit-size "
                                             "grids when align_corners=True"):
            grid = T.nn.functional.affine_grid(T.tensor(theta), (1, 1, 1, 3), align_corners=True)
        assert grid[0, 0, :, 1].tolist() == [0.0, 0.0, 0.0]  # the single row sits at 0


THETA = (2, 2, 3)


@pytest.mark.parametrize("theta_shape, theta_dtype, size, align, error, message", [
    (THETA, mt.float32, (3, 3, 4, 5), False, RuntimeError,
     "affine_grid: theta holds 2 affine matrices but size (3, 3, 4, 5) asks for a batch of 3"),
    (THETA, mt.float32, (2, 3, 4, 0), False, ValueError,
     "Expected non-zero, positive output size. Got (2, 3, 4, 0)"),
    (THETA, mt.float32, (2, 3, 0, 1), True, ValueError,
     "Expected non-zero, positive output size. Got (2, 3, 0, 1)"),
    (THETA, mt.float32, (2, 3, 4), False, NotImplementedError,
     "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
     "respectively. Got size (2, 3, 4)."),
    (THETA, mt.int64, (2, 3, 4, 5), False, ValueError,
     "Expected theta to have floating point type, but got torch.int64"),
    ((2, 3), mt.float32, (2, 3, 4, 5), False, ValueError,
     "Expected a batch of 2D affine matrices of shape Nx2x3 for size (2, 3, 4, 5). Got "
     "torch.Size([2, 3])."),
    (THETA, mt.float32, (2, 3, 4, 5, 6), False, ValueError,
     "Expected a batch of 3D affine matrices of shape Nx3x4 for size (2, 3, 4, 5, 6). Got "
     "torch.Size([2, 2, 3])."),
    (THETA, mt.float32, (2.0, 3, 4, 5), False, TypeError,
     "affine_grid_generator(): argument 'size' (position 2) must be tuple of ints, but "
     "found element of type float at pos 0"),
    (THETA, mt.float32, (2, 3, 4, 5), 1, TypeError,
     "affine_grid_generator(): argument 'align_corners' (position 3) must be bool, not int"),
])
def test_affine_grid_errors_same_on_cpu_and_meta(theta_shape, theta_dtype, size, align, error,
                                                 message):
    for device in ("cpu", "meta"):
        theta = mt.zeros(theta_shape, dtype=theta_dtype, device=device)
        with pytest.raises(error) as info:
            mF.affine_grid(theta, size, align_corners=align)
        assert str(info.value) == message, device


def test_affine_grid_error_types_match_torch():
    torch = _torch()
    for shape, size, error in [((2, 3), (2, 3, 4, 5), ValueError),
                               ((2, 2, 3), (2, 3, 4), NotImplementedError),
                               ((2, 2, 3), (2, 3, 4, 0), ValueError),
                               ((2, 2, 3), (3, 3, 4, 5), RuntimeError)]:
        for T in (mt, torch):
            with pytest.raises(error):
                T.nn.functional.affine_grid(T.zeros(shape), size, align_corners=False)


X, GRID = (2, 3, 4, 5), (2, 4, 5, 2)


@pytest.mark.parametrize("x_shape, grid_shape, kwargs, error, message", [
    (X, (1, 4, 5, 2), {}, RuntimeError,
     "grid_sampler(): expected grid and input to have same batch size, but got input with "
     "sizes [2, 3, 4, 5] and grid with sizes [1, 4, 5, 2]"),
    (X, (2, 4, 5, 1), {}, RuntimeError,
     "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with "
     "sizes [2, 4, 5, 1]"),
    ((2, 3, 0, 5), GRID, {}, RuntimeError,
     "grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
     "sizes [2, 3, 0, 5] with dimension 2 being empty"),
    (X, (2, 1, 4, 5, 2), {}, RuntimeError,
     "grid_sampler(): expected 4D input and grid with same number of dimensions, but got "
     "input with sizes [2, 3, 4, 5] and grid with sizes [2, 1, 4, 5, 2]"),
    ((2, 4, 5), (2, 4, 1), {}, RuntimeError,
     "grid_sampler(): expected 5D input and grid with same number of dimensions, but got "
     "input with sizes [2, 4, 5] and grid with sizes [2, 4, 1]"),
    ((2, 3, 4, 5, 6), (2, 4, 5, 6, 3), {"mode": "bicubic"}, RuntimeError,
     "grid_sampler(): bicubic interpolation only supports 4D input"),
    (X, GRID, {"mode": "area"}, ValueError,
     "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
     "but got: 'area'"),
    (X, GRID, {"padding_mode": "circular"}, ValueError,
     "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
     "'reflection', but got: 'circular'"),
    (X, GRID, {"align_corners": 1}, TypeError,
     "grid_sampler(): argument 'align_corners' (position 5) must be bool, not int"),
])
def test_grid_sample_errors_same_on_cpu_and_meta(x_shape, grid_shape, kwargs, error, message):
    kwargs = {"align_corners": False, **kwargs}
    for device in ("cpu", "meta"):
        x, grid = mt.zeros(x_shape, device=device), mt.zeros(grid_shape, device=device)
        with pytest.raises(error) as info:
            mF.grid_sample(x, grid, **kwargs)
        assert str(info.value) == message, device


@pytest.mark.parametrize("x_dtype, grid_dtype, error, message", [
    (mt.float32, mt.float64, RuntimeError,
     "grid_sampler(): expected input and grid to have the same dtype, but input is "
     "torch.float32 and grid is torch.float64; convert the grid with .to(torch.float32)"),
    (mt.int64, mt.int64, NotImplementedError,
     "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Long'"),
])
def test_grid_sample_dtype_errors_as_torch(x_dtype, grid_dtype, error, message):
    torch = _torch()
    for device in ("cpu", "meta"):
        x = mt.zeros(X, dtype=x_dtype, device=device)
        grid = mt.zeros(GRID, dtype=grid_dtype, device=device)
        with pytest.raises(error) as info:
            mF.grid_sample(x, grid, align_corners=False)
        assert str(info.value) == message, device
    with pytest.raises(error):
        torch.nn.functional.grid_sample(torch.zeros(X, dtype=getattr(torch, x_dtype.name)),
                                        torch.zeros(GRID, dtype=getattr(torch, grid_dtype.name)),
                                        align_corners=False)


def test_grid_sample_error_types_match_torch():
    torch = _torch()
    for x_shape, grid_shape in [(X, (1, 4, 5, 2)), (X, (2, 4, 5, 1)), ((2, 3, 0, 5), GRID),
                                (X, (2, 1, 4, 5, 2))]:
        for T in (mt, torch):
            with pytest.raises(RuntimeError):
                T.nn.functional.grid_sample(T.zeros(x_shape), T.zeros(grid_shape),
                                            align_corners=False)

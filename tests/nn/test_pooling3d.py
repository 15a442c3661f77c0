"""Volumetric pooling: ``F.max_pool3d`` (and ``torch.max_pool3d``), ``F.avg_pool3d``,
``F.adaptive_avg_pool3d`` and ``F.adaptive_max_pool3d``, three ways (float64 gradcheck,
values and gradients against PyTorch, meta shapes) across kernels, strides, paddings,
dilations and ``ceil_mode``; indices and NaN against PyTorch; the layers against
``torch.nn``; and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from minitorch_meta import nn
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")


def max3(*args, **kw):
    return lambda T, F, x: F.max_pool3d(x, *args, **kw)


def avg3(*args, **kw):
    return lambda T, F, x: F.avg_pool3d(x, *args, **kw)


def adaptive_avg3(size):
    return lambda T, F, x: F.adaptive_avg_pool3d(x, size)


def adaptive_max3(size, **kw):
    return lambda T, F, x: F.adaptive_max_pool3d(x, size, **kw)


X = Arg((2, 2, 5, 6, 7), "distinct")
MAX_CASES = [
    Case("kernel2", max3(2), [X]),
    Case("per_axis", max3((2, 3, 2), stride=(1, 2, 1), padding=(1, 1, 0)), [X]),
    Case("overlap", max3(3, stride=1, padding=1), [X]),
    Case("dilation", max3(2, stride=1, dilation=(2, 1, 2)), [X]),
    Case("ceil_mode", max3(2, stride=2, padding=1, ceil_mode=True), [X]),
    Case("ceil_mode_overhang", max3((3, 2, 2), stride=(2, 3, 2), ceil_mode=True), [X]),
    Case("return_indices", max3(2, return_indices=True), [X]),
    Case("unbatched", max3(2, stride=1), [Arg((2, 4, 3, 5), "distinct")]),
    Case("empty_batch", max3(2), [Arg((0, 2, 4, 4, 4), "distinct")]),
    Case("torch_max_pool3d", lambda T, F, x: T.max_pool3d(x, (2, 2, 3), (1, 2, 2), 1, 1, True),
         [X]),
    Case("with_indices", lambda T, F, x: F.max_pool3d_with_indices(x, 3, 2, 1), [X]),
]
AVG_CASES = [
    Case("kernel2", avg3(2), [X]),
    Case("overlap_padding", avg3(3, stride=1, padding=1), [X]),
    Case("exclude_pad", avg3((3, 2, 3), stride=(2, 1, 2), padding=1, count_include_pad=False),
         [X]),
    Case("ceil_mode", avg3(2, stride=2, padding=1, ceil_mode=True), [X]),
    Case("ceil_mode_exclude_pad", avg3(3, stride=2, padding=1, ceil_mode=True,
                                       count_include_pad=False), [X]),
    Case("divisor_override", avg3(2, stride=1, divisor_override=3), [X]),
    Case("unbatched", avg3((2, 1, 2)), [Arg((3, 4, 3, 5))]),
    Case("empty_batch", avg3(2), [Arg((0, 2, 4, 4, 4))]),
]
ADAPTIVE_AVG_CASES = [
    Case("divisible", adaptive_avg3(2), [Arg((2, 2, 4, 6, 2))]),
    Case("uneven", adaptive_avg3((3, 4, 2)), [X]),
    Case("none_keeps", adaptive_avg3((2, None, 3)), [X]),
    Case("larger_than_input", adaptive_avg3((7, 3, 9)), [X]),
    Case("global", adaptive_avg3(1), [X]),
    Case("unbatched", adaptive_avg3((2, 3, 4)), [Arg((3, 5, 4, 7))]),
]
ADAPTIVE_MAX_CASES = [
    Case("divisible", adaptive_max3(2), [Arg((2, 2, 4, 6, 2), "distinct")]),
    Case("uneven", adaptive_max3((3, 4, 2)), [X]),
    Case("overlapping_windows", adaptive_max3((4, 4, 5)), [X]),
    Case("none_keeps", adaptive_max3((None, 2, 3), return_indices=True), [X]),
    Case("unbatched", adaptive_max3((2, 3, 4)), [Arg((3, 5, 4, 7), "distinct")]),
    Case("with_indices", lambda T, F, x: F.adaptive_max_pool3d_with_indices(x, 3), [X]),
]

test_gradcheck_max, test_against_torch_max, test_meta_shapes_max = three_way_tests(MAX_CASES)
test_gradcheck_avg, test_against_torch_avg, test_meta_shapes_avg = three_way_tests(AVG_CASES)
(test_gradcheck_adaptive_avg, test_against_torch_adaptive_avg,
 test_meta_shapes_adaptive_avg) = three_way_tests(ADAPTIVE_AVG_CASES)
(test_gradcheck_adaptive_max, test_against_torch_adaptive_max,
 test_meta_shapes_adaptive_max) = three_way_tests(ADAPTIVE_MAX_CASES)


def _both(values, device, grad=False):
    return (mt.tensor(values, device=device, requires_grad=grad),
            torch.tensor(values, requires_grad=grad))


INDEX_CALLS = [
    ("max_pool3d", lambda F, x: F.max_pool3d(x, 2, return_indices=True)),
    ("max_pool3d_padded", lambda F, x: F.max_pool3d(x, (3, 2, 3), (2, 1, 2), 1, (1, 2, 1),
                                                    True, True)),
    ("max_pool3d_unbatched", lambda F, x: F.max_pool3d(x[0], 3, 1, 1, return_indices=True)),
    ("adaptive_max_pool3d", lambda F, x: F.adaptive_max_pool3d(x, (3, 4, 2), True)),
    ("adaptive_max_pool3d_unbatched", lambda F, x: F.adaptive_max_pool3d(x[1], (2, 5, 3),
                                                                          True)),
]


@pytest.mark.parametrize("values", ["ties", "nan"])
@pytest.mark.parametrize("name, call", INDEX_CALLS, ids=[n for n, _ in INDEX_CALLS])
def test_indices_ties_and_nan_match_torch(name, call, values, device):
    """Indices are flat positions in each volume: the first maximum of a window in (depth,
    row, column) order, or its last NaN; the gradient goes there."""
    rng = np.random.default_rng(0)
    x_np = rng.integers(0, 3, (2, 2, 5, 6, 7)).astype(np.float32)  # many ties
    if values == "nan":
        x_np[rng.random(x_np.shape) < 0.1] = np.nan
    x, ref_x = _both(x_np, device, grad=True)
    (y, indices), (ref_y, ref_indices) = call(mF, x), call(torch.nn.functional, ref_x)
    assert indices.dtype is mt.int64 and indices.device == tensor_device(device)
    np.testing.assert_array_equal(indices.cpu().numpy(), ref_indices.numpy())
    np.testing.assert_array_equal(y.detach().cpu().numpy(), ref_y.detach().numpy())
    y.backward(mt.ones(tuple(y.shape), device=device))
    ref_y.backward(torch.ones(ref_y.shape))
    np.testing.assert_array_equal(x.grad.cpu().numpy(), ref_x.grad.numpy())


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_max_pool_integers(dtype, device):
    x_np = np.random.default_rng(0).integers(0, 200, (2, 3, 4, 5, 6)).astype(dtype)
    x, ref_x = _both(x_np, device)
    ours, ref = mF.max_pool3d(x, 2, 1, 1), torch.nn.functional.max_pool3d(ref_x, 2, 1, 1)
    assert str(ours.dtype) == str(ref.dtype)
    np.testing.assert_array_equal(ours.cpu().numpy(), ref.numpy())


def test_avg_pool_int64_truncates_like_torch(device):
    x_np = np.random.default_rng(0).integers(-50, 50, (2, 3, 4, 5, 6)).astype(np.int64)
    x, ref_x = _both(x_np, device)
    for kwargs in ({}, {"padding": 1, "count_include_pad": False}, {"divisor_override": 7}):
        ours = mF.avg_pool3d(x, 3, 1, **kwargs)
        ref = torch.nn.functional.avg_pool3d(ref_x, 3, 1, **kwargs)
        assert ours.dtype is mt.int64
        np.testing.assert_array_equal(ours.cpu().numpy(), ref.numpy())


@pytest.mark.parametrize("pool", [
    lambda x: mF.avg_pool3d(x, 2, 1, 1), lambda x: mF.adaptive_avg_pool3d(x, (2, 3, 4)),
    lambda x: mF.max_pool3d(x, 2), lambda x: mF.adaptive_max_pool3d(x, 3)])
def test_float16_kept(pool, device):
    """float16 in, float16 out and back, summed in float32 (rounded once)."""
    x = mt.randn(1, 2, 4, 5, 6, device=device).half().requires_grad_()
    y = pool(x)
    y.sum().backward()
    assert y.dtype is mt.float16 and x.grad.dtype is mt.float16
    wide = pool(x.detach().float())
    np.testing.assert_allclose(y.detach().float().cpu().numpy(), wide.cpu().numpy(),
                               rtol=1e-3, atol=1e-3)


def test_pooling_after_conv3d_channels_last(device):
    """Pooling reads a conv3d's output (a view of channels-last memory) in place."""
    x_np = np.random.default_rng(0).standard_normal((2, 3, 6, 6, 6)).astype(np.float32)
    w_np = np.random.default_rng(1).standard_normal((4, 3, 3, 3, 3)).astype(np.float32)
    x, ref_x = _both(x_np, device, grad=True)
    y = mF.conv3d(x, mt.tensor(w_np, device=device), padding=1)
    ref_y = torch.nn.functional.conv3d(ref_x, torch.tensor(w_np), padding=1)
    pooled = mF.avg_pool3d(mF.max_pool3d(y, 2, 1), 2) + mF.adaptive_max_pool3d(y, 2)
    ref_pooled = torch.nn.functional.avg_pool3d(torch.nn.functional.max_pool3d(ref_y, 2, 1), 2) \
        + torch.nn.functional.adaptive_max_pool3d(ref_y, 2)
    np.testing.assert_allclose(pooled.detach().cpu().numpy(), ref_pooled.detach().numpy(),
                               rtol=1e-4, atol=1e-4)
    (pooled * pooled).sum().backward()
    (ref_pooled * ref_pooled).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), ref_x.grad.numpy(), rtol=1e-3, atol=1e-3)


def test_adaptive_avg_global_mean_of_empty_volume_is_nan(device):
    assert np.isnan(mF.adaptive_avg_pool3d(mt.ones(1, 2, 0, 3, 3, device=device),
                                           1).cpu().numpy()).all()


def test_adaptive_zero_output_size(device):
    x = mt.randn(2, 3, 4, 4, 4, device=device)
    assert mF.adaptive_avg_pool3d(x, 0).shape == (2, 3, 0, 0, 0)
    y, indices = mF.adaptive_max_pool3d(x, (0, 2, 2), return_indices=True)
    assert y.shape == indices.shape == (2, 3, 0, 2, 2)


# -- layers -------------------------------------------------------------------------------

LAYERS = [
    ("MaxPool3d", (2,), {}),
    ("MaxPool3d", ((2, 3, 2),), {"stride": 1, "padding": 1, "dilation": (1, 1, 2),
                                 "ceil_mode": True}),
    ("AvgPool3d", (2,), {}),
    ("AvgPool3d", ((3, 2, 3),), {"stride": (1, 2, 2), "padding": 1, "ceil_mode": True,
                                 "count_include_pad": False, "divisor_override": None}),
    ("AvgPool3d", (2,), {"stride": 1, "divisor_override": 5}),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}),
    ("AdaptiveAvgPool3d", (1,), {}),
    ("AdaptiveMaxPool3d", ((3, 2, None),), {}),
]


@pytest.mark.parametrize("name, args, kwargs", LAYERS,
                         ids=[f"{n}-{i}" for i, (n, *_) in enumerate(LAYERS)])
@pytest.mark.parametrize("shape", [(2, 3, 5, 6, 7), (3, 4, 5, 6)], ids=["batched", "unbatched"])
def test_layer_matches_torch(name, args, kwargs, shape, device):
    ref = getattr(torch.nn, name)(*args, **kwargs)
    ours = getattr(nn, name)(*args, **kwargs)
    assert repr(ours) == repr(ref)
    x_np = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x, ref_x = _both(x_np, device, grad=True)
    y, ref_y = ours(x), ref(ref_x)
    assert y.grad_fn.name() == ref_y.grad_fn.name()
    np.testing.assert_allclose(y.detach().cpu().numpy(), ref_y.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    upstream = np.random.default_rng(1).standard_normal(tuple(ref_y.shape)).astype(np.float32)
    y.backward(mt.tensor(upstream, device=device))
    ref_y.backward(torch.tensor(upstream))
    np.testing.assert_allclose(x.grad.cpu().numpy(), ref_x.grad.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name, args", [("MaxPool3d", (2,)), ("AdaptiveMaxPool3d", (2,))])
def test_layers_return_indices(name, args, device):
    x_np = np.random.default_rng(0).standard_normal((2, 3, 4, 4, 4)).astype(np.float32)
    x, ref_x = _both(x_np, device)
    ours = getattr(nn, name)(*args, return_indices=True)(x)
    ref = getattr(torch.nn, name)(*args, return_indices=True)(ref_x)
    np.testing.assert_array_equal(ours[1].cpu().numpy(), ref[1].numpy())


def test_layers_in_a_model_on_meta():
    model = nn.Sequential(nn.Conv3d(1, 4, 3, padding=1), nn.MaxPool3d(2), nn.Conv3d(4, 8, 3),
                          nn.AvgPool3d(2, ceil_mode=True), nn.AdaptiveMaxPool3d(2),
                          nn.AdaptiveAvgPool3d(1), nn.Flatten()).to("meta")
    y = model(mt.empty(16, 1, 64, 96, 96, device="meta"))
    assert y.shape == (16, 8) and y.is_meta
    y.sum().backward()


# -- errors -------------------------------------------------------------------------------

SHAPE = (2, 3, 5, 6, 7)
ERRORS = [
    (lambda x: mF.max_pool3d(x, 2, padding=2), "max_pool3d: pad should be at most half of "
     "effective kernel size, but got pad=2, kernel_size=2 and dilation=1"),
    (lambda x: mF.max_pool3d(x, 6), "max_pool3d: Given input size: (3x5x6x7). Calculated "
     "output size: (3x0x1x1). Output size is too small (input shape (2, 3, 5, 6, 7), "
     "kernel_size=(6, 6, 6), stride=(6, 6, 6), padding=(0, 0, 0), dilation=(1, 1, 1))"),
    (lambda x: mF.max_pool3d(x, 0, 1), "max_pool3d: kernel size should be greater than zero, "
     "but got kT: 0 kH: 0 kW: 0"),
    (lambda x: mF.max_pool3d(x, 2, 0), "max_pool3d: stride should not be zero"),
    (lambda x: mF.max_pool3d(x, 2, -1), "max_pool3d: stride should be greater than zero, but "
     "got dT: -1 dH: -1 dW: -1"),
    (lambda x: mF.max_pool3d(x, 2, dilation=0), "max_pool3d: dilation should be greater than "
     "zero, but got dilationT: 0 dilationH: 0 dilationW: 0"),
    (lambda x: mF.max_pool3d(x, 2, padding=-1), "max_pool3d: pad must be non-negative, but got "
     "pad: -1"),
    (lambda x: mF.max_pool3d(x, (2, 2)), "max_pool3d: kernel_size must either be a single int, "
     "or a tuple of three ints, got (2, 2)"),
    (lambda x: mF.max_pool3d(x, 2, (1, 2)), "max_pool3d: stride must either be omitted, a "
     "single int, or a tuple of three ints, got (1, 2)"),
    (lambda x: mF.max_pool3d(x[0, 0], 2), "max_pool3d: non-empty 4D or 5D (batch mode) tensor "
     "expected for input (N, C, D, H, W) or (C, D, H, W), but got a 3-D input of shape "
     "(5, 6, 7)"),
    (lambda x: mF.max_pool3d(x[:, :0], 2), "max_pool3d: Expected input's non-batch dimensions "
     "to have positive length, but input has a shape of (2, 0, 5, 6, 7) and non-batch "
     "dimension 0 has length zero!"),
    (lambda x: mF.avg_pool3d(x, 6), "avg_pool3d: input image (T: 5 H: 6 W: 7) smaller than "
     "kernel size (kT: 6 kH: 6 kW: 6) (input shape (2, 3, 5, 6, 7))"),
    (lambda x: mF.avg_pool3d(x, 2, divisor_override=0), "avg_pool3d: divisor must be not zero"),
    (lambda x: mF.avg_pool3d(x, 2, padding=(1, 1)), "avg_pool3d: padding must be a single "
     "int, or a tuple of three ints, got (1, 1)"),
    (lambda x: mF.avg_pool3d(x, 3, padding=2), "avg_pool3d: pad should be at most half of "
     "effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    (lambda x: mF.adaptive_avg_pool3d(x[0, 0], 2), "adaptive_avg_pool3d: Expected 4D or 5D "
     "tensor, (C, D, H, W) or (N, C, D, H, W), but got a 3-D input of shape (5, 6, 7)"),
    (lambda x: mF.adaptive_avg_pool3d(x, (2, 2)), "adaptive_avg_pool3d: output_size must be "
     "3, got (2, 2)"),
    (lambda x: mF.adaptive_avg_pool3d(x, (2, 2, -1)), "adaptive_avg_pool3d: elements of "
     "output_size must be greater than or equal to 0 but received {2, 2, -1}"),
    (lambda x: mF.adaptive_avg_pool3d(x[:, :, :0], 2), "adaptive_avg_pool3d: Expected input "
     "to have non-zero size for non-batch dimensions, but input has sizes (2, 3, 0, 6, 7) "
     "with dimension 2 being empty"),
    (lambda x: mF.adaptive_max_pool3d(x, (2, 2)), "adaptive_max_pool3d: output_size must be "
     "3, got (2, 2)"),
    (lambda x: mF.adaptive_max_pool3d(x[:, :, :0], 2), "adaptive_max_pool3d: Expected input "
     "to have non-zero size for non-batch dimensions, but input has sizes (2, 3, 0, 6, 7) "
     "with dimension 2 being empty"),
]


@pytest.mark.parametrize("call, message", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_shape_errors_same_on_cpu_and_meta(call, message):
    check_same_error_on_cpu_and_meta(call, RuntimeError, message, shape=SHAPE)


def test_adaptive_max_errors_are_runtime_errors():
    with pytest.raises(mt.ShapeRuntimeError):
        mF.adaptive_max_pool3d(mt.ones(1, 2, 3, 3, 3), (1, 1, -1))


@pytest.mark.parametrize("call, dtype, message", [
    (lambda x: mF.max_pool3d(x, 2), "bool", "\"max_pool3d\" not implemented for 'Bool'"),
    (lambda x: mF.avg_pool3d(x, 2), "int32", "\"avg_pool3d\" not implemented for 'Int'"),
    (lambda x: mF.adaptive_avg_pool3d(x, 2), "int64",
     "\"adaptive_avg_pool3d\" not implemented for 'Long'"),
    (lambda x: mF.adaptive_max_pool3d(x, 2), "int64",
     "\"adaptive_max_pool3d\" not implemented for 'Long'"),
])
def test_dtype_errors(call, dtype, message):
    for device in ("cpu", "meta"):
        with pytest.raises(NotImplementedError) as info:
            call(mt.ones(1, 2, 4, 4, 4, dtype=getattr(mt, dtype), device=device))
        assert str(info.value) == message


def test_output_size_type_error():
    with pytest.raises(TypeError, match="output_size must be an int or a tuple of three ints"):
        mF.adaptive_avg_pool3d(mt.ones(1, 2, 4, 4, 4), None)

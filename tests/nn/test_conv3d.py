"""Volumetric convolutions: ``F.conv3d``/``torch.conv3d`` and ``F.conv_transpose3d``, three
ways (float64 gradcheck, values and gradients against PyTorch, meta shapes) across strides,
paddings, dilations and groups; the layers ``Conv3d``/``ConvTranspose3d`` against
``torch.nn`` with copied weights; and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from minitorch_meta import nn
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")

# PyTorch warns that it copies the input for even kernels with padding="same"; not our concern.
pytestmark = pytest.mark.filterwarnings("ignore:Using padding=.same.:UserWarning")


def conv3d(**kw):
    return lambda T, F, x, w, b=None: F.conv3d(x, w, b, **kw)


def conv_t3d(**kw):
    return lambda T, F, x, w, b=None: F.conv_transpose3d(x, w, b, **kw)


X = Arg((2, 4, 4, 5, 3))
CASES = [
    Case("bias", conv3d(), [X, Arg((3, 4, 2, 2, 2)), Arg((3,))]),
    Case("no_bias", conv3d(), [X, Arg((2, 4, 3, 2, 1))]),
    Case("stride_padding", conv3d(stride=2, padding=1), [X, Arg((3, 4, 3, 3, 3)), Arg((3,))]),
    Case("per_axis", conv3d(stride=(1, 2, 1), padding=(1, 0, 2), dilation=(2, 1, 1)),
         [X, Arg((2, 4, 2, 3, 2)), Arg((2,))]),
    Case("dilation", conv3d(dilation=2, padding=2), [X, Arg((2, 4, 2, 2, 2))]),
    Case("same_odd", conv3d(padding="same"), [X, Arg((3, 4, 3, 3, 1)), Arg((3,))]),
    Case("same_even_dilated", conv3d(padding="same", dilation=(1, 2, 1)),
         [X, Arg((2, 4, 2, 2, 2))]),
    Case("valid", conv3d(padding="valid"), [X, Arg((2, 4, 2, 3, 2)), Arg((2,))]),
    Case("groups2", conv3d(groups=2, padding=1), [X, Arg((4, 2, 2, 2, 2)), Arg((4,))]),
    Case("depthwise_stride", conv3d(groups=4, stride=(2, 1, 2)),
         [X, Arg((8, 1, 2, 2, 2)), Arg((8,))]),
    Case("groups2_dilation", conv3d(groups=2, dilation=(1, 2, 1), padding=(0, 1, 1)),
         [X, Arg((2, 2, 2, 2, 3))]),
    Case("kernel_1", conv3d(), [X, Arg((5, 4, 1, 1, 1)), Arg((5,))]),
    Case("weight_only_grad", conv3d(padding=1),
         [Arg(X.shape, grad=False), Arg((2, 4, 2, 2, 2)), Arg((2,))]),
    Case("input_only_grad", conv3d(groups=2),
         [X, Arg((2, 2, 2, 2, 2), grad=False)]),
    Case("unbatched", conv3d(padding=1), [Arg((4, 3, 4, 3)), Arg((2, 4, 2, 2, 2)), Arg((2,))]),
    Case("empty_batch", conv3d(), [Arg((0, 4, 4, 5, 3)), Arg((2, 4, 2, 2, 2)), Arg((2,))]),
    Case("torch_conv3d", lambda T, F, x, w, b: T.conv3d(x, w, b, 1, 1, 1, 2),
         [X, Arg((2, 2, 2, 3, 2)), Arg((2,))]),
]
CASES_T = [
    Case("bias", conv_t3d(), [X, Arg((4, 2, 2, 2, 2)), Arg((2,))]),
    Case("stride_output_padding", conv_t3d(stride=2, padding=1, output_padding=1),
         [X, Arg((4, 3, 3, 3, 3)), Arg((3,))]),
    Case("per_axis", conv_t3d(stride=(1, 2, 3), padding=(0, 1, 1), dilation=(2, 1, 1)),
         [X, Arg((4, 2, 2, 3, 2))]),
    Case("groups2", conv_t3d(groups=2, stride=2), [X, Arg((4, 1, 2, 2, 2)), Arg((2,))]),
    Case("depthwise_dilated", conv_t3d(groups=4, dilation=2, output_padding=1, stride=2),
         [X, Arg((4, 2, 2, 2, 2)), Arg((8,))]),
    Case("weight_only_grad", conv_t3d(stride=2),
         [Arg(X.shape, grad=False), Arg((4, 2, 2, 2, 2)), Arg((2,))]),
    Case("unbatched", conv_t3d(stride=2), [Arg((4, 3, 2, 3)), Arg((4, 2, 2, 2, 2))]),
    Case("torch_conv_transpose3d",
         lambda T, F, x, w, b: T.conv_transpose3d(x, w, b, 2, 0, 1, 1, 1),
         [X, Arg((4, 2, 2, 2, 2)), Arg((2,))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, atol=1e-4)
test_gradcheck_t, test_against_torch_t, test_meta_shapes_t = three_way_tests(CASES_T, atol=1e-4)


def _pair(shape, seed, device):
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return (mt.tensor(values, device=device, requires_grad=True),
            torch.tensor(values, requires_grad=True))


def test_channels_last_input_chained(device):
    """A conv3d fed the channels-last output of another (strided memory), then pooled."""
    x, ref_x = _pair((2, 3, 6, 5, 6), 0, device)
    w1, ref_w1 = _pair((4, 3, 3, 3, 3), 1, device)
    w2, ref_w2 = _pair((6, 2, 2, 2, 2), 2, device)
    y = mF.conv3d(mF.conv3d(x, w1, padding=1), w2, groups=2, stride=2)
    ref = torch.nn.functional.conv3d(torch.nn.functional.conv3d(ref_x, ref_w1, padding=1),
                                     ref_w2, groups=2, stride=2)
    assert y.device == tensor_device(device)
    np.testing.assert_allclose(y.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-4,
                               atol=1e-4)
    (y * y).sum().backward()
    (ref * ref).sum().backward()
    for ours, theirs in ((x, ref_x), (w1, ref_w1), (w2, ref_w2)):
        np.testing.assert_allclose(ours.grad.cpu().numpy(), theirs.grad.numpy(), rtol=1e-3,
                                   atol=1e-3)


def test_inference_equals_training_forward(device):
    x = mt.randn(2, 3, 5, 5, 5, device=device)
    w = mt.randn(4, 3, 3, 3, 3, device=device, requires_grad=True)
    with mt.no_grad():
        inferred = mF.conv3d(x, w, padding=1)
    assert inferred.grad_fn is None
    np.testing.assert_allclose(inferred.cpu().numpy(),
                               mF.conv3d(x, w, padding=1).detach().cpu().numpy(), rtol=1e-6)


@pytest.mark.parametrize("groups", [1, 2])
def test_inference_in_chunks_equals_training_forward(groups, device, monkeypatch):
    """Inference builds im2col a chunk of samples at a time: a small chunk forces several
    (here one sample each), whose results must land in their own rows."""
    from minitorch_meta.backends import xp_conv3d

    monkeypatch.setattr(xp_conv3d, "CONV3D_CHUNK_BYTES", 1)
    x = mt.randn(3, 4, 4, 5, 5, device=device)
    w = mt.randn(6, 4 // groups, 2, 3, 3, device=device, requires_grad=True)
    b = mt.randn(6, device=device, requires_grad=True)
    with mt.no_grad():
        inferred = mF.conv3d(x, w, b, stride=(1, 2, 1), padding=1, groups=groups)
    np.testing.assert_allclose(
        inferred.cpu().numpy(),
        mF.conv3d(x, w, b, stride=(1, 2, 1), padding=1, groups=groups).detach().cpu().numpy(),
        rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [mt.float16, mt.float32, mt.float64])
def test_dtype_is_kept(dtype, device):
    x = mt.randn(1, 2, 4, 4, 4, dtype=dtype, device=device, requires_grad=True)
    w = mt.randn(4, 1, 2, 2, 2, dtype=dtype, device=device, requires_grad=True)
    b = mt.zeros(4, dtype=dtype, device=device, requires_grad=True)
    y = mF.conv3d(x, w, b, groups=2)
    y.sum().backward()
    assert y.dtype is dtype
    assert x.grad.dtype is dtype and w.grad.dtype is dtype and b.grad.dtype is dtype
    t = mF.conv_transpose3d(x, mt.randn(2, 3, 2, 2, 2, dtype=dtype, device=device), stride=2)
    assert t.dtype is dtype and t.shape == (1, 3, 8, 8, 8)


def test_float16_is_computed_wide(device):
    """A float16 conv3d is its float32 result rounded once."""
    x = mt.randn(1, 8, 4, 4, 4, device=device)
    w = mt.randn(4, 8, 3, 3, 3, device=device)
    half = mF.conv3d(x.half(), w.half(), padding=1)
    wide = mF.conv3d(x.half().float(), w.half().float(), padding=1).half()
    np.testing.assert_array_equal(half.float().cpu().numpy(), wide.float().cpu().numpy())


def test_meta_costs_nothing_for_huge_volumes():
    x = mt.empty(8, 16, 128, 256, 256, device="meta", requires_grad=True)
    layer = nn.Conv3d(16, 32, 3, padding=1, device="meta")
    y = layer(x)
    assert y.shape == (8, 32, 128, 256, 256) and y.is_meta
    y.sum().backward()
    assert x.grad.shape == x.shape and layer.weight.grad.shape == (32, 16, 3, 3, 3)


def test_op_costs_count_volumetric_products():
    """The shape tools count a 3-D convolution's products (and bias additions) on meta."""
    from minitorch_meta.ops.function import observe
    from minitorch_meta.tools import op_costs

    counted = []

    def count(function, inputs, outputs):
        counted.append((op_costs.products(function, inputs, outputs),
                        op_costs.bias_additions(function, inputs, outputs)))

    x = mt.empty(2, 3, 8, 8, 8, device="meta")
    with observe(count):
        nn.Conv3d(3, 4, 3, padding=1, device="meta")(x)
        nn.ConvTranspose3d(3, 4, 2, stride=2, bias=False, device="meta")(x)
    assert counted == [(2 * 4 * 8 ** 3 * 3 * 27, 2 * 4 * 8 ** 3), (2 * 3 * 8 ** 3 * 4 * 8, 0)]


# -- layers -------------------------------------------------------------------------------

LAYERS = [
    ("Conv3d", (4, 3, 3), {}, (2, 4, 5, 5, 5)),
    ("Conv3d", (4, 6, (2, 3, 1)), {"stride": 2, "padding": 1, "dilation": (1, 1, 2),
                                   "groups": 2}, (2, 4, 6, 5, 7)),
    ("Conv3d", (3, 2, 2), {"padding": "same", "bias": False}, (3, 4, 5, 3)),
    ("ConvTranspose3d", (4, 2, 3), {"stride": 2, "output_padding": 1}, (2, 4, 3, 2, 3)),
    ("ConvTranspose3d", (4, 6, (1, 2, 2)), {"groups": 2, "padding": (0, 1, 0), "bias": False,
                                            "dilation": 2}, (4, 3, 3, 3)),
]


@pytest.mark.parametrize("name, args, kwargs, shape", LAYERS,
                         ids=[f"{n}-{i}" for i, (n, *_) in enumerate(LAYERS)])
def test_layer_matches_torch(name, args, kwargs, shape, device):
    ref = getattr(torch.nn, name)(*args, **kwargs)
    ours = getattr(nn, name)(*args, **kwargs).to(device)
    assert repr(ours) == repr(ref)
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == \
           {k: tuple(v.shape) for k, v in ref.state_dict().items()}
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    x, ref_x = _pair(shape, 0, device)
    y, ref_y = ours(x), ref(ref_x)
    np.testing.assert_allclose(y.detach().cpu().numpy(), ref_y.detach().numpy(), rtol=1e-4,
                               atol=1e-5)
    upstream = np.random.default_rng(1).standard_normal(tuple(ref_y.shape)).astype(np.float32)
    y.backward(mt.tensor(upstream, device=device))
    ref_y.backward(torch.tensor(upstream))
    np.testing.assert_allclose(x.grad.cpu().numpy(), ref_x.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ours.weight.grad.cpu().numpy(), ref.weight.grad.numpy(),
                               rtol=1e-4, atol=1e-4)
    if ref.bias is not None:
        np.testing.assert_allclose(ours.bias.grad.cpu().numpy(), ref.bias.grad.numpy(),
                                   rtol=1e-4, atol=1e-4)


def test_layer_init_bounds():
    """PyTorch's default init: every weight and bias within 1/sqrt(fan_in)."""
    layer = nn.Conv3d(4, 6, (2, 3, 1), groups=2)
    bound = 1 / np.sqrt(2 * 2 * 3 * 1)
    assert np.abs(layer.weight.detach().numpy()).max() <= bound
    assert np.abs(layer.bias.detach().numpy()).max() <= bound
    assert layer.weight.shape == (6, 2, 2, 3, 1)


def test_conv_transpose_output_size(device):
    layer = nn.ConvTranspose3d(2, 3, 3, stride=2).to(device)
    x = mt.randn(1, 2, 3, 4, 5, device=device)
    assert layer(x, output_size=(8, 10, 12)).shape == (1, 3, 8, 10, 12)
    assert layer(x, output_size=[1, 3, 7, 9, 11]).shape == (1, 3, 7, 9, 11)
    with pytest.raises(ValueError, match="requested an output size of"):
        layer(x, output_size=(9, 10, 12))


# -- errors -------------------------------------------------------------------------------

def test_wrong_input_rank():
    with pytest.raises(mt.ShapeError) as info:
        mF.conv3d(mt.ones(3, 5, 6), mt.ones(4, 3, 2, 2, 2))
    assert str(info.value) == ("conv3d: expected a 4-D (unbatched) or 5-D (batched) input "
                               "(N, C, D, H, W), but got a 3-D input of shape (3, 5, 6)")
    assert isinstance(info.value, RuntimeError)


@pytest.mark.parametrize("weight, kwargs, message", [
    ((4, 3, 2, 2), {}, "conv3d: expected weight to be 5-D (out_channels, in_channels, kD, kH, "
                       "kW), but got a 4-D weight of shape (4, 3, 2, 2)"),
    ((4, 2, 2, 2, 2), {}, "conv3d: input has 3 channels but weight expects 2 (weight shape "
                          "(4, 2, 2, 2, 2)); input shape (2, 3, 5, 6, 7)"),
    ((4, 3, 6, 2, 2), {}, "conv3d: calculated padded input size per channel: (5 x 6 x 7); "
                          "kernel size: (6 x 2 x 2). Kernel size can't be greater than actual "
                          "input size (input shape (2, 3, 5, 6, 7), weight shape "
                          "(4, 3, 6, 2, 2))"),
    ((4, 1, 2, 2, 2), {"groups": 2}, "conv3d: Given groups=2, weight of shape (4, 1, 2, 2, 2) "
                                     "expects the input to have 2 channels (1 per group), but "
                                     "got 3 channels (input shape (2, 3, 5, 6, 7))"),
    ((4, 3, 2, 2, 2), {"stride": 0}, "conv3d: stride should be greater than zero, got "
                                     "(0, 0, 0)"),
    ((4, 3, 2, 2, 2), {"padding": "same", "stride": 2},
     "conv3d: padding='same' is not supported for strided convolutions (stride=(2, 2, 2)); "
     "use stride=1 or an explicit padding"),
    ((4, 3, 2, 2, 2), {"padding": -1}, "conv3d: negative padding is not supported, got -1"),
])
def test_shape_errors_same_on_cpu_and_meta(weight, kwargs, message):
    w = mt.ones(*weight)
    for device in ("cpu", "meta"):
        with pytest.raises((mt.ShapeError, ValueError)) as info:
            mF.conv3d(mt.ones(2, 3, 5, 6, 7, device=device), w.to(device), **kwargs)
        assert str(info.value) == message, device


def test_bias_shape_error():
    check_same_error_on_cpu_and_meta(
        lambda x: mF.conv3d(x, mt.ones(4, 3, 2, 2, 2, device=x.device),
                            mt.ones(3, device=x.device)),
        mt.ShapeError, "conv3d: bias should have shape (4,) to match the 4 output channels of "
                       "weight (4, 3, 2, 2, 2), but has shape (3,)", shape=(1, 3, 4, 4, 4))


def test_type_errors():
    x = mt.ones(1, 3, 4, 4, 4)
    with pytest.raises(TypeError, match="stride must be an int or a tuple of 3 ints"):
        mF.conv3d(x, mt.ones(2, 3, 2, 2, 2), stride=(1, 2))
    with pytest.raises(TypeError, match="same dtype"):
        mF.conv3d(x, mt.ones(2, 3, 2, 2, 2, dtype=mt.float64))
    with pytest.raises(TypeError, match="padding must be an int or a tuple of ints"):
        mF.conv_transpose3d(x, mt.ones(3, 2, 2, 2, 2), padding="same")


def test_layer_argument_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv3d(3, 4, 2, groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
        nn.Conv3d(3, 4, 2, padding="same", stride=2)
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for '
                                         'ConvTranspose3d'):
        nn.ConvTranspose3d(3, 4, 2, padding_mode="reflect")


def test_conv_transpose_shape_errors_same_on_cpu_and_meta():
    check_same_error_on_cpu_and_meta(
        lambda x: mF.conv_transpose3d(x, mt.ones(3, 2, 2, 2, 2, device=x.device), stride=2,
                                      output_padding=2),
        mt.ShapeError, "conv_transpose3d: output padding must be smaller than either stride or "
                       "dilation, but got output_padding=(2, 2, 2), stride=(2, 2, 2), "
                       "dilation=(1, 1, 1)", shape=(1, 3, 2, 2, 2))

"""nn.utils.fusion (conv/linear + batch norm) and nn.utils.skip_init against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.nn.utils import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
    skip_init,
)
from tests.devices import tensor_device
from tests.nn.utils_pairs import assert_close, copy_state, pair, same_input


def _trained_bn(torch_ref, device, cls_name, features, affine=True):
    """A batch norm with non-trivial statistics and affine values, equal in both."""
    ours, theirs = pair(torch_ref, device, getattr(mt.nn, cls_name),
                        getattr(torch_ref.nn, cls_name), features, affine=affine)
    rng = np.random.default_rng(7)
    with torch_ref.no_grad():
        theirs.running_mean.copy_(torch_ref.tensor(rng.standard_normal(features)))
        theirs.running_var.copy_(torch_ref.tensor(rng.uniform(0.5, 2.0, features)))
        if affine:
            theirs.weight.copy_(torch_ref.tensor(rng.standard_normal(features)))
            theirs.bias.copy_(torch_ref.tensor(rng.standard_normal(features)))
    copy_state(ours, theirs, device)
    return ours.eval(), theirs.eval()


@pytest.mark.parametrize("cls_name,bn_name,args,x_shape,transpose", [
    ("Conv2d", "BatchNorm2d", (2, 3, 2), (2, 2, 4, 4), False),
    ("Conv1d", "BatchNorm1d", (2, 3, 2), (2, 2, 5), False),
    ("ConvTranspose2d", "BatchNorm2d", (2, 3, 2), (1, 2, 3, 3), True),
])
@pytest.mark.parametrize("bias,affine", [(True, True), (False, False)])
def test_fuse_conv_bn_eval_matches_torch(torch_ref, device, cls_name, bn_name, args, x_shape,
                                         transpose, bias, affine):
    conv, tconv = pair(torch_ref, device, getattr(mt.nn, cls_name),
                       getattr(torch_ref.nn, cls_name), *args, bias=bias)
    conv.eval()
    tconv.eval()
    bn, tbn = _trained_bn(torch_ref, device, bn_name, 3, affine)
    fused = fuse_conv_bn_eval(conv, bn, transpose)
    tfused = torch_ref.nn.utils.fuse_conv_bn_eval(tconv, tbn, transpose)
    assert fused is not conv and type(fused) is type(conv)
    assert isinstance(fused.weight, mt.nn.Parameter) and isinstance(fused.bias, mt.nn.Parameter)
    assert_close(fused.weight, tfused.weight)
    assert_close(fused.bias, tfused.bias)
    x, tx = same_input(torch_ref, device, *x_shape)
    assert_close(fused(x), tfused(tx))
    assert_close(fused(x), bn(conv(x)), rtol=1e-10)


@pytest.mark.parametrize("features", [3, 1])
def test_fuse_linear_bn_eval_matches_torch(torch_ref, device, features):
    linear, tlinear = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear, 4, 3)
    linear.eval()
    tlinear.eval()
    bn, tbn = _trained_bn(torch_ref, device, "BatchNorm1d", features)
    fused = fuse_linear_bn_eval(linear, bn)
    tfused = torch_ref.nn.utils.fuse_linear_bn_eval(tlinear, tbn)
    assert_close(fused.weight, tfused.weight)
    assert_close(fused.bias, tfused.bias)
    x, tx = same_input(torch_ref, device, 2, 4)
    assert_close(fused(x), tfused(tx))


def test_fuse_weights_keep_dtypes_and_requires_grad(torch_ref, device):
    w = mt.randn(3, 2, 1, 1, device=device, dtype=mt.float32)
    stats = [mt.rand(3, device=device, dtype=mt.float64) for _ in range(4)]
    fused_w, fused_b = fuse_conv_bn_weights(w, None, stats[0], stats[1] + 0.5, 1e-5, stats[2],
                                            stats[3])
    assert fused_w.dtype is mt.float32 and fused_b.dtype is mt.float32
    assert isinstance(fused_w, mt.nn.Parameter) and not fused_w.requires_grad
    assert fused_w.device == tensor_device(device)
    linear_w = mt.randn(3, 2, device=device, requires_grad=True)
    fused_w, fused_b = fuse_linear_bn_weights(linear_w, None, *[s.float() for s in stats[:2]],
                                              1e-5, *[s.float() for s in stats[2:]])
    assert fused_w.requires_grad and not fused_b.requires_grad and fused_w.grad_fn is None


def test_fusion_errors_match_torch(torch_ref):
    for lib in (mt, torch_ref):
        utils = lib.nn.utils
        with pytest.raises(AssertionError, match="Fusion only for eval!"):
            utils.fuse_conv_bn_eval(lib.nn.Conv2d(2, 3, 1), lib.nn.BatchNorm2d(3).eval())
        with pytest.raises(AssertionError, match="Fusion only for eval!"):
            utils.fuse_linear_bn_eval(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        with pytest.raises(AssertionError, match="linear.out_features=3 and bn.num_features=2"):
            utils.fuse_linear_bn_eval(lib.nn.Linear(2, 3).eval(), lib.nn.BatchNorm1d(2).eval())
        with pytest.raises(AssertionError, match="bn.running_mean and bn.running_var must not "
                                                 "be None"):
            utils.fuse_conv_bn_eval(lib.nn.Conv2d(2, 3, 1).eval(),
                                    lib.nn.BatchNorm2d(3, track_running_stats=False).eval())


def test_skip_init_builds_on_the_device_without_initialising(device):
    layer = skip_init(mt.nn.Linear, 4, 3, device=device)
    assert type(layer) is mt.nn.Linear and layer.weight.shape == (3, 4)
    assert layer.weight.device == tensor_device(device)
    assert skip_init(mt.nn.Linear, 4, 3).weight.device.type == "cpu"
    assert skip_init(mt.nn.Linear, 4, 3, dtype=mt.float64).weight.dtype is mt.float64


def test_skip_init_errors_match_torch(torch_ref):
    class NoDevice(mt.nn.Module):
        def __init__(self, size):
            super().__init__()

    class TorchNoDevice(torch_ref.nn.Module):
        def __init__(self, size):
            super().__init__()

    for lib, cls in ((mt, NoDevice), (torch_ref, TorchNoDevice)):
        with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip "
                                               "initialization"):
            lib.nn.utils.skip_init(cls, 3)
        with pytest.raises(RuntimeError, match="Expected a Module; got"):
            lib.nn.utils.skip_init(int, 3)

"""The 1-D and 3-D padding layers, the circular ones, UpsamplingNearest2d /
UpsamplingBilinear2d and the deprecated F.upsample, F.upsample_nearest, F.upsample_bilinear:
values, gradients, meta shapes and grad_fn names against PyTorch, reprs, errors, warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, three_way_tests

S1, S2, S3 = (2, 3, 5), (2, 3, 4, 5), (2, 2, 3, 4, 5)


def _layer(name, *args):
    return lambda T, F, x: getattr(T.nn, name)(*args)(x)


CASES = [
    Case("zero1d", _layer("ZeroPad1d", 2), [Arg(S1)]),
    Case("zero1d_pair_crop", _layer("ZeroPad1d", (1, -2)), [Arg(S1)]),
    Case("zero3d", _layer("ZeroPad3d", 1), [Arg(S3)]),
    Case("zero3d_six", _layer("ZeroPad3d", (1, 0, 2, 1, 0, 3)), [Arg(S3)]),
    Case("constant1d", _layer("ConstantPad1d", (2, 1), 3.5), [Arg(S1)]),
    Case("constant1d_unbatched", _layer("ConstantPad1d", 1, -1.0), [Arg((3, 4))]),
    Case("constant3d", _layer("ConstantPad3d", (1, 2, 0, 1, 2, 0), 0.5), [Arg(S3)]),
    Case("constant3d_unbatched", _layer("ConstantPad3d", 1, 2.0), [Arg((2, 3, 4, 5))]),
    Case("reflection1d", _layer("ReflectionPad1d", (3, 2)), [Arg(S1)]),
    Case("reflection1d_unbatched", _layer("ReflectionPad1d", 2), [Arg((3, 5))]),
    Case("reflection3d", _layer("ReflectionPad3d", (1, 2, 2, 1, 1, 2)), [Arg(S3)]),
    Case("reflection3d_unbatched", _layer("ReflectionPad3d", 1), [Arg((2, 3, 4, 5))]),
    Case("replication1d", _layer("ReplicationPad1d", (3, 1)), [Arg(S1)]),
    Case("replication3d", _layer("ReplicationPad3d", (2, 1, 0, 3, 1, 1)), [Arg(S3)]),
    Case("replication3d_unbatched", _layer("ReplicationPad3d", 2), [Arg((2, 3, 4, 5))]),
    Case("circular1d", _layer("CircularPad1d", (2, 3)), [Arg(S1)]),
    Case("circular1d_unbatched", _layer("CircularPad1d", 1), [Arg((3, 5))]),
    Case("circular2d", _layer("CircularPad2d", (1, 2, 3, 0)), [Arg(S2)]),
    Case("circular2d_crop", _layer("CircularPad2d", (-1, 2, 1, -1)), [Arg(S2)]),
    Case("circular3d", _layer("CircularPad3d", (1, 1, 2, 0, 1, 2)), [Arg(S3)]),
    Case("circular3d_unbatched", _layer("CircularPad3d", 1), [Arg((2, 3, 4, 5))]),
    Case("pad_reflect_3d", lambda T, F, x: F.pad(x, (1, 2, 2, 0, 1, 1), "reflect"), [Arg(S3)]),
    Case("pad_replicate_3d", lambda T, F, x: F.pad(x, (1, 2, 2, 0, 1, 1), "replicate"),
         [Arg(S3)]),
    Case("pad_circular_3d", lambda T, F, x: F.pad(x, (1, 2, 2, 0, 1, 1), "circular"),
         [Arg(S3)]),
    Case("nearest2d_scale", _layer("UpsamplingNearest2d", None, 2), [Arg((2, 3, 3, 4))]),
    Case("nearest2d_size", _layer("UpsamplingNearest2d", (5, 7)), [Arg((2, 3, 3, 4))]),
    Case("bilinear2d_scale", _layer("UpsamplingBilinear2d", None, 2), [Arg((2, 3, 3, 4))]),
    Case("bilinear2d_size", _layer("UpsamplingBilinear2d", (5, 7)), [Arg((2, 3, 3, 4))]),
    Case("bilinear2d_scales", _layer("UpsamplingBilinear2d", None, (1.5, 2.5)),
         [Arg((1, 2, 4, 3))]),
]

# PyTorch's circular padding is a chain of in-place slice copies, whose node's name() is
# ``torch::autograd::CopySlices``; ours reads ``CopySlices`` (see tests/ops/test_padding.py).
CIRCULAR = [c.id for c in CASES if "circular" in c.id]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES,
                                                                        name_differs=CIRCULAR)

DEPRECATED = [
    Case("upsample", lambda T, F, x: F.upsample(x, scale_factor=2), [Arg((2, 3, 3, 4))]),
    Case("upsample_linear", lambda T, F, x: F.upsample(x, size=7, mode="linear"),
         [Arg((2, 3, 4))]),
    Case("upsample_bilinear_corners",
         lambda T, F, x: F.upsample(x, None, 2, "bilinear", align_corners=True),
         [Arg((2, 3, 3, 4))]),
    Case("upsample_nearest", lambda T, F, x: F.upsample_nearest(x, (5, 6)), [Arg((2, 3, 3, 4))]),
    Case("upsample_nearest_1d", lambda T, F, x: F.upsample_nearest(x, scale_factor=3),
         [Arg((2, 3, 4))]),
    Case("upsample_bilinear", lambda T, F, x: F.upsample_bilinear(x, scale_factor=2),
         [Arg((2, 3, 3, 4))]),
    Case("upsample_bilinear_size", lambda T, F, x: F.upsample_bilinear(x, [4, 9]),
         [Arg((2, 3, 3, 4))]),
]

_grad, _torch, _meta = three_way_tests(DEPRECATED)
# The deprecated names warn on every call; these tests look at values, not warnings.
test_deprecated_gradcheck = pytest.mark.filterwarnings("ignore::UserWarning")(_grad)
test_deprecated_against_torch = pytest.mark.filterwarnings("ignore::UserWarning")(_torch)
test_deprecated_meta_shapes = pytest.mark.filterwarnings("ignore::UserWarning")(_meta)


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_deprecated_names_warn_as_torch_does(name, torch_ref):
    messages = []
    for F in (mF, torch_ref.nn.functional):
        x = (mt if F is mF else torch_ref).ones(1, 1, 2, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(F, name)(x, scale_factor=2)
        assert len(caught) == 1 and caught[0].category is UserWarning
        assert caught[0].filename == __file__  # the caller's line, not the library's
        messages.append(str(caught[0].message))
    assert messages[0] == messages[1]


def test_upsampling_layers_do_not_warn(recwarn):
    x = mt.ones(1, 1, 2, 2)
    mt.nn.UpsamplingNearest2d(scale_factor=2)(x)
    mt.nn.UpsamplingBilinear2d(scale_factor=2)(x)
    assert not recwarn.list


LAYERS = [
    ("ZeroPad1d", (2,)), ("ZeroPad1d", ((1, 2),)), ("ZeroPad3d", (1,)),
    ("ZeroPad3d", ([1, 2, 3, 4, 5, 6],)), ("ZeroPad2d", (3,)),
    ("ConstantPad1d", (2, 1.5)), ("ConstantPad1d", ([1, 2], 3)), ("ConstantPad3d", (1, -2.0)),
    ("ConstantPad2d", ((1, 2, 3, 4), 0.5)),
    ("ReflectionPad1d", (2,)), ("ReflectionPad3d", ((1, 2, 3, 4, 5, 6),)),
    ("ReplicationPad1d", ((0, 3),)), ("ReplicationPad3d", (2,)),
    ("CircularPad1d", (2,)), ("CircularPad2d", ([1, 2, 3, 4],)), ("CircularPad3d", (1,)),
    ("UpsamplingNearest2d", (None, 2)), ("UpsamplingNearest2d", (4,)),
    ("UpsamplingBilinear2d", ((3, 4),)), ("UpsamplingBilinear2d", (None, (2, 3))),
]


@pytest.mark.parametrize("name, args", LAYERS)
def test_reprs_and_settings_match_torch(name, args, torch_ref):
    ours, theirs = getattr(mt.nn, name)(*args), getattr(torch_ref.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    for attribute in ("padding", "value", "size", "scale_factor", "mode", "align_corners"):
        if hasattr(theirs, attribute):
            assert getattr(ours, attribute) == getattr(theirs, attribute), attribute


def test_class_tree_as_torch():
    assert isinstance(mt.nn.ZeroPad1d(1), mt.nn.ConstantPad1d)
    assert isinstance(mt.nn.ZeroPad3d(1), mt.nn.ConstantPad3d)
    assert isinstance(mt.nn.UpsamplingBilinear2d(scale_factor=2), mt.nn.Upsample)
    assert isinstance(mt.nn.UpsamplingNearest2d(scale_factor=2), mt.nn.Upsample)


@pytest.mark.parametrize("name, shape", [
    ("CircularPad1d", (2, 3, 4, 5)), ("CircularPad1d", (5,)), ("CircularPad2d", (1, 2, 3, 4, 5)),
    ("CircularPad3d", (2, 3, 4)),
])
def test_circular_layers_check_the_rank_as_torch(name, shape, torch_ref):
    for T, device in ((mt, "cpu"), (mt, "meta"), (torch_ref, "cpu")):
        with pytest.raises(ValueError) as info:
            getattr(T.nn, name)(1)(T.ones(*shape, device=device))
        low, high = int(name[-2]) + 1, int(name[-2]) + 2
        assert str(info.value) == f"expected {low}D or {high}D input (got {len(shape)}D input)"


@pytest.mark.parametrize("name, padding, shape, error", [
    ("ReflectionPad1d", (1, 2, 3), (2, 3, 4), RuntimeError),  # odd length
    ("ReflectionPad3d", 1, (2, 3, 4), NotImplementedError),
    ("ReflectionPad1d", 5, (2, 3, 4), RuntimeError),  # not smaller than the dim
    ("ReplicationPad3d", 1, (2, 0, 3, 4, 5), RuntimeError),  # an empty non-batch dim
    ("ZeroPad1d", (1, 2, 3), (2, 3, 4), RuntimeError),  # odd length
    ("ZeroPad3d", 1, (3,), RuntimeError),  # more pads than the rank allows
])
def test_layer_errors_are_torchs_types_on_cpu_and_meta(name, padding, shape, error, torch_ref):
    for T, device in ((mt, "cpu"), (mt, "meta"), (torch_ref, "cpu")):
        with pytest.raises(error):
            getattr(T.nn, name)(padding)(T.ones(*shape, device=device))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_three_dim_padding_of_an_int_tensor_matches_torch(mode, device, torch_ref):
    data = np.arange(2 * 3 * 4 * 5).reshape(1, 2, 3, 4, 5)
    pads = (2, 1, 1, 2, 1, 1)
    if mode == "circular":
        out = mF.pad(mt.tensor(data, device=device), pads, mode)
    else:  # PyTorch's reflect/replicate kernels take floating point only
        out = mF.pad(mt.tensor(data, device=device).double(), pads, mode)
        data = data.astype(np.float64)
    ref = torch_ref.nn.functional.pad(torch_ref.tensor(data), pads, mode)
    np.testing.assert_array_equal(out.cpu().numpy(), ref.numpy())
    assert str(out.dtype) == str(ref.dtype)

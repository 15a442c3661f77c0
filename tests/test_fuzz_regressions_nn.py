"""Regressions found by fuzzing ``torch.nn.functional`` and the ``torch.nn`` layers against
PyTorch: one test per bug, compared with the ``torch_ref`` fixture."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests


def _pair(torch_ref, data, device, requires_grad=False):
    """The same float64 data as a PyTorch tensor and one of ours on ``device``."""
    t = torch_ref.tensor(data, requires_grad=requires_grad)
    m = mt.tensor(data, device=device, requires_grad=requires_grad)
    return t, m


def _raised(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type and message are what we compare
        return error
    return None


@pytest.mark.parametrize("which", ["mean", "var"])
@pytest.mark.parametrize("norm", ["batch_norm", "instance_norm"])
def test_training_norm_with_only_one_running_statistic(torch_ref, device, which, norm):
    """Training with only one of ``running_mean``/``running_var`` raises PyTorch's
    ValueError (it normalised and updated the one given)."""
    data = np.random.default_rng(0).standard_normal((2, 3, 4))
    tx, mx = _pair(torch_ref, data, device)

    def call(framework, x):
        stat = framework.zeros(3, dtype=framework.float64, **({} if framework is torch_ref
                                                                else {"device": device}))
        mean, var = (stat, None) if which == "mean" else (None, stat)
        if norm == "batch_norm":
            return framework.nn.functional.batch_norm(x, mean, var, training=True)
        return framework.nn.functional.instance_norm(x, mean, var, use_input_stats=True)

    expected, got = _raised(lambda: call(torch_ref, tx)), _raised(lambda: call(mt, mx))
    assert type(expected) is ValueError and type(got) is ValueError
    assert str(got).startswith(str(expected))


def _resize(**kwargs):
    return lambda T, F, a: F.interpolate(a, **kwargs)


S5 = (2, 2, 3, 4, 5)
RESIZE_CASES = [
    # mode="area" is adaptive average pooling to the new size, on 3-, 4- and 5-D inputs
    Case("area_1d_size", _resize(size=3, mode="area"), [Arg((2, 3, 7))]),
    Case("area_2d_scale", _resize(scale_factor=(0.5, 1.7), mode="area"), [Arg((2, 3, 5, 6))]),
    Case("area_3d_size", _resize(size=(2, 5, 3), mode="area"), [Arg(S5)]),
    Case("area_2d_to_one", _resize(size=1, mode="area"), [Arg((2, 3, 5, 6))]),
    # trilinear, and the nearest modes, on 5-D inputs
    Case("trilinear_size", _resize(size=(5, 3, 8), mode="trilinear"), [Arg(S5)]),
    Case("trilinear_align", _resize(size=(2, 7, 5), mode="trilinear", align_corners=True),
         [Arg(S5)]),
    Case("trilinear_scale", _resize(scale_factor=(1.5, 0.6, 2.1), mode="trilinear"), [Arg(S5)]),
    Case("trilinear_recompute", _resize(scale_factor=1.7, mode="trilinear",
                                        recompute_scale_factor=True), [Arg(S5)]),
    Case("nearest_3d_size", _resize(size=(5, 3, 8)), [Arg(S5)]),
    Case("nearest_3d_x2", _resize(scale_factor=2), [Arg(S5)]),
    Case("nearest_exact_3d_scale", _resize(scale_factor=(1.5, 0.6, 2.5), mode="nearest-exact"),
         [Arg(S5)]),
    # bicubic: four clamped taps per axis, on the matrices and on the gathers (a long axis)
    Case("bicubic_size", _resize(size=(7, 3), mode="bicubic"), [Arg((2, 3, 4, 5))]),
    Case("bicubic_align", _resize(size=(2, 9), mode="bicubic", align_corners=True),
         [Arg((2, 3, 4, 5))]),
    Case("bicubic_scale", _resize(scale_factor=(1.7, 0.6), mode="bicubic"),
         [Arg((2, 3, 4, 5))]),
    Case("bicubic_same_size", _resize(size=(4, 5), mode="bicubic"), [Arg((2, 3, 4, 5))]),
    Case("bicubic_long_axis_gathers", _resize(size=(3, 120), mode="bicubic"),
         [Arg((1, 2, 2, 60))]),
    Case("bicubic_one_pixel", _resize(size=(3, 1), mode="bicubic"), [Arg((1, 1, 1, 1))]),
    # antialias=True: the filter widened by the scale when shrinking, plain when growing; an
    # axis whose size is kept is skipped (whatever the scale factor says)
    *(Case(f"{mode}_antialias_{name}", _resize(mode=mode, antialias=True, **kwargs),
           [Arg(shape)])
      for mode in ("bilinear", "bicubic")
      for name, shape, kwargs in [
          ("shrink", (2, 3, 9, 8), dict(size=(3, 5))),
          ("grow", (2, 3, 4, 3), dict(size=(9, 7))),
          ("scale", (2, 2, 7, 9), dict(scale_factor=(0.3, 0.45))),
          ("align", (2, 2, 7, 9), dict(size=(2, 4), align_corners=True)),
          ("kept_axis", (2, 2, 5, 9), dict(scale_factor=(1.0, 0.5))),
          ("to_one", (1, 2, 7, 6), dict(size=(1, 1))),
          ("long_axis_gathers", (1, 1, 2, 130), dict(size=(3, 50)))]),
]
test_resize_gradcheck, test_resize_against_torch, test_resize_meta_shapes = three_way_tests(
    RESIZE_CASES)


def test_bicubic_of_infinite_data_is_nan_only_where_a_tap_reads_it(torch_ref, device):
    """An inf makes NaN only in the outputs whose four taps read it, as PyTorch's kernel
    (an interpolation matrix's zeros would spread it along the whole axis)."""
    data = np.array([[[[0.0, np.inf, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]]])
    tx, mx = _pair(torch_ref, data, device)
    expected = torch_ref.nn.functional.interpolate(tx, size=(1, 12), mode="bicubic")
    got = mt.nn.functional.interpolate(mx, size=(1, 12), mode="bicubic")
    np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-12)


def test_nearest_3d_reads_floor_of_the_scaled_position(torch_ref, device):
    """A 5-D nearest resize that doubles by ``scale_factor=2.1`` reads ``floor(o / 2.1)``,
    as PyTorch's 3-D kernel (only its 2-D kernel copies or halves such sizes)."""
    data = np.arange(5.0).reshape(1, 1, 5, 1, 1)
    tx, mx = _pair(torch_ref, data, device)
    expected = torch_ref.nn.functional.interpolate(tx, scale_factor=2.1)
    got = mt.nn.functional.interpolate(mx, scale_factor=2.1)
    np.testing.assert_array_equal(got.cpu().numpy(), expected.numpy())


def _rows(device=None, framework=mt):
    """A table whose rows have 2-norms 5, 0.5, 10 and 1 (and other p-norms around them)."""
    data = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0], [0.6, -0.8]])
    kwargs = {} if device is None else {"device": device}
    return framework.tensor(data, requires_grad=True, **kwargs)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf"), 0.0])
@pytest.mark.parametrize("max_norm", [1.0, 0.7])
@pytest.mark.parametrize("layer", [False, True])
def test_embedding_max_norm_clips_the_named_rows_in_place(torch_ref, device, norm_type,
                                                          max_norm, layer):
    """``max_norm`` scales the rows the indices name down to it, in place, before the
    lookup; the gradient flows to the clipped rows (it raised NotImplementedError)."""
    indices = [[0, 1], [0, 3]]
    tw, mw = _rows(framework=torch_ref), _rows(device)
    ti = torch_ref.tensor(indices)
    mi = mt.tensor(indices, device=device)
    if layer:
        tl = torch_ref.nn.Embedding.from_pretrained(tw.detach(), freeze=False, max_norm=max_norm,
                                                    norm_type=norm_type)
        ml = mt.nn.Embedding.from_pretrained(mw.detach(), freeze=False, max_norm=max_norm,
                                             norm_type=norm_type)
        tw, mw = tl.weight, ml.weight
        expected, got = tl(ti), ml(mi)
    else:
        expected = torch_ref.nn.functional.embedding(ti, tw, max_norm=max_norm,
                                                     norm_type=norm_type)
        got = mt.nn.functional.embedding(mi, mw, max_norm=max_norm, norm_type=norm_type)
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().numpy(),
                               rtol=1e-12)
    # rows 0 and 3 clipped where over max_norm, row 2 (not named) left alone
    np.testing.assert_allclose(mw.detach().cpu().numpy(), tw.detach().numpy(), rtol=1e-12)
    weights = np.arange(8.0).reshape(2, 2, 2)
    (expected * torch_ref.tensor(weights)).sum().backward()
    (got * mt.tensor(weights, device=device)).sum().backward()
    np.testing.assert_array_equal(mw.grad.cpu().numpy(), tw.grad.numpy())


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_max_norm(torch_ref, device, mode):
    """``embedding_bag``'s ``max_norm`` clips the rows of every bag first, as ``embedding``'s
    (it raised NotImplementedError)."""
    tw, mw = _rows(framework=torch_ref), _rows(device)
    indices, offsets = [0, 2, 1, 3, 0], [0, 2]
    expected = torch_ref.nn.functional.embedding_bag(
        torch_ref.tensor(indices), tw, torch_ref.tensor(offsets), max_norm=1.5, mode=mode)
    got = mt.nn.functional.embedding_bag(mt.tensor(indices, device=device), mw,
                                         mt.tensor(offsets, device=device), max_norm=1.5,
                                         mode=mode)
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().numpy(),
                               rtol=1e-12)
    np.testing.assert_allclose(mw.detach().cpu().numpy(), tw.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("call, error", [
    (lambda T, w: T.embedding_renorm_(w.detach(), T.tensor([0.0]), 1.0, 2.0), RuntimeError),
    (lambda T, w: T.embedding_renorm_(w.detach()[0], T.tensor([0]), 1.0, 2.0), RuntimeError),
    (lambda T, w: T.embedding_renorm_(w, T.tensor([0]), 1.0, 2.0), RuntimeError),
    (lambda T, w: T.embedding_renorm_(w.detach(), T.tensor([4]), 1.0, 2.0), IndexError),
], ids=["float-indices", "1-d-weight", "leaf-requiring-grad", "index-out-of-range"])
def test_embedding_renorm_errors(torch_ref, call, error):
    """``torch.embedding_renorm_``'s errors: PyTorch's types and, for the dtype and rank
    checks and the in-place rule on a leaf, the start of its messages."""
    expected, got = _raised(lambda: call(torch_ref, _rows(framework=torch_ref))), _raised(
        lambda: call(mt, _rows()))
    assert type(expected) is error and type(got) is error
    if error is RuntimeError:
        start = str(expected).split(";")[0].split(" (")[0]
        assert start.lower().rstrip(".") in str(got).lower(), (str(expected), str(got))


def test_embedding_renorm_on_meta():
    """On meta the renormalisation is shapes only: the weight keeps its shape and device."""
    weight = mt.ones(4, 2, device="meta")
    assert mt.embedding_renorm_(weight, mt.tensor([0, 3], device="meta"), 1.0, 2.0) is weight
    got = mt.nn.functional.embedding(mt.tensor([[0, 3]], device="meta"), weight, max_norm=1.0)
    assert tuple(got.shape) == (1, 2, 2) and got.device.type == "meta"


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_skips_a_kept_axis_whatever_the_scale(torch_ref, device, mode):
    """An axis whose size ``scale_factor=1.1`` keeps is copied by PyTorch's anti-aliased
    forward; ours too (its backward interpolates that axis, so only values compare)."""
    data = np.random.default_rng(0).standard_normal((2, 2, 5, 9))
    tx, mx = _pair(torch_ref, data, device)
    kwargs = dict(scale_factor=(1.1, 0.5), mode=mode, antialias=True)
    expected = torch_ref.nn.functional.interpolate(tx, **kwargs)
    got = mt.nn.functional.interpolate(mx, **kwargs)
    np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_copies_an_inf_on_a_kept_axis(torch_ref, device, mode):
    """An inf on axes whose sizes are kept stays where it is, its neighbours finite (the
    filter's zero-weight taps would read it and give NaN)."""
    data = np.arange(20.0).reshape(1, 1, 4, 5)
    data[0, 0, 1, 2] = np.inf
    tx, mx = _pair(torch_ref, data, device)
    kwargs = dict(scale_factor=1.1, mode=mode, antialias=True)
    expected = torch_ref.nn.functional.interpolate(tx, **kwargs)
    got = mt.nn.functional.interpolate(mx, **kwargs)
    np.testing.assert_array_equal(got.cpu().numpy(), expected.numpy())

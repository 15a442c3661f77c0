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
]
test_resize_gradcheck, test_resize_against_torch, test_resize_meta_shapes = three_way_tests(
    RESIZE_CASES)


def test_nearest_3d_reads_floor_of_the_scaled_position(torch_ref, device):
    """A 5-D nearest resize that doubles by ``scale_factor=2.1`` reads ``floor(o / 2.1)``,
    as PyTorch's 3-D kernel (only its 2-D kernel copies or halves such sizes)."""
    data = np.arange(5.0).reshape(1, 1, 5, 1, 1)
    tx, mx = _pair(torch_ref, data, device)
    expected = torch_ref.nn.functional.interpolate(tx, scale_factor=2.1)
    got = mt.nn.functional.interpolate(mx, scale_factor=2.1)
    np.testing.assert_array_equal(got.cpu().numpy(), expected.numpy())

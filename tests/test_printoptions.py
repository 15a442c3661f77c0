"""``set_printoptions``: reprs under each option equal PyTorch's under the same options."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.formatting import PRINT_OPTIONS, get_printoptions

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")

DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
            "sci_mode": None}


@pytest.fixture(autouse=True)
def _restore_defaults():
    """Options are process-wide (in both libraries): every test leaves the defaults."""
    yield
    mt.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    assert get_printoptions() == DEFAULTS


def _data():
    rng = np.random.default_rng(0)
    return {
        "floats": rng.standard_normal(7) * 10,
        "matrix": rng.standard_normal((4, 9)),
        "long_vector": rng.standard_normal(2000),
        "big_matrix": rng.standard_normal((40, 50)) * 1000,
        "cube": rng.standard_normal((8, 3, 10)),
        "wide_ints": np.arange(60) * 1000,
        "integral_floats": np.arange(12.0) - 5,
        "tiny_and_huge": np.array([1e-6, 1.0, 3e9]),
        "scalar": np.array(3.14159265),
        "nan_inf": np.array([np.nan, 1.5, -np.inf]),
        "bools": rng.random((3, 5)) < 0.5,
        "half": (rng.standard_normal(30) * 5).astype(np.float16),
    }


OPTIONS = [
    {"precision": 2}, {"precision": 8}, {"precision": 0},
    {"threshold": 5}, {"threshold": 5, "edgeitems": 1}, {"threshold": 5, "edgeitems": 0},
    {"edgeitems": 5, "threshold": 100},
    {"linewidth": 40}, {"linewidth": 200}, {"linewidth": 1},
    {"sci_mode": True}, {"sci_mode": False}, {"sci_mode": True, "precision": 1},
    {"profile": "short"}, {"profile": "full"}, {"profile": "short", "precision": 6},
    {"threshold": math.inf},
]


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
def test_reprs_equal_pytorchs_under_each_option(options):
    mt.set_printoptions(**options)
    torch.set_printoptions(**options)
    for name, data in _data().items():
        theirs = torch.tensor(data)
        ours = mt.tensor(data)
        assert repr(ours) == repr(theirs), name
        assert str(ours) == str(theirs), name
        if data.dtype.kind == "f" and data.ndim:
            grad = mt.tensor(data, requires_grad=True) * 2
            assert repr(grad) == repr(torch.tensor(data, requires_grad=True) * 2), name


@pytest.mark.parametrize("linewidth", [30, 45, 60])
def test_suffixes_wrap_at_the_line_width_as_in_pytorch(linewidth):
    # On the CPU only: a device suffix changes where the lines wrap, and PyTorch here has
    # no CUDA to print one.
    mt.set_printoptions(linewidth=linewidth)
    torch.set_printoptions(linewidth=linewidth)
    for n in range(1, 12):
        data = (np.arange(n) * 1.5).astype(np.float16)
        ours = mt.tensor(data, requires_grad=True) * 2
        theirs = torch.tensor(data, requires_grad=True) * 2
        assert repr(ours) == repr(theirs), n


def test_profile_sets_all_and_arguments_override_it():
    mt.set_printoptions(profile="short", linewidth=100)
    assert get_printoptions() == {"precision": 2, "threshold": 1000, "edgeitems": 2,
                                  "linewidth": 100, "sci_mode": None}
    mt.set_printoptions(profile="full")
    assert PRINT_OPTIONS.threshold == math.inf and PRINT_OPTIONS.linewidth == 80
    assert "..." not in repr(mt.arange(5000))


def test_sci_mode_resets_when_left_out_as_in_pytorch():
    mt.set_printoptions(sci_mode=True)
    assert repr(mt.tensor([1.5])) == "tensor([1.5000e+00])"
    mt.set_printoptions(precision=3)  # sci_mode back to None (automatic)
    assert PRINT_OPTIONS.sci_mode is None
    assert repr(mt.tensor([1.5])) == "tensor([1.500])"


def test_get_printoptions_round_trips_like_pytorchs():
    mt.set_printoptions(precision=6, edgeitems=1, sci_mode=False)
    saved = get_printoptions()
    assert saved == {"precision": 6, "threshold": 1000, "edgeitems": 1, "linewidth": 80,
                     "sci_mode": False}
    assert set(saved) == set(torch._tensor_str.get_printoptions())
    mt.set_printoptions(profile="default")
    mt.set_printoptions(**saved)
    assert get_printoptions() == saved


def test_meta_reprs_follow_the_line_width():
    mt.set_printoptions(linewidth=30)
    assert repr(mt.empty(2, 3, device="meta", requires_grad=True)) == (
        "tensor(..., device='meta',\n       size=(2, 3),\n       requires_grad=True)")


@pytest.mark.parametrize("options, error, message", [
    ({"profile": "long"}, ValueError,
     "set_printoptions: unknown profile 'long'; expected one of 'default', 'short', 'full'"),
    ({"precision": 2.5}, TypeError, "set_printoptions: precision must be an int, got float 2.5"),
    ({"edgeitems": True}, TypeError,
     "set_printoptions: edgeitems must be an int, got bool True"),
    ({"threshold": "10"}, TypeError,
     "set_printoptions: threshold must be a number, got str '10'"),
    ({"linewidth": -1}, ValueError, "set_printoptions: linewidth must be >= 0, got -1"),
    ({"sci_mode": 1}, TypeError, "set_printoptions: sci_mode must be True, False or None, got 1"),
])
def test_bad_options_raise_and_change_nothing(options, error, message):
    with pytest.raises(error) as info:
        mt.set_printoptions(**{"profile": "short", "precision": 3, **options})
    assert str(info.value) == message
    assert get_printoptions() == DEFAULTS

"""renorm / Tensor.renorm / renorm_: values, gradients (through the norm), grad_fn name,
dtypes, PyTorch's errors; and torch.bilinear (F.bilinear under its top-level name)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

# The norms of a standard normal's rows (4 elements) are about 2, so maxnorm 1.5 clips most
# slices and leaves a few: both branches of the factor are exercised.
CASES = [
    Case("renorm_rows", lambda T, F, a: T.renorm(a, 2, 0, 1.5), [Arg((5, 4))]),
    Case("renorm_method_columns", lambda T, F, a: a.renorm(2, 1, 1.5), [Arg((4, 6))]),
    Case("renorm_p1_3d", lambda T, F, a: T.renorm(a, 1, 1, 3.0), [Arg((2, 3, 4))]),
    Case("renorm_p3_negative_dim", lambda T, F, a: T.renorm(a, 3, -1, 1.2), [Arg((3, 2, 4))]),
    Case("renorm_inf_norm", lambda T, F, a: T.renorm(a, float("inf"), 0, 1.2),
         [Arg((4, 3), "positive")]),
    Case("renorm_fractional_p", lambda T, F, a: T.renorm(a, 1.5, 0, 1.0),
         [Arg((3, 4), "away0")]),
    Case("renorm_nothing_clipped", lambda T, F, a: T.renorm(a, 2, 0, 100.0), [Arg((3, 4))]),
    Case("renorm_zero_maxnorm", lambda T, F, a: T.renorm(a, 2, 0, 0.0), [Arg((3, 4))]),
    Case("bilinear", lambda T, F, a, b, w, c: T.bilinear(a, b, w, c),
         [Arg((3, 2)), Arg((3, 4)), Arg((5, 2, 4)), Arg((5,))]),
    Case("bilinear_no_bias", lambda T, F, a, b, w: T.bilinear(a, b, w),
         [Arg((2, 3, 2)), Arg((2, 3, 4)), Arg((5, 2, 4))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


def test_each_slice_norm_is_clipped_to_maxnorm(device):
    x = mt.tensor([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]], device=device)
    out = x.renorm(2, 0, 1.0)
    assert out.device == x.device
    np.testing.assert_allclose(out.cpu().numpy(), [[0.6, 0.8], [0.3, 0.4], [0.0, 0.0]],
                               rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_dtype_is_kept_and_values_match_torch(dtype):
    torch = _torch()
    data = np.random.default_rng(0).standard_normal((3, 5))
    ours = mt.renorm(mt.tensor(data, dtype=getattr(mt, dtype)), 2, 1, 0.7)
    ref = torch.renorm(torch.tensor(data, dtype=getattr(torch, dtype)), 2, 1, 0.7)
    assert str(ours.dtype) == str(ref.dtype)
    # PyTorch sums a float16 norm in float32: allow float16's rounding
    np.testing.assert_allclose(ours.float().numpy(), ref.float().numpy(),
                               rtol=2e-3 if dtype == "float16" else 1e-12)


def test_in_place_matches_torch_and_bumps_the_version(device):
    torch = _torch()
    data = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    x = mt.tensor(data, device=device)
    returned = x.renorm_(2, 0, 1.0)
    assert returned is x and x._version == 1
    np.testing.assert_allclose(x.cpu().numpy(), torch.tensor(data).renorm_(2, 0, 1.0).numpy(),
                               rtol=1e-6)


def test_in_place_is_refused_on_a_leaf_that_requires_grad():
    with pytest.raises(RuntimeError, match="renorm_: a leaf Variable that requires grad"):
        mt.ones(2, 2, requires_grad=True).renorm_(2, 0, 1.0)


def test_empty_slices_and_meta():
    assert mt.renorm(mt.zeros(0, 3), 2, 0, 1.0).shape == (0, 3)
    assert mt.renorm(mt.zeros(3, 0), 2, 0, 1.0).shape == (3, 0)
    big = mt.empty(2**20, 2**20, device="meta", requires_grad=True)
    out = mt.renorm(big, 2, 1, 1.0)
    assert out.is_meta and out.shape == big.shape and out.grad_fn.name() == "RenormBackward0"


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mt.renorm(x, 0, 0, 1.0), RuntimeError, "renorm: non-positive-norm not supported"),
    (lambda x: x.renorm(-1, 0, 1.0), RuntimeError, "renorm: non-positive-norm not supported"),
    (lambda x: mt.renorm(x, 2, 0, -1.0), RuntimeError,
     "renorm: expected maxnorm to be >= 0 but got -1"),
    (lambda x: mt.renorm(x[0, 0], 2, 0, 1.0), RuntimeError,
     "renorm: input needs at least 2 dimensions, got 1 dimensions"),
    (lambda x: mt.renorm(x, 2, 3, 1.0), IndexError,
     "renorm: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: mt.renorm(x, "fro", 0, 1.0), TypeError,
     "renorm(): argument 'p' must be a real number, not str"),
    (lambda x: mt.renorm(x.long(), 2, 0, 1.0), RuntimeError,
     "linalg.vector_norm: Expected a floating point tensor as input. Got torch.int64"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt.ones(2, 3, 4, device=device))
        assert str(info.value).startswith(message), (device, str(info.value))


def test_error_types_match_torch():
    torch = _torch()
    for call in (lambda T, x: T.renorm(x, 0, 0, 1.0), lambda T, x: T.renorm(x, 2, 0, -1.0),
                 lambda T, x: T.renorm(x[0], 2, 0, 1.0)):
        with pytest.raises(RuntimeError):
            call(torch, torch.ones(2, 3))
        with pytest.raises(RuntimeError):
            call(mt, mt.ones(2, 3))
    check_same_error_on_cpu_and_meta(
        lambda x: mt.renorm(x, 2, -4, 1.0), IndexError,
        "renorm: Dimension out of range (expected to be in range of [-3, 2], but got -4)")


def test_out_keyword():
    out = mt.empty(2, 2)
    result = mt.renorm(mt.full((2, 2), 3.0), 1, 0, 1.0, out=out)
    assert result is out
    np.testing.assert_allclose(out.numpy(), 0.5, rtol=1e-6)

"""linalg.matrix_exp, torch.matrix_exp and Tensor.matrix_exp: values, gradients (the
block-matrix identity), meta shapes, batching, dtypes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

CASES = [
    Case("matrix_exp", lambda T, F, a: T.linalg.matrix_exp(a), [Arg((3, 3))]),
    Case("matrix_exp_batched", lambda T, F, a: T.linalg.matrix_exp(a), [Arg((2, 3, 4, 4))]),
    # a norm far above the Padé bound: several squarings, different per batch element
    Case("matrix_exp_squared", lambda T, F, a: T.linalg.matrix_exp(a * T.tensor(
        [[[4.0]], [[0.01]]], dtype=a.dtype, device=a.device)), [Arg((2, 3, 3))]),
    Case("matrix_exp_1x1", lambda T, F, a: T.linalg.matrix_exp(a), [Arg((2, 1, 1))]),
    Case("matrix_exp_top_level", lambda T, F, a: T.matrix_exp(a), [Arg((3, 3))]),
    Case("matrix_exp_method", lambda T, F, a: a.matrix_exp(), [Arg((2, 2, 2))]),
    Case("matrix_exp_skew", lambda T, F, a: T.matrix_exp(a - a.mT), [Arg((4, 4))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, atol=1e-4)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


@pytest.mark.parametrize("scale", [1e-3, 1.0, 30.0])
def test_float64_values_match_torch_closely(scale, device):
    torch = _torch()
    a = np.random.default_rng(3).standard_normal((3, 5, 5)) * scale
    ours = mt.linalg.matrix_exp(mt.tensor(a, device=device))
    theirs = torch.linalg.matrix_exp(torch.tensor(a)).numpy()
    assert ours.device == tensor_device(device)
    np.testing.assert_allclose(ours.cpu().numpy(), theirs, rtol=1e-11, atol=1e-12 * scale)


def test_known_values(device):
    # exp of a rotation generator is the rotation; exp of 0 the identity
    t = 0.7
    rotation = mt.linalg.matrix_exp(mt.tensor([[0.0, -t], [t, 0.0]], device=device))
    np.testing.assert_allclose(rotation.cpu().numpy(), [[np.cos(t), -np.sin(t)],
                                                        [np.sin(t), np.cos(t)]], atol=1e-7)
    zero = mt.linalg.matrix_exp(mt.zeros(2, 3, 3, dtype=mt.float64, device=device))
    np.testing.assert_allclose(zero.cpu().numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)),
                               atol=1e-15)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_dtype_kept(dtype, device):
    torch = _torch()
    a = np.random.default_rng(0).standard_normal((3, 3)).astype(dtype)
    ours = mt.linalg.matrix_exp(mt.tensor(a, device=device))
    assert str(ours.dtype) == f"torch.{dtype}"
    # PyTorch 2.13's float16 CPU kernel overflows to inf here: compare with its float32
    theirs = torch.linalg.matrix_exp(torch.tensor(a.astype(np.float64 if dtype == "float64"
                                                            else np.float32)))
    tol = 1e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(ours.cpu().numpy().astype(np.float64),
                               theirs.numpy().astype(np.float64), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("a", [[[100.0, 0], [0, 1]], [[800.0, 0], [0, 1]], [[100.0, 1], [2, 1]],
                               [[90.0, 3], [2, 80]], [[720.0, 1], [0, 1]]],
                         ids=["diag-100", "diag-800", "full-100", "full-90", "triangular-720"])
def test_overflow_as_torch(a, dtype, device):
    """Where a squaring overflows: inf, and NaN where an inf meets a zero, as PyTorch's."""
    torch = _torch()
    ours = mt.linalg.matrix_exp(mt.tensor(a, dtype=getattr(mt, dtype), device=device))
    theirs = torch.linalg.matrix_exp(torch.tensor(a, dtype=getattr(torch, dtype)))
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-4)


@pytest.mark.parametrize("a", [[[12.0, 0], [0, 1]], [[1.0, 0], [0, 1]], [[0.1, 0], [0, 0.2]],
                               [[3.0, 1], [-2, 4]]], ids=["overflow", "identity", "small", "full"])
def test_float16_is_float32_rounded(a, device):
    """On purpose not PyTorch's float16 CPU kernel, whose float16 Taylor polynomials give
    NaN for ``diag(12, 1)`` and ``-20896 I`` for ``exp(I)`` (docs/differences.md): ours is
    the float32 exponential rounded, inf only in the entry beyond float16's range."""
    torch = _torch()
    ours = mt.linalg.matrix_exp(mt.tensor(a, dtype=mt.float16, device=device))
    theirs = torch.linalg.matrix_exp(torch.tensor(a, dtype=torch.float16).float()).half()
    assert ours.dtype is mt.float16
    np.testing.assert_allclose(ours.cpu().numpy().astype(np.float64),
                               theirs.numpy().astype(np.float64), rtol=2e-3)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_empty(shape, any_device):
    out = mt.linalg.matrix_exp(mt.ones(*shape, device=any_device))
    assert out.shape == shape


def test_non_finite_input_gives_nan_as_torch():
    torch = _torch()
    a = np.array([[np.nan, 0.0], [0.0, 1.0]])
    ours = mt.linalg.matrix_exp(mt.tensor(a)).numpy()
    theirs = torch.linalg.matrix_exp(torch.tensor(a)).numpy()
    assert np.isnan(ours).any() and np.isnan(theirs).any()


@pytest.mark.parametrize("shape, dtype, message", [
    ((3,), mt.float32, "linalg.matrix_exp: The input tensor A must have at least 2 dimensions."),
    ((2, 3), mt.float32, "linalg.matrix_exp: A must be batches of square matrices, but they "
                         "are 2 by 3 matrices"),
    ((3, 3), mt.int64, "linalg.matrix_exp: Expected a floating point or complex tensor as "
                       "input. Got Long"),
])
def test_errors_as_torch(shape, dtype, message):
    torch = _torch()
    check_same_error_on_cpu_and_meta(lambda t: mt.linalg.matrix_exp(t.to(dtype)),
                                     RuntimeError, message, shape)
    with pytest.raises(RuntimeError) as info:
        torch.linalg.matrix_exp(torch.ones(*shape).to(getattr(torch, str(dtype)[6:])))
    assert str(info.value) == message

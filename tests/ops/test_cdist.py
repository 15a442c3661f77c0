"""cdist: every p (0, 1, 2, inf, fractional, large), batches that broadcast, values and
gradients against PyTorch, zero distances, blocks of rows, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.ops import cdist as cdist_module
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

A, B = (5, 3), (4, 3)
CASES = [
    Case("cdist", lambda T, F, a, b: T.cdist(a, b), [Arg(A), Arg(B)]),
    Case("cdist_p1", lambda T, F, a, b: T.cdist(a, b, p=1), [Arg(A), Arg(B)]),
    Case("cdist_p0", lambda T, F, a, b: T.cdist(a, b, 0), [Arg(A), Arg(B)]),
    Case("cdist_inf", lambda T, F, a, b: T.cdist(a, b, p=math.inf), [Arg(A), Arg(B)]),
    Case("cdist_p_half", lambda T, F, a, b: T.cdist(a, b, p=0.5), [Arg(A), Arg(B)],
         atol=1e-4),
    Case("cdist_p1_5", lambda T, F, a, b: T.cdist(a, b, p=1.5), [Arg(A), Arg(B)]),
    Case("cdist_p3", lambda T, F, a, b: T.cdist(a, b, p=3), [Arg(A), Arg(B)]),
    Case("cdist_batched", lambda T, F, a, b: T.cdist(a, b), [Arg((2, 5, 3)), Arg((2, 4, 3))]),
    Case("cdist_broadcast_batch", lambda T, F, a, b: T.cdist(a, b, p=1.5),
         [Arg((2, 1, 5, 3)), Arg((3, 4, 3))]),
    Case("cdist_one_side_constant", lambda T, F, a, b: T.cdist(a, b),
         [Arg(A), Arg(B, grad=False)]),
    # more than 25 rows: PyTorch's matrix-product path (grad_fn ViewBackward0), same values
    Case("cdist_many_rows", lambda T, F, a, b: T.cdist(a, b), [Arg((30, 4)), Arg((27, 4))]),
    Case("cdist_empty_rows", lambda T, F, a, b: T.cdist(a, b), [Arg((0, 3)), Arg(B)]),
    Case("cdist_no_columns", lambda T, F, a, b: T.cdist(a, b), [Arg((5, 0)), Arg((4, 0))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=("cdist_many_rows",))


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("p", [0, 0.5, 1, 1.5, 2, 3, math.inf])
def test_zero_distances_and_zero_differences_get_torchs_gradient(p, device):
    torch = _torch()
    x = [[0.0, 0.0], [1.0, 0.0], [2.0, 2.0]]
    y = [[0.0, 0.0], [1.0, 1.0]]
    ours = mt.tensor(x, device=device, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    out = mt.cdist(ours, mt.tensor(y, device=device), p=p)
    ref = torch.cdist(theirs, torch.tensor(y), p=p, compute_mode="donot_use_mm_for_euclid_dist")
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours.grad.cpu().numpy(), theirs.grad.numpy(), rtol=1e-6)


def test_nearby_points_stay_accurate_in_float32(device):
    # |a|² - 2ab + |b|² would cancel to noise here; the differences keep the digits.
    base = np.full((1, 8), 1000.0, dtype=np.float32)
    near = base + np.float32(1e-2)
    out = mt.cdist(mt.tensor(base, device=device), mt.tensor(near, device=device))
    expected = np.sqrt(8 * np.float64(near[0, 0] - base[0, 0]) ** 2)
    np.testing.assert_allclose(out.item(), expected, rtol=1e-6)


def test_blocks_of_rows_give_the_same_result(monkeypatch, device):
    torch = _torch()
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 9, 4)).astype(np.float32)
    b = rng.standard_normal((2, 7, 4)).astype(np.float32)
    monkeypatch.setattr(cdist_module, "_BLOCK", 2 * 7 * 4 * 2)  # two rows per block
    for p in (1.0, 2.0, math.inf):
        x = mt.tensor(a, device=device, requires_grad=True)
        y = mt.tensor(b, device=device, requires_grad=True)
        tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        out, ref = mt.cdist(x, y, p), torch.cdist(tx, ty, p)
        out.sum().backward()
        ref.sum().backward()
        np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-5)
        np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(y.grad.cpu().numpy(), ty.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_float64_stays_float64_and_the_name_is_torchs():
    a = mt.rand(3, 2, dtype=mt.float64, requires_grad=True)
    out = mt.cdist(a, mt.rand(4, 2, dtype=mt.float64))
    assert out.dtype is mt.float64 and out.grad_fn.name() == "CdistBackward0"


def test_a_huge_meta_problem_costs_nothing():
    a = mt.empty(64, 2**20, 512, device="meta", requires_grad=True)
    out = mt.cdist(a, mt.empty(1, 2**20, 512, device="meta"), p=1)
    out.sum().backward()
    assert out.shape == (64, 2**20, 2**20) and a.grad.shape == a.shape


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mt.cdist(x.long(), x), RuntimeError,
     "cdist only supports floating-point dtypes (float32 or float64), X1 got: torch.int64"),
    (lambda x: mt.cdist(x, x.int()), RuntimeError,
     "cdist only supports floating-point dtypes (float32 or float64), X2 got: torch.int32"),
    (lambda x: mt.cdist(x.half(), x.half()), RuntimeError,  # PyTorch: NotImplementedError
     "cdist only supports floating-point dtypes (float32 or float64), X1 got: torch.float16"),
    (lambda x: mt.cdist(x, x.double()), RuntimeError,
     "cdist: expected X1 and X2 to have the same dtype, but got: torch.float32 != "
     "torch.float64"),
    (lambda x: mt.cdist(x[0, 0], x), RuntimeError,
     "cdist only supports at least 2D tensors, X1 got: 1D (shape (4,))"),
    (lambda x: mt.cdist(x, x[..., :2]), RuntimeError,
     "X1 and X2 must have the same number of columns. X1: 4 X2: 2"),
    (lambda x: mt.cdist(x, x, p=-1), RuntimeError,
     "cdist only supports non-negative p values, but got p=-1.0"),
    (lambda x: mt.cdist(x, x, compute_mode="fast"), ValueError,
     "fast is not a valid value for compute_mode"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt.ones(2, 3, 4, device=device))
        assert str(info.value).startswith(message), (device, str(info.value))


def test_batch_dims_that_do_not_broadcast():
    check_same_error_on_cpu_and_meta(
        lambda x: mt.cdist(x, mt.ones(3, 5, 4, device=x.device)), mt.ShapeError,
        "cdist: the batch dims (2,) of X1 and (3,) of X2 cannot be broadcast together: "
        "trailing dims must be equal or 1")

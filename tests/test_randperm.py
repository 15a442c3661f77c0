"""randperm: a permutation of 0 .. n - 1, seeded by generators, dtypes, meta, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000])
def test_it_is_a_permutation(device, n):
    p = mt.randperm(n, device=device)
    assert p.dtype is mt.int64 and p.shape == (n,) and p.device == tensor_device(device)
    assert sorted(p.tolist()) == list(range(n))
    assert not p.requires_grad


def test_it_shuffles():
    orders = {tuple(mt.randperm(8).tolist()) for _ in range(20)}
    assert len(orders) > 15


def test_a_seeded_generator_repeats_and_the_default_follows_manual_seed(device):
    first = mt.randperm(50, generator=mt.Generator(device).manual_seed(7), device=device)
    again = mt.randperm(50, generator=mt.Generator(device).manual_seed(7), device=device)
    other = mt.randperm(50, generator=mt.Generator(device).manual_seed(8), device=device)
    assert first.tolist() == again.tolist() != other.tolist()
    mt.manual_seed(3)
    a = mt.randperm(50, device=device).tolist()
    mt.manual_seed(3)
    assert mt.randperm(50, device=device).tolist() == a


@pytest.mark.parametrize("dtype", [mt.int32, mt.uint8, mt.float32, mt.float64])
def test_other_dtypes(dtype):
    p = mt.randperm(200, dtype=dtype)
    assert p.dtype is dtype
    np.testing.assert_array_equal(np.sort(p.numpy()), np.arange(200))


def test_a_float_permutation_may_require_grad_as_in_pytorch():
    assert mt.randperm(4, dtype=mt.float32, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype"):
        mt.randperm(4, requires_grad=True)


def test_meta_gives_a_shape_in_constant_time():
    p = mt.randperm(2**40, device="meta")
    assert p.is_meta and p.shape == (2**40,) and p.dtype is mt.int64
    with mt.device("meta"):
        assert mt.randperm(3).is_meta


def test_a_numpy_integer_is_accepted():
    assert mt.randperm(np.int64(3)).shape == (3,)


@pytest.mark.parametrize("call, error, message", [
    (lambda: mt.randperm(-1), ValueError, "n must be non-negative, got -1"),
    (lambda: mt.randperm(5.0), TypeError, r"argument 'n' \(position 1\) must be int, not float"),
    (lambda: mt.randperm(True), TypeError, "must be int, not bool"),
    (lambda: mt.randperm(300, dtype=mt.uint8), RuntimeError,
     "value 299 cannot be converted to type torch.uint8 without overflow"),
    (lambda: mt.randperm(3, dtype=mt.bool), NotImplementedError, "torch.bool"),
    (lambda: mt.randperm(3, generator=mt.Generator("cpu"), device="meta"), RuntimeError,
     "expected a 'meta' generator"),
])
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_largest_value_that_fits_is_accepted():
    assert sorted(mt.randperm(256, dtype=mt.uint8).tolist()) == list(range(256))

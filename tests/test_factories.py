"""Factories: dtype/device/requires_grad everywhere, *_like, tensor() inference, from_numpy."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device

SIZED = [mt.empty, mt.zeros, mt.ones, mt.rand, mt.randn]


@pytest.mark.parametrize("factory", SIZED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_sized_factories(factory, dtype, device):
    for t in (factory(2, 3, dtype=dtype, device=device), factory((2, 3), dtype=dtype,
                                                                 device=device),
              factory(mt.Size([2, 3]), dtype=dtype, device=device)):
        assert t.shape == (2, 3) and t.dtype is dtype and t.device == tensor_device(device)
        assert not t.requires_grad
    t = factory(4, device=device, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.dtype is mt.float32


@pytest.mark.parametrize("factory", SIZED, ids=lambda f: f.__name__)
def test_sized_factories_on_meta(factory):
    t = factory(2**20, 2**20, device="meta", requires_grad=True)
    assert t.is_meta and t.shape == (2**20, 2**20) and t.requires_grad


def test_values():
    assert mt.zeros(2).tolist() == [0.0, 0.0] and mt.ones(2, dtype=mt.int64).tolist() == [1, 1]
    assert mt.full((2,), 7).tolist() == [7] * 2 and mt.full((2,), 7).dtype is mt.int64
    assert mt.full((2,), 1.5).dtype is mt.float32 and mt.full((1,), True).dtype is mt.bool
    r = mt.rand(1000)
    values = r.numpy()
    assert values.min() >= 0 and values.max() < 1 and values.dtype == np.float32
    n = mt.randn(10_000).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05


def test_integer_dtypes_for_sized_factories():
    assert mt.zeros(2, dtype=mt.int64).dtype is mt.int64
    assert mt.ones(2, dtype=mt.bool).tolist() == [True, True]
    with pytest.raises(TypeError, match="rand expected a floating-point or complex dtype, got "
                                        "torch.int64"):
        mt.rand(2, dtype=mt.int64)


def test_arange_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    for args in [(5,), (2, 7), (0, 10, 3), (1.0, 2.0, 0.25), (5, 0, -1), (0, 1, 0.1)]:
        ours, theirs = mt.arange(*args), torch.arange(*args)
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    assert mt.arange(3, dtype=mt.float64).dtype is mt.float64
    assert mt.arange(10, 20, device="meta").shape == (10,)
    with pytest.raises(ValueError, match="arange: step must be nonzero"):
        mt.arange(0, 3, 0)
    with pytest.raises(ValueError, match="arange: upper bound and lower bound inconsistent"):
        mt.arange(0, 3, -1)


def test_tensor_infers_dtypes_like_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    for data in [1.0, 2, True, [1, 2], [1.0, 2], [[True, False]], np.array([1.0]),
                 np.array([1], np.int32), np.array([1.0], np.float64), [], np.float64(1.0),
                 np.array([1], np.uint8)]:
        assert str(mt.tensor(data).dtype) == str(torch.tensor(data).dtype), data


def test_tensor_copies_and_takes_options(device):
    array = np.array([1.0, 2.0])
    t = mt.tensor(array, dtype=mt.float32, device=device, requires_grad=True)
    array[0] = 9.0
    assert t.tolist() == [1.0, 2.0] and t.requires_grad and t.dtype is mt.float32
    u = mt.tensor(t)
    assert not u.requires_grad and u.tolist() == [1.0, 2.0]
    with mt.no_grad():
        u[0] = 5.0
    assert t.tolist() == [1.0, 2.0]  # tensor(t) copies
    with pytest.raises(TypeError, match="could not infer a dtype"):
        mt.tensor(["a"])


def test_from_numpy_shares_memory():
    array = np.zeros(3, np.float64)
    t = mt.from_numpy(array)
    assert t.dtype is mt.float64 and t.device == mt.device("cpu")
    array[1] = 4.0
    assert t.tolist() == [0.0, 4.0, 0.0]
    t[2] = 7.0
    assert array[2] == 7.0
    assert np.shares_memory(t.numpy(), array)
    with pytest.raises(TypeError, match="from_numpy expects a numpy.ndarray, got list"):
        mt.from_numpy([1.0])
    with pytest.raises(TypeError, match=r"unsupported array dtype datetime64\[s\]"):
        mt.from_numpy(np.zeros(2, "datetime64[s]"))


@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like", "rand_like",
                                  "randn_like"])
def test_like_factories(name, device):
    source = mt.zeros(2, 3, dtype=mt.float64, device=device)
    like = getattr(mt, name)
    t = like(source)
    assert t.shape == (2, 3) and t.dtype is mt.float64 and t.device == source.device
    t = like(source, dtype=mt.float32, requires_grad=True)
    assert t.dtype is mt.float32 and t.requires_grad
    m = like(source, device="meta")
    assert m.is_meta and m.shape == (2, 3)
    assert like(mt.empty(4, 5, device="meta")).is_meta
    f = mt.full_like(source, 3.0)
    assert f.tolist() == [[3.0] * 3] * 2 and f.dtype is mt.float64


def test_bad_sizes():
    with pytest.raises(ValueError, match=r"sizes must be non-negative, got \(2, -1\)"):
        mt.zeros(2, -1)
    with pytest.raises(TypeError, match="sizes must be integers, got 2.5"):
        mt.ones(2.5)


def test_default_device_context_manager():
    with mt.device("meta"):
        assert mt.zeros(2).is_meta and mt.rand(3).is_meta and mt.tensor([1.0]).is_meta
        assert mt.zeros(2, device="cpu").device == mt.device("cpu")
    assert mt.zeros(2).device == mt.device("cpu")
    with pytest.raises(ZeroDivisionError), mt.device("meta"):
        raise ZeroDivisionError
    assert not mt.zeros(1).is_meta


def test_as_tensor():
    t = mt.tensor([1.0])
    assert mt.as_tensor(t) is t
    assert mt.as_tensor([1, 2]).dtype is mt.int64
    assert mt.as_tensor(t, dtype=mt.float64).dtype is mt.float64


def test_randint_and_random_are_uniform_integers_in_range():
    mt.manual_seed(0)
    values = mt.randint(3, 7, (2000,))
    assert values.dtype is mt.int64 and values.shape == (2000,)
    assert set(values.tolist()) == {3, 4, 5, 6}
    assert mt.randint(5, (2, 3)).shape == (2, 3)
    assert mt.randint(5, (4,), device="meta").is_meta
    filled = mt.zeros(500, dtype=mt.int64).random_(10)
    assert 0 <= filled.min().item() and filled.max().item() == 9
    with pytest.raises(ValueError, match="expected low < high"):
        mt.randint(4, 4, (1,))
    with pytest.raises(TypeError, match=r"expects \(high, size\)"):
        mt.randint(4)


def test_allclose_and_isclose_follow_pytorchs_formula():
    a = mt.tensor([1.0, 2.0, 3.0])
    assert mt.allclose(a, a + 1e-9)
    assert not mt.allclose(a, a + 1e-3)
    assert mt.isclose(a, mt.tensor([1.0, 2.1, 3.0])).tolist() == [True, False, True]
    assert mt.allclose(a, a + 0.05, atol=0.1)


# -- eye ---------------------------------------------------------------------------------

DTYPES = ["float32", "float64", "int64", "int32", "uint8", "bool"]


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def assert_matches_torch(ours, theirs, device: str) -> None:
    """Shape, dtype, device, requires_grad, leafness and (off meta) values equal PyTorch's."""
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.device == tensor_device(device) and ours.is_meta == theirs.is_meta
    assert ours.requires_grad == theirs.requires_grad and ours.is_leaf and theirs.is_leaf
    if not ours.is_meta:
        np.testing.assert_array_equal(ours.detach().cpu().numpy(), theirs.detach().numpy())


def _reference_device(device: str) -> str:
    """Where PyTorch builds the reference: meta stays meta, data devices compare on the CPU."""
    return "meta" if device == "meta" else "cpu"


@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (0,), (3, 0), (1, 1)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_eye_matches_torch(args, dtype, any_device):
    torch = _torch()
    ours = mt.eye(*args, dtype=getattr(mt, dtype), device=any_device)
    theirs = torch.eye(*args, dtype=getattr(torch, dtype), device=_reference_device(any_device))
    assert_matches_torch(ours, theirs, any_device)


def test_eye_defaults_and_keywords(any_device):
    torch = _torch()
    reference = _reference_device(any_device)
    assert_matches_torch(mt.eye(3, device=any_device), torch.eye(3, device=reference),
                         any_device)
    assert_matches_torch(mt.eye(2, m=3, device=any_device, requires_grad=True),
                         torch.eye(2, m=3, device=reference, requires_grad=True), any_device)
    assert_matches_torch(mt.eye(np.int64(2), device=any_device), torch.eye(2, device=reference),
                         any_device)
    with mt.device(any_device):
        assert mt.eye(2).device == tensor_device(any_device)


def test_eye_gradient_flows(device):
    w = mt.eye(3, device=device, requires_grad=True)
    (w * 2).sum().backward()
    assert w.grad.tolist() == [[2.0] * 3] * 3


def test_eye_on_meta_allocates_nothing():
    import tracemalloc

    mt.eye(2, device="meta")  # warm up imports and caches
    tracemalloc.start()
    try:
        t = mt.eye(2**30, 2**31, device="meta")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert t.is_meta and t.shape == (2**30, 2**31)
    assert peak < 100_000, f"eye on meta allocated {peak} bytes"


@pytest.mark.parametrize("args, error, message", [
    ((2.5,), TypeError, r"^eye\(\): argument 'n' \(position 1\) must be int, not float$"),
    ((True,), TypeError, r"^eye\(\): argument 'n' \(position 1\) must be int, not bool$"),
    (("3",), TypeError, r"^eye\(\): argument 'n' \(position 1\) must be int, not str$"),
    ((2, 1.0), TypeError, r"^eye\(\): argument 'm' \(position 2\) must be int, not float$"),
    ((-1,), ValueError, r"^eye: n must be greater or equal to 0, got -1$"),
    ((2, -3), ValueError, r"^eye: m must be greater or equal to 0, got -3$"),
])
def test_eye_errors(args, error, message):
    with pytest.raises(error, match=message):
        mt.eye(*args)
    with pytest.raises(error, match=message):
        mt.eye(*args, device="meta")


def test_eye_integer_dtype_cannot_require_grad():
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require "
                                           "gradients, this one is torch.int64"):
        mt.eye(2, dtype=mt.int64, requires_grad=True)

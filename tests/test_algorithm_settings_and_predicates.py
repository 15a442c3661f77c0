"""``set_float32_matmul_precision``, ``use_deterministic_algorithms`` and their getters
(stored as PyTorch stores them; our kernels do not change), ``isneginf``/``isposinf``/
``isreal``, and the ``isclose``/``allclose`` methods."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device

torch = pytest.importorskip("torch", reason="PyTorch is the reference")


@pytest.fixture
def restore_settings():
    saved = (mt.get_float32_matmul_precision(), mt.are_deterministic_algorithms_enabled(),
             mt.is_deterministic_algorithms_warn_only_enabled())
    yield
    mt.set_float32_matmul_precision(saved[0])
    mt.use_deterministic_algorithms(saved[1], warn_only=saved[2])


def test_matmul_precision_is_stored_and_a_bad_value_warns(restore_settings):
    assert mt.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    for precision in ("high", "medium", "highest"):
        mt.set_float32_matmul_precision(precision)
        assert mt.get_float32_matmul_precision() == precision
    mt.set_float32_matmul_precision("medium")
    with pytest.warns(UserWarning, match="fast is not one of 'highest', 'high', or 'medium'"):
        mt.set_float32_matmul_precision("fast")
    assert mt.get_float32_matmul_precision() == "medium"
    a = mt.tensor(np.random.default_rng(0).standard_normal((8, 8)), dtype=mt.float32)
    np.testing.assert_array_equal((a @ a).numpy(), a.numpy() @ a.numpy())  # full float32


def test_deterministic_switches_are_stored(restore_settings):
    assert mt.are_deterministic_algorithms_enabled() is False
    mt.use_deterministic_algorithms(True)
    assert mt.are_deterministic_algorithms_enabled() is True
    assert mt.is_deterministic_algorithms_warn_only_enabled() is False
    mt.use_deterministic_algorithms(True, warn_only=True)
    assert mt.is_deterministic_algorithms_warn_only_enabled() is True
    mt.use_deterministic_algorithms(False)
    assert not mt.are_deterministic_algorithms_enabled()
    assert not mt.is_deterministic_algorithms_warn_only_enabled()


def test_deterministic_switch_takes_bools_only(restore_settings):
    with pytest.raises(TypeError, match="'mode'.* must be bool, not int"):
        torch.use_deterministic_algorithms(1)
    with pytest.raises(TypeError, match="argument 'mode' must be bool, not int"):
        mt.use_deterministic_algorithms(1)
    with pytest.raises(TypeError, match="argument 'warn_only' must be bool, not str"):
        mt.use_deterministic_algorithms(True, warn_only="yes")
    assert mt.are_deterministic_algorithms_enabled() is False


VALUES = [1.0, -np.inf, np.inf, np.nan, -0.0, -2.5]


@pytest.mark.parametrize("name", ["isneginf", "isposinf", "isreal"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "bool"])
def test_predicates_match_torch(name, dtype, device):
    data = np.array(VALUES).reshape(2, 3)
    if dtype in ("int64", "bool"):
        data = np.nan_to_num(data, posinf=7, neginf=-7).astype(dtype)
    x, tx = mt.tensor(data, device=device), torch.tensor(data)
    if dtype != "bool":  # torch.tensor(bool array) keeps bool; ours too
        x, tx = x.to(getattr(mt, dtype)), tx.to(getattr(torch, dtype))
    for ours in (getattr(mt, name)(x), getattr(x, name)()):
        assert ours.dtype is mt.bool and ours.device == tensor_device(device)
        assert ours.cpu().numpy().tolist() == getattr(torch, name)(tx).numpy().tolist()


@pytest.mark.parametrize("name", ["isneginf", "isposinf", "isreal"])
def test_predicates_on_meta_empty_and_0d_and_in_a_graph(name):
    assert getattr(mt, name)(mt.empty(3, 0, 2, device="meta")).shape == (3, 0, 2)
    assert getattr(mt, name)(mt.tensor(-np.inf)).shape == ()
    x = mt.tensor([1.0, -np.inf], requires_grad=True)
    result = getattr(mt, name)(x)
    assert result.grad_fn is None and not result.requires_grad
    assert getattr(torch, name)(torch.tensor([1.0], requires_grad=True)).grad_fn is None


@pytest.mark.parametrize("name", ["isneginf", "isposinf", "isreal"])
def test_predicates_refuse_a_number_as_torch(name):
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'input' \\(position 1\\) must "
                                        "be Tensor, not float"):
        getattr(torch, name)(1.0)
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'input' \\(position 1\\) must "
                                        "be Tensor, not float"):
        getattr(mt, name)(1.0)


def test_isclose_and_allclose_methods(device):
    a, b = [1.0, 2.0, 3.0], [1.0, 2.000001, 3.1]
    x, y = mt.tensor(a, device=device), mt.tensor(b, device=device)
    assert x.isclose(y).cpu().numpy().tolist() == torch.tensor(a).isclose(
        torch.tensor(b)).tolist()
    assert x.isclose(y, rtol=0.1).cpu().numpy().all()
    assert x.allclose(y) is False and x.allclose(y, atol=0.2) is True
    assert x[:2].allclose(y[:2]) == torch.tensor(a[:2]).allclose(torch.tensor(b[:2]))

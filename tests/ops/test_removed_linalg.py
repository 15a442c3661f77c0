"""torch.lu / Tensor.lu and torch.lu_solve / Tensor.lu_solve (deprecated, warning as
PyTorch's) and the removed torch.matrix_rank, solve, lstsq, symeig and eig (PyTorch's
RuntimeError)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


def _square(seed=0, shape=(2, 3, 3)):
    return np.random.default_rng(seed).standard_normal(shape)


def test_lu_equals_lu_factor_and_warns(device):
    a = mt.tensor(_square(), device=device)
    with pytest.warns(UserWarning, match=r"torch.lu is deprecated in favor of torch.linalg"):
        result = mt.lu(a)
    assert type(result) is tuple and len(result) == 2
    LU, pivots = mt.linalg.lu_factor(a)  # noqa: N806 - PyTorch's name
    assert result[0].device == tensor_device(device)
    np.testing.assert_array_equal(result[0].cpu().numpy(), LU.cpu().numpy())
    np.testing.assert_array_equal(result[1].cpu().numpy(), pivots.cpu().numpy())
    with pytest.warns(UserWarning, match="get_infos=True"):
        infos = a.lu(pivot=True, get_infos=True)
    assert type(infos).__name__ == "_lu_with_info" and infos._fields == ("LU", "pivots", "infos")
    assert infos.infos.dtype is mt.int32 and tuple(infos.infos.shape) == (2,)


def test_lu_and_lu_solve_values_gradients_and_warnings_as_torch():
    torch = _torch()
    a, b = _square(1), np.random.default_rng(2).standard_normal((2, 3, 2))
    results = []
    for lib in (mt, torch):
        A = lib.tensor(a, requires_grad=True)  # noqa: N806 - the math name
        B = lib.tensor(b, requires_grad=True)  # noqa: N806
        with pytest.warns(UserWarning) as caught:
            x = lib.lu_solve(B, *lib.lu(A))
        assert any("torch.lu_solve is deprecated" in str(w.message) for w in caught)
        assert x.grad_fn.name() == "LinalgLuSolveBackward0"
        x.sum().backward()
        results.append((x.detach().numpy(), A.grad.numpy(), B.grad.numpy()))
    for ours, ref in zip(*results):
        np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-12)


def test_tensor_lu_solve(device):
    a, b = mt.tensor(_square(3), device=device), mt.tensor(_square(4, (2, 3, 1)), device=device)
    with pytest.warns(UserWarning):
        x = b.lu_solve(*mt.linalg.lu_factor(a))
    np.testing.assert_allclose((a @ x).cpu().numpy(), b.cpu().numpy(), atol=1e-10)


@pytest.mark.parametrize("name, args", [("matrix_rank", 1), ("solve", 2), ("lstsq", 2),
                                        ("symeig", 1), ("eig", 1)])
def test_removed_functions_raise_as_torch(name, args):
    torch = _torch()
    with pytest.raises(RuntimeError) as reference:
        getattr(torch, name)(*[torch.eye(2)] * args)
    with pytest.raises(RuntimeError) as mine:
        getattr(mt, name)(*[mt.eye(2)] * args)
    assert str(mine.value) == str(reference.value)
    assert "deprecated since version 1.9 and is now removed" in str(mine.value)
    if name != "matrix_rank":  # PyTorch has no Tensor.matrix_rank
        with pytest.raises(RuntimeError) as method:
            getattr(mt.eye(2), name)(*[mt.eye(2)] * (args - 1))
        assert str(method.value) == str(reference.value)
    assert not hasattr(mt.Tensor, "matrix_rank")

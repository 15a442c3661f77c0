"""torch.geqrf / Tensor.geqrf: LAPACK's compact QR equal to PyTorch's, Q through
householder_product, not differentiable (as PyTorch), meta shapes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

CASES = [
    Case("geqrf_a", lambda T, F, a: T.geqrf(a).a, [Arg((4, 3), grad=False)]),
    Case("geqrf_tau", lambda T, F, a: T.geqrf(a).tau, [Arg((2, 3, 5), grad=False)]),
    Case("geqrf_method", lambda T, F, a: a.geqrf()[0], [Arg((2, 3, 3), grad=False)]),
    Case("geqrf_q", lambda T, F, a: T.linalg.householder_product(*T.geqrf(a)),
         [Arg((2, 5, 3), grad=False)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 4, 4), (5, 1), (1, 4), (0, 3),
                                   (3, 0), (2, 0, 4, 4)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_equal_torchs(shape, dtype, device):
    torch = _torch()
    a = np.random.default_rng(3).standard_normal(shape).astype(dtype)
    ours = mt.geqrf(mt.tensor(a, device=device))
    ref = torch.geqrf(torch.tensor(a))
    assert type(ours).__name__ == "geqrf" and ours._fields == ("a", "tau")
    tol = 1e-5 if dtype == "float32" else 1e-12
    for o, r in zip(ours, ref):
        assert o.device == tensor_device(device)
        assert o.dtype is getattr(mt, dtype) and tuple(o.shape) == tuple(r.shape)
        np.testing.assert_allclose(o.cpu().numpy(), r.numpy(), rtol=tol, atol=tol)


def test_a_column_already_reduced_keeps_its_sign_and_tau_zero(device):
    a = mt.tensor([[1.0, 2.0], [0.0, 3.0], [0.0, 4.0]], device=device)
    out = mt.geqrf(a)
    np.testing.assert_allclose(out.a.cpu().numpy(), [[1, 2], [0, -5], [0, 0.5]])
    np.testing.assert_allclose(out.tau.cpu().numpy(), [0, 1.6])
    zero = mt.geqrf(mt.zeros(3, 2, device=device))
    assert not zero.a.cpu().numpy().any() and not zero.tau.cpu().numpy().any()


def test_householder_product_of_geqrf_is_qr_q(device):
    a = mt.tensor(np.random.default_rng(4).standard_normal((2, 6, 4)), device=device)
    q = mt.linalg.householder_product(*mt.geqrf(a))
    np.testing.assert_allclose(q.cpu().numpy(), mt.linalg.qr(a).Q.cpu().numpy(), atol=1e-12)
    r = mt.geqrf(a).a.triu()[..., :4, :]
    np.testing.assert_allclose((q @ r).cpu().numpy(), a.cpu().numpy(), atol=1e-12)


def test_not_differentiable_as_torch():
    torch = _torch()
    a = np.random.default_rng(5).standard_normal((3, 3))
    x, tx = mt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ours, ref = mt.geqrf(x), torch.geqrf(tx)
    for o, r in zip(ours, ref):
        assert o.grad_fn.name() == r.grad_fn.name() == "GeqrfBackward0"
    with pytest.raises(NotImplementedError) as mine:
        ours.tau.sum().backward()
    with pytest.raises(NotImplementedError) as reference:
        ref.tau.sum().backward()
    assert str(mine.value) == str(reference.value)


def test_out_argument():
    a = mt.tensor(np.random.default_rng(6).standard_normal((3, 2)))
    out = (mt.empty(3, 2, dtype=mt.float64), mt.empty(2, dtype=mt.float64))
    result = mt.geqrf(a, out=out)
    assert result[0] is out[0] and result[1] is out[1]
    np.testing.assert_allclose(out[1].numpy(), mt.geqrf(a).tau.numpy())


def test_errors_as_torch():
    torch = _torch()
    check_same_error_on_cpu_and_meta(mt.geqrf, RuntimeError,
                                     "torch.geqrf: input must have at least 2 dimensions.",
                                     shape=(3,))
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions") as mine:
        mt.geqrf(mt.ones(3))
    with pytest.raises(RuntimeError) as reference:
        torch.geqrf(torch.ones(3))
    assert str(reference.value) in str(mine.value)
    for dtype in ("int32", "float16"):
        with pytest.raises(NotImplementedError, match=r"\"geqrf_cpu\" not implemented for"):
            mt.geqrf(mt.ones(3, 3, dtype=getattr(mt, dtype)))
        with pytest.raises(NotImplementedError, match=r"\"geqrf_cpu\" not implemented for"):
            torch.geqrf(torch.ones(3, 3, dtype=getattr(torch, dtype)))

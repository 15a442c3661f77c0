"""linalg.lu_factor, lu_factor_ex, lu, lu_solve, solve_ex and torch.lu_unpack: values,
pivots, gradients, meta shapes, batching and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests
from tests.ops.linalg_inputs import well_conditioned

W = well_conditioned


def _pivoted(T, a):
    """A well-conditioned matrix whose rows are reversed: partial pivoting must swap."""
    return W(T, a).flip(-2)


def _factor(T, a):
    return T.linalg.lu_factor(_pivoted(T, a))


CASES = [
    Case("lu_factor", lambda T, F, a: T.linalg.lu_factor(a).LU, [Arg((4, 4))]),
    Case("lu_factor_pivoted", lambda T, F, a: _factor(T, a)[0], [Arg((2, 3, 3))]),
    Case("lu_factor_wide", lambda T, F, a: T.linalg.lu_factor(a).LU, [Arg((2, 3, 5))]),
    Case("lu_factor_tall", lambda T, F, a: T.linalg.lu_factor(a).LU, [Arg((5, 3))]),
    Case("lu_factor_ex", lambda T, F, a: T.linalg.lu_factor_ex(a).LU, [Arg((2, 4, 4))]),
    Case("lu_L", lambda T, F, a: T.linalg.lu(a).L, [Arg((4, 4))]),
    Case("lu_U", lambda T, F, a: T.linalg.lu(a)[2], [Arg((2, 4, 4))]),
    Case("lu_both", lambda T, F, a: T.linalg.lu(a).L * 2 + T.linalg.lu(a).U,
         [Arg((2, 3, 3))]),
    Case("lu_wide_L", lambda T, F, a: T.linalg.lu(a).L, [Arg((3, 5))]),
    Case("lu_wide_U", lambda T, F, a: T.linalg.lu(a).U, [Arg((2, 3, 5))]),
    Case("lu_tall_L", lambda T, F, a: T.linalg.lu(a).L, [Arg((2, 5, 3))]),
    Case("lu_tall_U", lambda T, F, a: T.linalg.lu(a).U, [Arg((5, 3))]),
    Case("lu_P", lambda T, F, a: T.linalg.lu(a).P, [Arg((2, 3, 3), grad=False)]),
    Case("lu_unpack_L", lambda T, F, a: T.lu_unpack(*T.linalg.lu_factor(a)).L,
         [Arg((2, 3, 4))]),
    Case("lu_unpack_U", lambda T, F, a: T.lu_unpack(*T.linalg.lu_factor(a))[2],
         [Arg((4, 3))]),
    Case("lu_unpack_P", lambda T, F, a: T.lu_unpack(*T.linalg.lu_factor(a)).P,
         [Arg((3, 3), grad=False)]),
    Case("lu_solve", lambda T, F, a, b: T.linalg.lu_solve(*_factor(T, a), b),
         [Arg((3, 3)), Arg((3, 2))]),
    Case("lu_solve_adjoint", lambda T, F, a, b: T.linalg.lu_solve(*_factor(T, a), b,
                                                                  adjoint=True),
         [Arg((2, 3, 3)), Arg((2, 3, 2))]),
    Case("lu_solve_right", lambda T, F, a, b: T.linalg.lu_solve(*_factor(T, a), b,
                                                                left=False),
         [Arg((3, 3)), Arg((4, 3))]),
    Case("lu_solve_right_adjoint",
         lambda T, F, a, b: T.linalg.lu_solve(*_factor(T, a), b, left=False, adjoint=True),
         [Arg((2, 3, 3)), Arg((2, 4, 3))]),
    Case("lu_solve_broadcast", lambda T, F, a, b: T.linalg.lu_solve(*_factor(T, a), b),
         [Arg((2, 3, 3)), Arg((4, 1, 3, 2))]),
    Case("lu_solve_b_only", lambda T, F, a, b: T.linalg.lu_solve(*_factor(T, a), b),
         [Arg((3, 3), grad=False), Arg((3, 2))]),
    Case("solve_ex", lambda T, F, a, b: T.linalg.solve_ex(W(T, a), b).result,
         [Arg((2, 3, 3)), Arg((2, 3, 2))]),
    Case("solve_ex_vector", lambda T, F, a, b: T.linalg.solve_ex(W(T, a), b, left=False)[0],
         [Arg((3, 3)), Arg((4, 3))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, atol=1e-4)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (3, 6), (6, 3), (2, 0, 3), (0, 3, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_factors_and_pivots_equal_lapacks(shape, dtype, device):
    torch = _torch()
    a = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    ours = mt.linalg.lu_factor_ex(mt.tensor(a, device=device))
    theirs = torch.linalg.lu_factor_ex(torch.tensor(a))
    assert ours.LU.device == tensor_device(device)
    assert ours.LU.dtype is getattr(mt, dtype)
    assert ours.pivots.dtype is mt.int32 and ours.info.dtype is mt.int32
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ours.LU.cpu().numpy(), theirs.LU.numpy(), rtol=tol, atol=tol)
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    assert ours.info.tolist() == theirs.info.tolist()
    p, lower, upper = mt.linalg.lu(mt.tensor(a, device=device))
    tp, tl, tu = torch.linalg.lu(torch.tensor(a))
    for o, t in ((p, tp), (lower, tl), (upper, tu)):
        assert o.shape == t.shape
        np.testing.assert_allclose(o.cpu().numpy(), t.numpy(), rtol=tol, atol=tol)


def test_named_results():
    a = mt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert mt.linalg.lu_factor(a)._fields == ("LU", "pivots")
    assert type(mt.linalg.lu_factor(a)).__name__ == "linalg_lu_factor"  # PyTorch's type name
    assert mt.linalg.lu_factor_ex(a)._fields == ("LU", "pivots", "info")
    result = mt.linalg.lu(a)
    assert result._fields == ("P", "L", "U") and type(result).__name__ == "linalg_lu"
    assert not result.P.requires_grad and result.P.grad_fn is None
    assert result.L.grad_fn.name() == result.U.grad_fn.name() == "LinalgLuBackward0"
    assert mt.linalg.lu_factor(a).LU.grad_fn.name() == "LinalgLuFactorExBackward0"
    unpacked = mt.lu_unpack(*mt.linalg.lu_factor(a))
    assert type(unpacked).__name__ == "lu_unpack" and unpacked._fields == ("P", "L", "U")
    assert unpacked.L.grad_fn.name() == "LuUnpackBackward0"
    solved = mt.linalg.solve_ex(a, mt.ones(2))
    assert solved._fields == ("result", "info") and solved.info.dtype is mt.int32
    assert solved.result.grad_fn.name() == "LinalgSolveExBackward0"


def test_lu_unpack_without_data_or_pivots_as_torch():
    torch = _torch()
    a = np.random.default_rng(2).standard_normal((2, 3, 4))
    lu, pivots = mt.linalg.lu_factor(mt.tensor(a))
    tlu, tpivots = torch.linalg.lu_factor(torch.tensor(a))
    for keywords in ({"unpack_data": False}, {"unpack_pivots": False}):
        ours = mt.lu_unpack(lu, pivots, **keywords)
        theirs = torch.lu_unpack(tlu, tpivots, **keywords)
        for o, t in zip(ours, theirs):
            assert tuple(o.shape) == tuple(t.shape)
            np.testing.assert_allclose(o.numpy(), t.numpy(), atol=1e-12)


def test_singular_matrices_info_and_errors_as_torch():
    torch = _torch()
    data = np.array([[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], np.eye(3),
                     np.zeros((3, 3))])
    ours, theirs = mt.linalg.lu_factor_ex(mt.tensor(data)), torch.linalg.lu_factor_ex(
        torch.tensor(data))
    assert ours.info.tolist() == theirs.info.tolist() == [3, 0, 1]
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy(), atol=1e-12)
    for ours_call, torch_call in [
            (lambda: mt.linalg.lu_factor(mt.tensor(data)),
             lambda: torch.linalg.lu_factor(torch.tensor(data))),
            (lambda: mt.linalg.lu_factor_ex(mt.tensor(data[0]), check_errors=True),
             lambda: torch.linalg.lu_factor_ex(torch.tensor(data[0]), check_errors=True)),
            (lambda: mt.linalg.solve_ex(mt.tensor(data[0]), mt.ones(3, dtype=mt.float64),
                                        check_errors=True),
             lambda: torch.linalg.solve_ex(torch.tensor(data[0]), torch.ones(3).double(),
                                           check_errors=True))]:
        with pytest.raises(RuntimeError) as mine:
            ours_call()
        with pytest.raises(RuntimeError) as reference:
            torch_call()
        assert str(mine.value) == str(reference.value)
    # without check_errors: info, no error (the solution of a singular system is undefined)
    solved = mt.linalg.solve_ex(mt.tensor(data), mt.ones(4, 1, 3, 1, dtype=mt.float64))
    reference = torch.linalg.solve_ex(torch.tensor(data), torch.ones(4, 1, 3, 1).double())
    assert solved.info.shape == reference.info.shape
    assert solved.info.tolist() == reference.info.tolist()


def test_lu_without_pivoting_factors_in_place_order(device):
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    p, lower, upper = mt.linalg.lu(mt.tensor(a, device=device), pivot=False)
    assert p.shape == (0,)
    np.testing.assert_allclose(lower.cpu().numpy(), [[1.0, 0.0], [3.0, 1.0]])
    np.testing.assert_allclose(upper.cpu().numpy(), [[1.0, 2.0], [0.0, -2.0]])
    lu, pivots = mt.linalg.lu_factor(mt.tensor(a, device=device), pivot=False)
    assert pivots.tolist() == [1, 2]


def test_lu_solve_values_equal_solve(device):
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((2, 4, 4)), rng.standard_normal((2, 4, 3))
    lu, pivots = mt.linalg.lu_factor(mt.tensor(a, device=device))
    x = mt.linalg.lu_solve(lu, pivots, mt.tensor(b, device=device))
    np.testing.assert_allclose(x.cpu().numpy(), np.linalg.solve(a, b), atol=1e-10)
    x = mt.linalg.lu_solve(lu, pivots, mt.tensor(b, device=device), adjoint=True)
    np.testing.assert_allclose(x.cpu().numpy(), np.linalg.solve(a.transpose(0, 2, 1), b),
                               atol=1e-10)


LU_ERRORS = [
    (lambda T, t: T.linalg.lu_factor(t), (3,), RuntimeError,
     "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [3] instead"),
    (lambda T, t: T.linalg.lu(t), (3,), RuntimeError,
     "linalg.lu: Expected tensor with 2 or more dimensions. Got size: [3] instead"),
    (lambda T, t: T.linalg.lu_factor(t.int()), (3, 3), NotImplementedError,
     "\"lu_cpu\" not implemented for 'Int'"),
    (lambda T, t: T.linalg.lu(t.half()), (3, 3), NotImplementedError,
     "\"lu_cpu\" not implemented for 'Half'"),
    (lambda T, t: T.lu_unpack(t, T.ones(3, dtype=T.int64, device=t.device)), (3, 3),
     RuntimeError, "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
     "torch.int32 dtype.\nNote: this function is intended to be used with the output "
     "produced by torch.linalg.lu_factor"),
    (lambda T, t: T.linalg.lu_solve(t, T.ones(3, dtype=T.int32, device=t.device),
                                  T.ones(4, 2, device=t.device)), (3, 3), RuntimeError,
     "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x2)"),
    (lambda T, t: T.linalg.lu_solve(t, T.ones(3, dtype=T.int32, device=t.device),
                                  T.ones(3, device=t.device)), (3, 3), RuntimeError,
     "linalg.lu_solve: The input tensor B must have at least 2 dimensions."),
    (lambda T, t: T.linalg.lu_solve(t, T.ones(3, dtype=T.int64, device=t.device),
                                  T.ones(3, 2, device=t.device)), (3, 3), RuntimeError,
     "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32"),
    (lambda T, t: T.linalg.lu_solve(t, T.ones(2, dtype=T.int32, device=t.device),
                                  T.ones(3, 2, device=t.device)), (3, 3), RuntimeError,
     "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the "
     "matrix"),
    (lambda T, t: T.linalg.lu_solve(t.double(), T.ones(3, dtype=T.int32, device=t.device),
                                  T.ones(3, 2, device=t.device)), (3, 3), RuntimeError,
     "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type Double "
     "and B of type Float instead"),
    (lambda T, t: T.linalg.lu_solve(t, T.ones(3, dtype=T.int32, device=t.device),
                                  T.ones(3, 2, device=t.device)), (3, 4), RuntimeError,
     "torch.linalg.lu_solve: A must be batches of square matrices, but they are 3 by 4 "
     "matrices"),
]


@pytest.mark.parametrize("call, shape, error, message", LU_ERRORS)
def test_errors_as_torch(call, shape, error, message):
    torch = _torch()
    check_same_error_on_cpu_and_meta(lambda t: call(mt, t), error, message, shape)
    with pytest.raises(error) as info:
        call(torch, torch.ones(*shape))
    assert str(info.value) == message

"""inv, det, slogdet, solve, solve_triangular and their aliases: values, gradients, meta
shapes, singular input and shape errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests
from tests.ops.linalg_inputs import spd, well_conditioned

W = well_conditioned
CASES = [
    Case("inv", lambda T, F, a: T.linalg.inv(W(T, a)), [Arg((4, 4))]),
    Case("inv_batched", lambda T, F, a: T.linalg.inv(W(T, a)), [Arg((2, 3, 3, 3))]),
    Case("inv_ex", lambda T, F, a: T.linalg.inv_ex(W(T, a)).inverse, [Arg((2, 3, 3))]),
    Case("inverse", lambda T, F, a: T.inverse(W(T, a)), [Arg((3, 3))]),
    Case("inverse_method", lambda T, F, a: W(T, a).inverse(), [Arg((3, 3))]),
    Case("inv_1x1", lambda T, F, a: T.linalg.inv(a), [Arg((2, 1, 1), "away0")]),
    Case("det", lambda T, F, a: T.linalg.det(a), [Arg((4, 4))]),
    Case("det_batched", lambda T, F, a: T.linalg.det(a), [Arg((2, 3, 3, 3))]),
    # a rank-1 matrix: det = 0, its gradient the cofactor matrix, not a NaN
    Case("det_singular", lambda T, F, a, b: T.linalg.det(a.matmul(b)),
         [Arg((3, 1)), Arg((1, 3))]),
    Case("det_top_level", lambda T, F, a: T.det(a), [Arg((3, 3))]),
    Case("det_method", lambda T, F, a: a.det(), [Arg((2, 3, 3))]),
    Case("slogdet_log", lambda T, F, a: T.linalg.slogdet(a).logabsdet, [Arg((2, 4, 4))]),
    Case("slogdet_sign", lambda T, F, a: T.linalg.slogdet(a)[0], [Arg((3, 3), grad=False)]),
    Case("slogdet_both", lambda T, F, a: T.linalg.slogdet(a)[0] + T.linalg.slogdet(a)[1],
         [Arg((3, 3))]),
    Case("slogdet_top_level", lambda T, F, a: T.slogdet(a).logabsdet, [Arg((3, 3))]),
    Case("slogdet_method", lambda T, F, a: a.slogdet()[1], [Arg((3, 3))]),
    Case("logdet", lambda T, F, a: T.logdet(spd(T, a)), [Arg((2, 3, 3))]),
    Case("logdet_method", lambda T, F, a: spd(T, a).logdet(), [Arg((3, 3))]),
    Case("solve", lambda T, F, a, b: T.linalg.solve(W(T, a), b), [Arg((3, 3)), Arg((3, 2))]),
    Case("solve_vector", lambda T, F, a, b: T.linalg.solve(W(T, a), b),
         [Arg((3, 3)), Arg((3,))]),
    Case("solve_batch_of_vectors", lambda T, F, a, b: T.linalg.solve(W(T, a), b),
         [Arg((2, 3, 3)), Arg((2, 3))]),
    Case("solve_vector_broadcast", lambda T, F, a, b: T.linalg.solve(W(T, a), b),
         [Arg((2, 3, 3)), Arg((3,))]),
    Case("solve_batch_broadcast", lambda T, F, a, b: T.linalg.solve(W(T, a), b),
         [Arg((2, 1, 3, 3)), Arg((4, 3, 2))]),
    Case("solve_right", lambda T, F, a, b: T.linalg.solve(W(T, a), b, left=False),
         [Arg((2, 3, 3)), Arg((4, 3))]),
    Case("solve_b_only", lambda T, F, a, b: T.linalg.solve(W(T, a), b),
         [Arg((3, 3), grad=False), Arg((3, 2))]),
    Case("solve_triangular_upper",
         lambda T, F, a, b: T.linalg.solve_triangular(W(T, a), b, upper=True),
         [Arg((3, 3)), Arg((3, 2))]),
    Case("solve_triangular_lower_batched",
         lambda T, F, a, b: T.linalg.solve_triangular(W(T, a), b, upper=False),
         [Arg((2, 1, 3, 3)), Arg((4, 3, 2))]),
    Case("solve_triangular_right",
         lambda T, F, a, b: T.linalg.solve_triangular(W(T, a), b, upper=True, left=False),
         [Arg((3, 3)), Arg((2, 3))]),
    Case("solve_triangular_unit",
         lambda T, F, a, b: T.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
         [Arg((3, 3)), Arg((3, 4))]),
    Case("solve_triangular_unit_right_upper",
         lambda T, F, a, b: T.linalg.solve_triangular(a, b, upper=True, left=False,
                                                      unitriangular=True),
         [Arg((2, 3, 3)), Arg((2, 4, 3))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, atol=1e-4)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dtypes_kept_and_values_match_numpy(dtype, device):
    a = np.random.default_rng(0).standard_normal((2, 4, 4)).astype(dtype) + 4 * np.eye(4)
    a = a.astype(dtype)
    t = mt.tensor(a, device=device)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for ours, ref in [(mt.linalg.inv(t), np.linalg.inv(a)), (mt.linalg.det(t), np.linalg.det(a)),
                      (mt.linalg.solve(t, t), np.broadcast_to(np.eye(4), a.shape))]:
        assert str(ours.dtype) == f"torch.{dtype}"
        np.testing.assert_allclose(ours.cpu().numpy(), ref, rtol=tol, atol=tol)


def test_named_results_and_info():
    a = mt.eye(3).expand(2, 3, 3)
    result = mt.linalg.inv_ex(a)
    assert type(result).__name__ == "linalg_inv_ex" and result._fields == ("inverse", "info")
    assert result.info.dtype is mt.int32 and result.info.tolist() == [0, 0]
    sign, logabsdet = mt.linalg.slogdet(a)
    assert mt.linalg.slogdet(a)._fields == ("sign", "logabsdet")
    assert type(mt.slogdet(a)).__name__ == "slogdet"
    assert sign.tolist() == [1.0, 1.0] and logabsdet.tolist() == [0.0, 0.0]


def test_inv_ex_info_of_singular_matrices_as_torch():
    torch = _torch()
    data = np.array([[[0.0, 1.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]])
    ours = mt.linalg.inv_ex(mt.tensor(data))
    theirs = torch.linalg.inv_ex(torch.tensor(data))
    assert ours.info.tolist() == theirs.info.tolist() == [1, 2, 0]
    np.testing.assert_allclose(ours.inverse[2].numpy(), np.eye(2))


@pytest.mark.parametrize("call, message", [
    (lambda t: mt.linalg.inv(t), "linalg.inv: The diagonal element 1 is zero, the inversion "
     "could not be completed because the input matrix is singular."),
    (lambda t: mt.inverse(mt.stack([mt.eye(2, device=t.device), t])),
     "linalg.inv: (Batch element 1): The diagonal element 1 is zero, the inversion could not "
     "be completed because the input matrix is singular."),
    (lambda t: mt.linalg.inv_ex(t, check_errors=True), "linalg.inv_ex: The diagonal element 1 "
     "is zero, the inversion could not be completed because the input matrix is singular."),
    (lambda t: mt.linalg.solve(t, mt.ones(2, device=t.device)),
     "torch.linalg.solve: The solver failed because the input matrix is singular."),
    (lambda t: mt.linalg.matrix_power(t, -2), "linalg.inv: The diagonal element 1 is zero, "
     "the inversion could not be completed because the input matrix is singular."),
])
def test_singular_input_raises_linalg_error_as_torch(call, message, device):
    torch = _torch()
    singular = mt.tensor([[0.0, 1.0], [0.0, 1.0]], device=device)
    with pytest.raises(mt.linalg.LinAlgError) as info:
        call(singular)
    assert str(info.value) == message
    assert isinstance(info.value, RuntimeError)
    assert issubclass(torch.linalg.LinAlgError, RuntimeError)


def test_singular_triangular_solve_gives_inf_or_nan_not_an_error():
    a = mt.tensor([[1.0, 2.0], [0.0, 0.0]])
    x = mt.linalg.solve_triangular(a, mt.ones(2, 1), upper=True)
    assert not mt.isfinite(x).all()


@pytest.mark.parametrize("call, error, message, shape", [
    (mt.linalg.inv, RuntimeError, "linalg.inv: A must be batches of square matrices, but they "
     "are 3 by 4 matrices", (2, 3, 4)),
    (mt.linalg.det, RuntimeError, "linalg.det: The input tensor A must have at least 2 "
     "dimensions.", (3,)),
    (mt.linalg.slogdet, RuntimeError, "linalg.slogdet: A must be batches of square matrices, "
     "but they are 3 by 4 matrices", (3, 4)),
    (lambda t: mt.linalg.solve(t, mt.ones(3, device=t.device)), RuntimeError,
     "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)",
     (2, 2)),
    (lambda t: mt.linalg.solve(t, mt.ones(3, 3, device=t.device)), RuntimeError,
     "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x3)",
     (2, 2)),
    (lambda t: mt.linalg.solve(t, mt.ones((), device=t.device)), RuntimeError,
     "linalg.solve: The input tensor B must have at least 2 dimensions.", (2, 2)),
    (lambda t: mt.linalg.solve(t, mt.ones(2, device=t.device), left=False), RuntimeError,
     "linalg.solve: Incompatible shapes of A and B for the equation XA = B (2x2 and 2x1)",
     (2, 2)),
    (lambda t: mt.linalg.solve(t, mt.ones(2, 2, device=t.device, dtype=mt.float64)),
     RuntimeError, "linalg.solve: Expected A and B to have the same dtype, but found A of type "
     "Float and B of type Double instead", (2, 2)),
    (lambda t: mt.linalg.solve_triangular(t, mt.ones(3, device=t.device), upper=True),
     RuntimeError, "linalg.solve_triangular: The input tensor B must have at least 2 "
     "dimensions.", (3, 3)),
    (lambda t: mt.linalg.solve_triangular(t, mt.ones(2, 3, device=t.device), upper=False),
     RuntimeError, "linalg.solve_triangular: Incompatible shapes of A and B for the equation "
     "AX = B (3x3 and 2x3)", (3, 3)),
    (lambda t: mt.linalg.solve_triangular(t, mt.ones(3, 2, device=t.device), upper=False,
                                          left=False),
     RuntimeError, "linalg.solve_triangular: Incompatible shapes of A and B for the equation "
     "XA = B (3x3 and 3x2)", (3, 3)),
    (lambda t: mt.linalg.inv(t.long()), RuntimeError, "linalg.inv: Expected a floating point "
     "or complex tensor as input. Got Long", (2, 2)),
    (lambda t: mt.linalg.det(t.half()), RuntimeError, "linalg.det: Low precision dtypes not "
     "supported. Got Half; convert the input with .float() or .double()", (2, 2)),
])
def test_errors_as_torch_on_cpu_and_meta(call, error, message, shape):
    torch = _torch()
    check_same_error_on_cpu_and_meta(call, error, message, shape)
    theirs = {mt.linalg.inv: torch.linalg.inv, mt.linalg.det: torch.linalg.det,
              mt.linalg.slogdet: torch.linalg.slogdet}.get(call)
    if theirs is not None:
        with pytest.raises(RuntimeError, match=message.split(":")[1].strip()[:30]):
            theirs(torch.ones(*shape))


def test_solve_batch_shapes_that_do_not_broadcast():
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of "
                                           "tensor b \\(4\\) at non-singleton dimension 0"):
        mt.linalg.solve(mt.eye(2).expand(3, 2, 2), mt.ones(4, 2, 5))


def test_huge_meta_batch_is_shape_checked_without_data():
    a = mt.empty(2**20, 2**10, 64, 64, device="meta", requires_grad=True)
    b = mt.empty(2**10, 64, 3, device="meta")
    x = mt.linalg.solve(a, b)
    assert x.shape == (2**20, 2**10, 64, 3) and x.is_meta
    d = mt.linalg.det(a)
    sign, logabsdet = mt.linalg.slogdet(a)
    (x.sum() + d.sum() + logabsdet.sum()).backward()
    assert a.grad.shape == a.shape and sign.shape == (2**20, 2**10)
    assert mt.linalg.inv_ex(a).info.dtype is mt.int32


def test_grad_fn_names_as_torch():
    a = mt.eye(3, requires_grad=True)
    assert mt.linalg.inv(a).grad_fn.name() == "LinalgInvExBackward0"
    assert mt.linalg.solve(a, a).grad_fn.name() == "LinalgSolveExBackward0"
    assert mt.logdet(a).grad_fn.name() == "WhereBackward0"
    sign, logabsdet = mt.linalg.slogdet(a)
    assert sign.grad_fn.name() == logabsdet.grad_fn.name() == "LinalgSlogdetBackward0"
    assert mt.linalg.inv_ex(a).info.grad_fn is None

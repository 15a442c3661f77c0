"""linalg.ldl_factor_ex, ldl_factor and ldl_solve: LD, pivots (Bunch–Kaufman, 1 x 1 and
2 x 2 blocks) and info equal to PyTorch's (LAPACK's sytrf), solves, meta shapes, batching,
errors, and backward refused as PyTorch refuses it."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests


def _hollow(T, a):
    """A symmetric matrix with a zero diagonal: Bunch–Kaufman must take 2 x 2 blocks."""
    return a.tril(-1) + a.tril(-1).mT


CASES = [
    # only the lower triangle is read: the random upper one must not matter
    Case("ldl_factor", lambda T, F, a: T.linalg.ldl_factor(a).LD, [Arg((4, 4), grad=False)]),
    Case("ldl_factor_ex", lambda T, F, a: T.linalg.ldl_factor_ex(a)[0],
         [Arg((2, 3, 3), grad=False)]),
    Case("ldl_factor_2x2", lambda T, F, a: T.linalg.ldl_factor(_hollow(T, a)).LD,
         [Arg((2, 5, 5), grad=False)]),
    Case("ldl_solve", lambda T, F, a, b: T.linalg.ldl_solve(*T.linalg.ldl_factor(a), b),
         [Arg((3, 3), grad=False), Arg((3, 2), grad=False)]),
    Case("ldl_solve_2x2",
         lambda T, F, a, b: T.linalg.ldl_solve(*T.linalg.ldl_factor(_hollow(T, a)), b),
         [Arg((2, 4, 4), grad=False), Arg((2, 4, 3), grad=False)]),
    Case("ldl_solve_broadcast",
         lambda T, F, a, b: T.linalg.ldl_solve(*T.linalg.ldl_factor(a), b, hermitian=True),
         [Arg((2, 3, 3), grad=False), Arg((3, 1), grad=False)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, rtol=1e-3,
                                                                       atol=1e-4)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


def _symmetric_inputs(seed):
    """Random symmetric matrices of every kind the pivoting meets: ordinary, a small or a
    zero diagonal (2 x 2 blocks), and mixes of both in one batch."""
    rng = np.random.default_rng(seed)
    for trial in range(40):
        n, count = int(rng.integers(1, 8)), int(rng.integers(1, 4))
        a = rng.standard_normal((count, n, n))
        if trial % 3 == 0:
            a[:, range(n), range(n)] *= 0.01
        if trial % 5 == 0:
            a[0, range(n), range(n)] = 0
        yield a + np.swapaxes(a, -1, -2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_factors_pivots_and_solutions_equal_torchs(dtype, device):
    torch = _torch()
    tol = 2e-3 if dtype == "float32" else 1e-10
    two_by_two = 0
    for a in _symmetric_inputs(7):
        a = a.astype(dtype)
        b = np.random.default_rng(8).standard_normal(a.shape[:-1] + (2,)).astype(dtype)
        ours = mt.linalg.ldl_factor_ex(mt.tensor(a, device=device))
        ref = torch.linalg.ldl_factor_ex(torch.tensor(a))
        assert ours.pivots.dtype is mt.int32 and ours.info.dtype is mt.int32
        assert ours.LD.device == tensor_device(device)
        np.testing.assert_array_equal(ours.pivots.cpu().numpy(), ref.pivots.numpy())
        np.testing.assert_array_equal(ours.info.cpu().numpy(), ref.info.numpy())
        np.testing.assert_allclose(ours.LD.cpu().numpy(), ref.LD.numpy(), rtol=tol, atol=tol)
        two_by_two += int((ref.pivots.numpy() < 0).any())
        if ref.info.any():
            continue
        x = mt.linalg.ldl_solve(ours.LD, ours.pivots, mt.tensor(b, device=device))
        tx = torch.linalg.ldl_solve(ref.LD, ref.pivots, torch.tensor(b))
        scale = max(1.0, float(np.abs(tx.numpy()).max()))
        np.testing.assert_allclose(x.cpu().numpy() / scale, tx.numpy() / scale, atol=tol)
    assert two_by_two > 5  # the 2 x 2 path was exercised


def test_known_2x2_factorisation(device):
    a = mt.tensor([[0.0, 1, 2], [1, 0, 3], [2, 3, 0]], device=device)
    ld, pivots, info = mt.linalg.ldl_factor_ex(a)
    np.testing.assert_allclose(ld.cpu().numpy(), [[0, 0, 0], [2, 0, 0], [1.5, 0.5, -3]])
    assert pivots.cpu().tolist() == [-3, -3, 3] and int(info) == 0


def test_singular_info_and_errors(device):
    torch = _torch()
    zero = mt.zeros(2, 3, 3, device=device)
    out = mt.linalg.ldl_factor_ex(zero)
    assert out.info.cpu().tolist() == torch.linalg.ldl_factor_ex(torch.zeros(2, 3, 3)).info.tolist()
    assert out.pivots.cpu().tolist() == [[1, 2, 3]] * 2
    # PyTorch fails here with an internal assertion; ours says what went wrong
    with pytest.raises(RuntimeError, match=r"ldl_factor: \(Batch element 0\): .* D is "
                                           r"exactly singular: its diagonal element 1 is zero"):
        mt.linalg.ldl_factor(zero)
    with pytest.raises(RuntimeError, match=r"ldl_factor_ex: .*diagonal element 1 is zero"):
        mt.linalg.ldl_factor_ex(zero[0], check_errors=True)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (3, 1, 1)])
def test_empty_and_one_by_one(shape, device):
    torch = _torch()
    a = np.random.default_rng(2).standard_normal(shape)
    ours = mt.linalg.ldl_factor_ex(mt.tensor(a, device=device))
    ref = torch.linalg.ldl_factor_ex(torch.tensor(a))
    for o, r in zip(ours, ref):
        assert tuple(o.shape) == tuple(r.shape) and str(o.dtype) == str(r.dtype)
        np.testing.assert_allclose(o.cpu().numpy(), r.numpy())


def test_results_and_meta():
    out = mt.linalg.ldl_factor(mt.eye(3))
    assert type(out).__name__ == "linalg_ldl_factor" and out._fields == ("LD", "pivots")
    ex = mt.linalg.ldl_factor_ex(mt.empty(2, 4, 4, device="meta"))
    assert type(ex).__name__ == "linalg_ldl_factor_ex"
    assert [tuple(t.shape) for t in ex] == [(2, 4, 4), (2, 4), (2,)]
    assert [t.dtype for t in ex] == [mt.float32, mt.int32, mt.int32]
    x = mt.linalg.ldl_solve(ex.LD, ex.pivots, mt.empty(5, 1, 4, 2, device="meta"))
    assert x.is_meta and tuple(x.shape) == (5, 2, 4, 2)


def test_out_argument():
    a = mt.tensor([[2.0, 1.0], [1.0, 3.0]])
    ld, pivots = mt.empty(2, 2), mt.empty(2, dtype=mt.int32)
    result = mt.linalg.ldl_factor(a, out=(ld, pivots))
    assert result[0] is ld and pivots.tolist() == [1, 2]


def test_backward_refused_as_torch():
    torch = _torch()
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    x, tx = mt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ld, tld = mt.linalg.ldl_factor(x).LD, torch.linalg.ldl_factor(tx).LD
    assert ld.grad_fn.name() == tld.grad_fn.name() == "torch::autograd::NotImplemented"
    assert not mt.linalg.ldl_factor(x).pivots.requires_grad
    for ours, ref in ((ld, tld), (
            mt.linalg.ldl_solve(ld.detach(), mt.tensor([1, 2], dtype=mt.int32), x),
            torch.linalg.ldl_solve(tld.detach(), torch.tensor([1, 2], dtype=torch.int32), tx))):
        with pytest.raises(RuntimeError) as mine:
            ours.sum().backward()
        with pytest.raises(RuntimeError) as reference:
            ref.sum().backward()
        assert str(mine.value) == str(reference.value)


def _ld(T, t):
    return T.linalg.ldl_factor(T.eye(3, device=t.device))


ERRORS = [
    (lambda T, t: T.linalg.ldl_factor_ex(t), (3,),
     "torch.linalg.ldl_factor_ex: The input tensor A must have at least 2 dimensions."),
    (lambda T, t: T.linalg.ldl_factor(t), (2, 3),
     "torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they are 2 by 3 "
     "matrices"),
    (lambda T, t: T.linalg.ldl_factor_ex(t.int()), (3, 3),
     "torch.linalg.ldl_factor_ex: Expected a floating point or complex tensor as input. Got "
     "Int"),
    (lambda T, t: T.linalg.ldl_solve(*_ld(T, t), t), (4, 4),
     "Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is 3 by 3 but each "
     "b matrix is 4 by 4"),
    (lambda T, t: T.linalg.ldl_solve(_ld(T, t)[0], _ld(T, t)[1][:2], t), (3, 2),
     "torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, but got "
     "pivots with shape [2] instead"),
    (lambda T, t: T.linalg.ldl_solve(_ld(T, t)[0], _ld(T, t)[1].float(), t), (3, 2),
     "torch.linalg.ldl_solve: Expected pivots to be integers. Got Float"),
    (lambda T, t: T.linalg.ldl_solve(*_ld(T, t), t.double()), (3, 2),
     "Expected b and A to have the same dtype, but found b of type Double and A of type Float "
     "instead."),
]


@pytest.mark.parametrize("call, shape, message", ERRORS)
def test_errors_as_torch(call, shape, message):
    torch = _torch()
    with pytest.raises(RuntimeError) as reference:
        call(torch, torch.ones(*shape))
    assert str(reference.value) == message
    with pytest.raises(RuntimeError) as mine:
        call(mt, mt.ones(*shape))
    assert str(mine.value) == message


def test_shape_errors_same_on_meta_and_half_refused():
    check_same_error_on_cpu_and_meta(
        mt.linalg.ldl_factor, RuntimeError,
        "torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they are 3 by 4 "
        "matrices")
    with pytest.raises(NotImplementedError, match="\"ldl_factor_kernel_cpu\" not implemented "
                                                  "for 'Half'"):
        mt.linalg.ldl_factor(mt.ones(3, 3, dtype=mt.float16))
    with pytest.raises(IndexError, match="Dimension out of range"):
        mt.linalg.ldl_solve(*mt.linalg.ldl_factor(mt.eye(3)), mt.ones(3))

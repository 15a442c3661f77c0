"""The top-level linalg names: cholesky_solve, cholesky_inverse, triangular_solve, qr,
adjoint/mH/H, nuclear_norm, frobenius_norm: values, gradients, meta shapes, warnings and
errors as PyTorch's."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_against_torch, three_way_tests
from tests.ops.linalg_inputs import spd, well_conditioned

W = well_conditioned
DEPRECATED = ("deprecated",)


def quiet(fn):
    """``fn`` with the deprecation warnings of both libraries silenced (each is asserted in
    its own test)."""

    def call(*args):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*deprecated")
            return fn(*args)

    return call


def factor(T, a):
    """A lower Cholesky-like factor: the lower triangle of a well-conditioned matrix."""
    return W(T, a).tril()


CASES = [
    Case("cholesky_solve", lambda T, F, b, a: T.cholesky_solve(b, factor(T, a)),
         [Arg((3, 2)), Arg((3, 3))]),
    Case("cholesky_solve_upper", lambda T, F, b, a: T.cholesky_solve(b, W(T, a).triu(), True),
         [Arg((2, 3, 2)), Arg((2, 3, 3))]),
    Case("cholesky_solve_broadcast", lambda T, F, b, a: b.cholesky_solve(factor(T, a)),
         [Arg((2, 1, 3, 2)), Arg((4, 3, 3))]),
    Case("cholesky_solve_b_only", lambda T, F, b, a: T.cholesky_solve(b, factor(T, a)),
         [Arg((3, 4)), Arg((3, 3), grad=False)]),
    Case("cholesky_inverse", lambda T, F, a: T.cholesky_inverse(factor(T, a)), [Arg((3, 3))]),
    Case("cholesky_inverse_upper", lambda T, F, a: W(T, a).triu().cholesky_inverse(
        upper=True), [Arg((2, 3, 3))]),
    Case("cholesky_inverse_of_cholesky", lambda T, F, a: T.cholesky_inverse(
        T.linalg.cholesky(spd(T, a))), [Arg((3, 3))]),
    Case("triangular_solve", quiet(lambda T, F, b, a: T.triangular_solve(b, W(T, a)).solution),
         [Arg((3, 2)), Arg((3, 3))]),
    Case("triangular_solve_lower_transpose_unit", quiet(
        lambda T, F, b, a: b.triangular_solve(a, False, True, True)[0]),
         [Arg((2, 3, 4)), Arg((2, 3, 3))]),
    Case("triangular_solve_coefficient", quiet(
        lambda T, F, b, a: T.triangular_solve(b, W(T, a)).cloned_coefficient),
         [Arg((2, 3, 2), grad=False), Arg((3, 3))]),
    Case("qr_q", quiet(lambda T, F, a: T.qr(a).Q), [Arg((4, 3))]),
    Case("qr_r_complete", quiet(lambda T, F, a: a.qr(some=False)[1]), [Arg((2, 3, 3))]),
    Case("adjoint", lambda T, F, a: T.adjoint(a), [Arg((2, 3, 4))]),
    Case("adjoint_method", lambda T, F, a: a.adjoint(), [Arg((3, 4))]),
    Case("mH", lambda T, F, a: a.mH, [Arg((2, 3, 4))]),
    Case("H", lambda T, F, a: a.H, [Arg((3, 4))]),
    Case("nuclear_norm", quiet(lambda T, F, a: T.nuclear_norm(a)), [Arg((3, 4))]),
    Case("nuclear_norm_keepdim", quiet(lambda T, F, a: T.nuclear_norm(a, True)),
         [Arg((2, 3, 4))]),
    Case("nuclear_norm_dim", quiet(lambda T, F, a: T.nuclear_norm(a, (0, 2), keepdim=True)),
         [Arg((3, 2, 4))]),
    Case("frobenius_norm", quiet(lambda T, F, a: T.frobenius_norm(a, (0, 1))), [Arg((3, 4))]),
    Case("frobenius_norm_one_dim", quiet(lambda T, F, a: T.frobenius_norm(a, -1, True)),
         [Arg((2, 3, 4))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


@pytest.mark.parametrize("upper", [False, True])
def test_factor_gradients_cover_the_whole_factor_as_torch(upper, device):
    """PyTorch differentiates (L Lᵀ)⁻¹ as a function of all of L, though only its triangle
    is read: the gradient has entries on the other side too."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    solve = Case("solve", lambda T, F, b, f: T.cholesky_solve(b, f, upper), [])
    inverse = Case("inverse", lambda T, F, f: T.cholesky_inverse(f, upper), [])
    solve.arrays = lambda seed=0: [rng.standard_normal((3, 2)), a]
    solve.args = [Arg((3, 2)), Arg((3, 3))]
    inverse.arrays = lambda seed=0: [a]
    inverse.args = [Arg((3, 3))]
    check_against_torch(solve, device)
    check_against_torch(inverse, device)


def _same_error(torch, call, shapes, device, error=RuntimeError, dtypes=None):
    dtypes = dtypes or ["float32"] * len(shapes)
    arrays = [np.ones(s, dtype=d) for s, d in zip(shapes, dtypes)]
    with pytest.raises(error) as theirs, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(torch, *[torch.tensor(a) for a in arrays])
    message = re.escape(str(theirs.value).split(" (Triggered")[0])
    with pytest.raises(error, match=message), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(mt, *[mt.tensor(a, device=device) for a in arrays])


def test_cholesky_solve_and_inverse_errors_as_torch(device):
    torch = _torch()
    for shapes in (((3,), (3, 3)), ((3, 2), (2, 3)), ((4, 2), (3, 3)), ((2, 3, 2), (3, 3, 3))):
        _same_error(torch, lambda L, b, a: L.cholesky_solve(b, a), shapes, device)
    _same_error(torch, lambda L, b, a: L.cholesky_solve(b, a), ((3, 2), (3, 3)), device,
                dtypes=["float32", "float64"])
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        mt.cholesky_solve(mt.ones(3, 2, dtype=mt.int64, device=device),
                          mt.ones(3, 3, dtype=mt.int64, device=device))
    for shape in ((3,), (2, 3)):
        _same_error(torch, lambda L, a: L.cholesky_inverse(a), (shape,), device)
    singular = np.array([[[1.0, 0], [2, 3]], [[1.0, 0], [5, 0]]])
    with pytest.raises(torch.linalg.LinAlgError) as theirs:
        torch.cholesky_inverse(torch.tensor(singular))
    with pytest.raises(mt.linalg.LinAlgError, match=re.escape(str(theirs.value))):
        mt.cholesky_inverse(mt.tensor(singular, device=device))


def test_empty_factors(device):
    torch = _torch()
    ours = mt.cholesky_inverse(mt.zeros(2, 0, 0, device=device))
    assert ours.shape == torch.cholesky_inverse(torch.zeros(2, 0, 0)).shape
    assert mt.cholesky_solve(mt.zeros(0, 2, device=device),
                             mt.zeros(0, 0, device=device)).shape == (0, 2)


def test_triangular_solve_result_errors_and_warning(device):
    torch = _torch()
    b = mt.ones(3, 2, device=device)
    with pytest.warns(UserWarning, match="torch.triangular_solve is deprecated"):
        result = mt.triangular_solve(b, 2 * mt.eye(3, device=device))
    assert type(result).__name__ == "triangular_solve"
    assert result._fields == ("solution", "cloned_coefficient")
    assert result.solution.device == tensor_device(device)
    np.testing.assert_allclose(result.solution.cpu().numpy(), np.full((3, 2), 0.5))
    for shapes in (((3,), (3, 3)), ((3, 2), (3,)), ((3, 2), (2, 3)), ((4, 2), (3, 3)),
                   ((2, 3, 2), (3, 3, 3))):
        _same_error(torch, lambda L, b, a: L.triangular_solve(b, a), shapes, device)
    _same_error(torch, lambda L, b, a: L.triangular_solve(b, a), ((3, 2), (3, 3)), device,
                dtypes=["float32", "float64"])


def test_qr_result_and_warning(device):
    a = mt.tensor(np.random.default_rng(5).standard_normal((4, 3)), device=device)
    with pytest.warns(UserWarning, match="torch.qr is deprecated"):
        q, r = result = mt.qr(a, some=False)
    assert type(result).__name__ == "qr" and result._fields == ("Q", "R")
    assert q.shape == (4, 4) and r.shape == (4, 3)
    np.testing.assert_allclose((q @ r).cpu().numpy(), a.cpu().numpy(), atol=1e-12)


def test_adjoint_mh_and_h_errors_as_torch(device):
    torch = _torch()
    _same_error(torch, lambda L, a: L.adjoint(a), ((3,),), device)
    _same_error(torch, lambda L, a: a.mH, ((3,),), device)
    for shape in ((3,), (2, 3, 4)):
        _same_error(torch, lambda L, a: a.H, (shape,), device)
    x = mt.tensor(2.0, device=device)
    with pytest.warns(UserWarning, match="Tensor.H is deprecated on 0-D tensors"):
        assert x.H is x
    with pytest.warns(UserWarning, match="Tensor.mH is deprecated on 0-D tensors"):
        assert x.mH is x
    with pytest.warns(UserWarning, match="adjoint.. is deprecated on 0-D tensors"):
        assert mt.adjoint(x) is x
    a = mt.ones(2, 3, device=device)
    assert a.mH.data_ptr() == a.data_ptr() and a.mH.shape == (3, 2)  # a view


def test_norm_functions_warn_and_check_as_torch(device):
    torch = _torch()
    a = mt.ones(3, 4, device=device)
    with pytest.warns(UserWarning, match="at::nuclear_norm is deprecated"):
        mt.nuclear_norm(a)
    with pytest.warns(UserWarning, match="at::frobenius_norm is deprecated"):
        assert mt.frobenius_norm(a, (0, 1)).item() == pytest.approx(np.sqrt(12))
    _same_error(torch, lambda L, a: L.frobenius_norm(a, (0, 1, 1)), ((3, 4),), device)
    _same_error(torch, lambda L, a: L.frobenius_norm(a, (0, 1)), ((3, 4),), device,
                dtypes=["int64"])
    with pytest.raises(TypeError, match="dim"):
        mt.frobenius_norm(a)

"""matrix_power, matrix_norm, norm, lstsq, matrix_rank, multi_dot, chain_matmul, vecdot:
the compositions, checked three ways, and their errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests
from tests.ops.linalg_inputs import well_conditioned

INF = math.inf
M = (2, 3, 4)
POWERS = [Case(f"matrix_power_{n}".replace("-", "minus"),
               lambda T, F, a, n=n: T.linalg.matrix_power(well_conditioned(T, a) / 4, n),
               [Arg((2, 3, 3))]) for n in (-3, -2, -1, 1, 2, 3, 5, 6)]
NORMS = [Case(f"matrix_norm_{o}".replace("-", "minus"),
              lambda T, F, a, o=o: T.linalg.matrix_norm(a, o), [Arg(M, "away0")])
         for o in ("fro", "nuc", INF, -INF, 1, -1, 2, -2)]
CASES = POWERS + NORMS + [
    Case("matrix_power_0", lambda T, F, a: T.linalg.matrix_power(a, 0), [Arg((2, 3, 3))]),
    Case("matrix_power_top_level", lambda T, F, a: T.matrix_power(a, 3), [Arg((3, 3))]),
    Case("matrix_power_method", lambda T, F, a: a.matrix_power(2), [Arg((3, 3))]),
    Case("matrix_norm_dims_keepdim",
         lambda T, F, a: T.linalg.matrix_norm(a, 1, dim=(2, 0), keepdim=True),
         [Arg(M, "away0")]),
    Case("matrix_norm_inf_dims", lambda T, F, a: T.linalg.matrix_norm(a, INF, dim=(0, 2)),
         [Arg(M, "away0")]),
    Case("matrix_norm_nuc_dims_keepdim",
         lambda T, F, a: T.linalg.matrix_norm(a, "nuc", dim=(2, 0), keepdim=True), [Arg(M)]),
    Case("matrix_norm_2_float64_dtype",
         lambda T, F, a: T.linalg.matrix_norm(a, -2, dtype=T.float64), [Arg(M)]),
    Case("norm_whole", lambda T, F, a: T.linalg.norm(a), [Arg(M)]),
    Case("norm_2d_ord", lambda T, F, a: T.linalg.norm(a, 2), [Arg((3, 4))]),
    Case("norm_1d_ord", lambda T, F, a: T.linalg.norm(a, 3), [Arg((5,))]),
    Case("norm_int_dim", lambda T, F, a: T.linalg.norm(a, 1, dim=1), [Arg(M, "away0")]),
    Case("norm_two_dims", lambda T, F, a: T.linalg.norm(a, INF, dim=(0, 1), keepdim=True),
         [Arg(M, "away0")]),
    Case("lstsq_tall", lambda T, F, a, b: T.linalg.lstsq(a, b).solution,
         [Arg((5, 3)), Arg((5, 2))]),
    Case("lstsq_wide_vector", lambda T, F, a, b: T.linalg.lstsq(a, b)[0],
         [Arg((2, 3, 4)), Arg((2, 3))]),
    Case("lstsq_rank", lambda T, F, a, b: T.linalg.lstsq(a, b).rank,
         [Arg((2, 5, 3)), Arg((2, 5, 2))]),
    Case("lstsq_residuals_gelsd", lambda T, F, a, b: T.linalg.lstsq(a, b, driver="gelsd")[1],
         [Arg((2, 5, 3)), Arg((2, 5, 2))]),
    Case("lstsq_residuals_gels_vector",
         lambda T, F, a, b: T.linalg.lstsq(a, b, driver="gels").residuals,
         [Arg((5, 3)), Arg((5,))]),
    Case("lstsq_residuals_gelss_batched_vector",
         lambda T, F, a, b: T.linalg.lstsq(a, b, driver="gelss").residuals,
         [Arg((2, 4, 2)), Arg((2, 4))]),
    Case("matrix_rank", lambda T, F, a, b: T.linalg.matrix_rank(a.matmul(b)),
         [Arg((2, 4, 2)), Arg((2, 2, 3))]),
    Case("matrix_rank_hermitian",
         lambda T, F, a: T.linalg.matrix_rank(a.matmul(a.mT), hermitian=True),
         [Arg((4, 2))]),
    Case("matrix_rank_atol", lambda T, F, a: T.linalg.matrix_rank(a, atol=1.0, rtol=0.0),
         [Arg((3, 4, 4))]),
    Case("multi_dot", lambda T, F, a, b, c, d: T.linalg.multi_dot([a, b, c, d]),
         [Arg((2, 10)), Arg((10, 3)), Arg((3, 7)), Arg((7, 4))]),
    Case("multi_dot_vectors", lambda T, F, a, b, c: T.linalg.multi_dot([a, b, c]),
         [Arg((4,)), Arg((4, 5)), Arg((5,))]),
    Case("multi_dot_two", lambda T, F, a, b: T.linalg.multi_dot((a, b)),
         [Arg((3, 4)), Arg((4,))]),
    Case("chain_matmul", lambda T, F, a, b, c: T.chain_matmul(a, b, c),
         [Arg((2, 3)), Arg((3, 4)), Arg((4, 5))]),
    Case("vecdot", lambda T, F, a, b: T.linalg.vecdot(a, b), [Arg(M), Arg((4,))]),
    Case("vecdot_dim", lambda T, F, a, b: T.linalg.vecdot(a, b, dim=0), [Arg(M), Arg((2, 1, 1))]),
]

# PyTorch's matrix_power(A, 0) copies the identity into a new tensor (CopyBackwards);
# ours adds it to A masked to zeros (AddBackward0): the values and the zero gradient agree.
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, rtol=1e-3, atol=1e-4, name_differs=("matrix_power_0",))


@pytest.fixture(autouse=True)
def _quiet_deprecations():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="torch.chain_matmul is deprecated")
        yield


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


def test_chain_matmul_warns_and_multi_dot_picks_the_cheap_order():
    with pytest.warns(UserWarning, match="torch.chain_matmul is deprecated"):
        mt.chain_matmul(mt.ones(2, 2), mt.ones(2, 2))
    a, b, c = mt.ones(10, 100), mt.ones(100, 5), mt.ones(5, 50)
    products = []

    def count(function, inputs, outputs):
        if function.op_name in ("mm", "matmul"):
            products.append(inputs[0].shape[0] * inputs[0].shape[1] * inputs[1].shape[-1])

    from minitorch_meta.ops.function import observe

    with observe(count):
        mt.linalg.multi_dot([a, b, c])
    assert sum(products) == 10 * 100 * 5 + 10 * 5 * 50  # (a b) c, not a (b c)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_norms_and_rank_in_each_dtype(dtype, device):
    torch = _torch()
    a = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(dtype)
    for ord in ("fro", "nuc", 2, -1, INF):
        ours = mt.linalg.matrix_norm(mt.tensor(a, device=device), ord)
        theirs = torch.linalg.matrix_norm(torch.tensor(a), ord)
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-5)
    rank = mt.linalg.matrix_rank(mt.tensor(a[..., :2] @ a[..., :2, :], device=device))
    assert rank.dtype is mt.int64 and rank.tolist() == [2, 2, 2]


@pytest.mark.parametrize("call, error, message, shape", [
    (lambda t: mt.linalg.matrix_norm(t, 3), RuntimeError,
     "linalg.matrix_norm: Order 3 not supported.", (2, 2)),
    (mt.linalg.matrix_norm, RuntimeError,
     "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.", (2,)),
    (lambda t: mt.linalg.matrix_norm(t, dim=(1, 1)), RuntimeError,
     "linalg.matrix_norm: dims must be different. Got (1, 1)", (2, 2)),
    (lambda t: mt.linalg.norm(t, 2), RuntimeError, "linalg.norm: If dim is not specified but "
     "ord is, the input must be 1D or 2D. Got 3D.", (2, 2, 2)),
    (lambda t: mt.linalg.norm(t, dim=(0, 1, 2)), RuntimeError, "linalg.norm: If dim is "
     "specified, it must be of length 1 or 2. Got [0, 1, 2]", (2, 2, 2)),
    (lambda t: mt.linalg.matrix_power(t, 2), RuntimeError, "linalg.matrix_power: A must be "
     "batches of square matrices, but they are 2 by 3 matrices", (2, 3)),
    (lambda t: mt.linalg.multi_dot([t]), RuntimeError,
     "multi_dot(): expected at least 2 tensors but got 1", (2, 2)),
    (lambda t: mt.linalg.multi_dot([t, t]), RuntimeError,
     "multi_dot(): the first tensor must be 1D or 2D but got 3D", (2, 2, 2)),
    (lambda t: mt.linalg.multi_dot([t, t, t]), RuntimeError,
     "multi_dot(): tensors 0 and 1 with shapes [2, 3] and [2, 3] cannot be multiplied", (2, 3)),
    (lambda t: mt.linalg.vecdot(t, t.double()), RuntimeError, "linalg.vecdot: Expected x and "
     "y to have the same dtype, but found x of type Float and y of type Double instead", (2,)),
    (lambda t: mt.linalg.lstsq(t, mt.ones(4, device=t.device)), RuntimeError,
     "torch.linalg.lstsq: input.size(-2) should match other.size(-1)", (3, 2)),
    (lambda t: mt.linalg.matrix_rank(t), RuntimeError, "torch.linalg.matrix_rank: The input "
     "tensor input must have at least 2 dimensions.", (3,)),
])
def test_errors_on_cpu_and_meta_as_torch(call, error, message, shape):
    check_same_error_on_cpu_and_meta(call, error, message, shape)
    torch = _torch()
    call_torch = {"multi_dot(): tensors 0": lambda t: torch.linalg.multi_dot([t, t, t])}
    for start, theirs in call_torch.items():
        if message.startswith(start):
            with pytest.raises(RuntimeError) as info:
                theirs(torch.ones(*shape))
            assert str(info.value) == message


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.det(T.ones(2, 0, 0)), lambda T: T.linalg.inv(T.ones(0, 3, 3)),
    lambda T: T.linalg.svd(T.ones(0, 3)), lambda T: T.linalg.svdvals(T.ones(2, 0, 3)),
    lambda T: T.linalg.qr(T.ones(0, 3)), lambda T: T.linalg.cholesky(T.ones(0, 0)),
    lambda T: T.linalg.eigh(T.ones(0, 0)), lambda T: T.linalg.pinv(T.ones(0, 3)),
    lambda T: T.linalg.solve(T.ones(0, 0), T.ones(0, 2)),
    lambda T: T.linalg.matrix_rank(T.ones(2, 0, 3)),
    lambda T: T.linalg.matrix_norm(T.ones(0, 3), 2),
    lambda T: T.linalg.matrix_norm(T.ones(2, 0), "nuc"),
])
def test_empty_matrices_as_torch(call):
    torch = _torch()
    ours, theirs = call(mt), call(torch)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype) == str(t.dtype)
        np.testing.assert_array_equal(o.numpy(), t.numpy())


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 5), (4, 4)], ids=["tall", "wide", "square"])
def test_lstsq_outputs_per_driver_as_torch(driver, shape, device):
    """Which outputs each driver fills (rank, singular values, residuals: m > n, not gelsy,
    full rank for gelsd/gelss), their shapes, dtypes and nodes; a rank-deficient matrix
    has no residuals with gelsd/gelss (gels refuses it; gelsy's pivoted QR finds another
    rank and solution than our minimum-norm one, see docs/differences.md)."""
    torch = _torch()
    rng = np.random.default_rng(0)
    values = rng.standard_normal(shape)
    rhs = rng.standard_normal(shape[:-1] + (2,))
    deficient = values.copy()
    deficient[..., 1] = deficient[..., 0]
    for matrix in (values, deficient) if driver in ("gelsd", "gelss") else (values,):
        results = []
        for lib, kwargs in ((mt, {"device": device}), (torch, {})):
            a = lib.tensor(matrix, requires_grad=True, **kwargs)
            b = lib.tensor(rhs, requires_grad=True, **kwargs)
            out = lib.linalg.lstsq(a, b, driver=driver)
            results.append([(tuple(t.shape), str(t.dtype), t.requires_grad,
                             t.grad_fn.name() if t.grad_fn is not None else None)
                            for t in out])
            if lib is mt:
                ours = [t.detach().cpu().numpy() for t in out[1:]]
            else:
                theirs = [t.detach().numpy() for t in out[1:]]
        assert results[0] == results[1]
        for mine, reference in zip(ours, theirs):
            np.testing.assert_allclose(mine, reference, rtol=1e-6, atol=1e-8)

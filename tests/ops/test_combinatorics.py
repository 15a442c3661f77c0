"""block_diag, cartesian_prod, combinations, vander, meshgrid, trapezoid/trapz and
cumulative_trapezoid: values, gradients and grad_fn names against PyTorch, meta shapes,
dtypes, empty dims and errors."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import (
    Arg,
    Case,
    check_against_torch,
    check_gradients,
    check_meta,
    params,
    three_way_tests,
)

CASES = [
    Case("block_diag", lambda T, F, a, b, c, d: T.block_diag(a, b, c, d),
         [Arg((2, 3)), Arg((4,)), Arg(()), Arg((1, 1))]),
    Case("block_diag_one", lambda T, F, a: T.block_diag(a), [Arg((2, 2))]),
    Case("block_diag_empty_block", lambda T, F, a, b: T.block_diag(a, b),
         [Arg((2, 0)), Arg((3, 2))]),
    Case("block_diag_promotes", lambda T, F, a, b: T.block_diag(a, b),
         [Arg((2,), "int:4"), Arg((2, 2))]),
    Case("cartesian_prod", lambda T, F, a, b: T.cartesian_prod(a, b), [Arg((2,)), Arg((3,))]),
    Case("cartesian_prod_three", lambda T, F, a, b, c: T.cartesian_prod(a, b, c),
         [Arg((2,)), Arg((3,), grad=False), Arg((2,))]),
    Case("cartesian_prod_empty", lambda T, F, a, b: T.cartesian_prod(a, b),
         [Arg((0,)), Arg((3,))]),
    Case("combinations", lambda T, F, a: T.combinations(a), [Arg((4,))]),
    Case("combinations_r3_replacement", lambda T, F, a: T.combinations(a, r=3,
                                                                        with_replacement=True),
         [Arg((4,))]),
    Case("combinations_r1", lambda T, F, a: T.combinations(a, 1), [Arg((3,))]),
    Case("combinations_r_too_big", lambda T, F, a: T.combinations(a, r=5), [Arg((4,))]),
    Case("combinations_empty", lambda T, F, a: T.combinations(a), [Arg((0,))]),
    Case("combinations_int", lambda T, F, a: T.combinations(a, 2, True), [Arg((3,), "int:9")]),
    Case("meshgrid_ij", lambda T, F, a, b: T.meshgrid(a, b, indexing="ij")[0],
         [Arg((2,)), Arg((3,), grad=False)]),
    Case("meshgrid_ij_second", lambda T, F, a, b: T.meshgrid(a, b, indexing="ij")[1],
         [Arg((2,), grad=False), Arg((3,))]),
    Case("meshgrid_xy_list", lambda T, F, a, b, c: T.meshgrid([a, b, c], indexing="xy")[0],
         [Arg((2,)), Arg((3,), grad=False), Arg((4,), grad=False)]),
    Case("meshgrid_xy_second", lambda T, F, a, b, c: T.meshgrid(a, b, c, indexing="xy")[1],
         [Arg((2,), grad=False), Arg((3,)), Arg((4,), grad=False)]),
    Case("meshgrid_xy_third", lambda T, F, a, b, c: T.meshgrid(a, b, c, indexing="xy")[2],
         [Arg((2,), grad=False), Arg((3,), grad=False), Arg((4,))]),
    Case("meshgrid_sum_of_grids", lambda T, F, a, b: sum(T.meshgrid(a, b, indexing="xy")),
         [Arg((2,)), Arg((3,))]),
    Case("meshgrid_0d", lambda T, F, a, b: T.meshgrid(a, b, indexing="xy")[0],
         [Arg(()), Arg((3,), grad=False)]),
    Case("meshgrid_one", lambda T, F, a: T.meshgrid(a, indexing="xy")[0], [Arg((3,))]),
    Case("trapezoid", lambda T, F, y: T.trapezoid(y), [Arg((3, 4))]),
    Case("trapezoid_dx_dim0", lambda T, F, y: T.trapezoid(y, dx=0.5, dim=0), [Arg((3, 4))]),
    Case("trapezoid_x_1d", lambda T, F, y, x: T.trapezoid(y, x), [Arg((3, 4)), Arg((4,))]),
    Case("trapezoid_x_1d_dim0", lambda T, F, y, x: T.trapezoid(y, x, dim=0),
         [Arg((3, 4)), Arg((3,))]),
    Case("trapezoid_x_nd", lambda T, F, y, x: T.trapezoid(y, x), [Arg((3, 4)), Arg((3, 4))]),
    Case("trapezoid_x_broadcast", lambda T, F, y, x: T.trapezoid(y, x, dim=1),
         [Arg((2, 4, 3)), Arg((4, 1))]),
    Case("trapezoid_one_sample", lambda T, F, y: T.trapezoid(y), [Arg((3, 1))]),
    Case("trapezoid_int", lambda T, F, y: T.trapezoid(y), [Arg((5,), "int:9")]),
    Case("trapz_x", lambda T, F, y, x: T.trapz(y, x), [Arg((3, 4)), Arg((4,))]),
    Case("trapz_dx", lambda T, F, y: T.trapz(y, dx=2, dim=-2), [Arg((3, 4))]),
    Case("cumulative_trapezoid", lambda T, F, y: T.cumulative_trapezoid(y), [Arg((3, 4))]),
    Case("cumulative_trapezoid_dx_dim0",
         lambda T, F, y: T.cumulative_trapezoid(y, dx=2.0, dim=0), [Arg((3, 4))]),
    Case("cumulative_trapezoid_x", lambda T, F, y, x: T.cumulative_trapezoid(y, x),
         [Arg((3, 4)), Arg((4,))]),
    Case("cumulative_trapezoid_x_nd", lambda T, F, y, x: T.cumulative_trapezoid(y, x, dim=0),
         [Arg((3, 4)), Arg((3, 4))]),
    Case("cumulative_trapezoid_empty", lambda T, F, y: T.cumulative_trapezoid(y),
         [Arg((3, 0))]),
    Case("cumulative_trapezoid_int", lambda T, F, y: T.cumulative_trapezoid(y),
         [Arg((4,), "int:9")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)

# PyTorch 2.13's own vander cannot be differentiated (its backward raises "modified by an
# inplace operation"), so its gradients are checked by gradcheck and meta only, and its
# values and grad_fn names against PyTorch's forward.
VANDER = [
    Case("vander", lambda T, F, x: T.vander(x), [Arg((4,))]),
    Case("vander_n_increasing", lambda T, F, x: T.vander(x, N=3, increasing=True),
         [Arg((4,))]),
    Case("vander_wide", lambda T, F, x: T.vander(x, 6), [Arg((3,))]),
]


@pytest.mark.parametrize("case", params(VANDER))
def test_vander_gradcheck(case, device):
    check_gradients(case, device)


@pytest.mark.parametrize("case", params(VANDER))
def test_vander_meta_shapes(case):
    check_meta(case)


@pytest.mark.parametrize("case", params(VANDER + [
    Case("vander_int", lambda T, F, x: T.vander(x), [Arg((4,), "int:5")])]))
def test_vander_values_and_names_against_torch(case, device):
    torch = _torch()
    values = [Case(case.id, case.fn, [Arg(a.shape, a.kind, grad=False) for a in case.args])]
    check_against_torch(values[0], device)
    x = case.arrays()[0].astype(np.float32)
    ours = case.fn(mt, None, mt.tensor(x, device=device, requires_grad=True))
    theirs = case.fn(torch, None, torch.tensor(x, requires_grad=True))
    assert ours.grad_fn.name() == theirs.grad_fn.name()


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("r", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations_are_itertools_order(r, with_replacement, device):
    x = mt.arange(4, device=device) * 10
    choose = itertools.combinations_with_replacement if with_replacement \
        else itertools.combinations
    expected = [[10 * i for i in row] for row in choose(range(4), r)]
    out = mt.combinations(x, r, with_replacement)
    if r == 0:  # PyTorch's empty (0,) tensor
        assert out.shape == (0,) and out.dtype is mt.int64
    else:
        assert out.tolist() == expected


def test_cartesian_prod_of_one_tensor_is_the_tensor_itself():
    x = mt.arange(3)
    assert mt.cartesian_prod(x) is x
    assert mt.cartesian_prod(mt.tensor([1, 2]), mt.tensor([3, 4])).tolist() == [
        [1, 3], [1, 4], [2, 3], [2, 4]]


def test_results_without_a_graph_as_torchs():
    x = mt.randn(3, requires_grad=True)
    assert mt.combinations(x, 0).grad_fn is None
    assert mt.vander(x, N=0).shape == (3, 0) and mt.vander(x, N=0).grad_fn is None
    assert mt.vander(x[:0]).shape == (0, 0) and mt.vander(x[:0]).grad_fn is None
    empty = mt.trapezoid(mt.randn(3, 0, requires_grad=True))
    assert empty.tolist() == [0, 0, 0] and empty.grad_fn is None
    assert mt.block_diag().shape == (1, 0) and mt.block_diag().dtype is mt.float32


def test_vander_gradient_is_finite_at_zero(device):
    x = mt.tensor([0.0, 1.5, -2.0], device=device, requires_grad=True)
    mt.vander(x, 4).sum().backward()  # d/dx (x^3 + x^2 + x + 1) = 3x^2 + 2x + 1
    assert x.grad.tolist() == [1.0, 10.75, 9.0]


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64, mt.int64, mt.int32, mt.bool])
def test_vander_dtypes_as_torch(dtype):
    torch = _torch()
    data = np.array([0, 1, 3])
    ours = mt.vander(mt.tensor(data).to(dtype))
    theirs = torch.vander(torch.tensor(data).to(getattr(torch, str(dtype).split(".")[1])))
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_float_results_keep_their_dtype(dtype, device):
    y = mt.randn(3, 4, dtype=dtype, device=device)
    assert mt.trapezoid(y).dtype is dtype
    assert mt.cumulative_trapezoid(y, dx=3).dtype is dtype
    assert mt.block_diag(y, y).dtype is dtype
    assert mt.cartesian_prod(y[0], y[1]).dtype is dtype
    assert mt.vander(y[0]).dtype is dtype


def test_meshgrid_without_indexing_warns_and_means_ij():
    a, b = mt.arange(2), mt.arange(3)
    with pytest.warns(UserWarning, match="torch.meshgrid: in an upcoming release, it will be "
                                         "required to pass the indexing argument."):
        grids = mt.meshgrid(a, b)
    assert [g.shape for g in grids] == [(2, 3), (2, 3)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning when indexing is given
        xy = mt.meshgrid(a, b, indexing="xy")
    assert xy[0].tolist() == [[0, 1], [0, 1], [0, 1]] and xy[1].tolist() == [[0] * 2, [1] * 2,
                                                                                [2] * 2]
    assert isinstance(grids, tuple)


def test_trapezoid_integrates_a_line_exactly(device):
    x = mt.linspace(0, 2, 5, device=device)
    assert mt.trapezoid(3 * x, x).item() == pytest.approx(6.0)
    assert mt.trapezoid(mt.ones(5, device=device), dx=0.5).item() == pytest.approx(2.0)
    running = mt.cumulative_trapezoid(2 * x, x)
    np.testing.assert_allclose(running.cpu().numpy(), (x[1:] ** 2).cpu().numpy(), rtol=1e-6)


def _t(*shape):
    return mt.ones(*shape)


@pytest.mark.parametrize("call, error, message", [
    (lambda: mt.block_diag(_t(2), _t(2, 2, 2)), mt.ShapeRuntimeError,
     "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 1 has 3 "
     "dimensions (shape (2, 2, 2))"),
    (lambda: mt.cartesian_prod(_t(2, 2), _t(2)), mt.ShapeRuntimeError,
     "cartesian_prod: Expect a 1D vector, but got shape (2, 2)"),
    (lambda: mt.cartesian_prod(), RuntimeError, "meshgrid expects a non-empty TensorList"),
    (lambda: mt.cartesian_prod(_t(2), _t(2).double()), TypeError,
     "meshgrid: expected the first tensor and another to have the same dtype"),
    (lambda: mt.combinations(_t(2, 2)), mt.ShapeRuntimeError,
     "combinations: Expect a 1D vector, but got shape (2, 2)"),
    (lambda: mt.combinations(_t(3), r=-1), RuntimeError,
     "combinations: Expect a non-negative number, but got -1"),
    (lambda: mt.vander(_t(2, 2)), mt.ShapeRuntimeError,
     "vander: x must be a one-dimensional tensor, but got shape (2, 2)"),
    (lambda: mt.vander(_t()), mt.ShapeRuntimeError,
     "vander: x must be a one-dimensional tensor, but got shape ()"),
    (lambda: mt.vander(_t(3), N=-1), RuntimeError, "vander: N must be non-negative, but got "
                                                   "N=-1"),
    (lambda: mt.meshgrid(_t(2, 2), _t(2), indexing="ij"), mt.ShapeRuntimeError,
     "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of shape "
     "(2, 2)"),
    (lambda: mt.meshgrid(_t(2), indexing="foo"), RuntimeError,
     'torch.meshgrid: indexing must be one of "xy" or "ij", but received: foo'),
    (lambda: mt.meshgrid([], indexing="ij"), RuntimeError,
     "meshgrid expects a non-empty TensorList"),
    (lambda: mt.trapezoid(_t(3, 4), _t(3)), mt.ShapeRuntimeError,
     "trapezoid: There must be one `x` value for each sample point, but x has 3 and y has 4 "
     "along dim 1"),
    (lambda: mt.cumulative_trapezoid(_t(3, 4), _t(3)), mt.ShapeRuntimeError,
     "cumulative_trapezoid: There must be one `x` value for each sample point"),
    (lambda: mt.trapezoid(_t(3, 4), _t(2, 4)), mt.ShapeRuntimeError,
     "mul: shapes (3, 3) and (2, 3) cannot be broadcast together"),
    (lambda: mt.trapezoid(_t()), IndexError,
     "trapezoid: Dimension specified as -1 but tensor has no dimensions"),
    (lambda: mt.trapezoid(_t(3), dim=1), IndexError,
     "trapezoid: Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: mt.trapezoid(_t(4), _t(4), dx=2), TypeError,
     "trapezoid() received an invalid combination of arguments: give the sample points x or "
     "the spacing dx, not both"),
    (lambda: mt.trapz(_t(4), dx="a"), TypeError,
     "trapezoid(): argument 'dx' must be a real number, not str"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(message)
    with mt.device("meta"), pytest.raises(error) as meta_info:
        call()
    assert str(meta_info.value) == str(info.value)


@pytest.mark.parametrize("call", [
    lambda T: T.block_diag(T.ones(2, 2, 2)),
    lambda T: T.combinations(T.ones(2, 2)),
    lambda T: T.vander(T.ones(3), N=-1),
    lambda T: T.meshgrid(T.ones(2), indexing="foo"),
    lambda T: T.trapezoid(T.ones(3, 4), T.ones(3)),
])
def test_errors_are_runtime_errors_as_torchs(call):
    torch = _torch()
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError):
        call(mt)


def test_a_huge_meta_grid_costs_no_memory():
    a = mt.empty(2**20, device="meta", requires_grad=True)
    b = mt.empty(2**20, device="meta", requires_grad=True)
    grids = mt.meshgrid(a, b, indexing="ij")
    assert grids[0].shape == (2**20, 2**20) and grids[1].grad_fn.name() == "ExpandBackward0"
    total = mt.trapezoid(grids[0] * grids[1], dim=0).sum()
    total.backward()
    assert a.grad.shape == a.shape and a.grad.is_meta


def test_combination_positions_are_itertools_for_every_small_case():
    from minitorch_meta.combinatorial_functions import combination_positions

    for n in range(7):
        for r in range(5):
            for with_replacement in (False, True):
                choose = itertools.combinations_with_replacement if with_replacement \
                    else itertools.combinations
                got = combination_positions(n, r, with_replacement)
                assert got.dtype == np.int64
                assert got.shape == (len(list(choose(range(n), r))), r)
                assert [tuple(row) for row in got.tolist()] == list(choose(range(n), r))


@pytest.mark.parametrize("r, with_replacement", [(2, False), (3, False), (3, True)])
def test_combinations_of_a_longer_vector_against_torch(r, with_replacement, device):
    torch = _torch()
    data = np.random.default_rng(0).standard_normal(40).astype(np.float32)
    ours = mt.combinations(mt.tensor(data, device=device), r, with_replacement)
    theirs = torch.combinations(torch.tensor(data), r, with_replacement)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())
    meta = mt.combinations(mt.empty(40, device="meta"), r, with_replacement)
    assert meta.shape == ours.shape

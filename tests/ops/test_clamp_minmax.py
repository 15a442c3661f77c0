"""clamp/clip/clamp_min/clamp_max and maximum/minimum: the three-way checks, then the
edges finite differences cannot see (ties, values at the bounds, NaN, min > max), dtypes,
the in-place forms and every error message."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

S = (3, 4)
NAN, INF = float("nan"), float("inf")
# ``distinct`` fills (3, 4) with -0.6, -0.5, ..., 0.5: no element within 0.05 of a bound at
# +-0.25, and ``away0`` keeps |x| >= 0.2 from a bound at 0 (gradcheck steps are 1e-6).
CASES = [
    Case("clamp", lambda T, F, a: T.clamp(a, -0.25, 0.25), [Arg(S, "distinct")]),
    Case("clamp_method_keywords", lambda T, F, a: a.clamp(min=-0.25, max=0.25),
         [Arg(S, "distinct")]),
    Case("clamp_min_only", lambda T, F, a: a.clamp(min=0), [Arg(S, "away0")]),
    Case("clamp_max_only", lambda T, F, a: T.clamp(a, max=0.25), [Arg(S, "distinct")]),
    Case("clamp_int_bounds", lambda T, F, a: a.clamp(-1, 1), [Arg((2, 3, 4), "away0")]),
    Case("clip", lambda T, F, a: T.clip(a, -0.25, 0.25), [Arg(S, "distinct")]),
    Case("clip_method", lambda T, F, a: a.clip(max=0.25), [Arg(S, "distinct")]),
    Case("clamp_min", lambda T, F, a: T.clamp_min(a, 0), [Arg(S, "away0")]),
    Case("clamp_min_method", lambda T, F, a: a.clamp_min(-0.25), [Arg(S, "distinct")]),
    Case("clamp_max", lambda T, F, a: T.clamp_max(a, 0.25), [Arg(S, "distinct")]),
    Case("clamp_max_method", lambda T, F, a: a.clamp_max(0), [Arg(S, "away0")]),
    Case("clamp_in_chain", lambda T, F, a, b: (a.clamp(-0.25, 0.25) * b).sum(),
         [Arg(S, "distinct"), Arg(S)]),
    Case("clamp_int", lambda T, F, a: a.clamp(2, 7), [Arg(S, "int:10")]),
    Case("clamp_int_float_bound", lambda T, F, a: a.clamp(2.5), [Arg(S, "int:10")]),
    Case("maximum", lambda T, F, a, b: T.maximum(a, b), [Arg(S), Arg(S)]),
    Case("maximum_method_broadcast", lambda T, F, a, b: a.maximum(b),
         [Arg((2, 1, 4)), Arg((3, 1))]),
    Case("maximum_one_constant", lambda T, F, a, b: T.maximum(a, b),
         [Arg(S), Arg((4,), grad=False)]),
    Case("minimum", lambda T, F, a, b: T.minimum(a, b), [Arg(S), Arg(S)]),
    Case("minimum_method_broadcast", lambda T, F, a, b: a.minimum(b), [Arg((4,)), Arg(S)]),
    Case("minimum_int_and_float", lambda T, F, a, b: T.minimum(a, b),
         [Arg(S, "int:3"), Arg(S)]),
    Case("maximum_ints", lambda T, F, a, b: T.maximum(a, b), [Arg(S, "int:5"), Arg(S, "int:5")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _compare(device, fn, *values):
    """``fn`` on float32 tensors of ``values``: values, grad_fn and gradients equal PyTorch's
    exactly (upstream gradient 1, 2, 3, ...)."""
    torch = _torch()
    ours = [mt.tensor(v, dtype=mt.float32, device=device, requires_grad=True) for v in values]
    theirs = [torch.tensor(v, dtype=torch.float32, requires_grad=True) for v in values]
    out, ref = fn(mt, *ours), fn(torch, *theirs)
    np.testing.assert_array_equal(out.detach().cpu().numpy(), ref.detach().numpy())
    assert out.grad_fn.name() == ref.grad_fn.name()
    upstream = np.arange(1, ref.numel() + 1, dtype=np.float32).reshape(tuple(ref.shape))
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch.tensor(upstream))
    for o, r in zip(ours, theirs):
        np.testing.assert_array_equal(o.grad.cpu().numpy(), r.grad.numpy())
    return out


# -- maximum / minimum ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_ties_split_the_gradient_in_half(name, device):
    a = [1.0, 2.0, 3.0, -0.0, 5.0]
    b = [2.0, 2.0, 1.0, 0.0, 5.0]  # -0.0 == 0.0 is a tie too
    _compare(device, lambda T, x, y: getattr(T, name)(x, y), a, b)
    x = mt.tensor(a, device=device, requires_grad=True)
    getattr(mt, name)(x, x).sum().backward()  # the same tensor: both halves reach it
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.ones(5))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_nan_propagates_and_both_operands_get_the_gradient(name, device):
    """Where either operand is NaN, PyTorch's masks (``==``, ``<``) are all false, so the
    whole gradient goes to both operands."""
    out = _compare(device, lambda T, x, y: getattr(T, name)(x, y),
                   [NAN, 1.0, NAN, INF], [0.0, NAN, NAN, -INF])
    assert np.isnan(out.detach().cpu().numpy()[:3]).all()


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_ties_with_broadcasting(name, device):
    _compare(device, lambda T, x, y: getattr(T, name)(x, y),
             [[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]], [2.0])


def test_maximum_minimum_dtypes_follow_promotion():
    i32, i64 = mt.tensor([1, 4], dtype=mt.int32), mt.tensor([3, 2])
    assert mt.maximum(i32, i32).dtype is mt.int32
    assert mt.maximum(i32, i64).dtype is mt.int64
    assert mt.minimum(i64, mt.tensor([1.5, 0.5])).dtype is mt.float32
    assert mt.maximum(mt.ones(2), mt.ones(2, dtype=mt.float64)).dtype is mt.float64
    np.testing.assert_array_equal(mt.maximum(i32, i64).numpy(), [3, 4])
    np.testing.assert_array_equal(mt.minimum(i64, mt.tensor([1.5, 0.5])).numpy(), [1.5, 0.5])
    both = mt.maximum(mt.tensor([True, False]), mt.tensor([False, False]))
    assert both.dtype is mt.bool
    np.testing.assert_array_equal(both.numpy(), [True, False])


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_refuse_numbers_as_pytorch_does(name):
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'other' must be Tensor, not "
                                        r"float; for a number use clamp_min/clamp_max$"):
        getattr(mt, name)(mt.ones(2), 1.0)
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'other' must be Tensor, not "
                                        "NoneType"):
        getattr(mt.ones(2), name)(None)
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'input' must be Tensor, not "
                                        "int"):
        getattr(mt, name)(1, mt.ones(2))


def test_maximum_broadcast_error_names_the_op():
    for device in ("cpu", "meta"):
        with pytest.raises(mt.ShapeError, match=r"^maximum: shapes \(2, 3\) and \(4,\) cannot "
                                                "be broadcast together"):
            mt.maximum(mt.ones(2, 3, device=device), mt.ones(4, device=device))


# -- clamp: values and gradients at the edges ------------------------------------------


@pytest.mark.parametrize("call", [
    lambda T, x: T.clamp(x, -1.0, 1.0),
    lambda T, x: x.clamp(min=-1),
    lambda T, x: x.clamp(max=1),
    lambda T, x: T.clamp_min(x, -1.0),
    lambda T, x: T.clamp_max(x, 1.0),
    lambda T, x: x.clip(-1, 1),
    lambda T, x: T.clamp(x, 0.1, 0.3),  # bounds that float32 rounds: compared in float32
], ids=["clamp", "min", "max", "clamp_min", "clamp_max", "clip", "rounded_bounds"])
def test_gradient_at_the_bounds_is_inclusive(call, device):
    """PyTorch passes the gradient where min <= x <= max: at a bound it passes."""
    values = [-2.0, -1.0, -0.5, 0.0, 0.1, 0.3, 1.0, 2.0, np.float32(0.1), np.float32(0.3)]
    _compare(device, call, [float(v) for v in values])


def test_nan_stays_nan_and_gets_no_gradient(device):
    out = _compare(device, lambda T, x: T.clamp(x, -1, 1), [NAN, 0.5, INF, -INF])
    np.testing.assert_array_equal(out.detach().cpu().numpy(), [NAN, 0.5, 1.0, -1.0])
    _compare(device, lambda T, x: T.clamp_min(x, 0.0), [NAN, 0.5])
    _compare(device, lambda T, x: T.clamp_max(x, 0.0), [NAN, 0.5])


@pytest.mark.parametrize("call", [
    lambda T, x: x.clamp(NAN, 1.0), lambda T, x: x.clamp(max=NAN), lambda T, x: x.clamp_min(NAN),
], ids=["min", "max", "clamp_min"])
def test_nan_bound_makes_everything_nan_without_gradient(call, device):
    out = _compare(device, call, [-2.0, 0.0, 2.0, NAN])
    assert np.isnan(out.detach().cpu().numpy()).all()


def test_min_greater_than_max_gives_max_everywhere(device):
    out = _compare(device, lambda T, x: T.clamp(x, 1.0, -1.0), [-2.0, 0.0, 1.0, -1.0, 3.0, NAN])
    np.testing.assert_array_equal(out.detach().cpu().numpy(), [-1, -1, -1, -1, -1, NAN])
    ints = mt.clamp(mt.tensor([-5, 0, 5], device=device), 3, 1)
    np.testing.assert_array_equal(ints.cpu().numpy(), [1, 1, 1])


def test_zero_dim_and_empty_inputs(device):
    _compare(device, lambda T, x: x.clamp(0.0, 1.0), 3.0)
    empty = mt.zeros(0, 3, device=device).clamp(0, 1)
    assert empty.shape == (0, 3)


# -- clamp: dtypes ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [mt.int32, mt.int64, mt.uint8])
def test_integer_tensors_keep_their_dtype(dtype, device):
    x = mt.tensor([0, 3, 6, 9], dtype=dtype, device=device)
    for out in (x.clamp(2, 7), mt.clamp_min(x, 2), x.clamp_max(7), x.clip(max=7)):
        assert out.dtype is dtype
    np.testing.assert_array_equal(x.clamp(2, 7).cpu().numpy(), [2, 3, 6, 7])


def test_dtype_promotion_matches_torch():
    """An integer tensor with a float bound becomes float32; a bool tensor with integer
    bounds becomes int64; float tensors keep their dtype; NumPy scalars count by kind."""
    torch = _torch()
    calls = [lambda x: x.clamp(2.5), lambda x: x.clamp(None, 7.5), lambda x: x.clamp(2, 7.5),
             lambda x: x.clamp_min(2.5), lambda x: x.clamp_max(np.float32(7.5)),
             lambda x: x.clamp(np.int64(2), True), lambda x: x.clamp(0, 1)]
    for dtype in ("int32", "int64", "float32", "float64", "bool"):
        for call in calls:
            values = [True, False] if dtype == "bool" else [1, 5, 9]
            ours = call(mt.tensor(values, dtype=getattr(mt, dtype)))
            theirs = call(torch.tensor(values, dtype=getattr(torch, dtype)))
            assert str(ours.dtype) == str(theirs.dtype), (dtype, ours.dtype, theirs.dtype)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_meta_clamp_dtype_and_gradient_shape():
    x = mt.empty(2, 3, dtype=mt.int32, device="meta")
    assert x.clamp(1, 2).dtype is mt.int32 and x.clamp(0.5).dtype is mt.float32
    w = mt.empty(4, 5, device="meta", requires_grad=True)
    out = mt.maximum(w.clamp(-1, 1), mt.empty(5, device="meta"))
    assert out.grad_fn.name() == "MaximumBackward0"
    out.sum().backward()
    assert w.grad.is_meta and w.grad.shape == (4, 5)


# -- the in-place forms ----------------------------------------------------------------


@pytest.mark.parametrize("method, args, expected", [
    ("clamp_", (-1, 1), [-1.0, -0.5, 1.0]),
    ("clip_", (None, 0), [-2.0, -0.5, 0.0]),
    ("clamp_min_", (0,), [0.0, 0.0, 2.0]),
    ("clamp_max_", (-1.0,), [-2.0, -1.0, -1.0]),
])
def test_in_place_writes_values_and_bumps_the_version(method, args, expected, device):
    x = mt.tensor([-2.0, -0.5, 2.0], device=device)
    view = x[:]  # a view shares the storage and its version counter
    before = x._version
    assert getattr(x, method)(*args) is x
    np.testing.assert_array_equal(x.cpu().numpy(), expected)
    np.testing.assert_array_equal(view.cpu().numpy(), expected)
    assert x._version == before + 1 and view._version == x._version


def test_in_place_on_integers(device):
    x = mt.tensor([1, 5, 9], dtype=mt.int32, device=device)
    x.clamp_(2, 7)
    assert x.dtype is mt.int32
    np.testing.assert_array_equal(x.cpu().numpy(), [2, 5, 7])


def test_in_place_refused_inside_a_graph():
    leaf = mt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^clamp_: a leaf Variable that requires grad is "
                                           r"being used in an in-place operation; wrap the "
                                           r"update in 'with torch.no_grad\(\):'$"):
        leaf.clamp_(0, 1)
    with pytest.raises(RuntimeError, match="^clamp_min_: in-place operations on tensors that "
                                           "are part of an autograd graph are not supported"):
        (leaf * 2).clamp_min_(0)
    for method in ("clip_", "clamp_max_"):
        with pytest.raises(RuntimeError, match=f"^{method}: a leaf Variable"):
            getattr(leaf, method)(1)
    with mt.no_grad():  # as optimizers do
        leaf.clamp_(max=1.5)
    np.testing.assert_array_equal(leaf.detach().numpy(), [1.0, 1.5])
    assert leaf._version == 1 and leaf.requires_grad


def test_saved_input_modified_by_clamp_in_place_is_caught():
    x = mt.tensor([0.5, 2.0])
    w = mt.tensor([1.0, 1.0], requires_grad=True)
    out = (w * x).clamp(0, 1)  # Mul saved x for w's gradient
    x.clamp_(0, 1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_in_place_result_that_does_not_fit_is_refused():
    x = mt.tensor([1, 5, 9], dtype=mt.int32)
    with pytest.raises(RuntimeError, match=r"^clamp_: result type Float can't be cast "
                                           r"to the desired output type Int$"):
        x.clamp_(2.5, 7)
    with pytest.raises(RuntimeError, match=r"^clamp_min_: result type Float can't be "
                                           r"cast to the desired output type Int$"):
        x.clamp_min_(2.5)
    with pytest.raises(RuntimeError, match=r"^clamp_: result type Long can't be cast "
                                           r"to the desired output type Bool$"):
        mt.tensor([True, False]).clamp_(0, 1)
    np.testing.assert_array_equal(x.numpy(), [1, 5, 9])
    assert x._version == 0


# -- errors ----------------------------------------------------------------------------

NO_BOUND = r"^torch.clamp: At least one of 'min' or 'max' must not be None$"


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("call", [
    lambda x: mt.clamp(x), lambda x: x.clamp(), lambda x: x.clamp(None, None),
    lambda x: mt.clip(x), lambda x: x.clip(min=None), lambda x: x.clamp_(),
], ids=["clamp", "method", "both_none", "clip", "clip_method", "in_place"])
def test_no_bound_is_pytorchs_error(call, device):
    with pytest.raises(RuntimeError, match=NO_BOUND):
        call(mt.ones(2, device=device))


@pytest.mark.parametrize("call", [
    lambda x, b: mt.clamp(x, b), lambda x, b: x.clamp(max=b), lambda x, b: x.clip(0, b),
    lambda x, b: mt.clamp_min(x, b), lambda x, b: x.clamp_max(b), lambda x, b: x.clamp_(b),
])
def test_tensor_bounds_are_taken(call):
    """Every spelling takes a tensor bound (tests/ops/test_clamp_tensor.py checks them)."""
    result = call(mt.tensor([0.25, 2.0]), mt.tensor(0.5))
    assert result.tolist() in ([0.5, 2.0], [0.25, 0.5])


def test_bounds_that_are_not_numbers():
    with pytest.raises(TypeError, match=r"^clamp\(\): expected min to be a number or None, "
                                        "got str$"):
        mt.ones(2).clamp("a")
    with pytest.raises(TypeError, match=r"^clamp\(\): expected max to be a number or None, "
                                        "got list$"):
        mt.ones(2).clamp(0, [1])
    with pytest.raises(TypeError, match=r"^clamp\(\): expected min to be a number or None, "
                                        "got complex$"):
        mt.ones(2).clamp(1j)
    with pytest.raises(TypeError, match=r"^clamp_min\(\): expected min to be a number, "
                                        "got None$"):
        mt.ones(2).clamp_min(None)
    with pytest.raises(TypeError, match=r"^clamp_max\(\): expected max to be a number, "
                                        "got None$"):
        mt.clamp_max(mt.ones(2), None)


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_bool_tensor_with_bool_bounds(device):
    with pytest.raises(TypeError, match="^clamp: bool tensors cannot be clamped with bool "
                                        r"bounds; convert the tensor first, e.g. with .int\(\)$"):
        mt.ones(2, dtype=mt.bool, device=device).clamp(True)
    with pytest.raises(TypeError, match="^clamp_max: bool tensors cannot be clamped"):
        mt.ones(2, dtype=mt.bool, device=device).clamp_max(False)


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_bound_that_overflows_the_dtype(device):
    """PyTorch refuses a bound the result dtype cannot hold (its message, with the bound)."""
    with pytest.raises(RuntimeError, match=r"^clamp: value cannot be converted to type "
                                           r"torch.int32 without overflow \(min=1099511627776\)$"):
        mt.ones(2, dtype=mt.int32, device=device).clamp(2 ** 40)
    with pytest.raises(RuntimeError, match=r"^clamp_max: value cannot be converted to type "
                                           r"torch.float32 without overflow \(max=1e\+300\)$"):
        mt.ones(2, device=device).clamp_max(1e300)
    with pytest.raises(RuntimeError, match=r"^clamp: value cannot be converted to type "
                                           r"torch.uint8 without overflow \(min=-1\)$"):
        mt.ones(2, dtype=mt.uint8, device=device).clamp(-1)
    # infinities are float values; float64 holds 1e300
    assert mt.ones(2, device=device).clamp(-INF, INF).dtype is mt.float32
    assert mt.ones(2, dtype=mt.float64, device=device).clamp(max=1e300).dtype is mt.float64


def test_clamp_overflow_matches_torch_refusal():
    torch = _torch()
    with pytest.raises(RuntimeError, match="without overflow"):
        torch.ones(2, dtype=torch.int32).clamp(2 ** 40)
    with pytest.raises(RuntimeError, match="without overflow"):
        torch.ones(2).clamp_max(1e300)


def test_names_are_exported():
    assert inspect.unwrap(mt.clip) is inspect.unwrap(mt.clamp)  # out= wrappers aside
    for name in ("clamp", "clip", "clamp_min", "clamp_max", "maximum", "minimum"):
        assert name in mt.__all__
        assert callable(getattr(mt.Tensor, name))
    for name in ("clamp_", "clip_", "clamp_min_", "clamp_max_"):
        assert callable(getattr(mt.Tensor, name))

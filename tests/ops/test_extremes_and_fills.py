"""min/argmin on every dtype, NaN ties of max()/min(), random_'s ranges, and the error types
of mixed-dtype products, float16 linalg and real-valued fills on integer tensors, each
against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt

EXTREME_VALUES = {
    "uint8": [0, 5, 255, 0],       # -x wraps around: min was once computed as -max(-x)
    "int8": [-128, 5, 127, -128],  # -(-128) is -128 in int8
    "int64": [3, -7, 11, -7],
    "bool": [True, False, True, False],
    "float32": [1.5, -2.0, 7.0, -2.0],
}


def _both(torch, device, values, dtype):
    ours = mt.tensor(values, dtype=getattr(mt, dtype), device=device)
    return ours, torch.tensor(values, dtype=getattr(torch, dtype))


@pytest.mark.parametrize("dtype", list(EXTREME_VALUES))
def test_min_and_max_of_every_dtype_match_torch(dtype, device, torch_ref):
    values = EXTREME_VALUES[dtype]
    ours, theirs = _both(torch_ref, device, [values, values[::-1]], dtype)
    for name in ("min", "max"):
        assert getattr(ours, name)().tolist() == getattr(theirs, name)().tolist()
        for dim in (0, 1, -1):
            mine, ref = getattr(ours, name)(dim), getattr(theirs, name)(dim)
            assert mine.values.tolist() == ref.values.tolist(), (name, dim)
            assert mine.indices.tolist() == ref.indices.tolist(), (name, dim)


@pytest.mark.parametrize("dtype", [d for d in EXTREME_VALUES if d != "bool"])
def test_argmin_and_argmax_match_torch(dtype, device, torch_ref):
    values = EXTREME_VALUES[dtype]
    ours, theirs = _both(torch_ref, device, [values, values[::-1]], dtype)
    for name in ("argmin", "argmax"):
        assert getattr(ours, name)().item() == getattr(theirs, name)().item()
        assert getattr(mt, name)(ours, 1, keepdim=True).tolist() == \
            getattr(torch_ref, name)(theirs, 1, keepdim=True).tolist()


@pytest.mark.parametrize("name", ["argmin", "argmax"])
def test_arg_extremes_refuse_bool_as_torch(name, any_device, torch_ref):
    with pytest.raises(RuntimeError, match=f"{name}\\(\\): does not support bool input") as ref:
        getattr(torch_ref.tensor([True, False]), name)()
    with pytest.raises(RuntimeError, match=f"{name}\\(\\): does not support bool input"):
        getattr(mt.tensor([True, False], device=any_device), name)()
    assert "does not support bool input" in str(ref.value)


def test_min_reports_its_own_name_and_node(device, torch_ref):
    x = mt.tensor([[3.0, 1.0, 1.0]], device=device, requires_grad=True)
    assert x.min().grad_fn.name() == "MinBackward1"
    assert x.min(1).values.grad_fn.name() == "MinBackward0"
    with pytest.raises(RuntimeError, match="min\\(\\): expected a non-empty tensor"):
        mt.empty(0, device=device).min()


@pytest.mark.parametrize("name", ["min", "max"])
def test_nan_ties_share_the_gradient_as_torch(name, device, torch_ref):
    nan = float("nan")
    values = [[1.0, nan, 0.0], [2.0, 1.0, nan]]
    x = mt.tensor(values, dtype=mt.float64, device=device, requires_grad=True)
    ref = torch_ref.tensor(values, dtype=torch_ref.float64, requires_grad=True)
    getattr(x, name)().backward()
    getattr(ref, name)().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), ref.grad.numpy())
    # second order: the same share, a constant of the input
    x2 = mt.tensor(values, dtype=mt.float64, device=device, requires_grad=True)
    (grad,) = mt.autograd.grad(getattr(x2, name)(), x2, create_graph=True)
    np.testing.assert_array_equal(grad.detach().cpu().numpy(), ref.grad.numpy())


def test_ties_without_nan_still_share_evenly(device, torch_ref):
    x = mt.tensor([1.0, 3.0, 3.0], device=device, requires_grad=True)
    ref = torch_ref.tensor([1.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    ref.max().backward()
    assert x.grad.tolist() == ref.grad.tolist() == [0.0, 0.5, 0.5]


# -- random_ -------------------------------------------------------------------------------
TOPS = {"int64": 2 ** 63 - 1, "int32": 2 ** 31 - 1, "int16": 2 ** 15 - 1, "int8": 127,
        "uint8": 255, "bool": 1, "float32": 2 ** 24, "float64": 2 ** 53, "float16": 2 ** 11}


@pytest.mark.parametrize("dtype", list(TOPS))
def test_random_without_bounds_spans_the_dtype_as_torch(dtype, device):
    mt.manual_seed(0)
    drawn = mt.empty(20000, dtype=getattr(mt, dtype), device=device).random_()
    values = drawn.cpu().numpy().astype(np.float64)
    top = TOPS[dtype]
    assert values.min() >= 0 and values.max() <= top
    # 20000 uniform draws reach the top tenth of the range (a bound too low would not)
    assert values.max() >= 0.9 * top
    assert np.array_equal(values, np.round(values))


def test_random_forms_draw_from_their_ranges(device):
    mt.manual_seed(0)
    below = mt.empty(5000, dtype=mt.int8, device=device).random_(5)
    assert set(below.tolist()) == {0, 1, 2, 3, 4}
    pair = mt.empty(5000, dtype=mt.int64, device=device).random_(-3, 2)
    assert set(pair.tolist()) == {-3, -2, -1, 0, 1}
    upward = mt.empty(5000, dtype=mt.int8, device=device).random_(100, None)
    assert min(upward.tolist()) >= 100 and max(upward.tolist()) == 127
    full = mt.empty(5000, dtype=mt.int64, device=device).random_(-2 ** 63, None)
    assert min(full.tolist()) < 0 < max(full.tolist())
    assert mt.empty(3, device="meta").random_().shape == (3,)


@pytest.mark.parametrize("call, error, message", [
    (lambda lib: lib.empty(3, dtype=lib.int8).random_(0, 300), RuntimeError,
     "to - 1 .*out of bounds"),
    (lambda lib: lib.empty(3, dtype=lib.uint8).random_(-5, 5), RuntimeError,
     "from .*out of bounds"),
    (lambda lib: lib.empty(3, dtype=lib.bool).random_(0, 3), RuntimeError,
     "to - 1 .*out of bounds"),
    (lambda lib: lib.empty(3, dtype=lib.int8).random_(-5), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=0 >= to=-5"),
    (lambda lib: lib.empty(3, dtype=lib.int8).random_(0), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=0 >= to=0"),
])
def test_random_bound_errors_as_torch(call, error, message, torch_ref):
    with pytest.raises(error, match=message):
        call(torch_ref)
    with pytest.raises(error, match=message):
        call(mt)


def test_random_refuses_float_bounds_and_warns_beyond_exact_floats(torch_ref):
    with pytest.raises(TypeError):
        torch_ref.empty(3).random_(0.5, 3)
    with pytest.raises(TypeError, match="argument 'from' must be an int, not float"):
        mt.empty(3).random_(0.5, 3)
    for lib in (torch_ref, mt):
        with pytest.warns(UserWarning, match="out of bounds"):
            lib.empty(3).random_(0, 2 ** 30)


@pytest.mark.parametrize("fill", ["normal_", "uniform_", "log_normal_"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_real_fills_refuse_integer_tensors_as_torch(fill, dtype, any_device, torch_ref):
    with pytest.raises(NotImplementedError):
        getattr(torch_ref.ones(2, dtype=getattr(torch_ref, dtype)), fill)()
    with pytest.raises(NotImplementedError, match=f"{fill} is not implemented for "
                                                  f"torch.{dtype} tensors"):
        getattr(mt.ones(2, dtype=getattr(mt, dtype), device=any_device), fill)()


# -- error types ---------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda lib, a, b: a.matmul(b), lambda lib, a, b: lib.mm(a, b), lambda lib, a, b: a @ b,
    lambda lib, a, b: a.mv(b[0]), lambda lib, a, b: lib.bmm(a[None], b[None]),
])
def test_mixed_dtype_products_raise_runtime_error_as_torch(call, any_device, torch_ref):
    with pytest.raises(RuntimeError):
        call(torch_ref, torch_ref.ones(2, 2), torch_ref.ones(2, 2, dtype=torch_ref.float64))
    a, b = mt.ones(2, 2, device=any_device), mt.ones(2, 2, dtype=mt.float64, device=any_device)
    with pytest.raises(RuntimeError, match="to have the same dtype") as caught:
        call(mt, a, b)
    assert isinstance(caught.value, TypeError)  # what it was before, so code catching it works


@pytest.mark.parametrize("name", ["qr", "cholesky", "svd", "eigh", "det", "inv"])
def test_float16_linalg_raises_what_torch_code_catches(name, any_device, torch_ref):
    with pytest.raises((NotImplementedError, RuntimeError)):
        getattr(torch_ref.linalg, name)(torch_ref.eye(2, dtype=torch_ref.float16))
    a = mt.eye(2, dtype=mt.float16, device=any_device)
    if name == "eigh":  # PyTorch 2.13's eigh kernel refuses it by name, as every other dtype
        with pytest.raises(NotImplementedError, match="\"linalg_eigh_cpu\" not implemented "
                                                      "for 'Half'"):
            mt.linalg.eigh(a)
        return
    for expected in (NotImplementedError, RuntimeError):
        with pytest.raises(expected, match="Low precision dtypes not supported. Got Half"):
            getattr(mt.linalg, name)(a)


@pytest.mark.parametrize("order", ["fro", 1, -1, float("inf"), -float("inf")])
def test_float16_matrix_norms_without_factorisation_as_torch(order, device, torch_ref):
    values = [[3.0, -1.5], [0.25, 2.0]]
    ours = mt.linalg.matrix_norm(mt.tensor(values, dtype=mt.float16, device=device), ord=order)
    ref = torch_ref.linalg.matrix_norm(torch_ref.tensor(values, dtype=torch_ref.float16),
                                       ord=order)
    assert ours.dtype is mt.float16
    assert ours.item() == ref.item()
    for svd_order in (2, "nuc"):
        with pytest.raises(RuntimeError, match="Low precision"):
            mt.linalg.matrix_norm(mt.tensor(values, dtype=mt.float16, device=device),
                                  ord=svd_order)


@pytest.mark.parametrize("call", [lambda lib, x: -x, lambda lib, x: lib.neg(x),
                                  lambda lib, x: lib.abs(x), lambda lib, x: x.abs_(),
                                  lambda lib, x: lib.relu(x),
                                  lambda lib, x: lib.nn.functional.relu(x)])
def test_unary_ops_without_bool_kernels_refuse_bool_as_torch(call, any_device, torch_ref):
    with pytest.raises((RuntimeError, NotImplementedError)) as theirs:
        call(torch_ref, torch_ref.tensor([True, False]))
    with pytest.raises(type(theirs.value)):
        call(mt, mt.tensor([True, False], device=any_device))

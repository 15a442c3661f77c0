"""Regressions found by fuzzing every shared function and Tensor method over the twelve
dtypes (one tensor, two tensors, a tensor and a Python number) against PyTorch: one test per
root cause, compared with the ``torch_ref`` fixture."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt

Z = [[-1.5 + 0.5j, 0.5 - 1j, 2.0], [0.25j, 3.25 + 1j, -0.75 - 0.25j]]


def _pair(torch_ref, data, dtype, device="cpu", requires_grad=False):
    """The same data as a PyTorch tensor and a minitorch_meta one of ``dtype`` (a name)."""
    t = torch_ref.tensor(data, dtype=getattr(torch_ref, dtype), requires_grad=requires_grad)
    m = mt.tensor(data, dtype=getattr(mt, dtype), device=device, requires_grad=requires_grad)
    return t, m


def _same(m, t, rtol=1e-6, atol=1e-7):
    assert str(m.dtype) == str(t.dtype)
    assert tuple(m.shape) == tuple(t.shape)
    if t.dtype == t.new_zeros(0).bfloat16().dtype:  # NumPy has no bfloat16
        m, t = m.float(), t.float()
    np.testing.assert_allclose(m.detach().cpu().numpy(), t.detach().numpy(), rtol=rtol,
                               atol=atol)


# -- a complex value converted to bool is "nonzero" (it was the real part's truth) ----------
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("how", ["bool", "to", "copy_", "type_as", "new_tensor"])
def test_complex_to_bool_tests_both_parts(torch_ref, device, dtype, how):
    """``tensor(0.25j).bool()`` is True, as PyTorch's, without the complex-to-real warning."""
    t, m = _pair(torch_ref, Z, dtype, device)

    def convert(lib, x):
        if how == "bool":
            return x.bool()
        if how == "to":
            return x.to(lib.bool)
        if how == "copy_":
            return lib.zeros(2, 3, dtype=lib.bool, device=x.device).copy_(x)
        if how == "type_as":
            return x.type_as(lib.zeros(1, dtype=lib.bool, device=x.device))
        return lib.zeros(1, dtype=lib.bool, device=x.device).new_tensor(x.detach())

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="To copy construct")
        warnings.filterwarnings("error", message="Casting complex values")
        expected, got = convert(torch_ref, t), convert(mt, m)
    _same(got, expected)
    assert got[1, 0].item() is True


def test_complex_to_real_still_keeps_the_real_part_and_warns(torch_ref):
    t, m = _pair(torch_ref, Z, "complex64")
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        got = m.to(mt.int32)
    _same(got, t.real.to(torch_ref.int32))


# -- float_power of a complex operand is complex128 (it cast to float64: the real part) ----
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("exponent", [2, 1.5 - 0.5j, 0.5])
def test_float_power_of_a_complex_tensor_is_complex128(torch_ref, dtype, exponent):
    t, m = _pair(torch_ref, Z, dtype)
    _same(mt.float_power(m, exponent), torch_ref.float_power(t, exponent), rtol=1e-12)
    _same(m.float_power(exponent), t.float_power(exponent), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_float_power_of_a_real_tensor_to_a_complex_number_is_complex128(torch_ref, dtype):
    t, m = _pair(torch_ref, [[1.5, 2.0, 0.0]], dtype)
    _same(mt.float_power(m, 2 + 1j), torch_ref.float_power(t, 2 + 1j), rtol=1e-12)


# -- ldexp with a complex operand (a complex exponent was cast to float32) ------------------
@pytest.mark.parametrize("input_dtype,other_dtype", [
    ("complex64", "complex64"), ("complex128", "complex64"), ("int16", "complex128"),
    ("float32", "complex64"), ("float64", "complex64"), ("complex64", "int32"),
    ("complex64", "bfloat16"), ("complex64", "float64"), ("bool", "complex64"),
])
def test_ldexp_with_complex_operands(torch_ref, input_dtype, other_dtype):
    t, m = _pair(torch_ref, [[1.5, -2.0, 3.0]], input_dtype)
    other = [[1.25, 2.0, -1.0]] if "complex" not in other_dtype else [[1.25 + 0.5j, 2, -1j]]
    to, mo = _pair(torch_ref, other, other_dtype)
    _same(mt.ldexp(m, mo), torch_ref.ldexp(t, to), rtol=1e-5)


def test_ldexp_gradient_through_a_complex_exponent(torch_ref):
    t, m = _pair(torch_ref, [1.5 + 1j, -2.0], "complex128", requires_grad=True)
    to, mo = _pair(torch_ref, [0.5 - 1j, 2.0], "complex128", requires_grad=True)
    torch_ref.ldexp(t, to).abs().sum().backward()
    mt.ldexp(m, mo).abs().sum().backward()
    _same(m.grad, t.grad, rtol=1e-10)
    _same(mo.grad, to.grad, rtol=1e-10)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_ldexp_refuses_a_bool_exponent_beside_a_float_input(torch_ref, dtype):
    """PyTorch's CPU kernel has no (float, bool) case; ours multiplied."""
    for lib in (torch_ref, mt):
        x = lib.tensor([1.5, 2.0], dtype=getattr(lib, dtype))
        with pytest.raises(NotImplementedError):
            lib.ldexp(x, lib.tensor([True, False]))


def test_ldexp_in_place_refuses_a_complex_result_in_a_real_tensor(torch_ref):
    for lib in (torch_ref, mt):
        with pytest.raises(RuntimeError):
            lib.tensor([1.5, 2.0]).ldexp_(lib.tensor([1j, 2], dtype=lib.complex64))


# -- adjoint / mH / H conjugate a complex tensor (they only transposed) ---------------------
@pytest.mark.parametrize("how", ["adjoint", "torch.adjoint", "mH", "H"])
def test_adjoint_conjugates(torch_ref, how):
    t, m = _pair(torch_ref, Z, "complex64")

    def apply(lib, x):
        return {"adjoint": lambda: x.adjoint(), "torch.adjoint": lambda: lib.adjoint(x),
                "mH": lambda: x.mH, "H": lambda: x.H}[how]()

    _same(apply(mt, m), apply(torch_ref, t).resolve_conj())


def test_h_of_a_0d_complex_tensor_conjugates(torch_ref):
    t, m = _pair(torch_ref, 1 + 2j, "complex64")
    with pytest.warns(UserWarning, match="deprecated on 0-D"):
        got = m.H
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = t.H.resolve_conj()
    _same(got, expected)


def test_adjoint_of_a_real_tensor_is_still_a_view():
    x = mt.tensor([[1.0, 2.0]])
    x.adjoint()[0, 0] = 5.0
    assert x[0, 0].item() == 5.0


# -- cov of complex variables is Hermitian (it took the plain transpose) --------------------
@pytest.mark.parametrize("weights", [None, "fweights", "aweights"])
def test_cov_of_complex_variables(torch_ref, weights):
    t, m = _pair(torch_ref, Z, "complex128")
    kwargs_t, kwargs_m = {}, {}
    if weights == "fweights":
        kwargs_t[weights], kwargs_m[weights] = torch_ref.tensor([1, 2, 1]), mt.tensor([1, 2, 1])
    elif weights == "aweights":
        kwargs_t[weights] = torch_ref.tensor([0.5, 2.0, 1.0], dtype=torch_ref.float64)
        kwargs_m[weights] = mt.tensor([0.5, 2.0, 1.0], dtype=mt.float64)
    _same(mt.cov(m, **kwargs_m), torch_ref.cov(t, **kwargs_t), rtol=1e-12, atol=1e-12)


# -- a Python number filling a complex tensor is not truncated to an integer ----------------
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("value", [2.5, -0.75, 1 - 2j])
def test_fill_and_fill_diagonal_of_a_complex_tensor(torch_ref, dtype, value):
    t, m = _pair(torch_ref, Z, dtype)
    _same(mt.fill(m, value), torch_ref.fill(t, value))
    _same(m.clone().fill_diagonal_(value), t.clone().fill_diagonal_(value))
    _same(m.clone().fill_(value), t.clone().fill_(value))


# -- a complex Python number filling a real tensor: kept with a zero imaginary part, refused
# -- (RuntimeError) with another, by truth in bool (a TypeError, or silently the real part)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int8", "uint8", "bool"])
@pytest.mark.parametrize("value", [1 + 0j, 2 - 1j])
@pytest.mark.parametrize("how", ["fill_", "fill", "full_like", "full", "fill_diagonal_",
                                 "masked_fill", "scatter"])
def test_complex_fill_value_into_a_real_tensor(torch_ref, dtype, value, how):
    def apply(lib):
        x = lib.zeros(2, 2, dtype=getattr(lib, dtype))
        if how == "fill_":
            return x.fill_(value)
        if how == "fill":
            return lib.fill(x, value)
        if how == "full_like":
            return lib.full_like(x, value)
        if how == "full":
            return lib.full((2, 2), value, dtype=x.dtype)
        if how == "fill_diagonal_":
            return x.fill_diagonal_(value)
        if how == "masked_fill":
            return x.masked_fill(lib.tensor([[True, False], [False, True]]), value)
        return x.scatter(0, lib.tensor([[1, 0]]), value=value)

    try:
        expected = apply(torch_ref)
    except RuntimeError:
        with pytest.raises(RuntimeError, match="cannot be converted"):
            apply(mt)
        return
    got = apply(mt)
    assert str(got.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(got.float().numpy(), expected.float().numpy())


@pytest.mark.parametrize("dtype", ["float32", "bool"])
def test_index_fill_refuses_any_complex_value_in_a_real_tensor(torch_ref, dtype):
    for lib in (torch_ref, mt):
        with pytest.raises(RuntimeError, match="Converting complex Scalar to non-complex"):
            lib.zeros(2, 2, dtype=getattr(lib, dtype)).index_fill(0, lib.tensor([1]), 1 + 0j)


# -- dist of complex tensors is the norm of the moduli (it refused complex) -----------------
@pytest.mark.parametrize("p", [2, 1, 0, 3, float("inf")])
def test_dist_of_complex_tensors(torch_ref, p):
    t, m = _pair(torch_ref, Z, "complex128", requires_grad=True)
    to, mo = _pair(torch_ref, [[0.5j, 1.0, -1.0], [2.0, 0.0, 1j]], "complex128")
    expected, got = torch_ref.dist(t, to, p), mt.dist(m, mo, p)
    _same(got, expected, rtol=1e-12)
    if p != 0:
        expected.backward()
        got.backward()
        _same(m.grad, t.grad, rtol=1e-10)


def test_dist_of_complex64_is_float32(torch_ref):
    t, m = _pair(torch_ref, Z, "complex64")
    _same(mt.dist(m, m * 2), torch_ref.dist(t, t * 2), rtol=1e-6)


# -- var / std / var_mean / std_mean of a complex tensor: a real spread (they refused) ------
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("op", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("dim,correction", [(None, 1), (1, 0), (0, 1)])
def test_spread_of_a_complex_tensor(torch_ref, dtype, op, dim, correction):
    t, m = _pair(torch_ref, Z, dtype)
    expected = getattr(torch_ref, op)(t, dim, correction=correction)
    got = getattr(mt, op)(m, dim, correction=correction)
    for g, e in zip(got, expected) if op.endswith("mean") else [(got, expected)]:
        _same(g, e, rtol=1e-5)


def test_var_gradient_of_a_complex_tensor(torch_ref):
    t, m = _pair(torch_ref, Z, "complex128", requires_grad=True)
    (torch_ref.var(t) + t.std(1).sum()).backward()
    (mt.var(m) + m.std(1).sum()).backward()
    _same(m.grad, t.grad, rtol=1e-10)


def test_var_of_an_integer_tensor_still_refuses(torch_ref):
    with pytest.raises(RuntimeError, match="floating point and complex dtypes"):
        mt.var(mt.tensor([1, 2, 3]))


# -- hinge_embedding_loss of an integer input keeps its dtype (it promoted to float32) -----
@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8"])
@pytest.mark.parametrize("margin", [1.0, 1.5, 2, -1.5])
@pytest.mark.parametrize("reduction", ["sum", "none", "mean"])
def test_hinge_embedding_loss_of_an_integer_input(torch_ref, dtype, margin, reduction):
    data, target = [[-2, 1, 3], [0, 5, -7]], [[1, -1, 1], [-1, 1, -1]]

    def loss(lib):
        x = lib.tensor(data).to(getattr(lib, dtype))
        return lib.nn.functional.hinge_embedding_loss(x, lib.tensor(target), margin=margin,
                                                      reduction=reduction)

    try:
        expected = loss(torch_ref)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            loss(mt)
        return
    _same(loss(mt), expected)


# -- LAPACK ops refuse bfloat16 as they refuse float16 (they factored it) -------------------
_BF16_REFUSED = {
    "linalg.qr": lambda lib, x: lib.linalg.qr(x), "linalg.svd": lambda lib, x: lib.linalg.svd(x),
    "linalg.det": lambda lib, x: lib.linalg.det(x), "linalg.inv": lambda lib, x: lib.linalg.inv(x),
    "linalg.eigh": lambda lib, x: lib.linalg.eigh(x),
    "linalg.eig": lambda lib, x: lib.linalg.eig(x),
    "linalg.eigvals": lambda lib, x: lib.linalg.eigvals(x),
    "linalg.cholesky": lambda lib, x: lib.linalg.cholesky(x),
    "linalg.solve": lambda lib, x: lib.linalg.solve(x, x),
    "linalg.slogdet": lambda lib, x: lib.linalg.slogdet(x),
    "linalg.svdvals": lambda lib, x: lib.linalg.svdvals(x),
    "linalg.matrix_norm(nuc)": lambda lib, x: lib.linalg.matrix_norm(x, "nuc"),
    "linalg.lstsq": lambda lib, x: lib.linalg.lstsq(x, x),
    "qr": lambda lib, x: lib.qr(x), "svd": lambda lib, x: lib.svd(x),
    "logdet": lambda lib, x: lib.logdet(x),
}


@pytest.mark.parametrize("op", sorted(_BF16_REFUSED))
def test_lapack_ops_refuse_bfloat16(torch_ref, op):
    for lib, expected in ((torch_ref, RuntimeError), (mt, NotImplementedError)):
        x = lib.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=lib.bfloat16)
        with pytest.raises(RuntimeError) as caught, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.qr's and torch.svd's deprecation
            _BF16_REFUSED[op](lib, x)  # PyTorch: NotImplementedError or RuntimeError
        assert isinstance(caught.value, expected)
    assert "BFloat16" in str(caught.value)


def test_bfloat16_ops_without_factorisation_still_work(torch_ref):
    t, m = _pair(torch_ref, [[2.0, 1.0], [1.0, 3.0]], "bfloat16")
    _same(mt.linalg.matrix_norm(m), torch_ref.linalg.matrix_norm(t), rtol=1e-2)
    _same(mt.linalg.matrix_power(m, 2), torch_ref.linalg.matrix_power(t, 2), rtol=1e-2)


# -- dtype checks PyTorch makes that were missing (each op computed something) --------------
def _both_raise(torch_ref, make, error, match=None):
    """``make(lib)`` raises ``error`` in PyTorch and here (ours with ``match`` in the
    message, if given)."""
    with pytest.raises(error):
        make(torch_ref)
    with pytest.raises(error, match=match):
        make(mt)


@pytest.mark.parametrize("how", ["y", "x", "x and y", "dx", "cumulative y", "cumulative x"])
def test_trapezoid_refuses_bool_inputs(torch_ref, how):
    def make(lib):
        b, f = lib.tensor([True, False, True]), lib.tensor([0.0, 1.0, 3.0])
        return {"y": lambda: lib.trapezoid(b), "x": lambda: lib.trapezoid(f, b),
                "x and y": lambda: lib.trapz(b, b), "dx": lambda: lib.trapezoid(b, dx=2.0),
                "cumulative y": lambda: lib.cumulative_trapezoid(b),
                "cumulative x": lambda: lib.cumulative_trapezoid(f, b)}[how]()

    _both_raise(torch_ref, make, RuntimeError, "received a bool input")


def test_trapezoid_of_integers_still_works(torch_ref):
    t, m = _pair(torch_ref, [[1, 2, 4]], "int64")
    _same(mt.trapezoid(m), torch_ref.trapezoid(t))
    _same(mt.cumulative_trapezoid(m, m), torch_ref.cumulative_trapezoid(t, t))


@pytest.mark.parametrize("how", ["abs_", "absolute_", "torch.abs_"])
def test_in_place_abs_refuses_complex(torch_ref, how):
    def make(lib):
        z = lib.tensor([1 + 1j, -2j])
        return {"abs_": z.abs_, "absolute_": z.absolute_,
                "torch.abs_": lambda: lib.abs_(z)}[how]()

    _both_raise(torch_ref, make, RuntimeError, "In-place abs is not supported for complex")


@pytest.mark.parametrize("op", ["complex", "polar"])
@pytest.mark.parametrize("dtypes_", [("bfloat16", "bfloat16"), ("bfloat16", "float32"),
                                     ("float32", "bfloat16")])
def test_complex_and_polar_refuse_bfloat16(torch_ref, op, dtypes_):
    def make(lib):
        a, b = (lib.tensor([1.0, 2.0], dtype=getattr(lib, d)) for d in dtypes_)
        return getattr(lib, op)(a, b)

    _both_raise(torch_ref, make, RuntimeError, "Half, Float or Double")


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64"])
@pytest.mark.parametrize("how", ["F.max_pool1d", "torch.max_pool1d", "MaxPool1d"])
def test_max_pool1d_without_indices_is_floating_point_only(torch_ref, dtype, how):
    def make(lib):
        x = lib.ones(1, 2, 4, dtype=getattr(lib, dtype))
        return {"F.max_pool1d": lambda: lib.nn.functional.max_pool1d(x, 2),
                "torch.max_pool1d": lambda: lib.max_pool1d(x, 2),
                "MaxPool1d": lambda: lib.nn.MaxPool1d(2)(x)}[how]()

    _both_raise(torch_ref, make, NotImplementedError, "not implemented for")


@pytest.mark.parametrize("how", ["max_pool1d indices", "max_pool2d", "max_pool2d indices",
                                 "MaxPool2d unbatched"])
def test_max_pool_refuses_bool(torch_ref, how):
    def make(lib):
        F = lib.nn.functional
        x1, x2 = lib.ones(1, 2, 4, dtype=lib.bool), lib.ones(1, 2, 4, 4, dtype=lib.bool)
        return {"max_pool1d indices": lambda: F.max_pool1d(x1, 2, return_indices=True),
                "max_pool2d": lambda: F.max_pool2d(x2, 2),
                "max_pool2d indices": lambda: F.max_pool2d(x2, 2, return_indices=True),
                "MaxPool2d unbatched": lambda: lib.nn.MaxPool2d(2)(x2[0])}[how]()

    _both_raise(torch_ref, make, NotImplementedError, "not implemented for 'Bool'")


@pytest.mark.parametrize("dtype", ["uint8", "int64"])
def test_max_pool_of_integers_with_indices_still_works(torch_ref, dtype):
    t, m = _pair(torch_ref, [[[3, 1, 4, 1, 5, 9]]], dtype)
    for got, expected in zip(mt.nn.functional.max_pool1d(m, 2, return_indices=True),
                             torch_ref.nn.functional.max_pool1d(t, 2, return_indices=True)):
        _same(got, expected)
    _same(mt.nn.functional.max_pool2d(m, (1, 2)), torch_ref.nn.functional.max_pool2d(t, (1, 2)))


# -- argument types PyTorch's parser refuses (a bool or float dim, an int flag) -------------
@pytest.mark.parametrize("dim", [True, False, 1.0, 2.5])
@pytest.mark.parametrize("how", ["unsqueeze", "Tensor.unsqueeze", "unsqueeze_", "unsqueeze_copy",
                                 "softmax", "cumsum"])
def test_a_dim_must_be_an_int(torch_ref, dim, how):
    def make(lib):
        x = lib.ones(2, 3)
        return {"unsqueeze": lambda: lib.unsqueeze(x, dim),
                "Tensor.unsqueeze": lambda: x.unsqueeze(dim),
                "unsqueeze_": lambda: x.unsqueeze_(dim),
                "unsqueeze_copy": lambda: lib.unsqueeze_copy(x, dim),
                "softmax": lambda: lib.softmax(x, dim),
                "cumsum": lambda: lib.cumsum(x, dim)}[how]()

    _both_raise(torch_ref, make, TypeError, "must be int")


def test_a_dim_may_be_a_numpy_integer_or_a_0d_tensor(torch_ref):
    t, m = _pair(torch_ref, [[1.0, 2.0]], "float32")
    _same(m.unsqueeze(np.int64(1)), t.unsqueeze(np.int64(1)))
    _same(m.unsqueeze(mt.tensor(-1)), t.unsqueeze(torch_ref.tensor(-1)))


@pytest.mark.parametrize("how", ["unique sorted", "unique return_inverse", "unique positional",
                                 "Tensor.unique return_counts", "unique_consecutive inverse",
                                 "unique_consecutive counts", "qr some", "Tensor.qr some",
                                 "svd some", "svd compute_uv", "Tensor.svd some", "lu pivot",
                                 "Tensor.lu pivot", "unique sorted None"])
def test_bool_flags_refuse_ints(torch_ref, how):
    def make(lib):
        x = lib.tensor([[2.0, 1.0], [1.0, 3.0]])
        calls = {
            "unique sorted": lambda: lib.unique(x, sorted=2),
            "unique return_inverse": lambda: lib.unique(x, return_inverse=1),
            "unique positional": lambda: lib.unique(x, True, 1),
            "Tensor.unique return_counts": lambda: x.unique(return_counts=1),
            "unique_consecutive inverse": lambda: lib.unique_consecutive(x, 1),
            "unique_consecutive counts": lambda: lib.unique_consecutive(x, return_counts=0),
            "qr some": lambda: lib.qr(x, 1), "Tensor.qr some": lambda: x.qr(0),
            "svd some": lambda: lib.svd(x, 1), "svd compute_uv": lambda: lib.svd(x, True, 0),
            "Tensor.svd some": lambda: x.svd(1), "lu pivot": lambda: lib.lu(x, 1),
            "Tensor.lu pivot": lambda: x.lu(1), "unique sorted None": lambda: x.unique(None),
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.qr's, torch.svd's and torch.lu's deprecation
            return calls[how]()

    _both_raise(torch_ref, make, TypeError, "must be bool, not")


def test_bool_flags_still_take_bools(torch_ref):
    t, m = _pair(torch_ref, [3.0, 1.0, 3.0, 2.0], "float32")
    for got, expected in zip(mt.unique(m, False, True, True), torch_ref.unique(t, False, True,
                                                                               True)):
        _same(got, expected)
    for got, expected in zip(mt.unique_consecutive(m, True, True),
                             torch_ref.unique_consecutive(t, True, True)):
        _same(got, expected)


def test_tensor_flip_needs_dims(torch_ref):
    _both_raise(torch_ref, lambda lib: lib.ones(2, 3).flip(), TypeError, "missing 1 required")
    t, m = _pair(torch_ref, [[1.0, 2.0]], "float32")
    _same(m.flip(()), t.flip(()))
    _same(m.flip(dims=[1]), t.flip(dims=[1]))


# -- a complex number where a real hyper-parameter belongs: PyTorch's RuntimeError or
# -- NotImplementedError (it was only a TypeError here)
@pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32"])
@pytest.mark.parametrize("how", ["clamp", "clamp_max", "clamp_min_", "clip", "celu",
                                 "hardshrink", "softplus", "threshold", "leaky_relu", "elu"])
def test_a_complex_hyper_parameter_is_pytorchs_error(torch_ref, dtype, how):
    def make(lib):
        F, x = lib.nn.functional, lib.ones(2, dtype=getattr(lib, dtype))
        return {"clamp": lambda: lib.clamp(x, 1 + 1j), "clamp_max": lambda: x.clamp_max(1 - 1j),
                "clamp_min_": lambda: x.clamp_min_(1j), "clip": lambda: x.clip(None, 2j),
                "celu": lambda: F.celu(x, 1j), "hardshrink": lambda: F.hardshrink(x, 1j),
                "softplus": lambda: F.softplus(x, 1j),
                "threshold": lambda: F.threshold(x, 1j, 2.0),
                "leaky_relu": lambda: F.leaky_relu(x, 1j), "elu": lambda: F.elu(x, 1j)}[how]()

    with pytest.raises(RuntimeError) as caught:
        make(torch_ref)
    with pytest.raises(type(caught.value)):  # NotImplementedError or RuntimeError, as PyTorch
        make(mt)
    with pytest.raises(TypeError, match="complex"):  # and still the TypeError it was
        make(mt)


# -- losses refusing an integer input: PyTorch's NotImplementedError/RuntimeError (it was
# -- only a TypeError here)
@pytest.mark.parametrize("dtype", ["int64", "bool", "uint8"])
@pytest.mark.parametrize("how", ["binary_cross_entropy_with_logits", "binary_cross_entropy",
                                 "kl_div", "mse_loss", "smooth_l1_loss", "huber_loss",
                                 "soft_margin_loss", "multilabel_soft_margin_loss"])
def test_losses_refuse_integer_inputs_with_pytorchs_error(torch_ref, dtype, how):
    def make(lib):
        x = lib.tensor([[1, 0, 1]]).to(getattr(lib, dtype))
        return getattr(lib.nn.functional, how)(x, x, reduction="sum")

    with pytest.raises(RuntimeError) as caught:
        make(torch_ref)
    with pytest.raises(type(caught.value)):
        make(mt)


# -- clamp of a bool tensor: one bool tensor bound is a logical or/and (it refused); both
# -- bounds, or a number bound, are PyTorch's NotImplementedError
@pytest.mark.parametrize("how", ["min", "max", "clamp_min", "clamp_max", "clamp_", "0-d min"])
def test_clamp_of_bool_tensors_with_one_tensor_bound(torch_ref, how):
    def make(lib):
        b, c = lib.tensor([True, False, True, False]), lib.tensor([True, True, False, False])
        return {"min": lambda: lib.clamp(b, c), "max": lambda: lib.clamp(b, None, c),
                "clamp_min": lambda: b.clamp_min(c), "clamp_max": lambda: b.clamp_max(c),
                "clamp_": lambda: b.clone().clamp_(None, c),
                "0-d min": lambda: lib.clamp(b, lib.tensor(True))}[how]()

    _same(make(mt), make(torch_ref))


@pytest.mark.parametrize("how", ["both tensor bounds", "number min", "number max"])
def test_clamp_of_bool_tensors_refused_as_pytorch(torch_ref, how):
    def make(lib):
        b = lib.tensor([True, False])
        return {"both tensor bounds": lambda: lib.clamp(b, b, b),
                "number min": lambda: lib.clamp(b, True),
                "number max": lambda: b.clamp_max(False)}[how]()

    _both_raise(torch_ref, make, NotImplementedError, "cannot be clamped")

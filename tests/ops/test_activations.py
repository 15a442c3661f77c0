"""erf, gelu (exact and tanh) and silu: values and gradients against PyTorch, gradcheck,
meta shapes, dtypes, extremes, errors, and the layers GELU and SiLU."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from minitorch_meta import nn
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4, 5)
CASES = [
    Case("erf_method", lambda T, F, a: a.erf(), [Arg(S)]),
    Case("erf_function_wide", lambda T, F, a: T.erf(a * 3), [Arg(S)]),
    Case("erf_0d", lambda T, F, a: T.erf(a), [Arg(())]),
    Case("erf_empty", lambda T, F, a: a.erf(), [Arg((2, 0, 3))]),
    Case("erf_int_input", lambda T, F, i: T.erf(i), [Arg(S, "int:5")]),
    Case("gelu", lambda T, F, a: F.gelu(a), [Arg(S)]),
    Case("gelu_wide", lambda T, F, a: F.gelu(a * 4, approximate="none"), [Arg(S)]),
    Case("gelu_tanh", lambda T, F, a: F.gelu(a, approximate="tanh"), [Arg(S)]),
    Case("gelu_tanh_wide", lambda T, F, a: F.gelu(a * 4, approximate="tanh"), [Arg(S)]),
    Case("gelu_0d", lambda T, F, a: F.gelu(a), [Arg(())]),
    Case("gelu_layer", lambda T, F, a: T.nn.GELU()(a), [Arg((2, 7))]),
    Case("gelu_layer_tanh", lambda T, F, a: T.nn.GELU("tanh")(a), [Arg((2, 7))]),
    Case("silu", lambda T, F, a: F.silu(a), [Arg(S)]),
    Case("silu_wide", lambda T, F, a: F.silu(a * 6), [Arg(S)]),
    Case("silu_empty", lambda T, F, a: F.silu(a), [Arg((0, 4))]),
    Case("silu_layer", lambda T, F, a: T.nn.SiLU()(a), [Arg((2, 7))]),
    Case("silu_then_gelu_mean", lambda T, F, a: F.gelu(F.silu(a)).mean(), [Arg(S)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


EXTREMES = [-1e4, -40.0, -10.0, -3.0, -1e-8, -0.0, 0.0, 1e-8, 0.5, 3.0, 10.0, 40.0, 1e4]


@pytest.mark.parametrize("name, call", [
    ("erf", lambda T, F, x: T.erf(x)),
    ("gelu", lambda T, F, x: F.gelu(x)),
    ("gelu_tanh", lambda T, F, x: F.gelu(x, approximate="tanh")),
    ("silu", lambda T, F, x: F.silu(x)),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_extreme_values_and_gradients_match_torch(name, call, dtype, device):
    torch = _torch()
    data = np.array(EXTREMES, dtype=dtype)
    x = mt.tensor(data, device=device, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    out, ref = call(mt, mF, x), call(torch, torch.nn.functional, tx)
    assert out.dtype is x.dtype
    # gelu's 1 + erf(x / sqrt 2) cancels for negative x in PyTorch's formula as in ours: an
    # absolute error of about one unit of 1 in the dtype
    rtol, atol = (1e-6, 1e-6) if dtype == "float32" else (1e-14, 1e-15)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=rtol,
                               atol=atol)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=rtol * 10,
                               atol=atol)
    assert np.isfinite(x.grad.cpu().numpy()).all()


def test_nan_propagates_through_values_and_gradients(device):
    x = mt.tensor([float("nan"), 1.0], device=device, requires_grad=True)
    for f in (mt.erf, mF.gelu, mF.silu, lambda t: mF.gelu(t, approximate="tanh")):
        x.grad = None
        out = f(x)
        out.sum().backward()
        assert np.isnan(out[0].item()) and np.isnan(x.grad[0].item())
        assert not np.isnan(out[1].item())


@pytest.mark.parametrize("dtype", [mt.int64, mt.int32, mt.uint8, mt.bool])
def test_erf_of_integers_and_bools_is_float32_like_torch(dtype):
    torch = _torch()
    x = mt.tensor([0, 1, 2, 1], dtype=dtype)
    ref = torch.erf(torch.tensor([0, 1, 2, 1], dtype=getattr(torch, str(dtype)[6:])))
    out = mt.erf(x)
    assert out.dtype is mt.float32 and str(ref.dtype) == "torch.float32"
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-7)
    assert x.erf().tolist() == out.tolist()


def test_float64_erf_is_float64_precise():
    import math

    data = np.linspace(-6.5, 6.5, 10_001)
    out = mt.erf(mt.tensor(data)).numpy()
    reference = np.array([math.erf(v) for v in data])
    assert (np.abs(out - reference) <= 2 * np.spacing(np.abs(reference))).all()


def test_grad_fn_names_and_saved_input_checked():
    x = mt.randn(3, requires_grad=True)
    assert mt.erf(x).grad_fn.name() == "ErfBackward0"
    assert mF.gelu(x, approximate="tanh").grad_fn.name() == "GeluBackward0"
    assert mF.silu(x).grad_fn.name() == "SiluBackward0"
    base = mt.randn(3)
    y = mF.gelu(base * x)
    z = base * x
    out = mF.silu(z)
    with mt.no_grad():
        z.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    y.sum().backward()  # untouched input: fine


def test_no_graph_without_grad():
    x = mt.randn(4, requires_grad=True)
    with mt.no_grad():
        assert mF.gelu(x).grad_fn is None and mF.silu(x).grad_fn is None
        assert mt.erf(x).grad_fn is None


def test_layers_repr_like_torch():
    assert repr(nn.GELU()) == "GELU(approximate='none')"
    assert repr(nn.GELU(approximate="tanh")) == "GELU(approximate='tanh')"
    assert repr(nn.SiLU()) == "SiLU()" and repr(nn.SiLU(inplace=True)) == "SiLU(inplace=True)"
    assert mF.silu(mt.ones(2), inplace=True).tolist() == mF.silu(mt.ones(2)).tolist()


def test_gelu_layer_checks_approximate_when_called_as_torch():
    layer = nn.GELU(approximate="sigmoid")  # accepted at construction, as in PyTorch
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        layer(mt.ones(2))


def test_huge_meta_tensors_allocate_nothing():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    mF.gelu(x)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        out = mF.silu(mF.gelu(x, approximate="tanh") + mF.gelu(x)) * mt.erf(x)
        out.sum().backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.shape == x.shape and x.grad.is_meta and x.grad.shape == x.shape
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"
    assert mt.erf(mt.empty(3, dtype=mt.int64, device="meta")).dtype is mt.float32


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mF.gelu(x.long()), NotImplementedError,
     "\"GeluKernelImpl\" not implemented for 'torch.int64': gelu takes floating-point "
     "tensors; convert the input first, e.g. with .float()"),
    (lambda x: mF.silu(x.int()), NotImplementedError,
     "\"silu_cpu\" not implemented for 'torch.int32': silu takes floating-point tensors; "
     "convert the input first, e.g. with .float()"),
    (lambda x: mF.gelu(x, approximate="exact"), RuntimeError,
     "approximate argument must be either none or tanh. (got approximate='exact')"),
    (lambda x: mF.gelu(x, approximate=None), TypeError,
     "gelu(): argument 'approximate' must be str, not NoneType"),
    (lambda x: nn.GELU(approximate=True)(x), TypeError,
     "gelu(): argument 'approximate' must be str, not bool"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


def test_gelu_takes_approximate_by_keyword_only_as_torch():
    with pytest.raises(TypeError):
        mF.gelu(mt.ones(2), "tanh")

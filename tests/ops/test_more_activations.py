"""softplus, elu, selu, relu6, hardtanh, hardsigmoid, hardswish, logsigmoid, mish, softsign:
the three-way checks, then what finite differences cannot see (values and gradients at 0,
at the kinks and thresholds, at large |x|, inf and NaN, against PyTorch), dtypes,
``inplace`` and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4)
CASES = [
    Case("softplus", lambda T, F, a: F.softplus(a), [Arg(S)]),
    Case("softplus_beta_threshold", lambda T, F, a: F.softplus(a * 5, beta=2, threshold=4),
         [Arg((2, 3, 4))]),
    Case("softplus_negative_beta", lambda T, F, a: F.softplus(a, -0.5, 1), [Arg(S)]),
    Case("elu", lambda T, F, a: F.elu(a), [Arg(S)]),
    Case("elu_alpha", lambda T, F, a: F.elu(a, 0.3), [Arg((2, 3, 2, 2))]),
    Case("elu_negative_alpha", lambda T, F, a: F.elu(a, alpha=-2.0), [Arg(S)]),
    Case("selu", lambda T, F, a: F.selu(a), [Arg(S)]),
    Case("selu_torch", lambda T, F, a: T.selu(a), [Arg(S)]),
    Case("relu6", lambda T, F, a: F.relu6(a * 4), [Arg((4, 5), "away0")]),
    Case("hardtanh", lambda T, F, a: F.hardtanh(a * 2), [Arg(S, "away0")]),
    Case("hardtanh_bounds", lambda T, F, a: F.hardtanh(a, -0.5, max_val=0.7), [Arg(S, "away0")]),
    Case("hardsigmoid", lambda T, F, a: F.hardsigmoid(a * 3), [Arg((4, 5))]),
    Case("hardswish", lambda T, F, a: F.hardswish(a * 3), [Arg((4, 5))]),
    Case("logsigmoid", lambda T, F, a: F.logsigmoid(a * 4), [Arg(S)]),
    Case("mish", lambda T, F, a: F.mish(a * 3), [Arg(S)]),
    Case("softsign", lambda T, F, a: F.softsign(a * 3), [Arg(S)]),
    Case("activations_0d", lambda T, F, a: F.mish(a) + F.softplus(a) + F.elu(a), [Arg(())]),
    Case("activations_empty", lambda T, F, a: F.logsigmoid(F.hardswish(a)), [Arg((0, 3))]),
    Case("modules", lambda T, F, a: T.nn.Sequential(
        T.nn.Softplus(2.0, 5.0), T.nn.ELU(0.7), T.nn.SELU(), T.nn.Hardtanh(-0.5, 1.5),
        T.nn.ReLU6(), T.nn.Hardsigmoid(), T.nn.Hardswish(), T.nn.LogSigmoid(), T.nn.Mish(),
        T.nn.Softsign())(a), [Arg((2, 3, 4))]),
    # each on a fresh tensor: PyTorch's in-place forms write into ``a * 1``, ours return a
    # new tensor (docs/differences.md); the values and gradients are the same
    Case("modules_inplace", lambda T, F, a: sum(layer(a * 1) for layer in (
        T.nn.ELU(inplace=True), T.nn.SELU(True), T.nn.Hardtanh(inplace=True),
        T.nn.ReLU6(True), T.nn.Hardsigmoid(True), T.nn.Hardswish(True), T.nn.Mish(True))),
         [Arg(S)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


# 0 (both signs), the kinks and thresholds of every function, large |x|, inf and NaN.
EDGES = [-1000.0, -100.0, -20.5, -20.0, -3.0001, -3.0, -2.9999, -1.0, -1e-8, -1e-30, -0.0,
         0.0, 1e-30, 1e-8, 1.0, 2.9999, 3.0, 3.0001, 5.0, 6.0, 9.99, 10.0, 10.01, 20.0,
         20.0001, 21.0, 89.0, 90.0, 100.0, 1000.0, float("inf"), -float("inf"), float("nan")]
EDGE_CALLS = {
    "softplus": lambda F, x: F.softplus(x),
    "softplus_beta_threshold": lambda F, x: F.softplus(x, 2, 10),
    "softplus_negative_beta": lambda F, x: F.softplus(x, -1, 10),
    "softplus_overflow_below_threshold": lambda F, x: F.softplus(x, threshold=100),
    "elu": lambda F, x: F.elu(x),
    "elu_alpha": lambda F, x: F.elu(x, 0.5),
    "elu_negative_alpha": lambda F, x: F.elu(x, -2.0),
    "selu": lambda F, x: F.selu(x),
    "relu6": lambda F, x: F.relu6(x),
    "hardtanh": lambda F, x: F.hardtanh(x),
    "hardtanh_bounds": lambda F, x: F.hardtanh(x, -3, 3.0),
    "hardtanh_zero_max": lambda F, x: F.hardtanh(x, -2.0, 0.0),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "hardswish": lambda F, x: F.hardswish(x),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
    "mish": lambda F, x: F.mish(x),
    "softsign": lambda F, x: F.softsign(x),
}


@pytest.mark.parametrize("name", list(EDGE_CALLS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_at_the_edges_equal_pytorch(name, dtype, device):
    """Exact where the formula is exact (kinks, thresholds, inf, NaN); float32 rounding (one
    subnormal step, NumPy's tanh) and softsign's cancellation at large |x| allow a little."""
    torch = _torch()
    call = EDGE_CALLS[name]
    ours = mt.tensor(EDGES, dtype=getattr(mt, dtype), device=device, requires_grad=True)
    theirs = torch.tensor(EDGES, dtype=getattr(torch, dtype), requires_grad=True)
    out, ref = call(F, ours), call(torch.nn.functional, theirs)
    assert out.dtype is ours.dtype and out.grad_fn.name() == ref.grad_fn.name()
    rtol, atol = (2e-6, 1e-40) if dtype == "float32" else (1e-12, 1e-300)
    values, expected = out.detach().cpu().numpy(), ref.detach().numpy()
    np.testing.assert_allclose(values, expected, rtol=rtol, atol=atol)
    # signs of zeros too: -0.0 where PyTorch gives -0.0
    np.testing.assert_array_equal(np.signbit(values[values == 0]),
                                  np.signbit(expected[values == 0]))
    upstream = np.arange(1, len(EDGES) + 1, dtype=getattr(np, dtype))
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch.tensor(upstream))
    assert ours.grad.dtype is ours.dtype
    grad_rtol = 2e-4 if name == "softsign" else 2e-5 if dtype == "float32" else 1e-12
    if name == "hardsigmoid" and dtype == "float64":
        grad_rtol = 1e-7  # PyTorch's kernel multiplies doubles by the float32 1/6; we by 1/6
    np.testing.assert_allclose(ours.grad.cpu().numpy(), theirs.grad.numpy(), rtol=grad_rtol,
                               atol=atol)


def test_gradients_at_the_kinks_are_pytorchs():
    x = mt.tensor([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0], requires_grad=True)
    expected = {
        F.hardtanh: [0, 0, 1, 0, 0, 0],          # strictly inside (-1, 1) only
        F.relu6: [0, 0, 0, 1, 1, 0],             # strictly inside (0, 6) only
        F.hardsigmoid: [0, 1 / 6, 1 / 6, 1 / 6, 0, 0],
        F.hardswish: [0, 1 / 6, 0.5, 5 / 6, 1, 1],
        F.elu: [np.exp(-3), np.exp(-1), 1, 1, 1, 1],   # the left branch's slope at 0
    }
    for function, grads in expected.items():
        x.grad = None
        function(x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), grads, rtol=1e-6, err_msg=str(function))
    x.grad = None
    F.elu(x, alpha=0.5).sum().backward()
    assert x.grad.tolist()[2] == 0.5


def test_large_inputs_stay_finite():
    x = mt.tensor([-1000.0, 1000.0], requires_grad=True)
    assert F.softplus(x).tolist() == [0.0, 1000.0]
    assert F.logsigmoid(x).tolist() == [-1000.0, 0.0]
    F.logsigmoid(x).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0]


def test_softplus_is_linear_strictly_above_the_threshold():
    x = mt.tensor([20.0, 20.5], dtype=mt.float64)
    assert F.softplus(x).tolist() == [np.log1p(np.exp(20.0)), 20.5]
    assert F.softplus(x, beta=2, threshold=40).tolist()[1] == np.log1p(np.exp(41.0)) / 2


def test_selu_is_scaled_elu():
    x = mt.randn(10, dtype=mt.float64)
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    np.testing.assert_allclose(F.selu(x).numpy(), scale * F.elu(x, alpha).numpy(), rtol=1e-15)
    assert mt.selu(x).tolist() == F.selu(x).tolist()


def test_float64_stays_float64_and_meta_keeps_dtype():
    for function in EDGE_CALLS.values():
        assert function(F, mt.ones(2, dtype=mt.float64)).dtype is mt.float64
        assert function(F, mt.ones(2, device="meta")).is_meta


def test_hardtanh_keeps_integer_dtypes_as_pytorch():
    torch = _torch()
    values = [-4, -1, 0, 2, 7]
    for dtype, bounds in (("int64", (-0.5, 2.5)), ("int32", (-2, 3)), ("int64", (-1.5, 2.9)),
                          ("uint8", (1, 3))):
        out = F.hardtanh(mt.tensor(values, dtype=getattr(mt, dtype)), *bounds)
        ref = torch.nn.functional.hardtanh(torch.tensor(values, dtype=getattr(torch, dtype)),
                                           *bounds)
        assert str(out.dtype) == str(ref.dtype) and out.tolist() == ref.tolist()
    assert F.relu6(mt.tensor(values)).tolist() == [0, 0, 0, 2, 6]


def test_softsign_of_integers_is_float32_as_in_pytorch():
    out = F.softsign(mt.tensor([-4, 0, 1]))
    assert out.dtype is mt.float32 and out.tolist() == [-0.800000011920929, 0.0, 0.5]


@pytest.mark.parametrize("name", ["softplus", "elu", "selu", "hardsigmoid", "hardswish",
                                  "logsigmoid", "mish"])
def test_integer_inputs_are_refused(name):
    """PyTorch has no integer kernel (NotImplementedError, as ours); ours says what to do."""
    with pytest.raises(NotImplementedError, match=r"expected a floating-point tensor, got dtype "
                                        r"torch.int64; convert it with .float\(\)"):
        getattr(F, name)(mt.tensor([1, 2]))


def test_errors_read_the_same_on_cpu_and_meta():
    check_same_error_on_cpu_and_meta(lambda x: F.hardtanh(x.bool()), RuntimeError,
                                     "Bool inputs not supported for hardtanh")
    check_same_error_on_cpu_and_meta(lambda x: F.relu6(x.bool()), RuntimeError,
                                     "Bool inputs not supported for hardtanh")
    check_same_error_on_cpu_and_meta(
        lambda x: F.hardtanh(x.to(mt.uint8)), RuntimeError,
        "cannot do hardtanh on an unsigned type with negative limits (min_val=-1.0, "
        "max_val=1.0, input dtype torch.uint8)")
    check_same_error_on_cpu_and_meta(
        lambda x: F.mish(x.int()), NotImplementedError,
        "mish: expected a floating-point tensor, got dtype torch.int32; convert it with .float()")


def test_bad_hyper_parameters():
    x = mt.ones(3)
    with pytest.raises(ValueError, match="^min_val cannot be greater than max_val$"):
        F.hardtanh(x, 2.0, 1.0)
    assert F.hardtanh(x, 1.0, 1.0).tolist() == [1.0] * 3  # equal bounds are allowed
    with pytest.raises(TypeError, match=r"softplus\(\): argument 'beta' \(position 2\) must be "
                                        r"Number, not str"):
        F.softplus(x, "2")
    # a 0-d tensor is a number, as PyTorch's argument parser reads it; one with dims is not
    assert F.softplus(x, 1, mt.tensor(3.0)).tolist() == pytest.approx([1.3132616] * 3)
    with pytest.raises(TypeError, match=r"argument 'threshold' \(position 3\) must be Number, "
                                        r"not Tensor; pass a Python number"):
        F.softplus(x, 1, mt.tensor([3.0]))
    assert F.elu(mt.tensor([-1.0]), np.float32(0.5)).tolist() == pytest.approx([-0.31606028])


def test_inplace_is_accepted_and_returns_a_new_tensor():
    x = mt.tensor([-2.0, 1.0])
    for y in (F.elu(x, inplace=True), F.selu(x, inplace=True), F.relu6(x, inplace=True),
              F.hardtanh(x, inplace=True), F.hardsigmoid(x, inplace=True),
              F.hardswish(x, inplace=True), F.mish(x, inplace=True),
              mt.nn.ELU(inplace=True)(x), mt.nn.ReLU6(True)(x), mt.nn.Mish(True)(x)):
        assert y is not x
    assert x.tolist() == [-2.0, 1.0] and x._version == 0


def test_reprs_match_pytorch():
    torch = _torch()
    pairs = [
        lambda nn: nn.Softplus(), lambda nn: nn.Softplus(2, 10), lambda nn: nn.ELU(),
        lambda nn: nn.ELU(0.5, True), lambda nn: nn.SELU(), lambda nn: nn.SELU(True),
        lambda nn: nn.ReLU6(), lambda nn: nn.ReLU6(True), lambda nn: nn.Hardtanh(),
        lambda nn: nn.Hardtanh(-2, 3, True), lambda nn: nn.Hardsigmoid(True),
        lambda nn: nn.Hardswish(True), lambda nn: nn.LogSigmoid(), lambda nn: nn.Mish(True),
        lambda nn: nn.Mish(), lambda nn: nn.Softsign(), lambda nn: nn.Softmax2d(),
    ]
    for make in pairs:
        ours, theirs = make(mt.nn), make(torch.nn)
        assert repr(ours) == repr(theirs)
        assert getattr(ours, "inplace", None) == getattr(theirs, "inplace", None)


def test_hardtanh_module_checks_its_bounds_and_renamed_keywords():
    with pytest.raises(AssertionError, match=r"max_val \(1.0\) must be greater than min_val "
                                             r"\(1.0\)"):
        mt.nn.Hardtanh(1.0, 1.0)
    with pytest.warns(FutureWarning, match="`min_value` is deprecated and renamed to `min_val`"):
        layer = mt.nn.Hardtanh(min_value=-2.0)
    assert layer.min_val == -2.0 and layer.max_val == 1.0
    layer = mt.nn.ReLU6()
    assert isinstance(layer, mt.nn.Hardtanh) and (layer.min_val, layer.max_val) == (0.0, 6.0)


def test_softmax2d_is_softmax_over_channels(device):
    torch = _torch()
    data = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    for shape in ((2, 3, 4, 5), (3, 4, 5)):
        a = data.reshape(-1)[:int(np.prod(shape))].reshape(shape)
        x, tx = mt.tensor(a, device=device, requires_grad=True), torch.tensor(a,
                                                                              requires_grad=True)
        out, ref = mt.nn.Softmax2d()(x), torch.nn.Softmax2d()(tx)
        assert out.grad_fn.name() == ref.grad_fn.name() == "SoftmaxBackward0"
        np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-6)
        weights = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        out.backward(mt.tensor(weights, device=device))
        ref.backward(torch.tensor(weights))
        np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_softmax2d_refuses_other_ranks():
    with pytest.raises(ValueError, match=r"Softmax2d: expected input to be 3D or 4D, got 2D "
                                         r"instead \(input shape \(2, 3\)\)"):
        mt.nn.Softmax2d()(mt.ones(2, 3, device="meta"))


@pytest.mark.parametrize("spelling", [
    lambda lib, x: lib.softmax(x, 1, lib.float64),
    lambda lib, x: lib.softmax(x, 1, dtype=lib.float64),
    lambda lib, x: x.softmax(1, lib.float64),
    lambda lib, x: x.softmax(1, dtype=lib.float64),
    lambda lib, x: lib.log_softmax(x, 1, dtype=lib.float64),
    lambda lib, x: x.log_softmax(1, lib.float64),
], ids=["torch.softmax positional", "torch.softmax keyword", "method positional",
        "method keyword", "torch.log_softmax", "log_softmax method"])
def test_softmax_spellings_take_dtype(spelling, device, torch_ref):
    """``dtype=`` converts the input first (PyTorch's top-level and method spellings)."""
    values = [[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]]
    ours = spelling(mt, mt.tensor(values, device=device, requires_grad=True))
    theirs = spelling(torch_ref, torch_ref.tensor(values, requires_grad=True))
    assert ours.dtype is mt.float64 and theirs.dtype == torch_ref.float64
    assert ours.grad_fn.name() == type(theirs.grad_fn).__name__
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(),
                               rtol=1e-12)

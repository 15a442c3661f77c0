"""glu, softmin, hardshrink, softshrink, tanhshrink, threshold, celu, rrelu and the in-place
forms: the three-way checks, then values and gradients at the edges in float32 and float64
against PyTorch, rrelu's random path, dtypes and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4)
CASES = [
    Case("glu", lambda T, F, a: F.glu(a), [Arg((3, 6))]),
    Case("glu_dim0", lambda T, F, a: F.glu(a, 0), [Arg((4, 3, 2))]),
    Case("glu_negative_dim", lambda T, F, a: F.glu(a, -2), [Arg((2, 4, 3))]),
    Case("glu_empty", lambda T, F, a: F.glu(a, 1), [Arg((0, 4))]),
    Case("softmin", lambda T, F, a: F.softmin(a, 1), [Arg(S)]),
    Case("softmin_dim0", lambda T, F, a: F.softmin(a, dim=0), [Arg((2, 3, 2))]),
    Case("hardshrink", lambda T, F, a: F.hardshrink(a * 2), [Arg(S, "away0")]),
    Case("hardshrink_lambd", lambda T, F, a: F.hardshrink(a, 0.1), [Arg(S, "away0")]),
    Case("softshrink", lambda T, F, a: F.softshrink(a * 2), [Arg(S, "away0")]),
    Case("softshrink_lambd", lambda T, F, a: F.softshrink(a, lambd=0.1), [Arg((2, 3, 2),
                                                                              "away0")]),
    Case("tanhshrink", lambda T, F, a: F.tanhshrink(a), [Arg(S)]),
    Case("threshold", lambda T, F, a: F.threshold(a, 0.1, -2.0), [Arg(S, "away0")]),
    Case("celu", lambda T, F, a: F.celu(a), [Arg(S)]),
    Case("celu_alpha", lambda T, F, a: F.celu(a, 0.5), [Arg((2, 3, 2))]),
    Case("celu_negative_alpha", lambda T, F, a: F.celu(a, alpha=-2.0), [Arg(S)]),
    Case("rrelu_eval", lambda T, F, a: F.rrelu(a), [Arg(S, "away0")]),
    Case("rrelu_eval_bounds", lambda T, F, a: F.rrelu(a, 0.2, 0.6, training=False),
         [Arg(S, "away0")]),
    Case("torch_spellings", lambda T, F, a: T.celu(a) + T.threshold(a, 0.2, 3.0)
         + T.hardshrink(a) + T.rrelu(a) + a.hardshrink(0.3), [Arg(S, "away0")]),
    Case("activations_0d", lambda T, F, a: F.celu(a) + F.softshrink(a) + F.threshold(a, 0, 1),
         [Arg(())]),
    Case("activations_empty", lambda T, F, a: F.hardshrink(F.rrelu(F.celu(a))), [Arg((0, 3))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


# 0 (both signs), the edges of every band, large |x|, inf and NaN.
EDGES = [-1000.0, -20.0, -3.0, -1.0, -0.5001, -0.5, -0.4999, -0.1, -1e-30, -0.0, 0.0, 1e-30,
         0.1, 0.4999, 0.5, 0.5001, 1.0, 2.0, 3.0, 90.0, 1000.0, float("inf"), -float("inf"),
         float("nan")]
EDGE_CALLS = {
    "hardshrink": lambda F, x: F.hardshrink(x),
    "hardshrink_zero": lambda F, x: F.hardshrink(x, 0.0),
    "hardshrink_negative": lambda F, x: F.hardshrink(x, -0.5),
    "softshrink": lambda F, x: F.softshrink(x),
    "softshrink_one": lambda F, x: F.softshrink(x, 1),
    "softshrink_zero": lambda F, x: F.softshrink(x, 0.0),
    "tanhshrink": lambda F, x: F.tanhshrink(x),
    "threshold": lambda F, x: F.threshold(x, 0.5, -7.0),
    "threshold_zero": lambda F, x: F.threshold(x, 0.0, 0.0),
    "threshold_inf": lambda F, x: F.threshold(x, -1.0, float("inf")),
    "celu": lambda F, x: F.celu(x),
    "celu_alpha": lambda F, x: F.celu(x, 0.5),
    "celu_negative_alpha": lambda F, x: F.celu(x, -3.0),
    "rrelu_eval": lambda F, x: F.rrelu(x),
    "rrelu_eval_bounds": lambda F, x: F.rrelu(x, 0.0, 1.0),
    "glu": lambda F, x: F.glu(x),
    "softmin": lambda F, x: F.softmin(x[:-3], 0),  # no inf or NaN: they fill the whole row
}


@pytest.mark.parametrize("name", list(EDGE_CALLS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_at_the_edges_equal_pytorch(name, dtype, device):
    torch = _torch()
    call = EDGE_CALLS[name]
    ours = mt.tensor(EDGES, dtype=getattr(mt, dtype), device=device, requires_grad=True)
    theirs = torch.tensor(EDGES, dtype=getattr(torch, dtype), requires_grad=True)
    out, ref = call(F, ours), call(torch.nn.functional, theirs)
    assert out.dtype is ours.dtype and out.grad_fn.name() == ref.grad_fn.name()
    rtol, atol = (2e-6, 1e-40) if dtype == "float32" else (1e-12, 1e-300)
    values, expected = out.detach().cpu().numpy(), ref.detach().numpy()
    np.testing.assert_allclose(values, expected, rtol=rtol, atol=atol)
    if not name.startswith("softshrink"):  # whose zero's sign varies in PyTorch
        # signs of zeros too: -0.0 where PyTorch gives -0.0
        np.testing.assert_array_equal(np.signbit(values[values == 0]),
                                      np.signbit(expected[values == 0]))
    upstream = np.arange(1, len(values) + 1, dtype=getattr(np, dtype))
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch.tensor(upstream))
    assert ours.grad.dtype is ours.dtype
    grads, expected = ours.grad.cpu().numpy(), theirs.grad.numpy()
    if "shrink" in name:
        # PyTorch's gradient at NaN varies with its vector width (1 or 0); ours is 1, that
        # of its scalar kernel (test_gradients_at_the_band_edges_are_pytorchs)
        grads, expected = grads[~np.isnan(EDGES)], expected[~np.isnan(EDGES)]
    np.testing.assert_allclose(grads, expected, rtol=rtol * 10, atol=atol)


def test_gradients_at_the_band_edges_are_pytorchs():
    x = mt.tensor([-0.5, -0.2, 0.0, 0.5, 0.7, float("nan")], dtype=mt.float64,
                  requires_grad=True)
    expected = {
        lambda x: F.hardshrink(x): [0, 0, 0, 0, 1, 1],     # the band's edges get none
        lambda x: F.softshrink(x): [0, 0, 0, 0, 1, 1],
        lambda x: F.threshold(x, 0.5, 9.0): [0, 0, 0, 0, 1, 1],   # x <= threshold gets none
        lambda x: F.rrelu(x, 0.1, 0.3): [0.2, 0.2, 0.2, 1, 1, 0.2],  # eval: leaky_relu's
        lambda x: F.celu(x, 2.0): [np.exp(-0.25), np.exp(-0.1), 1, 1, 1, 1],
    }
    for k, (function, grads) in enumerate(expected.items()):
        x.grad = None
        function(x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), grads, rtol=1e-12, err_msg=str(k))


def test_softshrink_inside_the_band_is_a_positive_zero():
    """PyTorch gives -0.0 or +0.0 for a negative input there, by its vector width; we +0.0."""
    out = F.softshrink(mt.tensor([0.3, -0.3, 0.5, -0.5, -0.6]))
    assert out.tolist()[:4] == [0.0] * 4 and out.tolist()[4] == pytest.approx(-0.1)
    assert np.signbit(out.numpy()).tolist() == [False, False, False, False, True]


def test_threshold_keeps_integer_dtypes_as_pytorch():
    torch = _torch()
    values = [-3, 0, 1, 2, 5]
    for dtype, numbers in (("int64", (0.5, 2.5)), ("int64", (1.5, 7.9)), ("int32", (2, -1)),
                           ("uint8", (1, 200)), ("float64", (1.5, 7.9))):
        out = F.threshold(mt.tensor(values, dtype=getattr(mt, dtype)), *numbers)
        ref = torch.nn.functional.threshold(torch.tensor(values, dtype=getattr(torch, dtype)),
                                            *numbers)
        assert str(out.dtype) == str(ref.dtype) and out.tolist() == ref.tolist()


def test_float64_stays_float64_and_meta_keeps_dtype():
    for function in EDGE_CALLS.values():
        assert function(F, mt.ones(4, dtype=mt.float64)).dtype is mt.float64
        out = function(F, mt.ones(4, device="meta"))
        assert out.is_meta and out.dtype is mt.float32


def test_tanhshrink_and_softmin_of_integers_follow_pytorch():
    assert F.tanhshrink(mt.tensor([0, 1])).dtype is mt.float32
    out = F.softmin(mt.tensor([1, 2]), 0, dtype=mt.float64)
    assert out.dtype is mt.float64
    np.testing.assert_allclose(out.numpy(), [1 / (1 + np.exp(-1)), 1 / (1 + np.exp(1))])


def test_softmin_without_dim_warns_and_takes_the_legacy_dim():
    x = mt.randn(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin has been "
                                         "deprecated"):
        out = F.softmin(x)
    np.testing.assert_allclose(out.numpy(), F.softmin(x, 1).numpy())


# -- rrelu's training path: random slopes ---------------------------------------------

def test_rrelu_training_draws_one_slope_per_element_in_the_bounds(device):
    x = -mt.rand(200, 50, dtype=mt.float64, device=device) - 0.1
    x.requires_grad_()
    out = F.rrelu(x, 0.1, 0.3, training=True)
    assert out.grad_fn.name() == "RreluWithNoiseBackward0"
    slopes = (out / x).detach().cpu().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.005          # U(0.1, 0.3): mean 0.2
    assert abs(slopes.std() - 0.2 / np.sqrt(12)) < 0.005   # and its spread
    assert len(np.unique(slopes)) > 9000              # one draw per element
    # the gradient is the slope that was drawn
    upstream = mt.rand(200, 50, dtype=mt.float64, device=device)
    out.backward(upstream)
    np.testing.assert_allclose(x.grad.cpu().numpy(), slopes * upstream.cpu().numpy(),
                               rtol=1e-12)


def test_rrelu_training_keeps_positive_values_and_their_gradient():
    x = mt.tensor([0.5, 2.0, float("nan"), 0.0, -1.0], requires_grad=True)
    out = F.rrelu(x, 0.25, 0.25, training=True)  # equal bounds: a known slope
    values = out.tolist()
    assert values[:2] == [0.5, 2.0] and np.isnan(values[2]) and values[3:] == [0.0, -0.25]
    out.sum().backward()
    # NaN is not <= 0: PyTorch's training kernel passes it with slope 1
    assert x.grad.tolist() == [1.0, 1.0, 1.0, 0.25, 0.25]


def test_rrelu_training_follows_the_global_seed():
    x = -mt.ones(10)
    mt.manual_seed(3)
    first = F.rrelu(x, training=True)
    mt.manual_seed(3)
    assert F.rrelu(x, training=True).tolist() == first.tolist()
    assert F.rrelu(x, training=True).tolist() != first.tolist()


def test_rrelu_training_on_meta_keeps_shapes():
    x = mt.empty(3, 4, device="meta", requires_grad=True)
    out = F.rrelu(x, training=True)
    assert out.is_meta and out.shape == (3, 4)
    out.sum().backward()
    assert x.grad.is_meta and x.grad.shape == (3, 4)


# -- in-place forms --------------------------------------------------------------------

INPLACE = {
    "relu_": ((), ()),
    "elu_": ((0.5,), ()),
    "leaky_relu_": ((0.2,), ()),
    "hardtanh_": ((-0.5, 0.5), ()),
    "selu_": ((), ()),
    "celu_": ((2.0,), ()),
    "threshold_": ((0.1, -4.0), ()),
    "rrelu_": ((0.1, 0.3), ()),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_forms_write_into_their_input(name, device):
    torch = _torch()
    args, _ = INPLACE[name]
    values = np.linspace(-2, 2, 9)
    ours = mt.tensor(values, device=device)
    theirs = torch.tensor(values)
    out = getattr(F, name)(ours, *args)
    getattr(torch.nn.functional, name)(theirs, *args)
    assert out is ours
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-12)


def test_inplace_forms_refuse_a_leaf_and_are_recorded_in_a_graph(torch_ref):
    leaf = mt.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="elu_: a leaf Variable that requires grad"):
        F.elu_(leaf)
    grads = []
    for lib in (mt, torch_ref):
        x = lib.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        y = x * 2
        lib.nn.functional.relu_(y)
        (y * y).sum().backward()
        grads.append((type(y.grad_fn).__name__, x.grad.tolist()))
    assert grads[0][1] == grads[1][1] == [0.0, 4.0, 16.0]
    with mt.no_grad():
        F.celu_(leaf)
    assert leaf.tolist() == [1.0, 1.0, 1.0]


def test_inplace_forms_refuse_a_float_result_into_an_integer_tensor():
    x = mt.tensor([-1, 2])
    assert F.relu_(x).tolist() == [0, 2] and F.threshold_(x, 1, 5).tolist() == [5, 2]
    with pytest.raises(NotImplementedError, match='"elu_cpu" not implemented'):
        F.celu_(x)


# -- errors ----------------------------------------------------------------------------

def test_errors_read_the_same_on_cpu_and_meta():
    check_same_error_on_cpu_and_meta(lambda x: F.glu(x), RuntimeError,
                                     "Halving dimension must be even, but dimension 2 is size 5",
                                     shape=(2, 3, 5))
    check_same_error_on_cpu_and_meta(lambda x: F.glu(x), RuntimeError,
                                     "glu does not support scalars because halving size must "
                                     "be even", shape=())
    check_same_error_on_cpu_and_meta(
        lambda x: F.glu(x, 3), IndexError,
        "glu: Dimension out of range (expected to be in range of [-3, 2], but got 3)")
    check_same_error_on_cpu_and_meta(
        lambda x: F.softshrink(x, -0.5), RuntimeError,
        "lambda must be in range [0, 3.40282e+38] for input dtype Float, but found -0.5")
    check_same_error_on_cpu_and_meta(
        lambda x: F.softshrink(x.double(), float("nan")), RuntimeError,
        "lambda must be in range [0, 1.79769e+308] for input dtype Double, but found nan")
    check_same_error_on_cpu_and_meta(
        lambda x: F.threshold(x.bool(), 0, 1), NotImplementedError,
        "\"threshold_cpu\" not implemented for 'Bool': threshold takes numeric tensors; "
        "convert the input first, e.g. with .int()")
    check_same_error_on_cpu_and_meta(
        lambda x: F.threshold(x.to(mt.uint8), 0, 300), RuntimeError,
        "threshold: value cannot be converted to type torch.uint8 without overflow "
        "(value=300)")
    check_same_error_on_cpu_and_meta(
        lambda x: F.rrelu(x.long(), training=True), NotImplementedError,
        "\"rrelu_with_noise_out_cpu\" not implemented for 'torch.int64': rrelu takes "
        "floating-point tensors; convert the input first, e.g. with .float()")


@pytest.mark.parametrize("call, kernel", [
    (lambda x: F.glu(x), "glu_cpu"), (lambda x: F.hardshrink(x), "hardshrink_cpu"),
    (lambda x: F.softshrink(x), "softshrink_check"), (lambda x: F.celu(x), "elu_cpu"),
    (lambda x: F.rrelu(x), "leaky_relu_cpu")])
def test_integer_inputs_are_refused_as_in_pytorch(call, kernel):
    with pytest.raises(NotImplementedError, match=f'^"{kernel}" not implemented for '
                                                  "'torch.int64'"):
        call(mt.ones(2, 4, dtype=mt.int64))


def test_bad_hyper_parameters():
    x = mt.ones(2, 4)
    with pytest.raises(RuntimeError, match="^ZeroDivisionError: alpha cannot be 0 for CELU$"):
        F.celu(x, 0.0)
    with pytest.raises(RuntimeError, match="^Lower bound should be less than or equal to the "
                                           r"upper bound \(got lower=0.5, upper=0.2\)$"):
        F.rrelu(x, 0.5, 0.2)
    with pytest.raises(TypeError, match=r"^glu\(\): argument 'dim' \(position 2\) must be int, "
                                        "not float$"):
        F.glu(x, 1.5)
    for call, message in (
            (lambda: F.hardshrink(x, "a"), r"hardshrink\(\): argument 'lambd' \(position 2\)"),
            (lambda: F.softshrink(x, mt.ones(1)), r"softshrink\(\): argument 'lambd' "),
            (lambda: F.threshold(x, "a", 1), r"threshold\(\): argument 'threshold' "),
            (lambda: F.threshold(x, 1, None), r"threshold\(\): argument 'value' \(position 3\)"),
            (lambda: F.celu(x, "a"), r"celu\(\): argument 'alpha' \(position 2\)"),
            (lambda: F.rrelu(x, "a"), r"rrelu\(\): argument 'lower' \(position 2\)")):
        with pytest.raises(TypeError, match=message + ".* must be Number"):
            call()

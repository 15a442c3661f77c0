"""leaky_relu (``F.leaky_relu``, ``nn.LeakyReLU``): the three-way checks, then what finite
differences cannot see (the gradient at exactly 0 and at NaN), dtypes, ``inplace`` and the
errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from tests.ops.harness import Arg, Case, three_way_tests

S = (3, 4)
# ``away0`` keeps |x| >= 0.2 from the kink at 0 (gradcheck steps are 1e-6).
CASES = [
    Case("leaky_relu", lambda T, F, a: F.leaky_relu(a), [Arg(S, "away0")]),
    Case("leaky_relu_slope", lambda T, F, a: F.leaky_relu(a, 0.2), [Arg((2, 3, 2, 2), "away0")]),
    Case("leaky_relu_keyword", lambda T, F, a: F.leaky_relu(a, negative_slope=-1.5),
         [Arg(S, "away0")]),
    Case("leaky_relu_int_slope", lambda T, F, a: F.leaky_relu(a, 2), [Arg(S, "away0")]),
    Case("leaky_relu_inplace", lambda T, F, a: F.leaky_relu(a * 1, 0.3, inplace=True),
         [Arg(S, "away0")]),
    Case("leaky_relu_module", lambda T, F, a: T.nn.LeakyReLU(0.1)(a),
         [Arg((2, 3, 4), "away0")]),
    Case("leaky_relu_in_chain", lambda T, F, a, b: (F.leaky_relu(a, 0.05) * b).sum(),
         [Arg(S, "away0"), Arg(S)]),
]

# ``F.leaky_relu(a * 1, inplace=True)``: PyTorch writes into ``a * 1`` and names the node
# LeakyReluBackward1; ours returns a new tensor (docs/differences.md), LeakyReluBackward0.
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=("leaky_relu_inplace",))


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("slope", [0.01, 0.2, -0.5, 0.0, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_at_zero_and_nan_equal_pytorch_exactly(slope, dtype, device):
    """At exactly 0 (and -0.0, and NaN) PyTorch's gradient is ``negative_slope``."""
    torch = _torch()
    values = [-2.5, -1e-3, -0.0, 0.0, 1e-3, 0.7, float("nan"), float("inf"), -float("inf")]
    ours = mt.tensor(values, dtype=getattr(mt, dtype), device=device, requires_grad=True)
    theirs = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=True)
    out, ref = F.leaky_relu(ours, slope), torch.nn.functional.leaky_relu(theirs, slope)
    assert out.dtype is ours.dtype and out.grad_fn.name() == ref.grad_fn.name()
    np.testing.assert_array_equal(out.detach().cpu().numpy(), ref.detach().numpy())
    upstream = np.arange(1, len(values) + 1, dtype=getattr(np, dtype))
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch.tensor(upstream))
    np.testing.assert_array_equal(ours.grad.cpu().numpy(), theirs.grad.numpy())
    assert ours.grad.dtype is ours.dtype


def test_the_gradient_at_zero_is_the_slope():
    x = mt.zeros(3, requires_grad=True)
    F.leaky_relu(x, 0.25).sum().backward()
    assert x.grad.tolist() == [0.25] * 3


def test_the_default_slope_is_pytorchs():
    x = mt.tensor([-100.0, 100.0])
    assert F.leaky_relu(x).tolist() == pytest.approx([-1.0, 100.0])
    assert mt.nn.LeakyReLU()(x).tolist() == pytest.approx([-1.0, 100.0])
    assert mt.nn.LeakyReLU().negative_slope == 0.01 and not mt.nn.LeakyReLU().inplace


def test_numpy_scalar_slope_is_a_number():
    x = mt.tensor([-2.0, 1.0])
    assert F.leaky_relu(x, np.float32(0.5)).tolist() == [-1.0, 1.0]


def test_inplace_returns_a_new_tensor_and_leaves_the_input():
    """As ``nn.ReLU(inplace=True)``: accepted, and the result is a new tensor."""
    x = mt.tensor([-2.0, 1.0])
    for y in (F.leaky_relu(x, 0.5, inplace=True), mt.nn.LeakyReLU(0.5, inplace=True)(x)):
        assert y is not x and y.tolist() == [-1.0, 1.0]
    assert x.tolist() == [-2.0, 1.0] and x._version == 0


def test_on_meta_only_shapes_run():
    x = mt.empty(2**20, 2**20, device="meta", requires_grad=True)
    y = mt.nn.LeakyReLU(0.1)(x)
    assert y.is_meta and y.shape == x.shape and y.grad_fn.name() == "LeakyReluBackward0"
    y.sum().backward()
    assert x.grad.is_meta and x.grad.shape == x.shape


def test_modified_input_is_caught_before_backward():
    """The input is saved for backward (as PyTorch saves it): writing to it is an error."""
    x = mt.tensor([-1.0, 2.0], requires_grad=True)
    h = x * 1
    y = F.leaky_relu(h)
    with mt.no_grad():
        h.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("dtype", [mt.int64, mt.int32, mt.uint8, mt.bool])
@pytest.mark.parametrize("device_name", ["cpu", "meta"])
def test_integer_input_raises_not_implemented_error_as_pytorch(dtype, device_name):
    x = mt.zeros(2, dtype=dtype, device=device_name)
    message = f"leaky_relu: expected a floating-point tensor, got dtype {dtype}; convert it"
    with pytest.raises(NotImplementedError, match=message):
        F.leaky_relu(x)


@pytest.mark.parametrize("slope, name", [("a", "str"), (None, "NoneType"), ([0.1], "list")])
def test_slope_that_is_no_number_raises(slope, name):
    with pytest.raises(TypeError, match=f"leaky_relu\\(\\): argument 'negative_slope' "
                                        f"\\(position 2\\) must be Number, not {name}$"):
        F.leaky_relu(mt.ones(2), slope)
    with pytest.raises(TypeError, match="must be Number"):
        mt.nn.LeakyReLU(slope)(mt.ones(2))


def test_tensor_slope_raises_with_advice():
    """A slope tensor with dims is refused; a 0-d one is a number, as PyTorch reads it."""
    with pytest.raises(TypeError, match=r"must be Number, not Tensor; minitorch_meta takes a "
                                        r"Python number \(e.g. slope.item\(\)\)"):
        F.leaky_relu(mt.ones(2), mt.tensor([0.5]))
    assert F.leaky_relu(-mt.ones(2), mt.tensor(0.5)).tolist() == [-0.5, -0.5]


def test_only_where_pytorch_has_it():
    torch = _torch()
    for name in ("leaky_relu",):
        assert hasattr(mt, name) == hasattr(torch, name)
        assert hasattr(mt.Tensor, name) == hasattr(torch.Tensor, name)
    assert hasattr(mt.nn.functional, "leaky_relu") and hasattr(mt.nn, "LeakyReLU")

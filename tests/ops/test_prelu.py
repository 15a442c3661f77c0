"""prelu (``F.prelu``, ``torch.prelu``, ``Tensor.prelu``, ``nn.PReLU``): the three-way checks
with the weight's gradient, what finite differences cannot see (x = 0, NaN), the layer's
parameter, repr and initialisation, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from tests.ops.harness import Arg, Case, three_way_tests

CASES = [
    Case("prelu_shared", lambda T, F, a, w: F.prelu(a, w), [Arg((2, 3, 4), "away0"), Arg((1,))]),
    Case("prelu_per_channel", lambda T, F, a, w: F.prelu(a, w),
         [Arg((2, 3, 4, 5), "away0"), Arg((3,))]),
    Case("prelu_2d", lambda T, F, a, w: T.prelu(a, w), [Arg((5, 4), "away0"), Arg((4,))]),
    Case("prelu_1d", lambda T, F, a, w: a.prelu(w), [Arg((6,), "away0"), Arg((1,))]),
    Case("prelu_0d", lambda T, F, a, w: F.prelu(a, w), [Arg(()), Arg((1,))]),
    Case("prelu_0d_weight", lambda T, F, a, w: F.prelu(a, w), [Arg((2, 3), "away0"), Arg(())]),
    Case("prelu_constant_weight", lambda T, F, a, w: F.prelu(a, w),
         [Arg((2, 3), "away0"), Arg((3,), grad=False)]),
    Case("prelu_empty", lambda T, F, a, w: F.prelu(a, w), [Arg((0, 3, 2)), Arg((3,))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zero_nan_and_infinities_equal_pytorch(dtype, device):
    torch = _torch()
    values = [[-2.0, -0.0, 0.0, 1e-30, float("nan"), float("inf"), -float("inf"), 3.0]] * 2
    slopes = [0.25, -1.5]
    x = mt.tensor(values, dtype=getattr(mt, dtype), device=device, requires_grad=True)
    w = mt.tensor(slopes, dtype=getattr(mt, dtype), device=device, requires_grad=True)
    tx = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=True)
    tw = torch.tensor(slopes, dtype=getattr(torch, dtype), requires_grad=True)
    x2, tx2 = x.t(), tx.t()  # (8, 2): two channels
    out, ref = F.prelu(x2, w), torch.nn.functional.prelu(tx2, tw)
    np.testing.assert_array_equal(out.detach().cpu().numpy(), ref.detach().numpy())
    upstream = np.arange(16, dtype=getattr(np, dtype)).reshape(8, 2)
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch.tensor(upstream))
    np.testing.assert_array_equal(x.grad.cpu().numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(w.grad.cpu().numpy(), tw.grad.numpy())
    assert w.grad.dtype is w.dtype


def test_the_weight_gradient_sums_x_times_grad_where_x_is_not_positive():
    x = mt.tensor([[-2.0, 3.0], [0.0, -1.0]], requires_grad=True)
    w = mt.tensor([0.5, 0.1], requires_grad=True)
    F.prelu(x, w).sum().backward()
    assert w.grad.tolist() == [-2.0, -1.0]
    assert x.grad.tolist() == [[0.5, 1.0], [0.5, pytest.approx(0.1)]]


def test_the_layer_learns_its_slopes_like_pytorch():
    torch = _torch()
    data = np.random.default_rng(0).standard_normal((4, 3, 2, 2)).astype(np.float32)
    ours, theirs = mt.nn.PReLU(3, init=0.1), torch.nn.PReLU(3, init=0.1)
    assert repr(ours) == repr(theirs) == "PReLU(num_parameters=3)"
    assert [n for n, _ in ours.named_parameters()] == ["weight"]
    assert ours.weight.tolist() == pytest.approx([0.1] * 3) and ours.init == 0.1
    ours(mt.tensor(data)).sum().backward()
    theirs(torch.tensor(data)).sum().backward()
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-5)
    with mt.no_grad():
        ours.weight.fill_(3.0)
    ours.reset_parameters()
    assert ours.weight.tolist() == pytest.approx([0.1] * 3)
    assert repr(mt.nn.PReLU()) == "PReLU(num_parameters=1)"
    assert mt.nn.PReLU().weight.tolist() == [0.25]


def test_the_layer_on_meta_and_in_float64():
    layer = mt.nn.PReLU(5, device="meta")
    assert layer.weight.is_meta and layer.weight.shape == (5,)
    out = layer(mt.empty(2, 5, 7, device="meta"))
    assert out.is_meta and out.shape == (2, 5, 7)
    assert mt.nn.PReLU(dtype=mt.float64).weight.dtype is mt.float64


@pytest.mark.parametrize("x_shape, w_shape, message", [
    ((2, 3, 4), (4,), "Mismatch of parameter numbers and input channel size. Found parameter "
                      "numbers = 4 and channel size = 3."),
    ((3,), (3,), "Mismatch of parameter numbers and input channel size. Found parameter "
                 "numbers = 3 and channel size = 1."),
    ((), (3,), "Not allow zero-dim input tensor."),
    ((2, 3), (1, 3), "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"),
])
def test_weight_shape_errors_are_pytorchs_on_cpu_and_meta(x_shape, w_shape, message):
    torch = _torch()
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.prelu(torch.ones(x_shape), torch.ones(w_shape))
    assert str(theirs.value) == message
    for device in ("cpu", "meta"):
        with pytest.raises(RuntimeError) as ours:
            F.prelu(mt.ones(x_shape, device=device), mt.ones(w_shape, device=device))
        assert str(ours.value) == message


def test_type_errors():
    x = mt.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"prelu: Type promoting not supported. Got "
                                           r"torch.float32 and torch.float64; convert the weight"):
        F.prelu(x, mt.ones(3, dtype=mt.float64))
    with pytest.raises(TypeError, match=r"prelu\(\): argument 'weight' \(position 2\) must be "
                                        r"Tensor, not float"):
        F.prelu(x, 0.25)
    with pytest.raises(NotImplementedError, match="prelu: expected a floating-point tensor, "
                                                  "got dtype torch.int64"):
        mt.prelu(mt.ones(2, 3, dtype=mt.int64), mt.ones(3, dtype=mt.int64))

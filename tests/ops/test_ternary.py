"""lerp, addcmul, addcdiv, and max/min of two tensors: values, gradients, broadcasting,
dtypes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4)
CASES = [
    Case("lerp", lambda T, F, a, b: T.lerp(a, b, 0.3), [Arg(S), Arg(S)]),
    Case("lerp_large_weight", lambda T, F, a, b: a.lerp(b, 0.75), [Arg(S), Arg((4,))]),
    Case("lerp_negative_weight", lambda T, F, a, b: T.lerp(a, b, -0.6), [Arg((3, 1)), Arg(S)]),
    Case("lerp_weight_1", lambda T, F, a, b: T.lerp(a, b, 1), [Arg(S), Arg(S)]),
    Case("lerp_tensor_weight", lambda T, F, a, b, w: T.lerp(a, b, w),
         [Arg(S), Arg(S), Arg(S)]),
    Case("lerp_tensor_weight_broadcast", lambda T, F, a, b, w: a.lerp(b, w),
         [Arg((4,)), Arg((3, 1)), Arg((2, 1, 1))]),
    Case("lerp_0d_weight", lambda T, F, a, b, w: T.lerp(a, b, w), [Arg(S), Arg(S), Arg(())]),
    Case("lerp_constant_weight", lambda T, F, a, b, w: T.lerp(a, b, w),
         [Arg(S), Arg(S, grad=False), Arg(S, grad=False)]),
    Case("addcmul", lambda T, F, x, a, b: T.addcmul(x, a, b), [Arg(S), Arg(S), Arg(S)]),
    Case("addcmul_value", lambda T, F, x, a, b: x.addcmul(a, b, value=-0.5),
         [Arg((4,)), Arg(S), Arg((3, 1))]),
    Case("addcmul_int", lambda T, F, x, a, b: T.addcmul(x, a, b, value=2),
         [Arg(S, "int:5"), Arg(S, "int:5"), Arg(S, "int:5")]),
    Case("addcmul_int_float_value", lambda T, F, x, a, b: T.addcmul(x, a, b, value=1.5),
         [Arg(S, "int:5"), Arg(S, "int:5"), Arg(S, "int:5")]),
    Case("addcmul_mixed", lambda T, F, x, a, b: T.addcmul(x, a, b, value=3),
         [Arg(S), Arg(S, "int:5"), Arg(())]),
    Case("addcdiv", lambda T, F, x, a, b: T.addcdiv(x, a, b), [Arg(S), Arg(S), Arg(S, "away0")]),
    Case("addcdiv_adam_step", lambda T, F, p, m, v: p.addcdiv(m, v.sqrt() + 1e-8, value=-1e-3),
         [Arg(S), Arg(S), Arg(S, "positive")]),
    Case("addcdiv_broadcast", lambda T, F, x, a, b: T.addcdiv(x, a, b, value=2),
         [Arg(()), Arg((2, 1, 4)), Arg((3, 1), "away0")]),
    Case("addcdiv_int_float", lambda T, F, x, a, b: T.addcdiv(x, a, b),
         [Arg(S, "int:5"), Arg(S), Arg(S, "away0")]),
    Case("max_two_tensors", lambda T, F, a, b: T.max(a, b), [Arg(S, "distinct"), Arg((4,))]),
    Case("max_method_other", lambda T, F, a, b: a.max(other=b), [Arg(S), Arg(S)]),
    Case("min_two_tensors", lambda T, F, a, b: T.min(a, b), [Arg(S), Arg((3, 1))]),
    Case("min_method", lambda T, F, a, b: a.min(b), [Arg(S), Arg(S)]),
    Case("max_int_tensors", lambda T, F, a, b: T.max(a, b), [Arg(S, "int:5"), Arg(S, "int:5")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("weight", [0.0, 0.25, 0.49, 0.5, 0.75, 1.0, -3.0, 7.5])
def test_lerp_as_torch_up_to_fused_rounding(weight, device):
    # PyTorch's CPU kernel fuses the multiply-add (one rounding fewer): the results differ
    # by about one rounding of the terms (more ulps of the result where terms cancel)
    torch = _torch()
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(50).astype(np.float32), rng.standard_normal(50).astype(np.float32)
    ref = torch.lerp(torch.tensor(a), torch.tensor(b), weight).numpy()
    scale = 2 * 2.0 ** -23 * (np.abs(a) + np.abs(b) + abs(weight) * np.abs(b - a))
    ours = mt.lerp(mt.tensor(a, device=device), mt.tensor(b, device=device), weight)
    assert (np.abs(ours.cpu().numpy() - ref) <= scale).all()
    w = np.full(50, weight, np.float32)
    ours = mt.lerp(mt.tensor(a, device=device), mt.tensor(b, device=device),
                   mt.tensor(w, device=device))
    assert (np.abs(ours.cpu().numpy() - ref) <= scale).all()
    assert mt.lerp(mt.tensor(a), mt.tensor(b), 1.0).tolist() == b.tolist()  # exact at 1


def test_addcmul_and_addcdiv_as_torch_up_to_fused_rounding(device):
    torch = _torch()
    rng = np.random.default_rng(1)
    x, a, b = (rng.standard_normal(100).astype(np.float32) for _ in range(3))
    for name, value in (("addcmul", 0.1), ("addcdiv", -0.3), ("addcdiv", 1)):
        ours = getattr(mt, name)(*(mt.tensor(t, device=device) for t in (x, a, b)), value=value)
        theirs = getattr(torch, name)(*(torch.tensor(t) for t in (x, a, b)), value=value)
        scale = 2 * 2.0 ** -23 * (np.abs(x) + abs(value) * np.abs(a * b if name == "addcmul"
                                                             else a / b))
        assert (np.abs(ours.cpu().numpy() - theirs.numpy()) <= scale).all(), name


def test_max_min_of_two_tensors_with_ties_and_nan_as_torch():
    torch = _torch()
    a, b = [1.0, 2.0, float("nan"), 4.0], [1.0, 3.0, 0.0, -1.0]
    for name in ("max", "min"):
        x, y = mt.tensor(a, requires_grad=True), mt.tensor(b, requires_grad=True)
        tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        out, ref = getattr(mt, name)(x, y), getattr(torch, name)(tx, ty)
        np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
        assert out.grad_fn.name() == ref.grad_fn.name()
        out.sum().backward()
        ref.sum().backward()
        assert x.grad.tolist() == tx.grad.tolist() and y.grad.tolist() == ty.grad.tolist()


def test_max_min_with_a_dim_still_reduce():
    x = mt.tensor([[1.0, 5.0], [3.0, 2.0]])
    assert x.max(1).values.tolist() == [5.0, 3.0] and mt.min(x, 0).indices.tolist() == [0, 1]
    assert mt.max(x).item() == 5.0 and x.min(dim=1, keepdim=True).values.shape == (2, 1)


def test_lerp_and_addcmul_on_huge_meta_tensors():
    x = mt.empty(2**30, 2**20, device="meta", requires_grad=True)
    w = mt.empty(2**20, device="meta", requires_grad=True)
    out = mt.lerp(x, x, w) + x.addcmul(x, w, value=2) + mt.addcdiv(x, w, x)
    out.sum().backward()
    assert x.grad.shape == x.shape and w.grad.shape == w.shape and w.grad.is_meta
    assert mt.max(x, w).shape == x.shape


LONG = "torch.int64"


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mt.lerp(x.long(), x.long(), 0.5), NotImplementedError,
     f"lerp: expected floating-point tensors, got {LONG}; convert first, e.g. with .float()"),
    (lambda x: x.lerp(x.double(), 0.5), RuntimeError,
     "lerp: expected dtype torch.float32 for `end` but got dtype torch.float64; convert it "
     "with .to(torch.float32)"),
    (lambda x: x.lerp(x, x.double()), RuntimeError,
     "lerp: expected dtype torch.float32 for `weight` but got dtype torch.float64; convert it "
     "with .to(torch.float32)"),
    (lambda x: x.lerp(x, "a"), TypeError,
     "lerp(): argument 'weight' (position 3) must be Number or Tensor, not str"),
    (lambda x: x.lerp(x, None), TypeError,
     "lerp(): argument 'weight' (position 3) must be Number or Tensor, not NoneType"),
    (lambda x: x.lerp(x[0, :2], 0.5), mt.ShapeError,
     "lerp: shapes (2, 3, 4) and (2, 4) cannot be broadcast together: trailing dimensions "
     "must be equal or 1"),
    (lambda x: mt.addcmul(x.bool(), x.bool(), x.bool()), NotImplementedError,
     "addcmul: not implemented for bool tensors; convert first, e.g. with .int()"),
    (lambda x: mt.addcdiv(x, x.long(), x.int()), RuntimeError,
     "Integer division with addcdiv is not supported (tensor1 is torch.int64, tensor2 "
     "torch.int32); for a true division convert one to float: addcdiv(input, "
     "tensor1.float(), tensor2, value=value)"),
    (lambda x: x.addcmul(x, x, value="2"), TypeError,
     "addcmul(): argument 'value' must be Number, not str"),
    (lambda x: x.addcdiv(x, x, value=x), TypeError,
     "addcdiv(): argument 'value' must be a Python number; minitorch_meta takes no tensor "
     "here (use value.item())"),
    (lambda x: mt.max(x, x, True), TypeError,
     "max(): received an invalid combination of arguments: with a second tensor it is "
     "max(input, other), the elementwise maximum, which takes no dim or keepdim"),
    (lambda x: x.min(0, other=x), TypeError,
     "min(): received an invalid combination of arguments: with a second tensor it is "
     "min(input, other), the elementwise minimum, which takes no dim or keepdim"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)

"""clamp / clip / clamp_min / clamp_max with tensor bounds: values and the three gradients
(input, min, max) three ways, broadcasting, promotion, NaN, in-place forms and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

CASES = [
    # normal bounds: min > max in about half of the elements (max wins there)
    Case("both_bounds", lambda T, F, x, lo, hi: T.clamp(x, lo, hi),
         [Arg((3, 4)), Arg((3, 4)), Arg((3, 4))]),
    Case("broadcast_bounds", lambda T, F, x, lo, hi: T.clamp(x, min=lo, max=hi),
         [Arg((2, 3, 4)), Arg((3, 1)), Arg((4,))]),
    Case("bounds_wider_than_input", lambda T, F, x, lo: T.clamp(x, min=lo),
         [Arg((4,)), Arg((3, 4))]),
    Case("min_only", lambda T, F, x, lo: x.clamp(min=lo), [Arg((5,)), Arg((5,))]),
    Case("max_only", lambda T, F, x, hi: x.clip(max=hi), [Arg((5,)), Arg((1,))]),
    Case("clamp_min", lambda T, F, x, lo: T.clamp_min(x, lo), [Arg((2, 3)), Arg((3,))]),
    Case("clamp_max", lambda T, F, x, hi: x.clamp_max(hi), [Arg((2, 3)), Arg((2, 1))]),
    Case("zero_dim_bounds", lambda T, F, x, lo, hi: T.clamp(x, lo, hi),
         [Arg((2, 3)), Arg(()), Arg(())]),
    Case("input_not_differentiable", lambda T, F, x, lo, hi: T.clamp(x, lo, hi),
         [Arg((3,), grad=False), Arg((3,)), Arg((3,))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _pair(torch, device, values, dtype="float32", requires_grad=False):
    return (mt.tensor(values, dtype=getattr(mt, dtype), device=device,
                      requires_grad=requires_grad),
            torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=requires_grad))


def test_nan_and_inverted_bounds_send_gradients_as_torch(device, torch_ref):
    nan = float("nan")
    # the last two: ties with min and with max, which send the gradient to the input
    x, tx = _pair(torch_ref, device, [1.0, 5.0, 9.0, nan, 3.0, 7.0, 2.0, 5.0], "float64", True)
    lo, tlo = _pair(torch_ref, device, [2.0, 6.0, nan, 0.0, 3.0, 8.0, 2.0, 1.0], "float64", True)
    hi, thi = _pair(torch_ref, device, [4.0, 4.0, 10.0, 1.0, 3.0, 6.0, 5.0, 5.0], "float64",
                    True)
    weights = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    ours, theirs = mt.clamp(x, lo, hi), torch_ref.clamp(tx, tlo, thi)
    np.testing.assert_array_equal(ours.detach().cpu().numpy(), theirs.detach().numpy())
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "ClampBackward0"
    ours.backward(mt.tensor(weights, dtype=mt.float64, device=device))
    theirs.backward(torch_ref.tensor(weights, dtype=torch_ref.float64))
    for mine, ref in ((x, tx), (lo, tlo), (hi, thi)):
        np.testing.assert_array_equal(mine.grad.cpu().numpy(), ref.grad.numpy())


@pytest.mark.parametrize("x_dtype, bound_dtype, bound_shape", [
    ("uint8", "int8", (1,)), ("int64", "float32", (1,)), ("float32", "float64", ()),
    ("int32", "float64", ()), ("float16", "float32", (3,)),
])
def test_promotion_as_torch(x_dtype, bound_dtype, bound_shape, any_device, torch_ref):
    bound = np.full(bound_shape, 3)
    ours = mt.clamp(mt.tensor([1, 5, 9], dtype=getattr(mt, x_dtype), device=any_device),
                    min=mt.tensor(bound, dtype=getattr(mt, bound_dtype), device=any_device))
    theirs = torch_ref.clamp(torch_ref.tensor([1, 5, 9], dtype=getattr(torch_ref, x_dtype)),
                             min=torch_ref.tensor(bound, dtype=getattr(torch_ref, bound_dtype)))
    assert str(ours.dtype) == str(theirs.dtype)
    if any_device != "meta":
        assert ours.tolist() == theirs.tolist()


def test_number_beside_a_tensor_bound_promotes_as_a_number(device, torch_ref):
    ours = mt.clamp(mt.tensor([1, 5], device=device), min=mt.tensor(3.0, device=device),
                    max=2.5)
    theirs = torch_ref.clamp(torch_ref.tensor([1, 5]), min=torch_ref.tensor(3.0), max=2.5)
    assert ours.dtype is mt.float32 and ours.tolist() == theirs.tolist()


def test_in_place_forms_write_into_the_tensor(device, torch_ref):
    for name, kwargs in (("clamp_", {"min": [3.0, 3.0]}), ("clip_", {"max": [3.0, 0.0]}),
                         ("clamp_min_", {"min": [0.0, 6.0]}), ("clamp_max_", {"max": [2.0, 2.0]})):
        ours, theirs = _pair(torch_ref, device, [1.0, 5.0])
        mine = {k: mt.tensor(v, device=device) for k, v in kwargs.items()}
        ref = {k: torch_ref.tensor(v) for k, v in kwargs.items()}
        if name in ("clamp_min_", "clamp_max_"):
            assert getattr(ours, name)(*mine.values()) is ours
            getattr(theirs, name)(*ref.values())
        else:
            assert getattr(ours, name)(**mine) is ours
            getattr(theirs, name)(**ref)
        assert ours.tolist() == theirs.tolist(), name


@pytest.mark.parametrize("call, error, message", [
    (lambda lib, d: lib.tensor([1.0, 5.0], device=d).clamp_(
        min=lib.tensor([[3.0], [3.0]], device=d)), RuntimeError, "shape"),
    (lambda lib, d: lib.tensor([1, 5], device=d).clamp_(min=lib.tensor([3.5], device=d)),
     RuntimeError, "Float|float"),
    (lambda lib, d: lib.clamp(lib.ones(2, device=d), min=lib.ones(3, device=d)),
     RuntimeError, "size|shape"),
    (lambda lib, d: lib.clamp(lib.ones(2, device=d), None, None), RuntimeError,
     "At least one of 'min' or 'max' must not be None"),
])
def test_errors_as_torch(call, error, message, any_device, torch_ref):
    with pytest.raises(error, match=message):
        call(torch_ref, "cpu")
    with pytest.raises(error, match=message):
        call(mt, any_device)


def test_bool_tensor_with_both_bool_bounds_is_refused(any_device):
    """PyTorch's "clamp_cpu" has no bool case; one bool bound is its maximum/minimum."""
    b = mt.tensor([True], device=any_device)
    with pytest.raises(NotImplementedError, match="bool tensors cannot be clamped"):
        mt.clamp(b, min=mt.tensor([False], device=any_device), max=b)
    assert mt.clamp(b, min=mt.tensor([False], device=any_device)).dtype == mt.bool


def test_second_order_through_tensor_bounds(torch_ref, device):
    """The masks are constants: the gradient of the gradient is that of ``grad * mask``."""
    values = np.random.default_rng(3).standard_normal((3, 4))
    x, tx = _pair(torch_ref, device, values, "float64", True)
    lo, tlo = _pair(torch_ref, device, values[0] * 0.5, "float64", True)
    ours = (mt.clamp(x, min=lo) ** 2).sum()
    theirs = (torch_ref.clamp(tx, min=tlo) ** 2).sum()
    (gx, glo) = mt.autograd.grad(ours, (x, lo), create_graph=True)
    (tgx, tglo) = torch_ref.autograd.grad(theirs, (tx, tlo), create_graph=True)
    (gx.sum() + glo.sum()).backward()
    (tgx.sum() + tglo.sum()).backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy())
    np.testing.assert_allclose(lo.grad.cpu().numpy(), tlo.grad.numpy())

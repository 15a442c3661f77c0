"""``torch.nn.grad``: convolution gradients with respect to the input and the weight,
against PyTorch's, in float64; and on meta, their shapes."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt

#: (dims, input shape, weight shape, stride, padding, dilation, groups)
_CASES = [
    (1, (2, 4, 9), (6, 2, 3), 2, 1, 1, 2),
    (2, (2, 3, 7, 6), (4, 3, 3, 2), 1, 0, 1, 1),
    (2, (1, 4, 8, 8), (4, 1, 3, 3), 2, 1, 2, 4),
    (2, (2, 3, 7, 7), (5, 3, 3, 3), (2, 1), (1, 0), 1, 1),
    (3, (1, 2, 5, 4, 6), (3, 2, 2, 3, 2), 1, (0, 1, 0), 1, 1),
]


def _operands(torch, dims, input_shape, weight_shape, stride, padding, dilation, groups):
    """Random input, weight and output gradient (its shape from PyTorch's convolution)."""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(input_shape), rng.standard_normal(weight_shape)
    out = getattr(torch.nn.functional, f"conv{dims}d")(
        torch.tensor(x), torch.tensor(w), None, stride, padding, dilation, groups)
    return x, w, rng.standard_normal(tuple(out.shape))


@pytest.mark.parametrize("case", _CASES, ids=lambda c: f"{c[0]}d-{c[1]}")
def test_input_and_weight_gradients_equal_pytorchs(torch_ref, case):
    dims, input_shape, weight_shape, *options = case
    x, w, gy = _operands(torch_ref, dims, input_shape, weight_shape, *options)
    for name, ours_args, theirs_args in [
        (f"conv{dims}d_input", (input_shape, mt.tensor(w), mt.tensor(gy)),
         (input_shape, torch_ref.tensor(w), torch_ref.tensor(gy))),
        (f"conv{dims}d_weight", (mt.tensor(x), weight_shape, mt.tensor(gy)),
         (torch_ref.tensor(x), weight_shape, torch_ref.tensor(gy))),
    ]:
        ours = getattr(mt.nn.grad, name)(*ours_args, *options)
        theirs = getattr(torch_ref.nn.grad, name)(*theirs_args, *options)
        assert ours.dtype == mt.float64 and not ours.requires_grad
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)


def test_they_equal_backward_and_leave_the_operands_alone(device):
    x = mt.randn(2, 3, 6, 6, device=device, requires_grad=True)
    w = mt.randn(4, 3, 3, 3, device=device, requires_grad=True)
    gy = mt.randn(2, 4, 4, 4, device=device)
    mt.nn.functional.conv2d(x, w).backward(gy)
    with mt.no_grad():  # (they run under no_grad too, as in a training loop's hooks)
        gx = mt.nn.grad.conv2d_input(x.shape, w, gy)
        gw = mt.nn.grad.conv2d_weight(x, w.shape, gy)
    np.testing.assert_allclose(gx.cpu().numpy(), x.grad.cpu().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gw.cpu().numpy(), w.grad.cpu().numpy(), rtol=1e-5, atol=1e-5)


def test_on_meta_they_give_the_shapes():
    w = mt.empty(8, 3, 5, 5, device="meta")
    gy = mt.empty(64, 8, 28, 28, device="meta")
    assert mt.nn.grad.conv2d_input((64, 3, 32, 32), w, gy).shape == (64, 3, 32, 32)
    x = mt.empty(64, 3, 32, 32, device="meta")
    assert mt.nn.grad.conv2d_weight(x, (8, 3, 5, 5), gy).shape == (8, 3, 5, 5)

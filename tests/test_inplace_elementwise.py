"""In-place elementwise methods (``relu_``, ``exp_``, ``pow_``, ...): PyTorch's values, the
tensor itself returned, versions bumped, views written through, and the in-place rules."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt

NAMES = ["relu_", "neg_", "abs_", "exp_", "log_", "sqrt_", "tanh_", "sigmoid_"]
DATA = np.array([[0.25, 1.5, 4.0], [0.75, 2.0, 9.0]], dtype=np.float32)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("name", NAMES)
def test_values_match_torch_and_the_tensor_itself_is_returned(name, device):
    torch = _torch()
    signed = DATA * np.array([1, -1, 1], dtype=np.float32)  # some negatives for relu/abs
    data = DATA if name in ("log_", "sqrt_") else signed
    x, tx = mt.tensor(data, device=device), torch.tensor(data)
    returned = getattr(x, name)()
    getattr(tx, name)()
    assert returned is x and x._version == 1
    np.testing.assert_allclose(x.cpu().numpy(), tx.numpy(), rtol=1e-6)


def test_pow_takes_a_number_or_a_tensor_as_in_torch(device):
    torch = _torch()
    exponent = np.array([2.0, 0.5, 3.0], dtype=np.float32)
    x, tx = mt.tensor(DATA, device=device), torch.tensor(DATA)
    x.pow_(2).pow_(mt.tensor(exponent, device=device))
    tx.pow_(2).pow_(torch.tensor(exponent))
    np.testing.assert_allclose(x.cpu().numpy(), tx.numpy(), rtol=1e-6)
    ints = mt.tensor([2, 3], device=device).pow_(2)
    assert ints.dtype is mt.int64 and ints.tolist() == [4, 9]


def test_a_view_writes_through_to_its_base(device):
    x = mt.tensor(DATA * -1, device=device)
    x[0].relu_()
    assert x[0].tolist() == [0.0, 0.0, 0.0] and x[1].tolist() == (DATA[1] * -1).tolist()


def test_meta_keeps_shape_and_dtype():
    x = mt.empty(2**20, 2**20, device="meta")
    assert x.exp_() is x and x.shape == (2**20, 2**20) and x.is_meta


def test_a_leaf_that_requires_grad_is_refused_unless_under_no_grad():
    x = mt.tensor(DATA, requires_grad=True)
    with pytest.raises(RuntimeError, match="relu_: a leaf Variable that requires grad is being "
                                           "used in an in-place operation"):
        x.relu_()
    with mt.no_grad():
        x.exp_()
    np.testing.assert_allclose(x.detach().numpy(), np.exp(DATA), rtol=1e-6)


def test_a_tensor_inside_a_graph_is_recorded_as_torch(torch_ref):
    grads = []
    for lib in (mt, torch_ref):
        x = lib.tensor(DATA, requires_grad=True)
        h = x * 2
        h.tanh_()
        h.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)


def test_a_float_result_is_not_written_into_an_integer_tensor():
    with pytest.raises(RuntimeError, match="sqrt_: result type Float can't be cast "
                                           "to the desired output type Long"):
        mt.tensor([4, 9]).sqrt_()
    with pytest.raises(RuntimeError, match="pow_: result type Float can't be cast to "
                                           "the desired output type Long"):
        mt.tensor([4, 9]).pow_(0.5)


def test_in_place_writes_into_the_0d_result_of_an_elementwise_op(device):
    """NumPy gives a scalar for an op on 0-d arrays; the result must still be writable."""
    y = mt.tensor(2.0, device=device) * mt.tensor(3.0, device=device)
    assert y.add_(1) is y and y.item() == 7.0
    y.mul_(2)
    assert y.item() == 14.0 and y._version == 2
    z = mt.tensor(2.0, device=device) + 1
    z[...] = 5.0
    assert z.item() == 5.0
    w = mt.tensor(1.0, device=device).exp()
    w.zero_()
    assert w.item() == 0.0


def test_the_0d_result_of_an_op_shares_its_storage_with_its_views(device):
    """A 0-d result (a NumPy scalar before it is wrapped) and its aliases are one storage:
    a write through ``detach()``, ``.data`` or a view shows in the result."""
    for alias in (lambda t: t.detach(), lambda t: t.data, lambda t: t.view(1),
                  lambda t: t.view_as(t)):
        y = mt.tensor(2.0, device=device) * mt.tensor(3.0, device=device)
        alias(y).add_(1)
        assert y.item() == 7.0
    total = mt.tensor([1.0, 2.0], device=device).sum()
    total.detach().zero_()
    assert total.item() == 0.0

"""Regressions found by the second batch of PyTorch-style user scripts (session 23), each
compared with PyTorch."""

import numpy as np
import pytest

import minitorch_meta as mt


def _summed_letter_losses(lib):
    """The char-RNN generator tutorial: ``loss = torch.Tensor([0]); loss += l`` per letter."""
    w = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    loss = lib.Tensor([0])
    for i in range(3):
        loss += (w * (i + 1)).pow(2).sum()
    seen = (loss.grad_fn.name(), loss.is_leaf, loss.requires_grad)
    loss.backward()
    return seen, loss.item(), w.grad.tolist()


def test_inplace_sum_into_a_plain_tensor_is_recorded_as_torch(torch_ref):
    assert _summed_letter_losses(mt) == _summed_letter_losses(torch_ref)


def _inplace_in_graph(lib):
    x = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    h = x * 3
    h.mul_(w)       # saves the old h for w's gradient
    h.sub_(x, alpha=2)
    h.div_(w + 1)
    acc = lib.zeros(3)  # float32 accumulating a float64 result keeps float32
    acc.add_(h)
    (acc * acc).sum().backward()
    return acc.dtype == lib.float32, h.detach().numpy(), x.grad.numpy(), w.grad.numpy()


def test_inplace_arithmetic_in_a_graph_matches_torch(torch_ref):
    ours, theirs = _inplace_in_graph(mt), _inplace_in_graph(torch_ref)
    assert ours[0] and theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_inplace_write_into_a_saved_output_still_fails_backward():
    x = mt.ones(2, requires_grad=True)
    y = x.exp()
    y += 1  # ExpBackward0 saved y
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_recorded_inplace_write_into_a_view_is_refused_not_dropped():
    w = mt.ones(2, requires_grad=True)
    base = mt.zeros(3)
    with pytest.raises(RuntimeError, match="^add_: an in-place operation that autograd must "
                                           "record .* shares its memory with another"):
        base[0:2].add_(w)  # PyTorch would move ``base`` onto the graph too
    leaf = mt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.add_(w)
    with mt.no_grad():
        base[0:2].add_(w)  # not recorded: fine
    assert base.tolist() == [1.0, 1.0, 0.0] and base.grad_fn is None

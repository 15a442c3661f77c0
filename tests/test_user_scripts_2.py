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


def _decoder_outputs_by_assignment(lib):
    """bentrevett's seq2seq: ``outputs = torch.zeros(T, B, V); outputs[t] = output``; then
    masking a graph tensor (``h[mask] = v``) and advanced-index writes."""
    rng = np.random.default_rng(0)
    w = lib.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    outputs = lib.zeros(4, 2, 3, dtype=lib.float64)
    for t in range(3):
        outputs[t] = w * (t + 1)
    outputs[3, :, 1] = w[:, 0] ** 2
    h = outputs * 1
    h[h > 1] = 0.5
    h[..., None, 0] = lib.ones(1, 4, 2, 1, dtype=lib.float64) * w.sum()
    h[[0, 2], 1] = w[0]
    (h ** 2).sum().backward()
    return h.detach().numpy(), w.grad.numpy(), outputs.is_leaf


def test_assignments_into_tensors_are_recorded_as_torch(torch_ref):
    ours, theirs = _decoder_outputs_by_assignment(mt), _decoder_outputs_by_assignment(torch_ref)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    assert ours[2] is theirs[2] is False


def test_assignment_with_a_grad_value_matches_finite_differences():
    from tests.gradcheck import gradcheck

    index = mt.tensor([2, 0])

    def write(x, v):
        out = x * 1
        out[index, 1:] = v
        return out * out

    rng = np.random.default_rng(1)
    assert gradcheck(write, (rng.standard_normal((3, 4)), rng.standard_normal((2, 3))))


def _index_writes_in_a_graph(lib):
    """Transformer and GNN code: ``scores.masked_fill_``, ``index_add_`` of messages,
    ``scatter_`` of one-hot targets, ``buf.copy_(x)``, ``put_`` and ``index_put_``."""
    rng = np.random.default_rng(2)
    x = lib.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    buf = lib.zeros(2, 3, dtype=lib.float64)
    buf.copy_(x[0])  # broadcast from a row
    z = lib.zeros(3, 3, dtype=lib.float64)
    z.index_add_(0, lib.tensor([0, 2]), x * 2)
    z.scatter_(1, lib.tensor([[0], [1], [2]]), 5.0)
    flat = lib.zeros(4, dtype=lib.float64)
    flat.put_(lib.tensor([3, 0]), x[1, :2])
    flat.index_put_((lib.tensor([1]),), x[0, 2:], accumulate=True)
    ((buf ** 2).sum() + (z ** 3).sum() + (flat * lib.arange(4.0)).sum()).backward()
    return x.grad.numpy(), z.detach().numpy(), flat.detach().numpy()


def test_index_writes_are_recorded_as_torch(torch_ref):
    ours, theirs = _index_writes_in_a_graph(mt), _index_writes_in_a_graph(torch_ref)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12)

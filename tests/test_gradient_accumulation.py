"""How the engine sums the gradients that meet at a node: slices of ``x[index]`` added in
place at their index (``IndexedGradient``), and the buffer it owns never shared."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.gradcheck import gradcheck


def _pieces_loss(T, x):
    """Weighted sums of x's pieces taken every way ``x[index]`` can: unbind, int select,
    slices, Ellipsis, a repeated integer index, a boolean mask, plus x itself."""
    rows = x.unbind(0)
    loss = sum((k + 1) * (rows[k] ** 2).sum() for k in range(len(rows)))
    loss = loss + (x[1:, ::2] * 3).sum() + x[..., 0].sum() + x * 0.5
    loss = loss.sum() + x[T.tensor([0, 0, 2])].exp().sum()
    return loss + x[x > 0].sum() + sum(piece.sum() * 2 for piece in x.split(1, dim=1))


def test_every_kind_of_index_sums_to_torchs_gradient(device):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal((3, 4))
    x = mt.tensor(data, device=device, requires_grad=True)
    _pieces_loss(mt, x).backward()
    expected = torch.tensor(data, requires_grad=True)
    _pieces_loss(torch, expected).backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), expected.grad.numpy(), rtol=1e-12)


def test_unbound_slices_pass_float64_gradcheck(device):
    data = np.random.default_rng(1).standard_normal((4, 3, 2))
    gradcheck(lambda x: mt.stack([r * (k + 1) for k, r in enumerate(x.unbind(1))], 0),
              [data], device=device)


def test_zero_dim_slices_and_fan_out(device):
    x = mt.tensor([1.5, -2.0], device=device, requires_grad=True)
    (x[0] * x[1] + x[0] + x[1] ** 2 + x.sum()).backward()
    assert x.grad.tolist() == [-2.0 + 1 + 1, 1.5 - 4.0 + 1]


def test_unbind_writes_the_full_gradient_once(monkeypatch):
    """The slices of an unbind are added at their index: one full-size write in all, not
    one per slice (which made a 100-slice backward cost 100 times the input's size)."""
    x = mt.randn(50, 8, requires_grad=True)
    backend = x._backend
    calls = []
    full_size = backend.index_add
    monkeypatch.setattr(backend, "index_add",
                        lambda *args: calls.append(args[0]) or full_size(*args))
    sum(row.sum() for row in x.unbind(0)).backward()
    assert calls == [(50, 8)]
    assert x.grad.tolist() == np.ones((50, 8)).tolist()


def test_a_summed_gradient_is_never_shared_between_tensors(device):
    # x + y hands one gradient array to both; x also gets a second one, so its sum lands
    # in a buffer of the engine's, which x.grad takes without a copy: y must not see it.
    x = mt.zeros(3, device=device, requires_grad=True)
    y = mt.zeros(3, device=device, requires_grad=True)
    ((x + y).sum() + x[1]).backward()
    x.grad.add_(10)
    assert y.grad.tolist() == [1.0, 1.0, 1.0]
    assert x.grad.tolist() == [11.0, 12.0, 11.0]


def test_a_hook_keeps_the_gradient_it_was_given(device):
    seen = []
    x = mt.zeros(3, device=device, requires_grad=True)
    x.register_hook(seen.append)
    (x[0] + x[1:].sum() + x.sum()).backward()
    x.grad.zero_()
    assert seen[0].tolist() == [2.0, 2.0, 2.0]


def test_meta_shapes_through_slices():
    x = mt.empty(5, 4, device="meta", requires_grad=True)
    sum(r.sum() for r in x.unbind(1)).backward()
    assert x.grad.shape == (5, 4) and x.grad.device.type == "meta"

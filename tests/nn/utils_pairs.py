"""Helpers for the nn.utils tests: the same layer in minitorch_meta and in PyTorch, and
comparisons of tensors across the two."""

from __future__ import annotations

import numpy as np

import minitorch_meta as mt


def to_numpy(tensor) -> np.ndarray:
    return tensor.detach().cpu().numpy()


def copy_state(ours, theirs, device) -> None:
    """Give ``ours`` the values of every tensor of ``theirs`` (same state_dict keys)."""
    state = {k: mt.tensor(v.detach().numpy(), device=device)
             for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)


def pair(torch_ref, device, ours_cls, theirs_cls, *args, dtype="float64", **kwargs):
    """``ours_cls(*args)`` on ``device`` and ``theirs_cls(*args)``, with equal parameters."""
    theirs = theirs_cls(*args, **kwargs).to(getattr(torch_ref, dtype))
    ours = ours_cls(*args, **kwargs).to(device=device, dtype=getattr(mt, dtype))
    copy_state(ours, theirs, device)
    return ours, theirs


def assert_close(ours, theirs, rtol=1e-7, atol=1e-9) -> None:
    np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=rtol, atol=atol)


def same_input(torch_ref, device, *shape, seed=0):
    """A float64 random input, equal in both libraries."""
    value = np.random.default_rng(seed).standard_normal(shape)
    return mt.tensor(value, device=device), torch_ref.tensor(value)

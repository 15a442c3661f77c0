"""What the torch.func tests share: nested tuples/lists/dicts of tensors as NumPy arrays,
and their comparison with the same nesting from PyTorch."""

from __future__ import annotations

import numpy as np


def as_numpy(tree):
    """Nested tuples/lists/dicts of tensors as the same nesting of NumPy arrays."""
    if isinstance(tree, dict):
        return {k: as_numpy(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(as_numpy(v) for v in tree)
    return tree.detach().cpu().numpy()


def assert_trees_close(ours, ref, rtol: float, atol: float = 1e-12) -> None:
    """Same nesting (types, keys in order, lengths) and close arrays of equal shapes."""
    assert type(ours) is type(ref)
    if isinstance(ours, dict):
        assert list(ours) == list(ref)
        for key in ours:
            assert_trees_close(ours[key], ref[key], rtol, atol)
    elif isinstance(ours, (tuple, list)):
        assert len(ours) == len(ref)
        for a, b in zip(ours, ref):
            assert_trees_close(a, b, rtol, atol)
    else:
        assert ours.shape == ref.shape
        np.testing.assert_allclose(ours, ref, rtol=rtol, atol=atol)

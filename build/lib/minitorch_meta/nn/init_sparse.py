"""``nn.init.sparse_``: Martens' (2010) sparse initialisation of a 2-D weight."""

from __future__ import annotations

import math

from ..autograd import no_grad
from ..tensor import Tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Fill the 2-D ``tensor`` with samples of N(0, std²), then set ``ceil(sparsity * rows)``
    entries of each column to zero, at rows chosen at random per column (PyTorch 2.13's
    algorithm). In place, without recording autograd; returns ``tensor``. A no-op on meta
    (after the rank check).

    Shape:
        ``(rows, cols)``.

    Raises:
        ValueError: ``tensor`` does not have 2 dimensions (PyTorch's message), or
            ``sparsity`` is NaN.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    # PyTorch takes ``randperm(rows)[:ceil(sparsity * rows)]``: the slice clamps a count above
    # ``rows`` and counts a negative one from the end, and so does this one.
    zeros_per_column = len(range(rows)[:math.ceil(sparsity * rows)])
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        if zeros_per_column and cols:
            # the first rows of an argsort of uniform keys: a random permutation per column
            keys = tensor.new_empty((rows, cols)).uniform_(generator=generator)
            chosen_rows = keys.argsort(dim=0)[:zeros_per_column]
            tensor.scatter_(0, chosen_rows, 0.0)
    return tensor

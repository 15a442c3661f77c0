"""Tensors built from others by position: ``block_diag``, ``meshgrid``, ``cartesian_prod``,
``combinations`` and ``vander``.

``block_diag`` and ``vander`` are ops of their own (``ops/block_diag.py``,
``ops/vander.py``); the others are PyTorch's compositions (``meshgrid``: reshape and
expand; ``cartesian_prod``: meshgrid, flatten, stack; ``combinations``: ``index_select``
at each chosen position, then stack), so their gradients come from those ops. The
positions ``combinations`` picks depend only on the length, never on the values, so
meta runs it too.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from . import functions as F
from .caller_warnings import warn_at_caller
from .ops import shapes
from .ops.block_diag import BlockDiag
from .ops.vander import Vander
from .tensor_arguments import require_tensor_list


def block_diag(*tensors):
    """The tensors (0-d, 1-D as a row, or 2-D) as the diagonal blocks of a zero matrix.

    Shape:
        ``(sum of rows, sum of columns)``; no tensor gives an empty ``(1, 0)`` float32.
    """
    require_tensor_list("block_diag", tensors)
    if not tensors:
        from .factories import zeros

        return zeros(1, 0)
    return BlockDiag()(*tensors)


def _tensor_list(op: str, tensors) -> list:
    """``f(a, b)`` and ``f([a, b])`` alike; at least one tensor."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    require_tensor_list(op, tensors)
    return tensors


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids of 0-D or 1-D tensors: output ``k`` holds ``tensors[k]`` along its
    own dim, repeated along the others. ``indexing='ij'`` gives dims in the inputs'
    order; ``'xy'`` swaps the first two (Cartesian, as NumPy's default). Omitting
    ``indexing`` means ``'ij'``, with PyTorch's warning.

    Shape:
        every output is ``(n0, n1, ...)`` (``'xy'``: ``(n1, n0, ...)``), ``nk`` the number
        of elements of ``tensors[k]``.
    """
    tensors = _tensor_list("meshgrid", tensors)
    if indexing is None:
        warn_at_caller("torch.meshgrid: in an upcoming release, it will be required to pass the "
                       "indexing argument.", UserWarning)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    for t in tensors:
        if t.dim() > 1:
            raise shapes.ShapeRuntimeError("torch.meshgrid", f"Expected 0D or 1D tensor in the "
                                                             f"tensor list but got a tensor of "
                                                             f"shape {shapes.fmt(t.shape)}")
        shapes.require_same_dtype("meshgrid", "the first tensor", tensors[0].dtype,
                                  "another", t.dtype)
    # 'xy' lays the first two inputs along dims 1 and 0
    places = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        places[0], places[1] = 1, 0
    sizes = [0] * len(tensors)
    for t, place in zip(tensors, places):
        sizes[place] = t.numel()
    grids = []
    for t, place in zip(tensors, places):
        column = F.reshape(t, tuple(size if d == place else 1 for d, size in enumerate(sizes)))
        grids.append(column.expand(*sizes))
    return tuple(grids)


def _require_vector(op: str, t) -> None:
    if t.dim() != 1:
        raise shapes.ShapeRuntimeError(op, f"Expect a 1D vector, but got shape "
                                           f"{shapes.fmt(t.shape)}")


def cartesian_prod(*tensors):
    """Every tuple of one element from each 1-D tensor, in order (``itertools.product``),
    one per row; a single tensor is returned as it is.

    Shape:
        ``(n0 * n1 * ..., number of tensors)``, or ``(n0,)`` for one tensor.
    """
    tensors = _tensor_list("meshgrid", tensors)  # (PyTorch names meshgrid in its errors)
    for t in tensors:
        _require_vector("cartesian_prod", t)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return F.stack([F.flatten(g) for g in grids], 1)


def combinations(input, r: int = 2, with_replacement: bool = False):
    """Every choice of ``r`` elements of a 1-D tensor, in order (``itertools.combinations``,
    or ``combinations_with_replacement``), one per row.

    Shape:
        ``(C(n, r), r)`` (with replacement ``(C(n + r - 1, r), r)``); ``r = 0`` gives an
        empty ``(0,)`` tensor.
    """
    _require_vector("combinations", input)
    if r < 0:
        raise RuntimeError(f"combinations: Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    from .factories import tensor

    picks = tensor(combination_positions(input.shape[0], r, with_replacement),
                   dtype=dtypes.int64, device=input.device)
    return F.stack([F.index_select(input, 0, picks[:, c]) for c in range(r)], 1)


def combination_positions(n: int, r: int, with_replacement: bool = False) -> np.ndarray:
    """The positions ``itertools.combinations(range(n), r)`` (or
    ``combinations_with_replacement``) picks, in its order, as an int64 ``(rows, r)`` NumPy
    array, built a column at a time: each row is followed by every position after its last
    one (or from it, with replacement). O(rows * r) work, no Python loop over the rows."""
    if r == 0:  # one choice: the empty one
        return np.empty((1, 0), np.int64)
    rows = np.arange(n, dtype=np.int64)[:, None]
    for _ in range(r - 1):
        first = rows[:, -1] + (0 if with_replacement else 1)  # each row's next allowed position
        counts = n - first
        starts = np.cumsum(counts) - counts  # where each row's continuations begin
        following = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(starts, counts)
        rows = np.concatenate([np.repeat(rows, counts, axis=0),
                               (np.repeat(first, counts) + following)[:, None]], axis=1)
    return rows


def vander(x, N: int | None = None, increasing: bool = False):
    """The Vandermonde matrix of a vector: columns ``x ** (N - 1), ..., x, 1`` (or
    ``1, x, ..., x ** (N - 1)`` with ``increasing``).

    Shape:
        ``(n,) -> (n, N)``, ``N`` the length of ``x`` unless given; integer and bool
        inputs give int64.
    """
    columns = x.shape[0] if N is None and x.dim() == 1 else N
    if columns == 0:  # no column depends on x: PyTorch's result has no grad_fn either
        x = x.detach()
    return Vander(N=N, increasing=increasing)(x)

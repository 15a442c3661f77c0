"""``torch.embedding_bag``: PyTorch's native entry point of ``F.embedding_bag``, with its
positional arguments (``mode`` an int code) and its four outputs
``(output, offset2bag, bag_size, max_indices)``.

The output is ``F.embedding_bag``'s op (``ops/embedding_bag.py``), so its values and
gradients are that op's. The three other outputs are int64 bookkeeping that PyTorch's
kernel returns for its backward; they are computed beside it, without a graph, from the
indices, offsets and output, with PyTorch's shapes and contents in each mode:

============  ==========================  ======================  =========================
mode          offset2bag ``(n,)``         bag_size ``(B,)``       max_indices
============  ==========================  ======================  =========================
0 (sum)       empty (``(n,)`` with a      zeros                   zeros ``(B,)``
              ``padding_idx``)
1 (mean)      each index's bag            indices per bag,        bag_size
                                          padding left out
2 (max)       each index's bag            as mean                 ``(B, D)``: the row of
                                                                  each column's maximum (0
                                                                  for an empty bag)
============  ==========================  ======================  =========================
"""

from __future__ import annotations

from . import dtypes
from .autograd import no_grad
from .factories import arange, zeros
from .native_arguments import int_argument
from .nn.embedding_bag import _padding_row
from .ops import embedding as embedding_ops
from .ops import embedding_bag as bag_ops
from .tensor import Tensor
from .tensor_arguments import require_tensors

MODE_CODES = {0: "sum", 1: "mean", 2: "max"}


def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor,
                  scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The ``mode`` (0 sum, 1 mean, 2 max) of ``weight``'s rows over each bag of the 1-D
    ``indices`` (bag ``b`` starts at ``offsets[b]``; with ``include_last_offset`` the last
    offset closes the last bag), with PyTorch's bookkeeping outputs (see the module's
    docstring). ``padding_idx`` (negative counts from the end) is left out of every bag.

    Shape:
        weight ``(num_embeddings, D)``, indices ``(n,)``, offsets ``(B,)`` (``(B + 1,)``
        with ``include_last_offset``) -> output ``(B, D)``, offset2bag ``(n,)`` (``(0,)``
        in sum mode without padding), bag_size ``(B,)``, max_indices ``(B, D)`` in max
        mode, else ``(B,)``.

    Raises:
        TypeError for a ``mode`` that is not an int; RuntimeError for an unknown mode,
        ``per_sample_weights`` outside sum mode, offsets that are not 1-D, indices that
        are not 1-D, a ``padding_idx`` outside the table, and the op's errors;
        NotImplementedError for ``sparse=True``.
    """
    require_tensors("embedding_bag", ("weight", weight), ("indices", indices),
                    ("offsets", offsets))
    name = _mode_name(mode)
    if per_sample_weights is not None and name != "sum":
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    if offsets.dim() != 1:
        raise RuntimeError(f"offsets has to be a 1D Tensor, but got Tensor of dimension "
                           f"{offsets.dim()}")
    if indices.dim() != 1:  # PyTorch reads a 2-D input's first dim only: refused here
        raise RuntimeError(f"embedding_bag: expected 1-D indices with 1-D offsets, but got "
                           f"indices of dimension {indices.dim()}; flatten them and give "
                           "each bag's start in offsets")
    embedding_ops.check_supported(sparse)
    padding = _padding_row(padding_idx, weight.shape[0])
    op = bag_ops.EmbeddingBag(mode=name, scale_grad_by_freq=scale_grad_by_freq,
                              include_last_offset=include_last_offset, padding_idx=padding)
    extra = () if per_sample_weights is None else (per_sample_weights,)
    output = op(weight, indices, offsets, *extra)
    with no_grad():
        return (output,) + _bookkeeping(name, output.detach(), weight.detach(), indices,
                                        offsets, padding, include_last_offset)


def _mode_name(mode) -> str:
    mode = int_argument("embedding_bag", "mode", 5, mode)
    if mode not in MODE_CODES:
        raise RuntimeError("`mode` must be sum, mean, or max.")
    return MODE_CODES[mode]


def _bookkeeping(name: str, output, weight, indices, offsets, padding, include_last_offset):
    """``(offset2bag, bag_size, max_indices)`` as PyTorch's kernel returns them."""
    bags, device = output.shape[0], output.device
    n = indices.shape[0]
    counts = zeros(bags, dtype=dtypes.int64, device=device)
    if name == "sum":
        positions = _offset2bag(indices, offsets, bags, include_last_offset)
        # PyTorch fills offset2bag in sum mode only when it must skip a padding index
        offset2bag = positions if padding is not None else positions[:0]
        return offset2bag, counts, zeros(bags, dtype=dtypes.int64, device=device)
    offset2bag = _offset2bag(indices, offsets, bags, include_last_offset)
    kept = offset2bag >= 0  # without bags (no offsets), an index belongs to none: -1
    if padding is not None:
        kept = kept & (indices != padding)
    if bags and n:
        counts = counts.index_add(0, offset2bag.clamp(min=0), kept.to(dtypes.int64))
    if name == "mean":
        return offset2bag, counts, counts.clone()
    return offset2bag, counts, _max_rows(output, weight, indices, offset2bag, kept)


def _offset2bag(indices, offsets, bags: int, include_last_offset: bool):
    """Each index's bag: how many offsets lie at or before it, minus one. With
    ``include_last_offset``, indices after the last offset count in the last bag, as
    PyTorch's ``offset2bag`` says (its float32 kernel leaves them out of the output)."""
    n, device = indices.shape[0], indices.device
    marks = zeros(n + 1, dtype=dtypes.int64, device=device)
    if offsets.shape[0]:
        marks = marks.index_add(0, offsets.to(dtypes.int64).clamp(max=n),
                                zeros(offsets.shape[0], dtype=dtypes.int64,
                                      device=device) + 1)
    positions = marks.cumsum(0)[:n] - 1
    if include_last_offset and bags:
        positions = positions.clamp(max=bags - 1)
    return positions


def _max_rows(output, weight, indices, offset2bag, kept):
    """``(B, D)``: per bag and column, the table row whose value is the bag's maximum (its
    first position in the bag), 0 for a bag without indices."""
    (bags, columns), n = output.shape, indices.shape[0]
    device = output.device
    if not bags or not n or not columns:
        return zeros(bags, columns, dtype=dtypes.int64, device=device)
    bag = offset2bag.clamp(min=0)
    rows = weight[indices.to(dtypes.int64)]  # (n, D)
    wins = (rows == output[bag]) & kept.reshape(n, 1)
    position = arange(n, dtype=dtypes.int64, device=device).reshape(n, 1).expand(n, columns)
    first = zeros(bags, columns, dtype=dtypes.int64, device=device) + n
    first = first.scatter_reduce(0, bag.reshape(n, 1).expand(n, columns),
                                 position.masked_fill(~wins, n), "amin")
    found = first < n
    return (indices.to(dtypes.int64)[first.clamp(max=n - 1)]).masked_fill(~found, 0)


__all__ = ["embedding_bag"]

"""``unsafe_chunk``, ``unsafe_split`` and ``unsafe_split_with_sizes``: ``chunk`` and ``split``
whose pieces are not tracked as views.

The pieces are the same slices of the input's memory as ``split``'s (``ops/split.py``),
with PyTorch's sizes, checks and messages. What PyTorch leaves out is the view tracking: each
piece gets its own version counter, so writing into a piece in place does not bump the
input's version (nor the other pieces'), and its ``grad_fn`` is ``UnsafeSplitBackward0``
(``UnsafeSplitWithSizesBackward0`` for listed sizes and for chunks of an empty dim).
"""

from __future__ import annotations

from .ops import shapes
from .ops.split import (
    _first_axis,
    as_int,
    check_sections,
    chunk_sizes,
    narrow_pieces,
    split_sizes,
)

_SIZES_NAME = {"SplitBackward0": "UnsafeSplitBackward0",
               "SplitWithSizesBackward0": "UnsafeSplitWithSizesBackward0"}


def _untracked(input, axis: int, sizes: list[int], backward_name: str) -> tuple:
    """``split``'s pieces of ``sizes`` along ``axis``, each with a version counter of its
    own (PyTorch's unsafe pieces are not views to autograd)."""
    pieces = narrow_pieces(input, axis, sizes, backward_name)
    for piece in pieces:
        piece._version_counter = None  # made fresh on first need
    return pieces


def unsafe_split(input, split_size: int, dim: int = 0) -> tuple:
    """``split`` into pieces of ``split_size`` (the last may be smaller), not tracked as
    views.

    Shape:
        piece ``i`` is the input's shape with its length along ``dim``.
    """
    split_size = as_int("unsafe_split", "split_size", split_size)
    axis = _first_axis("split", input, dim)
    return _untracked(input, axis, split_sizes(input._data.shape[axis], split_size),
                      "UnsafeSplitBackward0")


def unsafe_split_with_sizes(input, split_sizes, dim: int = 0) -> tuple:
    """``split_with_sizes``: pieces of the listed lengths (adding up to the dim's), not
    tracked as views.

    Shape:
        piece ``i`` is the input's shape with ``split_sizes[i]`` along ``dim``.
    """
    sizes = list(shapes.int_tuple_argument("unsafe_split_with_sizes", "split_sizes", 2,
                                           split_sizes))
    axis = _first_axis("split_with_sizes", input, dim)
    return _untracked(input, axis, check_sections(input._data.shape[axis], axis, sizes),
                      "UnsafeSplitWithSizesBackward0")


def unsafe_chunk(input, chunks: int, dim: int = 0) -> tuple:
    """``chunk``: at most ``chunks`` pieces of ``ceil(length / chunks)``, not tracked as
    views.

    Shape:
        piece ``i`` is the input's shape with its length along ``dim``.
    """
    chunks = as_int("unsafe_chunk", "chunks", chunks)
    axis = _first_axis("chunk", input, dim)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    sizes, backward_name = chunk_sizes(input._data.shape[axis], chunks)
    return _untracked(input, axis, sizes, _SIZES_NAME[backward_name])


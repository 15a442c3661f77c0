"""``split``, ``chunk`` and ``unbind``: a tensor cut along one dim into views.

No new kernel: each piece is basic indexing (a slice along the dim, or an int for
``unbind``) run as a ``GetItem``, so it works on every backend through GetItem's shape
rule, shares the input's version counter (a view, as in PyTorch) and differentiates
through GetItem's backward. Only the piece sizes are this file's own rule (PyTorch's), and
each piece's ``grad_fn`` shows PyTorch's name (``SplitBackward0``, ...).

PyTorch gives all pieces one graph node; here each piece has its own. GetItem's backward
sends an ``IndexedGradient``, which the engine adds into one buffer at its index, so a
backward through ``n`` pieces costs one input's size, not ``n``. The pieces' nodes are
numbered as PyTorch's outputs (``output_nr``), and the first stands for them all in
``next_functions`` (``graph_node.number_outputs``).
"""

from __future__ import annotations

import operator

from ..autograd.graph_node import number_outputs
from ..int_arguments import as_int
from . import shapes
from .layout import GetItem


def split_sizes(length: int, split_size: int) -> list[int]:
    """The lengths of ``split(split_size)`` over a dim of ``length``: pieces of
    ``split_size``, the last one smaller, and always at least one piece (PyTorch's rule).

    Raises:
        RuntimeError for a negative ``split_size``, or 0 over a non-empty dim.
    """
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if split_size == 0:
        if length != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {length}")
        return [0]
    count = max(-(-length // split_size), 1)
    return [split_size] * (count - 1) + [length - split_size * (count - 1)]


def check_sections(length: int, axis: int, sections: list[int]) -> list[int]:
    """``sections`` when they are lengths >= 0 that add up to ``length`` (dim ``axis``).

    Raises:
        RuntimeError otherwise, with PyTorch's message.
    """
    if any(s < 0 for s in sections):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={sections}")
    if sum(sections) != length:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {length} "
                           f"(input tensor's size at dimension {axis}), but got "
                           f"split_sizes={sections}")
    return sections


def chunk_sizes(length: int, chunks: int) -> tuple[list[int], str]:
    """The lengths of ``chunk(chunks)`` and PyTorch's ``grad_fn`` name for them: pieces of
    ``ceil(length / chunks)``, so there may be fewer than ``chunks`` of them; an empty dim
    gives ``chunks`` empty pieces."""
    size = -(-length // chunks)
    if size == 0 and length == 0:
        return [0] * chunks, "SplitWithSizesBackward0"
    return split_sizes(length, size), "SplitBackward0"


def sections_of(split_size_or_sections) -> int | list[int]:
    """``split``'s second argument as an int or a list of ints, as PyTorch reads it: a 0-d
    tensor is an int, a 1-d tensor a list of sizes."""
    value = split_size_or_sections
    if hasattr(value, "_data"):  # a Tensor: its values (a meta tensor has none and says so)
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [as_int("split_with_sizes", "split_sizes", s) for s in value]
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"split(): argument 'split_size_or_sections' must be an int or a "
                        f"sequence of ints, but got {type(value).__name__} ({value!r})")
    return operator.index(value)


def _first_axis(op: str, input, dim: int) -> int:
    """``dim`` normalised against a tensor that must have at least one dimension."""
    ndim = input._data.ndim
    if ndim == 0:
        raise RuntimeError(f"{op} expects at least a 1-dimensional tensor")
    return shapes.normalize_dim(op, as_int(op, "dim", dim), ndim)


def _named(pieces: list, backward_name: str) -> tuple:
    """The pieces as a tuple, their nodes named as PyTorch's split (``Function.show_as``)."""
    for piece in pieces:
        if piece.grad_fn is not None:
            piece.grad_fn.show_as(backward_name)
    return tuple(pieces)


def narrow_pieces(input, axis: int, sizes: list[int], backward_name: str) -> tuple:
    """Consecutive views of ``input`` along ``axis`` of the given lengths.

    Shape:
        piece ``i`` is the input's shape with ``sizes[i]`` along ``axis``.
    """
    lead = (slice(None),) * axis
    pieces, start = [], 0
    for size in sizes:
        index = lead + (slice(start, start + size),)
        pieces.append(GetItem(index, index)(input))
        start += size
    number_outputs(pieces)
    return _named(pieces, backward_name)


def split(input, split_size_or_sections, dim: int = 0) -> tuple:
    """PyTorch's ``split``: pieces of one size (the last smaller), or of listed sizes."""
    sections = sections_of(split_size_or_sections)
    axis = _first_axis("split", input, dim)
    length = input._data.shape[axis]
    if isinstance(sections, int):
        return narrow_pieces(input, axis, split_sizes(length, sections), "SplitBackward0")
    return narrow_pieces(input, axis, check_sections(length, axis, sections),
                         "SplitWithSizesBackward0")


def chunk(input, chunks: int, dim: int = 0) -> tuple:
    """PyTorch's ``chunk``: ``split`` into pieces of ``ceil(length / chunks)``."""
    chunks = as_int("chunk", "chunks", chunks)
    axis = _first_axis("chunk", input, dim)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    sizes, backward_name = chunk_sizes(input._data.shape[axis], chunks)
    return narrow_pieces(input, axis, sizes, backward_name)


def unbind(input, dim: int = 0) -> tuple:
    """PyTorch's ``unbind``: every slice along ``dim``, that dim removed.

    Shape:
        ``input.shape[dim]`` pieces, each the input's shape without ``dim``.
    """
    dim = as_int("unbind", "dim", dim)
    if input._data.ndim == 0:
        raise IndexError(f"unbind: Dimension specified as {dim} but tensor has no dimensions")
    axis = shapes.normalize_dim("unbind", dim, input._data.ndim)
    lead = (slice(None),) * axis
    pieces = [GetItem(lead + (i,), lead + (i,))(input) for i in range(input._data.shape[axis])]
    number_outputs(pieces)
    return _named(pieces, "UnbindBackward0")

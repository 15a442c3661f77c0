"""``channel_shuffle``: the channels of ``(N, C, *)`` split into ``g`` groups and interleaved
(ShuffleNet), so the next grouped convolution sees channels of every group.

One reshape, transpose and copy of the channel axis as ``(g, C / g)``; the gradient is the
inverse interleaving, the same op with ``C / g`` groups.
"""

from __future__ import annotations

import math

from .function import Function
from .shapes import ShapeRuntimeError


def shuffle_channels(backend, a, groups: int):
    """``a`` ``(N, C, *)`` with channel ``i * (C / groups) + j`` moved to ``j * groups + i``,
    as a new C-ordered array."""
    N, C = a.shape[:2]
    if C == 0:  # nothing to move (and backward's ``C / groups`` groups would be 0)
        return backend.copy(a)
    grouped = backend.reshape(a, (N, groups, C // groups, math.prod(a.shape[2:])))
    swapped = backend.copy(backend.transpose(grouped, (0, 2, 1, 3)))
    return backend.reshape(swapped, a.shape)


class ChannelShuffle(Function):
    """``out[:, j * g + i] = x[:, i * (C / g) + j]`` for the ``g`` groups of ``C / g``
    channels.

    Shape:
        ``(N, C, *)`` with at least one dim after ``C`` -> the same shape and dtype;
        ``C`` divisible by ``groups``.

    Raises:
        ShapeRuntimeError (a RuntimeError, PyTorch's type): fewer than 3 dims, ``groups`` not
        positive, or ``C`` not divisible by it.
    """

    op_name, backward_name = "channel_shuffle", "ChannelShuffleBackward0"
    groups = 1

    def infer(self, x):
        shape, groups = tuple(x._data.shape), self.groups
        if len(shape) < 3:
            raise ShapeRuntimeError(self.op_name, f"expects input with > 2 dims (N, C, *), but "
                                                  f"got input with sizes {list(shape)}")
        if groups <= 0:
            raise ShapeRuntimeError(self.op_name, "Number of groups to divide channels in "
                                                  f"must be positive. Value of groups:{groups}")
        if shape[1] % groups:
            raise ShapeRuntimeError(self.op_name, "Number of channels must be divisible by "
                                                  f"groups. Got {shape[1]} channels and "
                                                  f"{groups} groups.")
        return shape, x._dtype

    def forward(self, backend, x):
        return shuffle_channels(backend, x, self.groups)

    def backward(self, backend, gy):
        return (shuffle_channels(backend, gy, gy.shape[1] // self.groups),)

    def backward_graph(self, grad):
        # the inverse shuffle: as many groups as forward's groups had channels
        return (ChannelShuffle(groups=grad.shape[1] // self.groups)(grad),)

"""``F.channel_shuffle`` and ``nn.ChannelShuffle``: the channels of ``(N, C, *)`` split into
groups and interleaved, as ShuffleNet does between grouped convolutions (the op is
``ops/channel_shuffle.py``)."""

from __future__ import annotations

from ..int_arguments import is_int
from ..ops.channel_shuffle import ChannelShuffle as _ChannelShuffleOp
from ..tensor import Tensor
from .module import Module


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Split the ``C`` channels into ``groups`` groups and interleave them: channel
    ``i * (C / groups) + j`` moves to ``j * groups + i`` (``ChannelShuffleBackward0``).

    Shape:
        ``(N, C, *)`` -> ``(N, C, *)``, at least 3 dims, ``C`` divisible by ``groups``.

    Raises:
        TypeError: ``groups`` is not an int (PyTorch's message).
        RuntimeError: fewer than 3 dims, ``groups`` not positive, ``C`` not divisible.
    """
    if not is_int(groups):
        raise TypeError(f"channel_shuffle(): argument 'groups' (position 2) must be int, not "
                        f"{type(groups).__name__}")
    return _ChannelShuffleOp(groups=groups)(input)


class ChannelShuffle(Module):
    """Interleave the channels of ``groups`` groups (``F.channel_shuffle``).

    Shape:
        ``(N, C, *)`` -> ``(N, C, *)``, ``C`` divisible by ``groups``.
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"

"""``nn.init``'s identity initialisers: ``eye_`` (a ``Linear`` layer that passes its
inputs through) and ``dirac_`` (a convolution that does, per group of channels)."""

from __future__ import annotations

from ..autograd import no_grad
from ..factories import eye
from ..tensor import Tensor


def eye_(tensor: Tensor) -> Tensor:
    """Fill the 2-D ``tensor`` with the identity matrix (ones at ``[i, i]``, zeros elsewhere),
    in place and without recording autograd; returns it.

    Shape:
        ``(out_features, in_features)``; as many inputs as fit are preserved.

    Raises:
        ValueError: ``tensor`` does not have 2 dimensions (PyTorch's message).
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a convolution weight with the Dirac delta: output channel ``d`` of each group
    reads input channel ``d`` at the kernel's centre (``size // 2`` along each spatial dim),
    everything else 0, so the convolution copies as many channels as fit. In place, without
    recording autograd; returns ``tensor``. A no-op on meta (after the checks).

    Shape:
        ``(out_channels, in_channels / groups, *kernel)`` with 1, 2 or 3 kernel dims.

    Raises:
        ValueError: ``tensor`` does not have 3, 4 or 5 dims, ``out_channels`` is not
            divisible by ``groups`` (PyTorch's messages), or ``groups`` is not positive
            (PyTorch divides by zero, or leaves zeros, there).
        IndexError: a kernel dim is empty (no centre to write), as in PyTorch.
    """
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if not groups >= 1:
        raise ValueError(f"dirac_: groups must be a positive number of channel groups, got "
                         f"{groups}")
    out_channels, in_channels, *kernel = tensor.shape
    if out_channels % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor
    per_group = out_channels // groups
    kept = min(per_group, in_channels)
    # One write of every (output channel, input channel) pair, at the kernel's centre.
    outputs = [g * per_group + d for g in range(groups) for d in range(kept)]
    inputs = [d for _ in range(groups) for d in range(kept)]
    centre = tuple(size // 2 for size in kernel)
    with no_grad():
        tensor.zero_()
        if outputs:
            tensor[(outputs, inputs) + centre] = 1
    return tensor

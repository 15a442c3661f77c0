"""Channel dropout: ``F.dropout2d`` and ``nn.Dropout2d`` zero whole feature maps.

One random draw per (sample, channel), broadcast over the rest, under ``F.dropout``'s
conventions: kept where a uniform draw is ``>= p``, scaled by ``1 / (1 - p)``, the identity
when not training, and an optional ``generator`` for reproducible masks.
"""

from __future__ import annotations

import warnings

from ..factories import rand
from ..tensor import Tensor
from .module import Module


def _check_probability(p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False,
              generator=None) -> Tensor:
    """Zero each channel ``input[n, c]`` with probability ``p``; scale the rest by
    ``1 / (1 - p)``. ``inplace`` is accepted and returns a new tensor.

    As in PyTorch 2.13, a 3-D input is read as ``(N, C, L)`` (with its warning), not as an
    unbatched ``(C, H, W)``; inputs that are not 3-D or 4-D warn that this is deprecated.

    Shape:
        ``(N, C, H, W)`` or ``(N, C, L)`` -> unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
        RuntimeError: the input has fewer than 2 dimensions.
    """
    _check_probability(p)
    ndim = input.dim()
    _warn_about_rank(ndim)
    # PyTorch's order: these return before the rank is checked (a 1-D input passes them)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input * 0.0
    if ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape)
    noise_shape = shape[:2] + (1,) * (ndim - 2)
    keep = rand(noise_shape, generator=generator, dtype=input.dtype, device=input.device) >= p
    return input * keep * (1.0 / (1.0 - p))


def _warn_about_rank(ndim: int) -> None:
    """PyTorch's two warnings; stacklevel 3 points at the caller of ``dropout2d``."""
    if ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", UserWarning,
            stacklevel=3)
    if ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning, stacklevel=3)


class Dropout2d(Module):
    """Zero whole channels with probability ``p`` while training (``dropout2d``); the
    identity in eval mode. ``inplace`` is accepted; the result is always a new tensor.

    Shape:
        ``(N, C, H, W)`` -> unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        _check_probability(p)
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return dropout2d(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"

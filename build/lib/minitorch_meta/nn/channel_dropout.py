"""Channel dropout: ``F.dropout1d``/``2d``/``3d`` and ``nn.Dropout1d``/``2d``/``3d`` zero
whole feature maps.

One random draw per (sample, channel), broadcast over the rest, under ``F.dropout``'s
conventions: kept where a uniform draw is ``>= p``, scaled by ``1 / (1 - p)``, the identity
when not training, and an optional ``generator`` for reproducible masks.
"""

from __future__ import annotations

from ..caller_warnings import warn_at_caller
from ..factories import rand
from ..tensor import Tensor
from .module import Module


def check_probability(p: float) -> None:
    """PyTorch's check of a dropout probability (its ``ValueError`` and message)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def keep_mask(input: Tensor, p: float, per_channel: bool, generator=None) -> Tensor:
    """True where an element (or, ``per_channel``, a whole ``input[n, c]``) is kept: a
    uniform draw ``>= p``, in the input's dtype, of shape ``(N, C, 1, ...)`` per channel.

    Raises:
        RuntimeError: ``per_channel`` and an input of fewer than 2 dimensions.
    """
    shape = tuple(input.shape)
    if per_channel:
        if len(shape) < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + (1,) * (len(shape) - 2)
    require_floating(input)
    return rand(shape, generator=generator, dtype=input.dtype, device=input.device) >= p


def require_floating(input: Tensor) -> None:
    """PyTorch's refusal of an integer input to a dropout that drops something: the
    scaled result is float and cannot be stored in the input's dtype (a RuntimeError)."""
    if not input.is_floating_point():
        raise RuntimeError(f"dropout: result type Float can't be cast to the desired output "
                           f"type {input.dtype}; convert the input first, e.g. with .float()")


def feature_dropout(input: Tensor, p: float, training: bool, generator=None) -> Tensor:
    """PyTorch's ``feature_dropout``: whole channels ``input[n, c]`` zeroed with probability
    ``p``, the rest scaled by ``1 / (1 - p)``; the identity when not training, for ``p = 0``
    and for an empty input (these return before the rank is checked, as in PyTorch)."""
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input * 0.0
    return input * keep_mask(input, p, True, generator) * (1.0 / (1.0 - p))


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
    check_probability(p)
    _warn_about_rank(input.dim())
    return feature_dropout(input, p, training, generator)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero each channel ``input[n, c]`` of a batch of sequences with probability ``p``;
    scale the rest by ``1 / (1 - p)``. An unbatched ``(C, L)`` is one sample. ``inplace`` is
    accepted and returns a new tensor.

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``. RuntimeError: the input is not 2-D or 3-D.
    """
    check_probability(p)
    ndim = input.dim()
    if ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _as_batch(input, ndim == 3, p, training)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero each channel ``input[n, c]`` of a batch of volumes with probability ``p``; scale
    the rest by ``1 / (1 - p)``. An unbatched ``(C, D, H, W)`` is one sample; other ranks
    warn that this is deprecated, as in PyTorch. ``inplace`` is accepted and returns a new
    tensor.

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
    """
    check_probability(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        warn_at_caller(
            f"dropout3d: Received a {ndim}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", UserWarning)
    return _as_batch(input, ndim == 5, p, training)


def _as_batch(input: Tensor, batched: bool, p: float, training: bool) -> Tensor:
    """``feature_dropout`` with an unbatched input made a batch of one and back, always
    (even in eval mode: PyTorch's ``grad_fn`` is then ``SqueezeBackward1``)."""
    if batched:
        return feature_dropout(input, p, training)
    return feature_dropout(input.unsqueeze(0), p, training).squeeze(0)


def _warn_about_rank(ndim: int) -> None:
    """PyTorch's two warnings, at the line that called ``dropout2d``."""
    if ndim not in (3, 4):
        warn_at_caller(
            f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", UserWarning)
    if ndim == 3:
        warn_at_caller(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning)


class _DropoutNd(Module):
    """The state every dropout layer shares, as PyTorch's ``_DropoutNd``: ``p`` (checked
    here) and ``inplace``, shown in the repr."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        check_probability(p)
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2d(_DropoutNd):
    """Zero whole channels with probability ``p`` while training (``dropout2d``); the
    identity in eval mode. ``inplace`` is accepted; the result is always a new tensor.

    Shape:
        ``(N, C, H, W)`` -> unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return dropout2d(input, self.p, self.training)


class Dropout1d(_DropoutNd):
    """Zero whole channels of sequences with probability ``p`` while training
    (``dropout1d``); the identity in eval mode. ``inplace`` is accepted; the result is always
    a new tensor.

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return dropout1d(input, self.p, self.training)


class Dropout3d(_DropoutNd):
    """Zero whole channels of volumes with probability ``p`` while training
    (``dropout3d``); the identity in eval mode. ``inplace`` is accepted; the result is always
    a new tensor.

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return dropout3d(input, self.p, self.training)

"""What both spectral normalisations share (``nn.utils.spectral_norm`` with hooks and
``nn.utils.parametrizations.spectral_norm``): the weight seen as a matrix, and one step of
the power iteration written into the ``u``/``v`` buffers in place.

The buffers are updated in place, under ``no_grad``, as PyTorch's ``normalize(..., out=)``
does, so a module moved with ``.to()`` or loaded from a ``state_dict`` keeps iterating on
the same tensors.
"""

from __future__ import annotations

from ...autograd import no_grad
from ...tensor import Tensor
from ..similarity import normalize


def weight_to_matrix(weight: Tensor, dim: int) -> Tensor:
    """``weight`` with ``dim`` moved first and the other dims flattened.

    Shape:
        ``(weight.shape[dim], numel / weight.shape[dim])``.
    """
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.dim()) if d != dim))
    return weight.reshape(weight.size(0), -1)


def normalize_into(buffer: Tensor, value: Tensor, eps: float) -> Tensor:
    """Write ``value / max(||value||, eps)`` into ``buffer`` (no graph) and return it."""
    with no_grad():
        buffer.copy_(normalize(value, dim=0, eps=eps))
    return buffer


def random_unit_vector(like: Tensor, size: int, eps: float) -> Tensor:
    """A normal random vector of ``size`` values, of ``like``'s dtype and device, scaled to
    norm 1 (the power iteration's start)."""
    with no_grad():
        return normalize(like.new_empty(size).normal_(0, 1), dim=0, eps=eps)

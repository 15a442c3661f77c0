"""Vectors scaled to unit norm and compared: ``F.normalize``, ``F.cosine_similarity`` and
the ``nn.CosineSimilarity`` layer; ``F.pairwise_distance`` and ``nn.PairwiseDistance``."""

from __future__ import annotations

from .. import functions
from ..autocasting import autocast_op
from ..tensor import Tensor
from ..tensor_arguments import require_tensors
from .module import Module


@autocast_op("normalize")
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``, composed as in PyTorch (norm,
    ``clamp_min``, division), so the gradient is zero through a clamped norm.

    Shape:
        unchanged.

    Raises:
        TypeError: ``input`` is not floating-point. IndexError: ``dim`` out of range.
    """
    return functions.div(input, functions.clamp_min(functions.norm(input, p, dim, True), eps))


@autocast_op("cosine_similarity")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``<x1, x2> / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim``.

    Shape:
        ``x1`` and ``x2`` broadcast together; the output drops ``dim``.

    Raises:
        RuntimeError: neither input is floating-point.
    """
    return functions.cosine_similarity(x1, x2, dim, eps)


class CosineSimilarity(Module):
    """``cosine_similarity`` along ``dim`` as a layer.

    Shape:
        ``(*, D, *)`` twice (broadcastable) -> ``(*, *)``.
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return cosine_similarity(x1, x2, self.dim, self.eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` along the last dimension (PyTorch adds ``eps``
    to the difference, so equal vectors are ``eps`` apart, not 0).

    Shape:
        ``(*, D)`` twice (broadcastable) -> ``(*)`` (``(*, 1)`` with ``keepdim``).
    """
    require_tensors("pairwise_distance", ("x1", x1), ("x2", x2))
    last = max(x1.dim(), x2.dim()) - 1
    # PyTorch adds ``eps`` with add(Tensor, Scalar): AddBackward1
    shifted = functions._composed(x1 - x2 + eps, "AddBackward1")
    return functions._composed(functions.norm(shifted, p, last, keepdim), "NormBackward1")


class PairwiseDistance(Module):
    """``pairwise_distance`` as a layer (the default distance of
    ``TripletMarginWithDistanceLoss``).

    Shape:
        ``(*, D)`` twice (broadcastable) -> ``(*)`` (``(*, 1)`` with ``keepdim``).
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)

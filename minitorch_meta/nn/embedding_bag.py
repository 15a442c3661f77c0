"""``F.embedding_bag`` and ``EmbeddingBag``: bags of a lookup table's rows, summed,
averaged or maxed (``ops/embedding_bag.py``), with PyTorch's argument handling: a 2-D input
is a batch of equal bags, a 1-D input needs ``offsets``."""

from __future__ import annotations

from ..autograd import no_grad
from ..embedding_renorm import embedding_renorm_
from ..factories import arange, empty
from ..ops import embedding as embedding_ops
from ..ops import embedding_bag as bag_ops
from ..tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter


def _check_arguments(input: Tensor, weight: Tensor, offsets, mode: str, per_sample_weights,
                     scale_grad_by_freq: bool, sparse: bool, max_norm) -> None:
    """PyTorch's Python checks, in its order and words."""
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2 and offsets is not None:
        raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated is "
                         f"a mini-batch of fixed length sequences. However, found offsets of "
                         f"type {type(offsets)}")
    if input.dim() == 1 and offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if input.dim() == 1 and offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    if input.dim() not in (1, 2):
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in bag_ops.MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    embedding_ops.check_supported(sparse)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")


def _padding_row(padding_idx, rows: int):
    if padding_idx is None:
        return None
    if not -rows <= padding_idx < rows:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, {-rows} "
                           f"through {rows - 1}, but got {padding_idx}")
    return padding_idx % rows


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """The ``mode`` (``sum``, ``mean``, ``max``) of ``weight``'s rows over each bag of
    indices: the rows of a 2-D ``input``, or the runs of a 1-D ``input`` that start at
    ``offsets`` (with ``include_last_offset``, the last offset ends the last bag).
    ``per_sample_weights`` (``sum`` only) scales each row; ``padding_idx`` is left out of
    every bag; an empty bag gives zeros.

    Shape:
        input ``(B, L)`` or ``(n,)`` with offsets ``(B,)`` (``(B + 1,)`` with
        ``include_last_offset``), weight ``(num_embeddings, embedding_dim)`` ->
        ``(B, embedding_dim)``.

    Raises:
        ValueError, NotImplementedError and RuntimeError as PyTorch (see the checks);
        NotImplementedError for ``sparse=True`` (not supported).
    """
    _check_arguments(input, weight, offsets, mode, per_sample_weights, scale_grad_by_freq,
                     sparse, max_norm)
    if input.dim() == 2:
        offsets = arange(0, input.numel(), max(input.shape[1], 1), dtype=input.dtype,
                         device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    if max_norm is not None:
        with no_grad():
            embedding_renorm_(weight, input, max_norm, norm_type)
    op = bag_ops.EmbeddingBag(mode=mode, scale_grad_by_freq=scale_grad_by_freq,
                              include_last_offset=include_last_offset,
                              padding_idx=_padding_row(padding_idx, weight.shape[0]))
    if per_sample_weights is None:
        return op(weight, input, offsets)
    return op(weight, input, offsets, per_sample_weights)


class EmbeddingBag(Module):
    """A table of ``num_embeddings`` rows of ``embedding_dim`` values; calling it with bags
    of indices returns each bag's sum, mean or maximum (see ``F.embedding_bag``).
    ``forward(input, offsets=None, per_sample_weights=None)``.

    ``weight`` is drawn from N(0, 1), as in PyTorch, with the ``padding_idx`` row zeroed.

    Shape:
        input ``(B, L)``, or ``(n,)`` with offsets ``(B,)`` -> ``(B, embedding_dim)``.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight: Tensor | None = None,
                 include_last_offset: bool = False, padding_idx: int | None = None,
                 device=None, dtype=None) -> None:
        super().__init__()
        embedding_ops.check_supported(sparse)
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = embedding_ops.padding_row(padding_idx, num_embeddings)
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, device=device,
                                          dtype=dtype))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)
        self.mode, self.sparse = mode, sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self) -> None:
        """Draw the weight from N(0, 1), then zero the ``padding_idx`` row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor, offsets: Tensor | None = None,
                per_sample_weights: Tensor | None = None) -> Tensor:
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse,
                             per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        text += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        max_norm: float | None = None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, mode: str = "mean",
                        sparse: bool = False, include_last_offset: bool = False,
                        padding_idx: int | None = None) -> EmbeddingBag:
        """An ``EmbeddingBag`` whose weight is ``embeddings`` (2-D), frozen unless
        ``freeze=False``."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = tuple(embeddings.shape)
        bag = cls(rows, cols, _weight=embeddings, max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag

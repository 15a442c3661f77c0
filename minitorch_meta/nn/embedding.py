"""``Embedding``: a learned lookup table, one row of ``embedding_dim`` values per index."""

from __future__ import annotations

from ..autograd import no_grad
from ..factories import empty
from ..ops import embedding as embedding_ops
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class Embedding(Module):
    """A table of ``num_embeddings`` rows of ``embedding_dim`` values; calling it with
    integer indices returns their rows.

    ``weight`` is drawn from N(0, 1), as in PyTorch, and the ``padding_idx`` row (negative
    counts from the end) is zero and gets no gradient, so it stays what it is. With
    ``scale_grad_by_freq`` a row's gradient is divided by how often its index occurs in
    the batch. With ``max_norm``, each call first scales the rows it reads whose
    ``norm_type``-norm exceeds ``max_norm`` down to it, in place (PyTorch's
    ``embedding_renorm_``). ``sparse=True`` is not supported (NotImplementedError).
    ``_weight`` (a tensor of shape ``(num_embeddings, embedding_dim)``) and ``_freeze`` are
    PyTorch's private arguments behind ``from_pretrained``.

    Shape:
        input ``(*)`` int64 or int32 -> output ``(*, embedding_dim)``.

    Raises:
        AssertionError: ``padding_idx`` outside ``[-num_embeddings, num_embeddings)``, or a
            ``_weight`` of another shape (PyTorch's type).
        IndexError: an index outside ``[0, num_embeddings)`` (when called; not on meta).
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False, device=None,
                 dtype=None) -> None:
        super().__init__()
        embedding_ops.check_supported(sparse)
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = embedding_ops.padding_row(padding_idx, num_embeddings)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, device=device,
                                          dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError(f"Shape of weight does not match num_embeddings and "
                                     f"embedding_dim: expected ({num_embeddings}, "
                                     f"{embedding_dim}), got {tuple(_weight.shape)}")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """Draw the weight from N(0, 1), then zero the ``padding_idx`` row."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += ", scale_grad_by_freq=True"
        if self.sparse:
            text += ", sparse=True"
        return text

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Embedding:
        """An ``Embedding`` whose weight is ``embeddings`` (a 2-D tensor; its storage is
        shared, and its ``padding_idx`` row is left as it is), frozen unless
        ``freeze=False``.

        Raises:
            AssertionError: ``embeddings`` is not 2-D (PyTorch's type).
        """
        if embeddings.dim() != 2:
            raise AssertionError(f"Embeddings parameter is expected to be 2-dimensional, got "
                                 f"shape {tuple(embeddings.shape)}")
        rows, columns = tuple(embeddings.shape)
        return cls(rows, columns, _weight=embeddings, _freeze=freeze, padding_idx=padding_idx,
                   max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


__all__ = ["Embedding"]

"""Helpers shared by the distributions: parameter broadcasting, probs <-> logits, and
``lazy_property`` (a parameter derived from another on first use, then kept)."""

from __future__ import annotations

from numbers import Number

from ..autograd import enable_grad
from ..dtypes import get_default_dtype
from ..ops import shapes
from ..size import Size
from ..tensor import Tensor
from ..type_info import finfo


def broadcast_shape(*shapes_) -> Size:
    """The shape every one of ``shapes_`` broadcasts to (ValueError if none)."""
    out = ()
    for shape in shapes_:
        out = shapes.broadcast("broadcast_all", out, tuple(shape))
    return Size(out)


def broadcast_all(*values) -> tuple:
    """``values`` as tensors of one broadcast shape, as PyTorch's ``broadcast_all``.

    Numbers become tensors of the first tensor's dtype and device (of the default dtype
    when all are numbers); tensors keep their own dtypes. A tensor already of the common
    shape is returned as is, so the graph gets no needless ``expand`` node.

    Raises:
        ValueError: a value is neither a number nor a tensor.
    """
    from ..factories import tensor

    for value in values:
        if not isinstance(value, (Tensor, Number)):
            raise ValueError(f"Input arguments must all be instances of Number or Tensor, but "
                             f"got {type(value).__name__}")
    like = next((v for v in values if isinstance(v, Tensor)), None)
    options = ({"dtype": get_default_dtype()} if like is None
               else {"dtype": like.dtype, "device": like.device})
    tensors = [v if isinstance(v, Tensor) else tensor(v, **options) for v in values]
    shape = broadcast_shape(*(t.shape for t in tensors))
    return tuple(t if t.shape == shape else t.expand(shape) for t in tensors)


def sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """``value`` summed over its ``dim`` rightmost dimensions."""
    return value.sum(tuple(range(-dim, 0))) if dim > 0 else value


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities moved into ``[eps, 1 - eps]``, so that their logs stay finite."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds of Bernoulli ``probs`` (``is_binary``), else logs of categorical ones."""
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """The inverse of ``probs_to_logits``: a sigmoid, or a softmax over the last dim."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


class lazy_property:  # noqa: N801 - a decorator, spelt as PyTorch's
    """A property computed on first read and then stored in the instance (so that a
    distribution given ``logits`` computes ``probs`` once, and only if asked). It is
    computed with grad enabled: the stored tensor must stay in the graph of the
    parameter it derives from, even when first read under ``no_grad``."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.name = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.name] = value
        return value


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The entries of ``mat`` on and below diagonal ``diag``, row by row (PyTorch's).

    Shape:
        ``(*, n, n)`` -> ``(*, m)``, ``m`` the number of those entries.

    Raises:
        ValueError: ``diag`` outside ``[-n, n - 1]``.
    """
    from ..index_functions import tril_indices

    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = tril_indices(n, n, offset=diag, device=mat.device)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of ``tril_matrix_to_vec``: ``vec``'s entries laid row by row on and
    below diagonal ``diag`` of a square matrix, zeros elsewhere. A gather from ``vec``
    with a zero put in front (no in-place write), so gradients and meta need nothing more.

    Shape:
        ``(*, m)`` -> ``(*, n, n)``.

    Raises:
        ValueError: ``m`` is not the size of such a triangle of any square matrix.
    """
    from ..factories import arange
    from ..nn.functional import pad

    m = vec.shape[-1]
    # the positive root of n^2 + (1 + 2 diag) n - |diag| (diag + 1) - 2 m = 0
    b = 1 + 2 * diag
    n = (-b + (b * b + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    # PyTorch checks only round(n) - n > eps and fails later, in an index assignment, for
    # a size just above a triangular number; both sides are checked here
    if abs(round(n) - n) > finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    positions = arange(n, device=vec.device)
    inside = (positions < positions.view(-1, 1) + (diag + 1)).flatten()
    # entry k (1-based) of the padded vector at the k-th position inside, the 0 elsewhere
    source = inside.long().cumsum(0) * inside.long()
    return pad(vec, [1, 0])[..., source].view(tuple(vec.shape[:-1]) + (n, n))

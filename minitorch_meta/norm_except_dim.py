"""``torch.norm_except_dim``: the ``pow``-norm of a tensor over every dim but one (weight
normalisation's ``g = ‖v‖``), composed of views and a norm as PyTorch's ``WeightNorm.cpp``
composes it, so that ``grad_fn`` names and gradients are PyTorch's."""

from __future__ import annotations

from .native_arguments import int_argument
from .tensor import Tensor


def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:  # noqa: A002 - PyTorch's name
    """The ``pow``-norm of ``v`` over all dims but ``dim``, kept as size-1 dims; ``dim=-1``
    is PyTorch's special value for the norm of the whole tensor (a 0-d result), any other
    negative ``dim`` counts from the end.

    Shape:
        ``v`` ``(d_0, ..., d_k)`` -> size ``d_dim`` at ``dim`` and 1 elsewhere; ``()`` for
        ``dim=-1``.

    Raises:
        TypeError for a ``pow`` or ``dim`` that is not an int; IndexError for a ``dim`` out
        of range; RuntimeError for an integer ``v`` (``norm``'s).
    """
    pow = int_argument("norm_except_dim", "pow", 2, pow)
    dim = int_argument("norm_except_dim", "dim", 3, dim)
    if dim == -1:
        out = v.norm(pow)
        if out.grad_fn is not None:
            out.grad_fn.show_as("NormBackward0")  # PyTorch's C++ ``norm``, not linalg's
        return out
    last = v.dim() - 1
    # PyTorch compares the dim as given: -3 of a 3-D tensor is not 0, but a transpose of
    # dim 0 with itself (a TransposeBackward0 node)
    if dim == 0:
        if v.dim() == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        return _kept(v, 0, v.contiguous().view(v.shape[0], -1).norm(pow, 1))
    if dim == last:
        return _kept(v, last, v.contiguous().view(-1, v.shape[last]).norm(pow, 0))
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _kept(v: Tensor, dim: int, norms: Tensor) -> Tensor:
    """``norms`` (one per slice of ``dim``) viewed with size 1 in ``v``'s other dims; the
    norm's node is named as PyTorch's C++ ``norm`` over a dim's."""
    if norms.grad_fn is not None:
        norms.grad_fn.show_as("NormBackward1")
    shape = [1] * v.dim()
    shape[dim] = v.shape[dim]
    return norms.view(*shape)


__all__ = ["norm_except_dim"]

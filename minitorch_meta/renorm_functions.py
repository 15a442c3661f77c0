"""``renorm``: each slice along ``dim`` scaled down so that its ``p``-norm is at most
``maxnorm`` (``torch.renorm``, ``Tensor.renorm`` and ``Tensor.renorm_``).

It is PyTorch's own formula composed of existing ops: the slices' norms
(``linalg.vector_norm`` over every other dim), the factor ``maxnorm / (norm + 1e-7)`` where
a norm exceeds ``maxnorm`` and 1 elsewhere, and the input times that factor. The gradient
flows through the norm as in PyTorch's ``renorm_backward``, so values and gradients match;
the last node is named ``RenormBackward0``.
"""

from __future__ import annotations

from numbers import Real

from .autograd.graph_node import show_as_op
from .functions import where
from .ops import norms
from .ops.shapes import normalize_dim

#: added to a norm before dividing by it, as PyTorch does (a zero norm never divides)
_EPSILON = 1e-7


def renorm(input, p: float, dim: int, maxnorm: float):
    """``input`` with each sub-tensor ``input.select(dim, i)`` whose ``p``-norm exceeds
    ``maxnorm`` scaled to norm ``maxnorm`` (very nearly: the norm gets ``1e-7`` added).

    Shape:
        ``input``'s shape (at least 2 dims); the dtype is kept (floating point only).

    Raises:
        RuntimeError: ``p`` is not positive, ``maxnorm`` is negative, or ``input`` has fewer
            than 2 dims (PyTorch's messages); ``input`` is not floating point.
        IndexError: ``dim`` is out of range.
    """
    _check_arguments(p, maxnorm, input.dim())
    dim = normalize_dim("renorm", dim, input.dim())
    others = tuple(d for d in range(input.dim()) if d != dim)
    norm = norms.LinalgVectorNorm(ord=norms.vector_norm_order(p), dim=others,
                                  keepdim=True)(input)
    factor = where(norm > maxnorm, maxnorm / (norm + _EPSILON), 1.0)
    output = input * factor
    show_as_op(output, "RenormBackward0", (input,))
    return output


def renorm_(self, p: float, dim: int, maxnorm: float):
    """In-place ``renorm`` (refused inside an autograd graph, as every in-place op here)."""
    return self._inplace("renorm_", renorm, p, dim, maxnorm)


def _check_arguments(p, maxnorm, ndim: int) -> None:
    """PyTorch's checks, in its order."""
    for name, value in (("p", p), ("maxnorm", maxnorm)):
        if isinstance(value, bool) or not isinstance(value, Real):
            raise TypeError(f"renorm(): argument '{name}' must be a real number, not "
                            f"{type(value).__name__}")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {ndim} dimensions")

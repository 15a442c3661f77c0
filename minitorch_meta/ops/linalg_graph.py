"""Tensor-op helpers for the linalg ops' graph formulas (``backward_graph``, see
``graph_backward.py``): transposes, triangles, solves and inverses written with recorded
ops that have graph formulas themselves, so that a gradient built from them can be
differentiated again, to any order.

A triangle is a product with a constant 0/1 mask (``tril``/``triu`` have no graph formula);
a solve or an inverse is the linalg op itself, without its error check, so that a singular
matrix gives inf/NaN in a gradient as in the array ``backward`` rather than raising.
"""

from __future__ import annotations

from . import graph_backward
from .function import _edge
from .matrix_arrays import identity, triangle


def mT(t):  # noqa: N802 - PyTorch's name for the transpose of the last two dims
    """The transpose of each matrix of tensor ``t`` (a recorded view)."""
    return t.transpose(-2, -1)


def masked_triangle(node, t, upper: bool, offset: int = 0):
    """``triu(t, offset)`` when ``upper``, else ``tril(t, offset)``, as ``t`` times a
    constant mask (whose gradient is the same triangle of the incoming gradient)."""
    backend = node.backend
    ones = backend.full(tuple(t.shape[-2:]), 1, t.dtype)
    return t * node.constant(triangle(backend, ones, upper, offset))


def eye(node, t):
    """The identity of ``t``'s matrices' size and dtype, as a constant tensor."""
    return node.constant(identity(node.backend, t.shape[-1], t.dtype.numpy))


def solve(a, b, left: bool = True):
    """``A⁻¹ B`` (``B A⁻¹`` when not ``left``) for tensors, ``B`` a batch of matrices."""
    from .linalg_solve import LinalgSolveEx

    return LinalgSolveEx(left=left, check_errors=False)(a, b)[0]


def inverse(a):
    """``A⁻¹`` for a tensor of square matrices."""
    from .linalg_solve import LinalgInvEx

    return LinalgInvEx()(a)[0]


def refused_twice(node, array, grad, message: str):
    """A first-order gradient ``array`` (from the op's array ``backward``) as a tensor whose
    second differentiation raises ``RuntimeError(message)``: for the points where the op's
    graph formula does not hold (a singular matrix for ``det``)."""
    from ..tensor import Tensor

    stop = graph_backward.NotDifferentiableTwice(
        node.name(), node.backend, (_edge(grad),) + tuple(node._next_nodes), message)
    return Tensor._make(array, node.backend, True, stop)

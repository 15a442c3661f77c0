"""What the graph formulas (``backward_graph``, ``create_graph=True``) of the ops that
select or move elements share.

Their gradients are linear in the incoming gradient, with coefficients that depend only
on indices or masks saved by forward: elements read back at an index (``GetItem``),
written into zeros at an index (``IndexedZeros``, whose gradient is ``GetItem`` again),
or zeroed where forward overwrote them (``masked_fill``, whose gradient zeroes the same
places). Every step is a recorded op with a formula of its own, so any order works.
"""

from __future__ import annotations

from .. import dtypes
from .layout import GetItem, IndexedZeros
from .masked import MaskedFill


def shape_index(backend, index):
    """``index`` for the shape rules of ``GetItem``: its arrays copied to the host (a
    boolean mask's count is its values), ints, slices and None as they are."""
    if isinstance(index, tuple):
        return tuple(shape_index(backend, item) for item in index)
    return backend.to_numpy(index) if hasattr(index, "ndim") else index


def picked(node, tensor, index):
    """``tensor[index]`` (an index saved by ``node``'s forward), recorded."""
    return GetItem(index, shape_index(node.backend, index))(tensor)


def placed(node, grad, index, shape: tuple, dtype):
    """Zeros of ``shape`` with ``grad`` added at ``index`` (repeated positions add up),
    recorded; its node is named after ``node`` (``GatherBackward0`` gives
    ``GatherBackwardBackward0``)."""
    return IndexedZeros(index, shape_index(node.backend, index), tuple(shape), dtype,
                        node.name())(grad)


def zeroed(node, grad, mask):
    """``grad`` with zeros where the bool array ``mask`` (broadcast to it) holds: the
    gradient of what forward overwrote there, recorded."""
    return MaskedFill(fill=0)(grad, node.constant(mask))


def kept(node, grad, mask):
    """``grad`` where ``mask`` holds, zeros elsewhere, recorded."""
    return zeroed(node, grad, node.backend.unary("logical_not", mask))


def written_mask(backend, shape: tuple, index):
    """A bool array of ``shape``, True at the elements ``index`` selects."""
    mask = backend.full(tuple(shape), False, dtypes.bool_)
    backend.setitem(mask, index, True)
    return mask

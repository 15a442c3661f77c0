"""What the max poolings share, whatever their windows: indices as an output only when asked
for (``OptionalIndices``), and the input gradient of a pooling that records each output's
winner as a flat position in its input plane (2-D) or volume (3-D)."""

from __future__ import annotations

import math

from .. import dtypes
from .function import Function


class OptionalIndices(Function):
    """A max pooling whose winners' indices are a second output only with
    ``return_indices`` (its backward keeps the winners either way)."""

    return_indices = False

    def __init__(self, **hyper_parameters):
        super().__init__(**hyper_parameters)
        self.multiple_outputs = self.return_indices


def gradient_to_winners(backend, gy, indices, input_spec, dims: int, outputs: int):
    """Each output's gradient added at its window's winning position: one ``index_add``
    over flat positions in all planes (overlapping windows may pick one input several
    times, and then it gets every gradient).

    Shape:
        ``gy`` and ``indices`` hold ``outputs`` values per plane (any shape with the planes
        first); ``input_spec`` is the input's ``(shape, dtype)``, whose last ``dims`` sizes
        make a plane -> an array of the input's shape and dtype.
    """
    shape, dtype = input_spec
    shape = tuple(shape)
    plane, planes = math.prod(shape[-dims:]), math.prod(shape[:-dims])
    starts = backend.arange(0, planes * plane, plane, dtypes.int64)
    flat = backend.binary("add", backend.reshape(indices, (planes, outputs)),
                          backend.reshape(starts, (planes, 1)))
    gx = backend.index_add((planes * plane,), backend.reshape(flat, (-1,)),
                           backend.reshape(gy, (-1,)), dtype)
    return backend.reshape(gx, shape)

"""``clamp`` with tensor bounds: ``input`` limited elementwise to ``[min, max]`` where the
bounds are tensors that broadcast with it (``torch.clamp(x, min=lower, max=upper)``).

The value is PyTorch's: ``minimum(maximum(x, min), max)``, so ``max`` wins where
``min > max`` and a NaN in the input or in a bound gives NaN. The gradients are PyTorch's
``clamp_backward`` and ``clamp_backward_min_max``: the input gets it where
``min <= x <= max``; ``min`` where ``x < min`` and ``min < max``; ``max`` where ``x > max``
or ``max < min``. A NaN anywhere in an element sends its gradient nowhere.

``clamp`` with number bounds is ``Clamp`` in ``elementwise.py`` (one input, no broadcast).
"""

from __future__ import annotations

from .. import dtypes
from ..errors import DtypeNotImplementedError
from .elementwise import _reduce
from .function import Function
from .graph_backward import reduce_to_input
from .shapes import broadcast


class ClampTensor(Function):
    """``clamp(input, min, max)`` with tensor bounds; either bound may be None (not both).

    Shape:
        ``input``, ``min`` and ``max`` broadcast together; the output has the broadcast
        shape and their promoted dtype (0-d bounds promote as PyTorch's 0-d tensors do).

    Raises:
        RuntimeError: both bounds are None, or shapes that do not broadcast.
        DtypeNotImplementedError: a bool result with both bounds (PyTorch has no bool kernel
            for it; one bound is its maximum or minimum).
    """

    op_name, backward_name = "clamp", "ClampBackward0"
    saved_for_backward = (0, 1, 2)

    def infer(self, x, low, high):
        if low is None and high is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        shape, dtype, zero_dim = x._data.shape, x._dtype, not x._data.shape
        for bound in (low, high):
            if bound is not None:
                bound_shape = bound._data.shape
                shape = broadcast(self.op_name, shape, bound_shape)
                dtype = dtypes.promote_tensors(dtype, zero_dim, bound._dtype, not bound_shape)
                zero_dim = zero_dim and not bound_shape
        if dtype is dtypes.bool_ and low is not None and high is not None:
            # one bool bound is PyTorch's maximum/minimum (logical or/and); both, its
            # "clamp_cpu" has no bool case
            raise DtypeNotImplementedError(
                f"{self.op_name}: bool tensors cannot be clamped with both bool bounds; "
                "give one, or convert them first, e.g. with .int()")
        self.compute_dtype = dtype
        return shape, dtype

    def forward(self, backend, x, low, high):
        x, low, high = (None if a is None else self._cast(backend, a) for a in (x, low, high))
        out = x
        if low is not None:
            out = backend.binary("maximum", out, low)
        if high is not None:
            out = backend.binary("minimum", out, high)
        if self.recording:
            self.x, self.low, self.high = x, low, high
        return out

    def _cast(self, backend, a):
        return a if a.dtype == self.compute_dtype.numpy else backend.astype(a, self.compute_dtype)

    def _masks(self, backend) -> tuple:
        """Where the gradient goes: to the input, to ``min``, to ``max`` (bool arrays, None
        for an absent bound)."""
        x, low, high = self.x, self.low, self.high
        to_input = to_low = to_high = None
        if low is not None:
            to_input = backend.binary("ge", x, low)
            to_low = backend.binary("lt", x, low)
        if high is not None:
            below = backend.binary("le", x, high)
            to_input = below if to_input is None else backend.binary("mul", to_input, below)
            to_high = backend.binary("gt", x, high)
        if low is not None and high is not None:  # where min > max, max wins
            inverted = backend.binary("lt", high, low)
            to_low = backend.binary("mul", to_low, backend.binary("lt", low, high))
            to_high = backend.binary("add", to_high, inverted)  # bool + bool: a logical or
        return to_input, to_low, to_high

    def backward(self, backend, gy):
        zero = gy.dtype.type(0)
        return tuple(None if mask is None or not needed else
                     _reduce(backend, backend.where(mask, gy, zero), spec)
                     for mask, needed, spec in zip(self._masks(backend), self.needs_input_grad,
                                                   self.input_specs))

    def backward_graph(self, grad):  # the masks are piecewise constant: no gradient of theirs
        return tuple(None if mask is None or not needed else
                     reduce_to_input(grad.where(self.constant(mask), 0), spec)
                     for mask, needed, spec in zip(self._masks(self.backend),
                                                   self.needs_input_grad, self.input_specs))


class ClampMinTensor(ClampTensor):
    """``clamp_min(input, min)`` with a tensor ``min``, under PyTorch's node name.

    Shape:
        as ``ClampTensor``.
    """

    backward_name = "ClampMinBackward1"


class ClampMaxTensor(ClampTensor):
    """``clamp_max(input, max)`` with a tensor ``max``, under PyTorch's node name.

    Shape:
        as ``ClampTensor``.
    """

    backward_name = "ClampMaxBackward1"

"""The gated linear unit: ``glu(x, dim) = a * sigmoid(b)``, ``a`` and ``b`` the two halves
of ``x`` along ``dim``.

One ``Function`` (PyTorch's ``GluBackward0``): the halves are basic-indexing views of the
input, and the gradient is written into the two halves of one array, so neither forward
nor backward concatenates.
"""

from __future__ import annotations

from . import shapes
from .activations import _FloatingActivation
from .elementwise import logistic
from .layout import Cat


class Glu(_FloatingActivation):
    """``a * sigmoid(b)`` where ``a, b`` are the first and second halves of the input along
    ``dim``.

    Shape:
        ``(*, 2 n, *)`` -> ``(*, n, *)`` (``dim`` halved).

    Raises:
        TypeError: ``dim`` is not an int. NotImplementedError: the input is not
            floating-point. IndexError: ``dim`` is out of range. RuntimeError: a 0-d input,
            or an odd size along ``dim`` (PyTorch's messages).
    """

    op_name, backward_name, kernel_name = "glu", "GluBackward0", "glu_cpu"
    saved_for_backward = (0,)

    def __init__(self, dim: int = -1):
        if isinstance(dim, bool) or not hasattr(dim, "__index__"):
            raise TypeError(f"glu(): argument 'dim' (position 2) must be int, not "
                            f"{type(dim).__name__}")
        super().__init__(dim=dim.__index__())

    def infer(self, x):
        _, dtype = super().infer(x)
        shape = x._data.shape
        if not shape:
            raise RuntimeError("glu does not support scalars because halving size must be even")
        axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
        size = shape[axis]
        if size % 2:
            raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size "
                               f"{size}")
        half = size // 2
        before = (slice(None),) * axis
        self.halves = before + (slice(0, half),), before + (slice(half, size),)
        return shape[:axis] + (half,) + shape[axis + 1:], dtype

    def forward(self, backend, x):
        first, second = self.halves
        a = backend.getitem(x, first)
        gate = logistic(backend, backend.getitem(x, second))
        if self.recording:
            self.x, self.a, self.gate = x, a, gate
        return backend.binary("mul", a, gate)

    def backward(self, backend, gy):
        a, gate = self.a, self.gate
        shape, dtype = self.input_specs[0]
        gx = backend.empty(shape, dtype)
        first, second = self.halves
        ga = backend.binary("mul", gy, gate)
        # d/db of a * sigmoid(b) = a * sigmoid(b) * (1 - sigmoid(b))
        gb = backend.binary("mul", backend.binary("mul", ga, a),
                            backend.binary("sub", gate.dtype.type(1), gate))
        backend.setitem(gx, first, ga)
        backend.setitem(gx, second, gb)
        return (gx,)

    def backward_graph(self, grad):
        # ``backward`` with recorded ops on the input's halves (the gate depends on x)
        x = self.graph_input(0, self.x)
        first, second = self.halves
        a, gate = x[first], x[second].sigmoid()
        ga = grad * gate
        return (Cat(dim=len(first) - 1)(ga, ga * a * (1 - gate)),)

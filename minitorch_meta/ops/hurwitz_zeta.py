"""``special.zeta(x, q)``: Hurwitz's zeta function ``sum((q + k)^-x, k >= 0)``.

Kernel: the backend's ``zeta`` (``backends/xp_zeta.py``; float32 computed in float64, as
PyTorch's CPU kernel). Gradients as PyTorch's: ``d/dq = -x zeta(x + 1, q)``, also as a
recorded formula (so any order works in ``q``); PyTorch has none in ``x``, and asking for
one raises its ``NotImplementedError``, in backward.
"""

from __future__ import annotations

from .trigonometric import FloatBinary


def _no_derivative_in_x():
    return NotImplementedError("the derivative for 'zeta' is not implemented.")


class Zeta(FloatBinary):
    """``zeta(x, q)`` elementwise; either operand may be a Python number. Integer and bool
    operands give the default float dtype, as in PyTorch.

    Shape:
        ``x`` and ``q`` broadcast together; the output has the broadcast shape.
    """

    op_name, kernel = "special_zeta", "zeta"
    saved_for_backward = (0, 1)

    @property
    def backward_name(self):
        # PyTorch's overloads: (Tensor, Tensor) 0, (Scalar, Tensor) 1, (Tensor, Scalar) 2
        if self.scalar is None:
            return "SpecialZetaBackward0"
        return "SpecialZetaBackward1" if self.reflected else "SpecialZetaBackward2"

    def forward(self, backend, a, b=None):
        x, q = self.operands(backend, a, b)
        if b is None:  # the number as a 0-d array: the kernel takes two arrays
            number = backend.full((), self.scalar, self.compute_dtype)
            x, q = (number, q) if self.reflected else (x, number)
        if self.recording:
            self.x, self.y = x, q
        return backend.binary("zeta", x, q)

    def grads(self, backend, gy):
        self.refuse_left_gradient(_no_derivative_in_x())
        x, q = self.x, self.y
        rise = backend.binary("zeta", backend.binary("add", x, x.dtype.type(1)), q)
        return None, backend.binary("mul", gy, backend.binary(
            "mul", backend.unary("neg", x), rise))

    def grads_graph(self, grad):
        from ..functions import _binary

        self.refuse_left_gradient(_no_derivative_in_x())
        x, q = self.graph_operand(0, self.x), self.graph_operand(1, self.y)
        return None, grad * (-x * _binary(Zeta, x + 1, q))

"""``gcd`` and ``lcm``: the greatest common divisor and least common multiple, elementwise.

Integer tensors only, promoted as arithmetic is; both results are non-negative
(``gcd(0, 0)`` is 0, ``lcm(x, 0)`` is 0), as in PyTorch. No gradient.
"""

from __future__ import annotations

from .. import dtypes
from .elementwise import Binary


class IntegerBinary(Binary):
    """Base of gcd/lcm and the shifts: two integer tensors, broadcast and promoted.

    Shape:
        ``a`` and ``b`` broadcast together; the output has the broadcast shape and the
        promoted dtype.

    Raises:
        NotImplementedError when the promoted dtype is floating-point or bool (PyTorch's
        type and words).
    """

    differentiable = False

    @property
    def torch_kernel(self) -> str:
        """PyTorch's name of its CPU kernel, as its error message gives it."""
        return f"{self.op_name}_cpu"

    def result_dtype(self, compute_dtype):
        if compute_dtype.is_floating_point or compute_dtype is dtypes.bool_:
            name = dtypes.SCALAR_TYPE_NAMES[compute_dtype]
            raise NotImplementedError(f'"{self.torch_kernel}" not implemented for \'{name}\' '
                                      f"({self.op_name} takes integer tensors; the operands "
                                      f"promote to {compute_dtype})")
        return compute_dtype


class Gcd(IntegerBinary):
    op_name, backward_name, kernel = "gcd", "GcdBackward0", "gcd"


class Lcm(IntegerBinary):
    op_name, backward_name, kernel = "lcm", "LcmBackward0", "lcm"

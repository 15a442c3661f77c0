"""``bitwise_left_shift`` and ``bitwise_right_shift`` (the operators ``<<`` and ``>>``).

Integer operands only (tensors or Python numbers), promoted as arithmetic is. A shift
outside ``[0, bits)`` of the dtype has PyTorch's defined result, where C (and so the
``left_shift``/``right_shift`` kernels) leaves it undefined: a left shift gives 0, a
right shift of a signed integer fills with its sign bit (0 or -1), of an unsigned one 0.
No gradient.
"""

from __future__ import annotations

from .gcd_lcm import IntegerBinary


class Shift(IntegerBinary):
    """Base of the two shifts: the kernel runs on in-range shifts only.

    Shape:
        ``a`` and ``b`` broadcast together; the output has the broadcast shape and the
        promoted dtype.

    Raises:
        NotImplementedError when the promoted dtype is floating-point or bool (PyTorch's
        type and words).
    """

    #: PyTorch's name of its CPU kernel, as its error message gives it
    torch_kernel = "lshift_cpu"

    def forward(self, backend, a, b=None):
        x, y = self.operands(backend, a, b)
        np_dtype = self.compute_dtype.numpy
        if b is None and self.reflected:  # ``2 << t``: the kernel wants an array on the left
            x = backend.full(y.shape, x, self.compute_dtype)
        bits = np_dtype.itemsize * 8
        if b is None and not self.reflected:  # a number of bits: decided here, once
            if 0 <= y < bits:
                return backend.binary(self.kernel, x, y)
            return self.beyond(backend, x, None, bits)
        in_range = backend.binary("logical_and", backend.binary("ge", y, np_dtype.type(0)),
                                  backend.binary("lt", y, np_dtype.type(bits)))
        safe = backend.where(in_range, y, np_dtype.type(0))
        return backend.where(in_range, backend.binary(self.kernel, x, safe),
                             self.beyond(backend, x, in_range, bits))

    def beyond(self, backend, x, in_range, bits):
        """What a shift by a count outside ``[0, bits)`` gives (an array or a scalar)."""
        raise NotImplementedError


class LeftShift(Shift):
    op_name, backward_name, kernel = ("bitwise_left_shift", "BitwiseLeftShiftBackward0",
                                      "left_shift")

    def beyond(self, backend, x, in_range, bits):
        zero = x.dtype.type(0)
        return zero if in_range is not None else backend.full(x.shape, zero, self.compute_dtype)


class RightShift(Shift):
    op_name, backward_name, kernel = ("bitwise_right_shift", "BitwiseRightShiftBackward0",
                                      "right_shift")
    torch_kernel = "rshift_cpu"

    def beyond(self, backend, x, in_range, bits):
        if x.dtype.kind == "u":
            return LeftShift.beyond(self, backend, x, in_range, bits)
        return backend.binary("right_shift", x, x.dtype.type(bits - 1))  # the sign: 0 or -1

"""``nextafter`` (the next representable float towards another) and ``frexp`` (a float as
mantissa times a power of two).
"""

from __future__ import annotations

from .. import dtypes
from .elementwise import Binary
from .function import Function


class Nextafter(Binary):
    """The float after ``a`` in the direction of ``b``, elementwise (``a`` where equal).

    PyTorch's gradient: ``a``'s is the incoming gradient (a step of one ulp moves nothing
    measurable), ``b``'s is zero.

    Shape:
        ``a`` and ``b`` broadcast together; the output has the broadcast shape and the
        promoted dtype.

    Raises:
        NotImplementedError when the promoted dtype is an integer or bool one.
    """

    op_name, backward_name, kernel = "nextafter", "NextafterBackward0", "nextafter"

    def result_dtype(self, compute_dtype):
        if not compute_dtype.is_floating_point:
            name = dtypes.SCALAR_TYPE_NAMES[compute_dtype]
            raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{name}\' '
                                      "(nextafter steps between floats; convert first, e.g. "
                                      "with .float())")
        return compute_dtype

    def grads(self, backend, gy):
        return gy, backend.full(gy.shape, 0, dtypes.from_numpy(gy.dtype))


class Frexp(Function):
    """``x = mantissa * 2 ** exponent`` with ``|mantissa|`` in [0.5, 1) (0, inf and NaN
    keep themselves as mantissa, with exponent 0); the exponent is int32.

    Shape:
        both outputs have the input's shape; the mantissa has its dtype, the exponent int32.

    Raises:
        RuntimeError for an integer or bool input (PyTorch's words).
    """

    op_name, backward_name = "frexp", "FrexpBackward0"
    multiple_outputs = True

    def infer(self, x):
        if not x._dtype.is_floating_point:
            raise RuntimeError(f"torch.frexp() only supports floating-point dtypes (got "
                               f"{x._dtype}; convert first, e.g. with .float())")
        shape = x._data.shape
        return [(shape, x._dtype), (shape, dtypes.int32)]

    def forward(self, backend, x):
        mantissa, exponent = backend.frexp(x)
        if self.recording:
            self.exponent = exponent
        return mantissa, exponent

    def backward(self, backend, gy):
        # d mantissa / dx = 2 ** -exponent, exactly (the exponent is constant nearby)
        power = backend.unary("exp2", backend.astype(backend.unary("neg", self.exponent),
                                                     dtypes.from_numpy(gy.dtype)))
        return (backend.binary("mul", gy, power),)

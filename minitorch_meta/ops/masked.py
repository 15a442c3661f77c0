"""``masked_fill``: ``value`` where a boolean mask holds, the input elsewhere.

It runs on the ``where`` kernel; the op adds PyTorch's rules around it: a bool mask only,
the value converted to the input's dtype (the output keeps the input's dtype), and a
value that may be a number or a 0-d tensor, differentiable in both inputs.
"""

from __future__ import annotations

from numbers import Number

from .. import dtypes
from . import shapes
from .elementwise import _bound_scalar, _finite_range, _reduce
from .function import Function
from .graph_backward import reduce_to_input


class MaskedFill(Function):
    """``input`` with ``value`` written where ``mask`` is True.

    ``fill`` is the value when it is a number; a 0-d value tensor is the op's third input
    instead (then ``fill`` is None), and gets the sum of the gradient at the masked places.

    Shape:
        ``input`` and ``mask`` broadcast together (PyTorch's out-of-place rule); the output
        has the input's dtype.

    Raises:
        RuntimeError for a mask that is not bool, a value tensor with dimensions, or a
        number the input's dtype cannot hold; ShapeError when the shapes do not broadcast.
    """

    op_name = "masked_fill"
    saved_for_backward = (1,)  # backward reads only the mask
    fill = None

    @property
    def backward_name(self):
        return "MaskedFillBackward1" if self.fill is None else "MaskedFillBackward0"

    def infer(self, x, mask, value=None):
        if mask._dtype is not dtypes.bool_:
            raise RuntimeError(f"masked_fill only supports boolean masks, but got mask with "
                               f"dtype {mask._dtype}; make one with a comparison (x > 0) or "
                               ".bool()")
        if value is not None and value._data.ndim != 0:
            raise RuntimeError(f"masked_fill only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s).")
        x_shape, mask_shape = x._data.shape, mask._data.shape
        if x_shape != mask_shape and not shapes.broadcasts_to(mask_shape, x_shape):
            try:
                shape = shapes.broadcast(self.op_name, x_shape, mask_shape)
            except shapes.ShapeError:
                raise shapes.ShapeRuntimeError(
                    self.op_name, f"mask of shape {shapes.fmt(mask_shape)} cannot be "
                    f"broadcast with the input of shape {shapes.fmt(x_shape)}: trailing "
                    "dimensions must be equal or 1") from None
        else:
            shape = tuple(x_shape)
        if self.fill is not None:
            self.scalar = fill_scalar(self.op_name, self.fill, x._dtype)
        self.out_dtype = x._dtype
        return shape, x._dtype

    def forward(self, backend, x, mask, value=None):
        if self.recording:
            self.mask = mask
        fill = self.scalar if value is None else backend.astype(value, self.out_dtype)
        out = backend.where(mask, fill, x)
        return out if out.dtype == x.dtype else backend.astype(out, self.out_dtype)

    def backward(self, backend, gy):
        zero = gy.dtype.type(0)
        gx = gv = None
        if self.needs_input_grad[0]:
            gx = _reduce(backend, backend.where(self.mask, zero, gy), self.input_specs[0])
        if len(self.needs_input_grad) > 2 and self.needs_input_grad[2]:
            total = backend.asarray(backend.sum(backend.where(self.mask, gy, zero), None, False),
                                    None)
            gv = _reduce(backend, total, self.input_specs[2])
        return gx, None, gv

    def backward_graph(self, grad):
        mask = self.constant(self.mask)
        gx = gv = None
        if self.needs_input_grad[0]:
            gx = reduce_to_input(MaskedFill(fill=0)(grad, mask), self.input_specs[0])
        if len(self.needs_input_grad) > 2 and self.needs_input_grad[2]:
            unmasked = self.constant(self.backend.unary("logical_not", self.mask))
            gv = reduce_to_input(MaskedFill(fill=0)(grad, unmasked).sum(), self.input_specs[2])
        return gx, None, gv


def fill_scalar(op: str, value: Number, dtype):
    """``value`` as a scalar of ``dtype``, converted as PyTorch converts a fill value: any
    number to bool by truth, a float within an integer dtype's range by truncation, a
    negative integer into an unsigned dtype by wrapping (``-1`` is 255 in uint8, but ``-1.0``
    is refused: PyTorch wraps ints only).

    A complex number goes into a real dtype only when its imaginary part is 0 (bool takes
    any, by truth).

    Raises:
        RuntimeError for a value the dtype cannot hold (NaN or inf into an integer dtype,
        300 or -1.0 into uint8, 127.5 into int8, 1e39 into float32, 1j into float32).
    """
    if dtype is dtypes.bool_:
        return dtype.numpy.type(bool(value))
    if dtype.is_complex:
        return dtype.numpy.type(value)  # any number (a float is no integer to truncate)
    if isinstance(value, complex):
        if value.imag != 0:
            raise RuntimeError(f"{op}: value cannot be converted to type {dtype} without "
                               f"overflow (value={value!r}: a real dtype holds no imaginary "
                               "part)")
        value = value.real
    if not dtype.is_floating_point:
        if isinstance(value, float):
            low, high = _finite_range(dtype)
            if not low <= value <= high:  # NaN too
                raise RuntimeError(f"{op}: value cannot be converted to type {dtype} without "
                                   f"overflow (value={value!r})")
            value = int(value)  # toward zero, as C's cast
        largest = 2 ** (8 * dtype.itemsize) - 1
        if dtype.numpy.kind == "u" and -largest <= value < 0:
            value += largest + 1
    return _bound_scalar(op, "value", value, dtype)


def fill_number(op: str, value, dtype, name: str = "value"):
    """A Python number given to fill a tensor of ``dtype`` (``fill_``, ``full``) as PyTorch
    takes it: an int beyond 64 bits is its argument parser's OverflowError, the rest is
    converted and checked by ``fill_scalar`` (``-1`` wraps to 255 in uint8, 300 is refused
    in int8), for integer and bool dtypes. Other values (a Tensor, a NumPy scalar) are
    returned as they are."""
    if not isinstance(value, Number) and not hasattr(value, "_data") \
            and getattr(value, "shape", None) != ():  # (a 0-d array: a NumPy scalar)
        raise TypeError(f"{op}(): argument '{name}' must be a Number or a 0-d Tensor, not "
                        f"{type(value).__name__}")
    if hasattr(value, "_data") and value.dim() != 0:
        raise RuntimeError(f"{op} only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions.")
    if isinstance(value, complex) and not dtype.is_complex:
        return fill_scalar(op, value, dtype)  # only a zero imaginary part fits
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or dtype.is_floating_point or dtype.is_complex:
        return value  # (a float dtype takes any float, beyond its range as inf)
    number, _ = fill_value(op, value)
    return fill_scalar(op, number, dtype)


def fill_value(op: str, value):
    """``(number, None)`` or ``(None, tensor)``: how ``masked_fill`` receives ``value``.

    Raises:
        TypeError for anything else (a string, None, a list); OverflowError for an int
        outside ``[-2 ** 63, 2 ** 64)``, as PyTorch's argument parser.
    """
    if hasattr(value, "_data"):  # a Tensor
        return None, value
    if getattr(value, "shape", None) == () and hasattr(value, "item"):
        value = value.item()  # a NumPy scalar: np.float32 is no Python float
    if isinstance(value, Number):
        if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 64:
            raise OverflowError(dtypes.int_scalar_overflow(value))
        return value, None
    raise TypeError(f"{op}(): argument 'value' must be a number or a 0-dimensional Tensor, "
                    f"but got {type(value).__name__}")

"""Broadcasting as functions: ``broadcast_shapes``, ``broadcast_tensors``, ``type_as``, and
``where`` with PyTorch's overloads (numbers for either branch, and ``where(condition)``).

None of them is an op of its own: ``broadcast_tensors`` is one ``expand`` view per tensor
that needs it (``ExpandBackward0``, as in PyTorch), ``where`` is the ``Where`` op with its
numbers made 0-d tensors of the dtype PyTorch's type promotion gives, and ``where(c)`` is
``nonzero(c, as_tuple=True)``.
"""

from __future__ import annotations

from numbers import Number
from operator import index as as_index

from . import dtypes
from .errors import ShapeRuntimeError
from .ops import shapes
from .size import Size
from .tensor_arguments import require_tensor_list


def broadcast_shapes(*shapes_) -> Size:
    """The shape tensors of the given shapes (tuples of ints, or ints for 1-D shapes)
    broadcast to, without making any tensor.

    Raises:
        ShapeRuntimeError (a ``RuntimeError``, as PyTorch's) when they do not broadcast or
        a size is negative or not an int.
    """
    out: tuple = ()
    for position, shape in enumerate(shapes_):
        sizes = _sizes(position, shape)
        try:
            out = shapes.broadcast("broadcast_shapes", out, sizes)
        except ShapeRuntimeError:
            raise ShapeRuntimeError("broadcast_shapes", f"shape {shapes.fmt(sizes)} at index "
                                    f"{position} cannot be broadcast with the shape "
                                    f"{shapes.fmt(out)} of the shapes before it: trailing "
                                    "dimensions must be equal or 1") from None
    return Size(out)


def _sizes(position: int, shape) -> tuple:
    """``shape`` as a tuple of non-negative ints (an int is a 1-D shape)."""
    try:
        sizes = (as_index(shape),) if not hasattr(shape, "__iter__") else tuple(
            as_index(s) for s in shape)
    except TypeError:
        raise ShapeRuntimeError("broadcast_shapes", f"expected each shape to be an int or a "
                                f"tuple of ints, but got {shape!r} at index {position}") from None
    if any(s < 0 for s in sizes):
        raise ShapeRuntimeError("broadcast_shapes", f"sizes cannot be negative, but got "
                                f"{shapes.fmt(sizes)} at index {position}")
    return sizes


def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to their common broadcast shape: views (``ExpandBackward0``)
    for those that need expanding, the tensors themselves for those that already have it.

    Raises:
        TypeError for an argument that is not a Tensor; ShapeRuntimeError (a
        ``RuntimeError``, as PyTorch's) when the shapes do not broadcast.
    """
    require_tensor_list("broadcast_tensors", tensors)
    out: tuple = ()
    for t in tensors:
        out = shapes.broadcast("broadcast_tensors", out, t._data.shape)
    return tuple(t if t._data.shape == out else t.expand(out) for t in tensors)


def type_as(self, other):
    """``self`` in ``other``'s dtype (``self`` itself when the dtypes match)."""
    from .tensor import Tensor

    if not isinstance(other, Tensor):
        raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    return self.to(other.dtype)


def where(condition, input=None, other=None):  # noqa: A002 - PyTorch's names
    """``input`` where the bool ``condition`` holds, else ``other``, broadcast together.
    Either branch may be a number, typed as PyTorch types a scalar operand; the result is
    differentiable in the tensor branches. ``where(condition)`` alone is
    ``nonzero(condition, as_tuple=True)``.

    Raises:
        TypeError for a condition that is not a Tensor, a branch that is neither a Tensor
        nor a number, or only one branch given; RuntimeError for a non-bool condition or a
        number the result's dtype cannot hold.
    """
    from .ops.elementwise import Where
    from .tensor import Tensor

    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not "
                        f"{type(condition).__name__}")
    if input is None and other is None:
        from .shape_functions import nonzero

        return nonzero(condition, as_tuple=True)
    for position, (name, value) in enumerate((("input", input), ("other", other)), 2):
        if not isinstance(value, Tensor) and not _is_number(value):
            raise TypeError(f"where(): argument '{name}' (position {position}) must be Tensor "
                            f"or Number, not {type(value).__name__}")
    if not (isinstance(input, Tensor) and isinstance(other, Tensor)):
        dtype = _branch_dtype(input, other)
        input, other = (v if isinstance(v, Tensor) else _as_tensor(v, dtype, condition)
                        for v in (input, other))
    return Where()(condition, input, other)


def where_method(self, condition, other):
    """``Tensor.where(condition, other)``: ``where(condition, self, other)``."""
    return where(condition, self, other)


def _is_number(value) -> bool:
    if getattr(value, "shape", None) == () and hasattr(value, "item"):
        value = value.item()  # a NumPy scalar
    return isinstance(value, Number) and not isinstance(value, complex)


def _branch_dtype(input, other):
    """The dtype a number branch takes: the other branch's, promoted by the number as
    a scalar operand promotes a tensor; for two numbers, their own (bool, int64, float32)."""
    numbers = [_python(v) for v in (input, other) if not hasattr(v, "_data")]
    tensors = [v for v in (input, other) if hasattr(v, "_data")]
    if tensors:
        return dtypes.scalar_result(tensors[0].dtype, numbers[0])
    if all(isinstance(n, bool) for n in numbers):
        return dtypes.bool_
    if any(isinstance(n, float) for n in numbers):
        return dtypes.get_default_dtype()
    return dtypes.int64


def _python(value):
    return value.item() if hasattr(value, "item") else value


def _as_tensor(value, dtype, condition):
    """``value`` as a 0-d tensor of ``dtype`` on the condition's device, converted as
    PyTorch converts a scalar (a negative int wraps into uint8; 300 does not fit)."""
    from .factories import full
    from .ops.masked import fill_scalar

    return full((), fill_scalar("where", _python(value), dtype), dtype=dtype,
                device=condition.device)

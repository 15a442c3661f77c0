"""PyTorch's alias names of existing ops: ``absolute``, ``negative``, ``positive``,
``multiply``, ``divide``, ``true_divide``, ``subtract``, ``rsub``, ``greater``,
``greater_equal``, ``less``, ``less_equal``, ``not_equal``, and their in-place methods.

Each is the op it names (same ``grad_fn``, same rules); ``rsub`` is its own op,
``ops/elementwise_aliases.py``'s ``Rsub`` (PyTorch's ``RsubBackward0``).
"""

from __future__ import annotations

from numbers import Number

from . import dtypes
from . import functions as F
from .ops.elementwise import Sub
from .ops.elementwise_aliases import Rsub

absolute, negative, multiply, true_divide = F.abs, F.neg, F.mul, F.div
greater, greater_equal, less, less_equal, not_equal = F.gt, F.ge, F.lt, F.le, F.ne


def positive(input):
    """``input`` itself (``+x``); refused for bool tensors, as in PyTorch."""
    if input._dtype is dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported; convert "
                           "first, e.g. with .int()")
    return input


def divide(input, other, *, rounding_mode: str | None = None):
    """``div`` under NumPy's name (``rounding_mode`` None, 'trunc' or 'floor')."""
    return F.div(input, other, rounding_mode=rounding_mode)


def subtract(input, other, *, alpha: Number = 1):
    """``input - alpha * other``."""
    return F.sub(input, other, alpha)


def rsub(input, other, *, alpha: Number = 1):
    """``other - alpha * input`` (``sub`` with its operands swapped); ``other`` may be a
    number."""
    if not _is_tensor(input):
        raise TypeError(f"rsub(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    scaled = F.scaled_by_alpha("rsub", other, input, alpha)
    if _is_tensor(other):
        return Rsub()(scaled, other)
    return F.call_binary("rsub", Sub, other, scaled)  # number - tensor: RsubBackward1


def _is_tensor(value) -> bool:
    return isinstance(value, F._find_tensor_type())


# -- in-place Tensor methods ----------------------------------------------------------------
def absolute_(self):
    return self.abs_()


def negative_(self):
    return self.neg_()


def multiply_(self, other):
    return self.mul_(other)


def divide_(self, other, *, rounding_mode: str | None = None):
    if rounding_mode is None:
        return self.div_(other)
    return self._inplace("divide_", lambda t: divide(t, other, rounding_mode=rounding_mode),
                         inputs=(other,))


def true_divide_(self, other):
    return self.div_(other)


def subtract_(self, other, *, alpha: Number = 1):
    return self.sub_(other, alpha)


def _comparison_in_place(function, name: str):
    """``x.greater_(y)``: the comparison's result, as 0/1 in ``x``'s dtype, written into x."""
    def method(self, other):
        return self._inplace(name, lambda t: function(t, other).to(t.dtype), inputs=(other,))
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``: 1 where it holds, else 0, in this dtype."
    return method


greater_ = _comparison_in_place(greater, "greater_")
greater_equal_ = _comparison_in_place(greater_equal, "greater_equal_")
less_ = _comparison_in_place(less, "less_")
less_equal_ = _comparison_in_place(less_equal, "less_equal_")
not_equal_ = _comparison_in_place(not_equal, "not_equal_")

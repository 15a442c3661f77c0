"""Searching sorted sequences and sets: ``searchsorted``, ``bucketize``, ``isin`` and
``histc``, thin wrappers over the ops of ``ops/searchsorted.py``, ``ops/isin.py`` and
``ops/histc.py``. A Python number stands for a 0-d tensor on the other argument's device,
of the dtype PyTorch's promotion gives it. None of them has a gradient.
"""

from __future__ import annotations

from numbers import Number

from . import dtypes
from . import functions as F
from .int_arguments import as_int
from .ops.histc import Histc
from .ops.isin import ISIN_BOOL, Isin
from .ops.searchsorted import Bucketize, SearchSorted
from .tensor_arguments import require_tensor


def searchsorted(sorted_sequence, input, *, out_int32: bool = False,  # noqa: A002
                 right: bool = False, side: str | None = None, sorter=None):
    """For each value of ``input``, the index in the innermost dim of ``sorted_sequence``
    where inserting it keeps that dim sorted: before equal elements, or after them with
    ``right=True`` (or ``side='right'``). A 1-D sequence serves values of any shape; an
    ``(..., m)`` sequence serves ``(..., k)`` values with the same leading dims, row by row.
    ``sorter`` (int64, the sequence's shape) gives the order of an unsorted sequence, as
    ``argsort`` does. ``input`` may be a number (then the result is 0-d).

    Shape:
        ``input``'s shape; int64, or int32 with ``out_int32``.
    """
    require_tensor("searchsorted", "sorted_sequence", sorted_sequence)
    values = _as_tensor("searchsorted", "input", input, sorted_sequence)
    right = _side_to_right(_flag("searchsorted", "right", right), side)
    if sorter is not None:
        require_tensor("searchsorted", "sorter", sorter)
    return SearchSorted(right=right, out_int32=_flag("searchsorted", "out_int32", out_int32))(
        sorted_sequence, values, sorter)


def bucketize(input, boundaries, *, out_int32: bool = False, right: bool = False):  # noqa: A002
    """The bucket index of each element of ``input`` among the sorted 1-D ``boundaries``:
    ``i`` such that ``boundaries[i - 1] < x <= boundaries[i]`` (``right=True``:
    ``boundaries[i - 1] <= x < boundaries[i]``); ``searchsorted`` with the arguments
    swapped. ``input`` may be a number (then the result is 0-d).

    Shape:
        ``input``'s shape; int64, or int32 with ``out_int32``.
    """
    require_tensor("bucketize", "boundaries", boundaries)
    values = _as_tensor("bucketize", "input", input, boundaries)
    return Bucketize(right=_flag("bucketize", "right", right),
                     out_int32=_flag("bucketize", "out_int32", out_int32))(boundaries, values)


_UNSET = object()  # no argument given (None is a value a user may pass by mistake)


def isin(elements=_UNSET, test_elements=_UNSET, *, element=_UNSET, test_element=_UNSET,
         assume_unique: bool = False, invert: bool = False):
    """True where an element of ``elements`` equals some element of ``test_elements``
    (False there with ``invert=True``). Either side may be a number; both are compared
    in their promoted dtype (``isin(int tensor, 2.5)`` finds nothing). A number given by
    keyword is ``element=`` or ``test_element=``, as in PyTorch's overloads
    (``isin(element=2, test_elements=t)``). ``assume_unique`` is accepted for PyTorch's
    signature; the answer does not depend on it.

    Shape:
        ``elements``' shape (0-d for a number), bool.
    """
    elements = _one_of("elements", elements, "element", element)
    test_elements = _one_of("test_elements", test_elements, "test_element", test_element)
    if isinstance(elements, bool) or isinstance(test_elements, bool):
        raise RuntimeError(ISIN_BOOL)  # as a bool tensor would
    if not _is_tensor(elements):
        if not _is_tensor(test_elements):
            raise TypeError(f"isin(): expected elements or test_elements to be a Tensor, but "
                            f"got {type(elements).__name__} and "
                            f"{type(test_elements).__name__}")
        elements = _as_tensor("isin", "elements", elements, test_elements)
    test_elements = _as_tensor("isin", "test_elements", test_elements, elements)
    return Isin(assume_unique=_flag("isin", "assume_unique", assume_unique),
                invert=_flag("isin", "invert", invert))(elements, test_elements)


def _one_of(tensor_name: str, tensor, number_name: str, number):
    """The argument given as ``tensor_name`` (a Tensor; by position also a number) or as
    ``number_name`` (a number, PyTorch's keyword for that overload), exactly one of them."""
    if number is _UNSET:
        if tensor is _UNSET:
            raise TypeError(f"isin() missing required argument '{tensor_name}' (a Tensor) or "
                            f"'{number_name}' (a number)")
        return tensor
    if tensor is not _UNSET:
        raise TypeError(f"isin() got both '{tensor_name}' and '{number_name}'; pass one: "
                        f"'{tensor_name}' for a Tensor, '{number_name}' for a number")
    if _is_tensor(number) or not isinstance(number, Number):
        raise TypeError(f"isin(): argument '{number_name}' must be Number, not "
                        f"{type(number).__name__}; pass a Tensor as '{tensor_name}'")
    return number


def histc(input, bins: int = 100, min: float = 0, max: float = 0):  # noqa: A002
    """A histogram of the floating-point ``input``: how many elements fall into each of
    ``bins`` equal-width bins over ``[min, max]``; ``min == max`` (the default) means the
    data's own range. Elements outside the range, and NaN, are not counted.

    Shape:
        ``(bins,)``, the input's dtype.
    """
    require_tensor("histc", "input", input)
    bins = as_int("histc", "bins", bins)
    for name, value in (("min", min), ("max", max)):
        if not _is_number(value):
            raise TypeError(f"histc(): argument '{name}' must be Number, not "
                            f"{type(value).__name__}")
    return Histc(bins=bins, min=float(min), max=float(max))(input)


def _is_number(value) -> bool:
    return isinstance(value, Number) and not isinstance(value, complex)


def _as_tensor(op: str, name: str, value, other):
    """``value`` itself, or a number as a 0-d tensor on ``other``'s device, of the dtype
    ``other op value`` gets (``int64 tensor`` and ``2.5``: the default float dtype)."""
    if _is_tensor(value):
        return value
    if not _is_number(value):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor or Number, not "
                        f"{type(value).__name__}")
    from .factories import tensor

    if hasattr(value, "item"):  # a NumPy scalar: the promotion rules read its Python type
        value = value.item()
    return tensor(value, dtype=dtypes.scalar_result(other.dtype, value), device=other.device)


def _flag(op: str, name: str, value) -> bool:
    """A keyword that must be a bool (PyTorch refuses ints there too)."""
    if not isinstance(value, bool):
        raise TypeError(f"{op}(): argument '{name}' must be bool, not {type(value).__name__}")
    return value


def _side_to_right(right: bool, side) -> bool:
    """``side`` ('left' or 'right'), when given, decides; it may not contradict ``right``."""
    if side is None:
        return right
    if not isinstance(side, str):
        raise TypeError(f"searchsorted(): argument 'side' must be str, not {type(side).__name__}")
    if side not in ("left", "right"):
        raise RuntimeError(f"searchsorted(): side can only be 'left' or 'right' but got {side}")
    if right and side == "left":
        raise RuntimeError("searchsorted(): side and right can't be set to opposites, got side "
                           "of left while right was True; give only one of them")
    return side == "right"


def _is_tensor(value) -> bool:
    # Looked up at call time: ``tensor.py`` imports this module (for the Tensor methods).
    return isinstance(value, F._tensor_type or F._find_tensor_type())

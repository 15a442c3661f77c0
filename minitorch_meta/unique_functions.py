"""``unique``, ``unique_consecutive`` and ``bincount`` (module functions and Tensor
methods): ops of ``ops/unique.py`` whose output size is read from the data first, so
they raise ``DataDependentShapeError`` on meta, as PyTorch's meta does.
"""

from __future__ import annotations

from .int_arguments import as_int
from .native_arguments import bool_argument
from .ops import unique as U


def unique(input, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None):
    """The distinct elements of ``input`` in ascending order (``dim=None``: of the flattened
    input; else the distinct slices along ``dim``, in lexicographic order), and with
    ``return_inverse``/``return_counts`` the index of each element's (or slice's) value and
    how often each value occurs, as a tuple. ``sorted=False`` sorts too (PyTorch's CPU
    does as well)."""
    bool_argument("unique", "sorted", 2, sorted)
    return _unique("unique", U.Unique, input, return_inverse, return_counts, dim)


def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None):
    """One element (or slice along ``dim``) per run of equal neighbours in ``input``, in
    order; with ``return_inverse``/``return_counts`` also the run of each element and the
    runs' lengths, as a tuple."""
    return _unique("unique_consecutive", U.UniqueConsecutive, input, return_inverse,
                   return_counts, dim)


def _unique(op: str, op_class, input, return_inverse: bool, return_counts: bool, dim):
    # PyTorch's flags are bools only (an int is its TypeError); positions as in unique
    first_flag = 3 if op == "unique" else 2
    bool_argument(op, "return_inverse", first_flag, return_inverse)
    bool_argument(op, "return_counts", first_flag + 1, return_counts)
    if dim is not None:
        dim = as_int(op, "dim", dim)
    axis = U.check_unique(op, input, dim)
    count, order, first = U.plan_unique(op, input, axis, op_class is U.UniqueConsecutive)
    values, inverse, counts = op_class(axis=axis, count=count, order=order, first=first)(input)
    if not (return_inverse or return_counts):
        return values
    return (values,) + ((inverse,) if return_inverse else ()) + (
        (counts,) if return_counts else ())


def bincount(input, weights=None, minlength: int = 0):
    """How often each of ``0, 1, ..., max(input)`` occurs in the 1-D non-negative integer
    ``input`` (at least ``minlength`` bins), or the sum of ``weights`` at its occurrences."""
    minlength = as_int("bincount", "minlength", minlength)
    U.check_bincount(input, weights, minlength)
    length = U.bincount_length(input, minlength)
    return U.Bincount(minlength=minlength, length=length)(input, weights)

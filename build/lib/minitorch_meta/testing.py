"""``minitorch_meta.testing``: ``assert_close``, as ``torch.testing.assert_close``.

Tensors (on any device), Python numbers, and sequences and mappings of them are compared
with PyTorch's default tolerances per dtype and its failure messages (how many elements
differ, the greatest absolute and relative differences and where). Meta tensors have no
values: only their shape, device and dtype are compared, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Number

import numpy as np

from . import dtypes
from .tensor import Tensor

#: ``(rtol, atol)`` by dtype when neither is given; other dtypes compare exactly
DEFAULT_TOLERANCES = {dtypes.float32: (1.3e-6, 1e-5), dtypes.float64: (1e-7, 1e-7)}


class _MismatchError(AssertionError):
    """A failed comparison; ``where`` grows as the failure travels out of containers."""

    def __init__(self, message: str, where: str = ""):
        super().__init__(message)
        self.message, self.where = message, where


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, msg=None) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close elementwise:
    ``|actual - expected| <= atol + rtol * |expected|`` (and equal shapes, devices and
    dtypes unless ``check_device``/``check_dtype`` is False).

    Without ``rtol`` and ``atol`` PyTorch's defaults apply: ``(1.3e-6, 1e-5)`` for float32,
    ``(1e-7, 1e-7)`` for float64 and Python floats, exact for integers and bools (the
    looser of the two inputs' dtypes). ``msg`` (a string, or a callable taking the
    generated message) replaces the message.

    Raises:
        ValueError: only one of ``rtol`` and ``atol`` is given.
        TypeError: inputs that cannot be compared (a tensor against a list, ...).
        AssertionError: the inputs are not close.
    """
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'atol' if atol is None else 'rtol'}.")
    options = {"rtol": rtol, "atol": atol, "equal_nan": equal_nan,
               "check_device": check_device, "check_dtype": check_dtype,
               "allow_subclasses": allow_subclasses}
    try:
        _compare(actual, expected, options)
    except _MismatchError as failure:
        message = failure.message
        if failure.where:
            message += f"\n\nThe failure occurred for item {failure.where}"
        if msg is not None:
            message = msg(message) if callable(msg) else msg
        raise AssertionError(message) from None


def _compare(actual, expected, options: dict) -> None:
    if isinstance(actual, (Tensor, np.ndarray)) and isinstance(expected, (Tensor, np.ndarray)):
        return _compare_tensors(_as_tensor(actual), _as_tensor(expected), options)
    if _is_number(actual) and _is_number(expected):
        return _compare_numbers(actual, expected, options)
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _MismatchError(f"The length of the sequences mismatch: {len(actual)} != "
                            f"{len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _inside(f"[{i}]", a, e, options)
        return None
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        missing = [k for k in expected if k not in actual]
        extra = [k for k in actual if k not in expected]
        if missing or extra:
            raise _MismatchError(f"The keys of the mappings do not match:\nMissing keys in the "
                            f"actual mapping: {missing}\nAdditional keys in the actual "
                            f"mapping: {extra}")
        for key in expected:
            _inside(f"[{key!r}]", actual[key], expected[key], options)
        return None
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and "
                    f"{type(expected)}.")


def _inside(step: str, actual, expected, options: dict) -> None:
    try:
        _compare(actual, expected, options)
    except _MismatchError as failure:
        raise _MismatchError(failure.message, step + failure.where) from None


def _is_number(value) -> bool:
    return isinstance(value, Number) and not isinstance(value, complex)


def _is_sequence(value) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


def _as_tensor(value) -> Tensor:
    if isinstance(value, Tensor):
        return value.detach()
    from .factories import from_numpy

    return from_numpy(np.ascontiguousarray(value))


def _tolerances(options: dict, *kinds) -> tuple:
    if options["rtol"] is not None:
        return options["rtol"], options["atol"]
    pairs = [DEFAULT_TOLERANCES.get(kind, (0.0, 0.0)) for kind in kinds]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _compare_numbers(actual, expected, options: dict) -> None:
    if isinstance(actual, bool) and isinstance(expected, bool):
        if actual is not expected:
            raise _MismatchError(f"Booleans mismatch: {actual} is not {expected}")
        return
    if options["check_dtype"] and type(actual) is not type(expected):
        raise _MismatchError(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    kind = dtypes.float64 if isinstance(actual, float) or isinstance(expected, float) else None
    rtol, atol = _tolerances(options, kind)
    mismatch = _mismatches(np.asarray(actual), np.asarray(expected), rtol, atol,
                           options["equal_nan"])
    if mismatch.any():
        raise _MismatchError(_scalar_message(actual, expected, rtol, atol))


def _compare_tensors(actual: Tensor, expected: Tensor, options: dict) -> None:
    for name in ("shape", "device", "dtype"):
        if name == "device" and not options["check_device"]:
            continue
        if name == "dtype" and not options["check_dtype"]:
            continue
        a, e = getattr(actual, name), getattr(expected, name)
        if a != e:
            raise _MismatchError(f"The values for attribute '{name}' do not match: {a} != {e}.")
    if actual.is_meta or expected.is_meta:
        return  # no values to compare, as PyTorch's meta tensors
    rtol, atol = _tolerances(options, actual.dtype, expected.dtype)
    common = dtypes.promote(actual.dtype, expected.dtype).numpy
    a = actual._host().astype(common, copy=False)
    e = expected._host().astype(common, copy=False)
    mismatch = _mismatches(a, e, rtol, atol, options["equal_nan"])
    if not mismatch.any():
        return
    if a.ndim == 0:
        raise _MismatchError(_scalar_message(a.item(), e.item(), rtol, atol))
    raise _MismatchError(_tensor_message(a, e, mismatch, rtol, atol))


def _mismatches(a: np.ndarray, e: np.ndarray, rtol: float, atol: float,
                equal_nan: bool) -> np.ndarray:
    """Where ``a`` and ``e`` are not close (equal infinities are close)."""
    if a.dtype.kind in "biu" and e.dtype.kind in "biu" and rtol == 0 and atol == 0:
        return a != e  # exact, without going through float64
    return ~np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _differences(a: np.ndarray, e: np.ndarray, mismatch=None) -> tuple:
    """``(|a - e|, |a - e| / |e|)`` as PyTorch reports them: integers subtracted as int64
    and divided in float32, floats in their own dtype; 0 where ``mismatch`` is False (only
    the mismatched elements are reported)."""
    if a.dtype.kind in "biu":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        absolute = np.abs(a - e)
        if mismatch is not None:
            absolute[~mismatch] = 0
        if a.dtype.kind in "biu":
            relative = absolute.astype(np.float32) / np.abs(e.astype(np.float32))
        else:
            relative = absolute / np.abs(e)
    if mismatch is not None:
        relative[~mismatch] = 0
    return absolute, relative


def _allowed(tolerance: float, exact: bool) -> str:
    return "" if exact else f" (up to {tolerance} allowed)"


def _scalar_message(actual, expected, rtol: float, atol: float) -> str:
    exact = rtol == 0 and atol == 0
    absolute, relative = _differences(np.asarray(actual), np.asarray(expected))
    return (f"Scalars are not {'equal' if exact else 'close'}!\n\n"
            f"Expected {expected} but got {actual}.\n"
            f"Absolute difference: {absolute.item()}{_allowed(atol, exact)}\n"
            f"Relative difference: {relative.item()}{_allowed(rtol, exact)}")


def _tensor_message(a: np.ndarray, e: np.ndarray, mismatch: np.ndarray, rtol: float,
                    atol: float) -> str:
    exact = rtol == 0 and atol == 0
    absolute, relative = _differences(a, e, mismatch)
    count, total = int(mismatch.sum()), mismatch.size
    lines = [f"Tensor-likes are not {'equal' if exact else 'close'}!", "",
             f"Mismatched elements: {count} / {total} ({count / total * 100:.1f}%)"]
    for name, values, tolerance in (("absolute", absolute, atol), ("relative", relative, rtol)):
        flat = int(np.argmax(values))  # NaN counts as the greatest, as torch.max has it
        where = tuple(int(i) for i in np.unravel_index(flat, values.shape))
        lines.append(f"Greatest {name} difference: {values.reshape(-1)[flat].item()} at index "
                     f"{where}{_allowed(tolerance, exact)}")
    return "\n".join(lines)


__all__ = ["assert_close"]

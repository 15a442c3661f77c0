"""``repr`` of tensors in PyTorch's format.

``tensor([[1., 2.], [3., 4.]])``, with ``dtype=``/``device=`` suffixes when they differ from
the defaults, ``requires_grad=True`` or ``grad_fn=<...>``, and for meta tensors (which have
no values) ``tensor(..., device='meta', size=(2, 5, 9, 9), grad_fn=<ConvolutionBackward0>)``.

How values are laid out (digits, summarising, line width, scientific notation) is read from
``PRINT_OPTIONS``, set by ``set_printoptions`` as PyTorch's is: like PyTorch's, the options
are one object for the whole process, so that ``print(x)`` anywhere follows them.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from . import dtypes


class PrintOptions:
    """How tensor values print; ``PRINT_OPTIONS`` is the one instance every repr reads.

    ``precision``: digits after the decimal point (4); ``threshold``: a tensor with more
    elements is summarised (1000); ``edgeitems``: elements kept at each end of a summarised
    dimension (3); ``linewidth``: characters per line (80); ``sci_mode``: True or False
    forces scientific notation on or off, None lets each tensor's values decide.
    """

    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self):
        self.update(**_PROFILES["default"], sci_mode=None)

    def update(self, **options) -> None:
        for name, value in options.items():
            setattr(self, name, value)

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}


#: PyTorch's named sets of options (``set_printoptions(profile=...)``)
_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}
PRINT_OPTIONS = PrintOptions()


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """Set how tensors print, for the whole process (PyTorch's ``torch.set_printoptions``).

    ``profile`` (``"default"``, ``"short"``: 2 digits and 2 edge items, ``"full"``: never
    summarise) sets all four first; the other arguments given then override it. As in
    PyTorch, ``sci_mode`` is set on every call: leaving it out means None (automatic).

    Raises:
        ValueError: an unknown ``profile``, or a negative number.
        TypeError: an option of the wrong type (PyTorch would fail later, when printing).
    """
    # Everything is checked before anything changes: a bad call leaves the options alone.
    if profile is not None and profile not in _PROFILES:
        raise ValueError(f"set_printoptions: unknown profile {profile!r}; expected one of "
                         f"{', '.join(map(repr, _PROFILES))}")
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
             "linewidth": linewidth}
    given = {name: value for name, value in given.items() if value is not None}
    for name, value in given.items():
        _check_option(name, value)
    if sci_mode is not None and not isinstance(sci_mode, bool):
        raise TypeError(f"set_printoptions: sci_mode must be True, False or None, got "
                        f"{sci_mode!r}")
    if profile is not None:
        PRINT_OPTIONS.update(**_PROFILES[profile])
    PRINT_OPTIONS.update(**given, sci_mode=sci_mode)


def _check_option(name: str, value) -> None:
    """A count (an int; ``threshold`` may also be a float such as ``math.inf``), >= 0."""
    kinds = Real if name == "threshold" else int
    if isinstance(value, bool) or not isinstance(value, kinds):
        kind = "a number" if name == "threshold" else "an int"
        raise TypeError(f"set_printoptions: {name} must be {kind}, got "
                        f"{type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"set_printoptions: {name} must be >= 0, got {value}")


def get_printoptions() -> dict:
    """The current options, as keywords ``set_printoptions`` takes back (to restore them).

    PyTorch has it as ``torch._tensor_str.get_printoptions`` (not ``torch.``)."""
    return PRINT_OPTIONS.as_dict()

_PREFIX = "tensor("


def tensor_repr(t) -> str:
    suffixes = []
    if t.is_meta:
        body = "..."
        suffixes.append("device='meta'")
        suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype is not dtypes.get_default_dtype():
            suffixes.append(f"dtype={t.dtype}")
    else:
        body = _format_values(t._host(), t.dtype)
        if t.device.type != "cpu":
            suffixes.append(f"device='{t.device}'")
        # the shape of an empty tensor (but (0,)), and of any when no values are shown
        if (t.numel() == 0 and t.dim() != 1) or (t.numel() and not PRINT_OPTIONS.edgeitems):
            suffixes.append(f"size={tuple(t.shape)}")
        # PyTorch's rule: the default float dtype, its complex one, int64 and bool go
        # unsaid (an empty tensor's dtype is said unless it is the default float one)
        default_float = dtypes.get_default_dtype()
        if t.dtype not in (default_float, dtypes.default_complex_dtype(), dtypes.int64,
                           dtypes.bool_) or (
                t.numel() == 0 and t.dtype is not default_float):
            suffixes.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    tangent = _forward_tangent(t)
    if tangent is not None:  # PyTorch shows a 0-d tangent as its number
        shown = tangent.item() if tangent.dim() == 0 and not tangent.is_meta else repr(tangent)
        suffixes.append(f"tangent={shown}")
    return _with_suffixes(_PREFIX + body, suffixes, len(_PREFIX)) + ")"


def _forward_tangent(t):
    """``t``'s tangent in an open forward-mode dual level, if it has a known one."""
    from .ops.function import _observers

    if not _observers:  # no dual level can be open
        return None
    from .autograd.forward_ad import current_level

    level = current_level()
    tangent = None if level is None else level.tangent(t)
    return tangent if hasattr(tangent, "_data") else None


def _with_suffixes(text: str, suffixes: list, indent: int) -> str:
    """``text, suffix, ...``: a suffix that would pass the line width starts a new line."""
    parts = [text]
    line = len(text) - text.rfind("\n") + 1  # as PyTorch counts it (one more on line 1)
    for suffix in suffixes:
        if line + len(suffix) + 2 > PRINT_OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line += len(suffix) + 2
    return "".join(parts)


def _format_values(array: np.ndarray, dtype) -> str:
    """The bracketed values, laid out as PyTorch's printer lays them out."""
    if array.size == 0:
        return "[]"
    edge = PRINT_OPTIONS.edgeitems
    summarize = array.size > PRINT_OPTIONS.threshold
    shown = _summarized(array, edge) if summarize else array
    formatter = (_ComplexFormatter(shown, dtype) if dtype.is_complex
                 else _Formatter(shown, dtype))
    if array.ndim == 0:
        return formatter.format(array.item())
    return _layout(array, len(_PREFIX), summarize, formatter, edge)


def _summarized(array: np.ndarray, edge: int) -> np.ndarray:
    """The elements that will be printed (``edge`` at each end of each long dimension),
    for the widths."""
    if array.ndim == 0:
        return array
    if array.ndim > 1 and edge == 0:  # printed as "[...]": no values
        return array[:0]
    if array.shape[0] > 2 * edge:
        parts = [array[:edge], array[array.shape[0] - edge:]]  # ``-0:`` would be everything
    else:
        parts = [array]
    if array.ndim == 1:
        return np.concatenate(parts)
    return np.concatenate([np.stack([_summarized(row, edge) for row in part])
                           for part in parts if len(part)])


class _Formatter:
    """One width and style for every element: integral, fixed or scientific (with
    ``PRINT_OPTIONS.precision`` decimals)."""

    def __init__(self, values: np.ndarray, dtype):
        self.floating = dtype.is_floating_point
        self.precision = precision = PRINT_OPTIONS.precision
        self.int_mode, self.sci_mode, self.width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            self.width = max((len(str(v)) for v in flat.tolist()), default=1)
            return
        if dtype is dtypes.float8_e8m0fnu:
            # PyTorch's isfinite calls its NaN finite, and its "zero" is 2 ** -127 (bits 0):
            # a NaN among the values then turns scientific notation off, as there
            wide = flat.astype(np.float64)
            finite = wide[wide != 2.0 ** -127]
        else:
            finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitude = np.abs(finite)
        low, high = magnitude.min(), magnitude.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = PRINT_OPTIONS.sci_mode
        if self.sci_mode is None:  # the values decide
            self.sci_mode = bool(high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4)
        if self.int_mode and not self.sci_mode:
            texts = [f"{v:.0f}." for v in finite.tolist()]
        else:
            style = "e" if self.sci_mode else "f"
            texts = [f"{v:.{precision}{style}}" for v in finite.tolist()]
        self.width = max(len(t) for t in texts)

    def format(self, value) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.width}.{self.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if np.isfinite(value):
                text += "."
        else:
            text = f"{value:.{self.precision}f}"
        return " " * (self.width - len(text)) + text


class _ComplexFormatter:
    """PyTorch's layout of complex elements: the real parts share one formatter and the
    imaginary parts another, joined as ``1.5000-0.2500j`` (the sign kept, also of -0.)."""

    def __init__(self, values: np.ndarray, dtype):
        part = dtype.to_real()
        self.real, self.imag = _Formatter(values.real, part), _Formatter(values.imag, part)
        # (``_layout`` adds 2 for ", "; PyTorch counts the "j" too)
        self.width = self.real.width + self.imag.width + 1

    def format(self, value) -> str:
        imag = (self.imag.format(value.imag) + "j").lstrip()
        sign = "" if imag[0] in "+-" else "+"
        return self.real.format(value.real) + sign + imag


def _layout(array: np.ndarray, indent: int, summarize: bool, formatter: _Formatter,
            edge: int) -> str:
    long = summarize and array.shape[0] > 2 * edge
    if array.ndim == 1:
        values = array.tolist()
        if summarize and edge == 0:
            elements = ["..."]
        elif long:
            elements = ([formatter.format(v) for v in values[:edge]] + [" ..."]
                        + [formatter.format(v) for v in values[len(values) - edge:]])
        else:
            elements = [formatter.format(v) for v in values]
        linewidth = PRINT_OPTIONS.linewidth
        per_line = max(1, math.floor((linewidth - indent) / (formatter.width + 2)))
        lines = [", ".join(elements[i:i + per_line]) for i in range(0, len(elements), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(array.shape[0])
    if long:
        chosen = list(rows[:edge]) + [None] + list(rows[len(rows) - edge:])
    else:
        chosen = list(rows)
    slices = ["..." if i is None else _layout(array[i], indent + 1, summarize, formatter, edge)
              for i in chosen]
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(slices) + "]"

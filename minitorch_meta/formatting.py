"""``repr`` of tensors in PyTorch's format.

``tensor([[1., 2.], [3., 4.]])``, with ``dtype=``/``device=`` suffixes when they differ from
the defaults, ``requires_grad=True`` or ``grad_fn=<...>``, and for meta tensors (which have
no values) ``tensor(..., device='meta', size=(2, 5, 9, 9), grad_fn=<ConvolutionBackward0>)``.
"""

from __future__ import annotations

import numpy as np

from . import dtypes

_PREFIX = "tensor("
_DEFAULT_DTYPES = (dtypes.float32, dtypes.int64, dtypes.bool_)


def tensor_repr(t) -> str:
    suffixes = []
    if t.is_meta:
        body = "..."
        suffixes.append("device='meta'")
        suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype is not dtypes.float32:
            suffixes.append(f"dtype={t.dtype}")
    else:
        body = _format_values(t._host(), t.dtype)
        if t.device.type != "cpu":
            suffixes.append(f"device='{t.device}'")
        if t.numel() == 0 and t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype not in _DEFAULT_DTYPES or (t.numel() == 0 and t.dtype is not dtypes.float32):
            suffixes.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return f"{_PREFIX}{', '.join([body] + suffixes)})"


_THRESHOLD, _EDGEITEMS, _LINEWIDTH, _PRECISION = 1000, 3, 80, 4


def _format_values(array: np.ndarray, dtype) -> str:
    """The bracketed values, laid out as PyTorch's printer lays them out."""
    if array.size == 0:
        return "[]"
    summarize = array.size > _THRESHOLD
    formatter = _Formatter(_summarized(array) if summarize else array, dtype)
    if array.ndim == 0:
        return formatter.format(array.item())
    return _layout(array, len(_PREFIX), summarize, formatter)


def _summarized(array: np.ndarray) -> np.ndarray:
    """The elements that will be printed (edges of each long dimension), for the widths."""
    if array.ndim == 0:
        return array
    if array.shape[0] > 2 * _EDGEITEMS:
        parts = [array[:_EDGEITEMS], array[-_EDGEITEMS:]]
    else:
        parts = [array]
    if array.ndim == 1:
        return np.concatenate(parts)
    return np.concatenate([np.stack([_summarized(row) for row in part]) for part in parts
                           if len(part)])


class _Formatter:
    """One width and style for every element: integral, fixed (4 decimals) or scientific."""

    def __init__(self, values: np.ndarray, dtype):
        self.floating = dtype.is_floating_point
        self.int_mode, self.sci_mode, self.width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            self.width = max(len(str(v)) for v in flat.tolist())
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitude = np.abs(finite)
        low, high = magnitude.min(), magnitude.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            self.sci_mode = high / low > 1000.0 or high > 1.0e8
            texts = ([f"{v:.{_PRECISION}e}" for v in finite.tolist()] if self.sci_mode
                     else [f"{v:.0f}." for v in finite.tolist()])
        else:
            self.sci_mode = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
            style = "e" if self.sci_mode else "f"
            texts = [f"{v:.{_PRECISION}{style}}" for v in finite.tolist()]
        self.width = max(len(t) for t in texts)

    def format(self, value) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.width}.{_PRECISION}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if np.isfinite(value):
                text += "."
        else:
            text = f"{value:.{_PRECISION}f}"
        return " " * (self.width - len(text)) + text


def _layout(array: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    long = summarize and array.shape[0] > 2 * _EDGEITEMS
    if array.ndim == 1:
        values = array.tolist()
        if long:
            elements = ([formatter.format(v) for v in values[:_EDGEITEMS]] + [" ..."]
                        + [formatter.format(v) for v in values[-_EDGEITEMS:]])
        else:
            elements = [formatter.format(v) for v in values]
        per_line = max(1, (_LINEWIDTH - indent) // (formatter.width + 2))
        lines = [", ".join(elements[i:i + per_line]) for i in range(0, len(elements), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(array.shape[0])
    if long:
        chosen = list(rows[:_EDGEITEMS]) + [None] + list(rows[-_EDGEITEMS:])
    else:
        chosen = list(rows)
    slices = ["..." if i is None else _layout(array[i], indent + 1, summarize, formatter)
              for i in chosen]
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(slices) + "]"

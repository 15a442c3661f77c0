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


def _format_values(array: np.ndarray, dtype) -> str:
    if array.size == 0:
        return "[]"
    if dtype.is_floating_point:
        finite = array[np.isfinite(array)]
        integral = finite.size == 0 or bool(np.all(finite == np.round(finite)))
        large = finite.size and (np.abs(finite).max() >= 1e8 or
                                 (np.abs(finite[finite != 0]).min() < 1e-4 if
                                  np.any(finite != 0) else False))
        if large:
            formatter = {"float_kind": lambda v: np.format_float_scientific(
                v, precision=4, unique=False, exp_digits=2)}
            text = np.array2string(array, separator=", ", prefix=_PREFIX, formatter=formatter,
                                   threshold=1000, edgeitems=3, max_line_width=80)
        elif integral:
            text = np.array2string(array, separator=", ", prefix=_PREFIX, floatmode="unique",
                                   threshold=1000, edgeitems=3, max_line_width=80)
        else:
            text = np.array2string(array, separator=", ", prefix=_PREFIX, precision=4,
                                   floatmode="fixed", threshold=1000, edgeitems=3,
                                   max_line_width=80)
    else:
        text = np.array2string(array, separator=", ", prefix=_PREFIX, threshold=1000,
                               edgeitems=3, max_line_width=80)
    return text

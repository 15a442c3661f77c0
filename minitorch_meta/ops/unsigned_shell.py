"""Which ops run on PyTorch's "shell" dtypes ``uint16``, ``uint32`` and ``uint64``.

PyTorch gives these dtypes storage, copies and conversions, views and indexing, and a handful
of kernels (``mul``, ``eq``/``ne``, bitwise and/or/xor, ``sum``/``prod``/``cumsum`` into
int64, ``sort``, ``unique``, ...). Any other op whose kernel would run in one of them raises
``NotImplementedError`` ("... not implemented for 'UInt16'"); an op that computes in another
dtype (``x / 2``, ``x.sqrt()``, ``x * 2.5``, ``x < 1.5``: a float) runs. Promotion with another
integer or bool dtype is a ``RuntimeError`` (``dtypes.promote``).

``Function.__call__`` asks ``check`` after the shape rule whenever an input has one of these
dtypes, so an op refuses them on every backend alike, without a line in the op itself.
``SUPPORTED`` names the ops (``module.Class``) PyTorch runs on them.
"""

from __future__ import annotations

from .. import dtypes
from . import float8_shell
from .layout_only_ops import LAYOUT_OPS

_SHELL = dtypes.UNSIGNED_SHELL


def check(function, inputs) -> None:
    """Raise PyTorch's ``NotImplementedError`` if ``function``, given ``inputs`` of which
    one has a shell dtype, would compute in a shell dtype PyTorch has no kernel of it for
    (called after the op's shape rule, which sets the dtype it computes in). A float8
    input is ``float8_shell``'s to judge."""
    for t in inputs:
        if t is not None and t._dtype in dtypes.FLOAT8:
            float8_shell.check(function, inputs, t._dtype)
            return
    # Elementwise ops name the dtype they compute in (``Binary.compute_dtype``,
    # ``Unary.out_dtype``): another dtype means the inputs were converted first.
    computed = getattr(function, "compute_dtype", None) or getattr(function, "out_dtype", None)
    if isinstance(computed, dtypes.dtype) and computed not in _SHELL:
        return
    key = f"{type(function).__module__.rpartition('.')[2]}.{type(function).__qualname__}"
    if key not in SUPPORTED:
        raise NotImplementedError(refusal(function.op_name, _shell_dtype(inputs)))


def refusal(op: str, dtype: dtypes.dtype) -> str:
    """PyTorch's words for an op without a kernel for ``dtype``, and what to do instead."""
    name = dtypes.SCALAR_TYPE_NAMES[dtype]
    return (f'"{op}" not implemented for \'{name}\': PyTorch\'s uint16, uint32 and uint64 '
            "support copies, views, indexing and a few ops only; convert first, e.g. with "
            ".to(torch.int64)")


def refuse_dtype(op: str, dtype: dtypes.dtype, kernel: str | None = None) -> None:
    """Refuse a shell ``dtype`` (a float8 one too) in a factory PyTorch has no kernel of it
    for (``arange``); ``kernel`` is PyTorch's name of the kernel, if not ``op``."""
    if dtype in _SHELL:
        raise NotImplementedError(refusal(op, dtype))
    float8_shell.refuse_factory(op, dtype, kernel)


def check_setitem(tensor, index) -> None:
    """Refuse ``tensor[index] = value`` into a shell dtype where ``index`` holds a tensor or
    a list: PyTorch writes those through ``index_put``/``masked_fill``, which it lacks for
    them (a write through ints and slices is a copy, which it has)."""
    items = index if isinstance(index, tuple) else (index,)
    if any(isinstance(item, list) or hasattr(item, "_dtype") for item in items):
        kind = "masked_fill" if any(getattr(item, "_dtype", None) is dtypes.bool_
                                    for item in items) else "index_put"
        raise NotImplementedError(refusal(kind, tensor._dtype))


def _shell_dtype(inputs) -> dtypes.dtype:
    return next(t._dtype for t in inputs if t is not None and t._dtype in _SHELL)


#: The ops with a kernel for the shell dtypes in PyTorch 2.13 (CPU), by ``module.Class``.
SUPPORTED = LAYOUT_OPS | frozenset({
    # the few kernels
    "elementwise.Mul", "elementwise.Eq", "elementwise.Ne",
    "elementwise.Where", "logical.BitwiseAnd", "logical.BitwiseOr",
    "logical.BitwiseXor", "logical.IsFinite", "logical.IsInf",
    "logical.IsNan", "reduction.AllAny", "float_parts.Signbit",
    "float_parts.NanToNum",
    # sorting and uniques
    "sorting.Sort", "order_statistics.Argsort", "unique.Unique",
    "unique.UniqueConsecutive",
    # rounding an integer is a copy
    "rounding.Floor", "rounding.Ceil", "rounding.Trunc",
    "rounding.Round",
})

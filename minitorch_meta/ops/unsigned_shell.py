"""Which ops run on PyTorch's "shell" dtypes ``uint16``, ``uint32`` and ``uint64``.

PyTorch gives these dtypes storage, copies and conversions, views and indexing, and a handful
of kernels (``mul``, ``eq``/``ne``, bitwise and/or/xor, ``sum``/``prod``/``cumsum`` into
int64, ``sort``, ``unique``, ...). Any other op whose kernel would run in one of them raises
``NotImplementedError`` ("... not implemented for 'UInt16'"); an op that computes in another
dtype (``x / 2``, ``x.sqrt()``, ``x * 2.5``, ``x < 1.5``: a float) runs. Promotion with another
integer or bool dtype is a ``RuntimeError`` (``dtypes.promote``).

``Function.__call__`` asks ``check`` after the shape rule whenever an input has one of these
dtypes, so an op refuses them on every backend alike, without a line in the op itself.
``SUPPORTED`` names the ops (``module.Class``) PyTorch runs on them, each with ``None`` or a
further rule ``rule(function, inputs, specs)`` that raises for the arguments PyTorch refuses.
"""

from __future__ import annotations

from .. import dtypes

_SHELL = dtypes.UNSIGNED_SHELL


def check(function, inputs, specs) -> None:
    """Raise PyTorch's ``NotImplementedError`` if ``function``, given ``inputs`` of which
    one has a shell dtype, would compute in a shell dtype PyTorch has no kernel of it for.
    ``specs`` is what the op's shape rule returned."""
    # Elementwise ops name the dtype they compute in (``Binary.compute_dtype``,
    # ``Unary.out_dtype``): another dtype means the inputs were converted first.
    computed = getattr(function, "compute_dtype", None) or getattr(function, "out_dtype", None)
    if isinstance(computed, dtypes.dtype) and computed not in _SHELL:
        return
    key = f"{type(function).__module__.rpartition('.')[2]}.{type(function).__qualname__}"
    if key not in SUPPORTED:
        raise NotImplementedError(refusal(function.op_name, _shell_dtype(inputs)))
    rule = SUPPORTED[key]
    if rule is not None:
        rule(function, inputs, specs)


def refusal(op: str, dtype: dtypes.dtype) -> str:
    """PyTorch's words for an op without a kernel for ``dtype``, and what to do instead."""
    name = dtypes.SCALAR_TYPE_NAMES[dtype]
    return (f'"{op}" not implemented for \'{name}\': PyTorch\'s uint16, uint32 and uint64 '
            "support copies, views, indexing and a few ops only; convert first, e.g. with "
            ".to(torch.int64)")


def refuse_dtype(op: str, dtype: dtypes.dtype) -> None:
    """Refuse a shell ``dtype`` in a factory PyTorch has no kernel of it for (``arange``)."""
    if dtype in _SHELL:
        raise NotImplementedError(refusal(op, dtype))


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
SUPPORTED: dict = {
    # copies, views and joins
    "layout.Clone": None, "layout.View": None, "layout.Flatten": None, "layout.Permute": None,
    "layout.T": None, "layout.Squeeze": None, "layout.Unsqueeze": None, "layout.Expand": None,
    "layout.Cat": None, "layout.GetItem": None, "views.Narrow": None, "views.Select": None,
    "views.Movedim": None,
    "diagonal_view.Diagonal": None, "reorder.Repeat": None, "reorder.Roll": None,
    "padding.ConstantPadNd": None,
    # the few kernels
    "elementwise.Mul": None, "elementwise.Eq": None, "elementwise.Ne": None,
    "elementwise.Where": None, "logical.BitwiseAnd": None, "logical.BitwiseOr": None,
    "logical.BitwiseXor": None, "logical.IsFinite": None, "logical.IsInf": None,
    "logical.IsNan": None, "reduction.AllAny": None,
    # sorting and uniques
    "sorting.Sort": None, "order_statistics.Argsort": None, "unique.Unique": None,
    "unique.UniqueConsecutive": None,
    # rounding an integer is a copy
    "rounding.Floor": None, "rounding.Ceil": None, "rounding.Trunc": None,
    "rounding.Round": None,
}

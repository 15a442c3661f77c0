"""Which ops run on the 8-bit float dtypes (``float8_e4m3fn``, ``float8_e5m2``, the two
``fnuz`` ones and ``float8_e8m0fnu``), as PyTorch 2.13's CPU runs them.

PyTorch gives them storage, conversions, copies, views, indexing and joins, and a few
kernels: ``mul`` of two tensors (not of a tensor and a scalar or a one-element tensor),
``eq``/``ne``, ``where``, ``abs``, ``isnan``, ``all``/``any``, ``mm``/``addmm``; ``isinf``
and ``isfinite`` for ``float8_e5m2`` only (``isfinite`` also for ``float8_e8m0fnu``, which
has no ``abs`` or ``mm`` and takes no ``index_put``; its ``pad`` refuses the default value
0, which it cannot hold: ``check_fill``). Every other op whose kernel
would run in a float8 dtype raises PyTorch's ``NotImplementedError``; an op that computes in
another dtype (``float32_tensor * float8_0d_tensor``) runs. Promotion of a float8 dtype with
any other is a ``RuntimeError`` (``dtypes.promote``).

``unsigned_shell.check`` hands a float8 input here (``Function.__call__`` asks it after the
shape rule), so an op refuses them on every backend alike, without a line in the op itself.

A float8 ``mul`` computes in float32 and rounds once by PyTorch's rules (``float8_casts``):
``check`` points the op (a fresh instance per call) at the backend's ``float8_mul`` kernel,
and ``addmm`` at ``_addmm_in_float32``, so the ops themselves and the common path of every
other dtype are untouched.
"""

from __future__ import annotations

import math

from .. import dtypes
from .layout_only_ops import LAYOUT_OPS

#: The ops with a kernel for every float8 dtype in PyTorch 2.13 (CPU), by ``module.Class``.
SUPPORTED = LAYOUT_OPS | frozenset({
    # more copies and views
    "view_dtype.ViewDtype", "layout.Transpose",
    "sliding_window.SlidingWindows", "strided_view.AsStrided",
    # indexing
    "gather.IndexSelect", "masked_select.MaskedSelect", "embedding.Embedding",
    "index_put.IndexPut",
    # the few kernels
    "elementwise.Mul", "elementwise.Eq", "elementwise.Ne", "elementwise.Where",
    "elementwise.Abs", "logical.IsNan", "reduction.AllAny",
    "linalg.Mm", "linalg.Addmm", "linalg.Matmul",
})
#: Per dtype, the ops it has beyond ``SUPPORTED`` and the ones of it it lacks.
_EXTRA = {dtypes.float8_e5m2: {"logical.IsInf", "logical.IsFinite"},
          dtypes.float8_e8m0fnu: {"logical.IsFinite"}}
_MISSING = {dtypes.float8_e8m0fnu: {"elementwise.Abs", "linalg.Mm", "linalg.Addmm",
                                    "linalg.Matmul", "index_put.IndexPut"}}
#: PyTorch's kernel names, where they are not the op's own (for its messages)
_KERNEL_NAMES = {"add": "add_stub", "sum": "sum_cpu", "lt": "lt_cpu", "gt": "gt_cpu",
                 "le": "le_cpu", "ge": "ge_cpu", "neg": "neg_cpu", "flip": "flip_cpu",
                 "sort": "sort", "matmul": "dot", "bmm": "bmm", "sub": "sub_stub",
                 "div": "div_cpu_reduced_float"}


def supported(dtype: dtypes.dtype) -> frozenset:
    """The ``module.Class`` names of the ops PyTorch runs on the float8 ``dtype``."""
    return (SUPPORTED | _EXTRA.get(dtype, set())) - _MISSING.get(dtype, set())


_SUPPORTED_BY_DTYPE = {d: supported(d) for d in dtypes.FLOAT8}


def check(function, inputs, dtype: dtypes.dtype) -> None:
    """Raise PyTorch's ``NotImplementedError`` if ``function``, given ``inputs`` of which one
    is of the float8 ``dtype``, would compute in a float8 dtype PyTorch has no kernel of it
    for (called after the op's shape rule, which sets the dtype it computes in)."""
    computed = getattr(function, "compute_dtype", None) or getattr(function, "out_dtype", None)
    if isinstance(computed, dtypes.dtype) and computed not in dtypes.FLOAT8:
        return
    key = f"{type(function).__module__.rpartition('.')[2]}.{type(function).__qualname__}"
    if key not in _SUPPORTED_BY_DTYPE[dtype]:
        raise NotImplementedError(refusal(_KERNEL_NAMES.get(function.op_name,
                                                            function.op_name), dtype))
    if key == "elementwise.Mul":
        _check_mul(function, inputs, dtype)
    elif function.op_name in ("eq", "ne") and len(inputs) == 1:
        # the number is converted to the dtype first, as PyTorch does (so 500 is 448 in
        # float8_e4m3fn, which saturates); the backend's ``full`` makes that conversion
        from ..float8_casts import rounded_scalar

        function.scalar = rounded_scalar(function.scalar, dtype)
    elif key == "linalg.Addmm":
        function.forward = _addmm_in_float32.__get__(function)  # one rounding, as PyTorch
    elif key == "logical.IsFinite" and dtype is dtypes.float8_e8m0fnu:
        function.kernel = "all_true"  # PyTorch calls every float8_e8m0fnu value finite, NaN too
    elif key == "linalg.Matmul" and not all(t._data.ndim == 2 for t in inputs):
        # PyTorch's matmul of two matrices is its mm; a vector is a ``dot``/``mv``, a batch
        # a ``bmm``, which float8 lacks
        raise NotImplementedError(refusal("dot" if inputs[0]._data.ndim == 1 else "bmm",
                                          dtype))


def _check_mul(function, inputs, dtype) -> None:
    """PyTorch multiplies float8 tensors only when the right operand is not a scalar (a
    Python number or a one-element tensor take another kernel, which float8 lacks)."""
    right = inputs[1] if len(inputs) == 2 else None  # None: a Python number (``2 * x`` too)
    if right is None or right._data.size == 1:
        raise NotImplementedError(refusal("mul_cpu_reduced_float", dtype))
    function.kernel = "float8_mul"  # float32 product, rounded once (module docstring)


def refusal(kernel: str, dtype: dtypes.dtype) -> str:
    """PyTorch's words for a kernel missing for the float8 ``dtype``, and what to do."""
    name = dtypes.SCALAR_TYPE_NAMES[dtype]
    return (f'"{kernel}" not implemented for \'{name}\'; PyTorch\'s float8 dtypes support '
            "conversions, copies, views, indexing and a few ops only; convert first, e.g. "
            "with .float()")


def _addmm_in_float32(self, backend, bias, a, b):
    """``Addmm.forward`` for float8 operands: ``beta * bias + alpha * (a @ b)`` computed in
    float32 and rounded once, as PyTorch's CPU GEMM does (rounding the product first, then
    the sum, would differ in the last bit)."""
    self.a, self.b = a, b  # (as Addmm.forward keeps them for backward)
    single = dtypes.float32
    y = backend.matmul(backend.astype(a, single), backend.astype(b, single))
    if self.alpha != 1:
        y = y * y.dtype.type(self.alpha)
    scaled_bias = backend.astype(bias, single)
    if self.beta != 1:
        scaled_bias = scaled_bias * y.dtype.type(self.beta)
    return backend.astype(y + scaled_bias, dtypes.BY_NUMPY[a.dtype])


def check_fill(op: str, value, dtype: dtypes.dtype, numel: int = 2) -> None:
    """Refuse a number that the float8 ``dtype`` cannot hold, as PyTorch's checked
    conversion does for ``pad`` and for ``full``/``fill_`` of more than one element (one
    element takes it unchecked): beyond the finite range (``float8_e8m0fnu``'s starts at
    ``2 ** -127``: 0 and negative numbers are refused), or inf where the dtype has none (all
    but ``float8_e5m2``). NaN always fits.

    Raises:
        RuntimeError: PyTorch's "value cannot be converted to type ... without overflow".
    """
    if numel <= 1 or hasattr(value, "_data") or isinstance(value, complex):
        return
    value = float(value)
    _, high, low, _ = dtypes.FLOAT8_LIMITS[dtype]
    if math.isnan(value) or (math.isinf(value) and dtype is dtypes.float8_e5m2) \
            or low <= value <= high:
        return
    raise RuntimeError(f"{op}: value cannot be converted to type {dtype} without overflow "
                       f"(value={value!r}; its finite range is [{low:g}, {high:g}])")


def check_setitem(tensor, index, value) -> None:
    """Refuse ``tensor[index] = value`` into a float8 tensor where PyTorch has no kernel:
    a number written through a bool mask (its ``masked_fill``), and any write through a
    tensor or list index into float8_e8m0fnu (its ``index_put``)."""
    items = index if isinstance(index, tuple) else (index,)
    masked = any(getattr(item, "_dtype", None) is dtypes.bool_ for item in items)
    if masked and not hasattr(value, "_data"):
        raise NotImplementedError(refusal("masked_fill", tensor._dtype))
    if tensor._dtype is dtypes.float8_e8m0fnu and any(
            isinstance(item, list) or hasattr(item, "_data") for item in items):
        raise NotImplementedError(refusal("index_put", tensor._dtype))


#: The factories PyTorch fills a float8 tensor with (the rest have no float8 kernel)
FACTORIES = frozenset({"eye"})


def refuse_factory(op: str, dtype: dtypes.dtype, kernel: str | None = None) -> None:
    """Refuse a float8 ``dtype`` in a factory or fill PyTorch has no kernel of it for
    (``arange``, ``rand``, ``normal_``...); ``kernel`` is PyTorch's kernel name if not ``op``."""
    if dtype in dtypes.FLOAT8 and op not in FACTORIES:
        raise NotImplementedError(refusal(kernel or f"{op}_cpu", dtype))

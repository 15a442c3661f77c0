"""Which ops run on the 8-bit float dtypes (``float8_e4m3fn``, ``float8_e5m2``, the two
``fnuz`` ones and ``float8_e8m0fnu``), as PyTorch 2.13's CPU runs them.

PyTorch gives them storage, conversions, copies, views, indexing and joins, and a few
kernels: ``mul`` of two tensors (not of a tensor and a scalar or a one-element tensor),
``eq``/``ne``, ``where``, ``abs``, ``isnan``, ``all``/``any``, ``mm``/``addmm``; ``isinf``
and ``isfinite`` for ``float8_e5m2`` only (``isfinite`` also for ``float8_e8m0fnu``, which
has no ``abs``, ``mm`` or ``pad`` and takes no ``index_put``). Every other op whose kernel
would run in a float8 dtype raises PyTorch's ``NotImplementedError``; an op that computes in
another dtype (``float32_tensor * float8_0d_tensor``) runs. Promotion of a float8 dtype with
any other is a ``RuntimeError`` (``dtypes.promote``).

``unsigned_shell.check`` hands a float8 input here (``Function.__call__`` asks it after the
shape rule), so an op refuses them on every backend alike, without a line in the op itself.

A float8 ``mul`` computes in float32 and rounds once by PyTorch's rules (``float8_casts``):
``check`` points the op at the backend's ``float8_mul`` kernel, so ``Mul`` itself and the
common path of every other dtype are untouched.
"""

from __future__ import annotations

from .. import dtypes

#: The ops with a kernel for every float8 dtype in PyTorch 2.13 (CPU), by ``module.Class``.
SUPPORTED = frozenset({
    # copies, views and joins
    "layout.Clone", "layout.View", "layout.Flatten", "layout.Permute",
    "layout.T", "layout.Squeeze", "layout.Unsqueeze", "layout.Expand",
    "layout.Cat", "layout.GetItem", "views.Narrow", "views.Select",
    "views.Movedim", "layout.Reshape", "diagonal.Diag",
    "diagonal_view.DiagEmbed", "block_diag.BlockDiag",
    "diagonal_view.Diagonal", "reorder.Repeat", "reorder.Roll",
    "padding.ConstantPadNd", "view_dtype.ViewDtype", "layout.Transpose",
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
                                    "linalg.Matmul", "padding.ConstantPadNd",
                                    "index_put.IndexPut"}}
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
    return (f'"{kernel}" not implemented for \'{name}\': PyTorch\'s float8 dtypes support '
            "conversions, copies, views, indexing and a few ops only; convert first, e.g. "
            "with .float()")


#: The factories PyTorch fills a float8 tensor with (the rest have no float8 kernel)
FACTORIES = frozenset({"eye"})


def refuse_factory(op: str, dtype: dtypes.dtype, kernel: str | None = None) -> None:
    """Refuse a float8 ``dtype`` in a factory or fill PyTorch has no kernel of it for
    (``arange``, ``rand``, ``normal_``...); ``kernel`` is PyTorch's kernel name if not ``op``."""
    if dtype in dtypes.FLOAT8 and op not in FACTORIES:
        raise NotImplementedError(refusal(kernel or f"{op}_cpu", dtype))

"""Which ops take complex tensors, and the error of those that do not.

An op takes complex inputs only when its class says ``complex_aware = True``: its shape
rule, forward and backward were then written for complex values (the backward with
PyTorch's conjugate convention, ``grad_in = grad_out * conj(f'(z))`` for a holomorphic
``f``). The dispatcher (``Function.__call__``) refuses every other op on a complex input
through ``refuse``, before its shape rule runs, so that no op computes something wrong
through NumPy's complex kernels (NumPy orders complex numbers lexicographically, and a
real backward formula lacks the conjugate).

Where PyTorch itself refuses an op for complex tensors (orderings, rounding, ``clamp``...)
the error has PyTorch's type; every other op is one not written for complex values yet,
and raises ``NotImplementedError`` (a ``RuntimeError``) saying so.
"""

from __future__ import annotations

from .. import dtypes

_ORDER = "complex numbers have no order"
#: op name (or ``(op name, multiple_outputs)``) -> (PyTorch's error type, why): the ops
#: PyTorch refuses for complex tensors.
TORCH_REFUSALS = {
    **{name: (NotImplementedError, _ORDER) for name in (
        "lt", "le", "gt", "ge", "max", "min", "amax", "amin", "clamp", "clamp_min",
        "clamp_max", "relu", "remainder", "floor_divide", "fmod", "fmax", "fmin",
        "hardtanh", "threshold", "heaviside", "cummax", "cummin", "kthvalue", "median",
        "nanmedian", "quantile", "mode", "searchsorted", "bucketize", "histc", "leaky_relu",
        "copysign", "nextafter")},
    **{name: (RuntimeError, _ORDER) for name in (
        "maximum", "minimum", "sort", "argsort", "argmax", "argmin", "topk", "msort")},
    **{name: (NotImplementedError, "rounding is defined for real numbers only") for name in (
        "floor", "ceil", "round", "trunc", "rint", "frac")},
    "sign": (NotImplementedError, "unlike NumPy, torch.sign is not defined for complex "
                                  "numbers; use torch.sgn (z / |z|) instead"),
    # max and min over a dim (values and indices) refuse with another type than over all
    ("max", True): (RuntimeError, _ORDER), ("min", True): (RuntimeError, _ORDER),
}


def refuse(function, dtype: dtypes.dtype):
    """The error for ``function`` (an op instance that is not ``complex_aware``) meeting a
    complex tensor of ``dtype``: raise it."""
    op = function.op_name
    refusal = TORCH_REFUSALS.get((op, function.multiple_outputs)) or TORCH_REFUSALS.get(op)
    if refusal is not None:
        error, why = refusal
        raise error(f"{op} is not supported for complex tensors (got {dtype}): {why}, as in "
                    "PyTorch; apply it to the real parts (.real), the imaginary parts (.imag) "
                    "or the magnitudes (.abs()) instead")
    raise NotImplementedError(
        f"{op}: complex tensors are not supported yet by minitorch_meta (got {dtype}); the "
        "complex-aware ops are listed in docs/differences.md ('Complex numbers'); work on "
        "torch.view_as_real(z) (real and imaginary parts as a last dim of size 2) instead")


def complex_input(inputs):
    """The dtype of the first complex tensor among ``inputs`` (None stays None), or None."""
    for t in inputs:
        if t is not None and t._dtype.is_complex:
            return t._dtype
    return None


# -- kernels of the complex backward formulas (PyTorch's conjugate convention) ----------
def conj(backend, a):
    """``a``'s complex conjugate, or ``a`` itself when it is real (no kernel call)."""
    return backend.unary("conj", a) if a.dtype.kind == "c" else a


def times_conj(backend, g, v):
    """``g * conj(v)`` (``v`` an array or the scalar of ``x * 2``), the gradient of a
    product. Written ``conj(conj(g) * v)`` so that only arrays are conjugated."""
    if getattr(v, "dtype", None) is None or v.dtype.kind != "c":
        return backend.binary("mul", g, v)
    return backend.unary("conj", backend.binary("mul", conj(backend, g), v))


def over_conj(backend, g, v):
    """``g / conj(v)``: the gradient of a quotient, and of ``log`` and ``sqrt``."""
    if getattr(v, "dtype", None) is None or v.dtype.kind != "c":
        return backend.binary("div", g, v)
    return backend.unary("conj", backend.binary("div", conj(backend, g), v))


def conj_tensor(t):
    """The conjugate of the tensor (or Python number) ``t`` for ``backward_graph``: ``t``
    itself when real."""
    if isinstance(t, complex):
        return t.conjugate()
    return t.conj() if getattr(t, "is_complex", None) is not None and t.is_complex() else t


def sgn(backend, z):
    """``z / |z|`` elementwise for a complex array, 0 where ``z`` is 0 (PyTorch's ``sgn``)."""
    r = backend.unary("abs", z)
    zero = backend.binary("eq", r, r.dtype.type(0))
    safe = backend.where(zero, r.dtype.type(1), r)  # no 0 / 0 where the answer is 0 anyway
    return backend.where(zero, z.dtype.type(0), backend.binary("div", z, safe))


def sgn_backward(backend, g, z, s):
    """The gradient of ``s = sgn(z)`` (not holomorphic): ``(g - conj(g) s²) / (2 |z|)``,
    0 where ``z`` is 0, from the outgoing gradient ``g``."""
    r = backend.unary("abs", z)
    zero = backend.binary("eq", r, r.dtype.type(0))
    twice = backend.where(zero, r.dtype.type(1), backend.binary("mul", r, r.dtype.type(2)))
    along = backend.binary("mul", conj(backend, g), backend.binary("mul", s, s))
    grad = backend.binary("div", backend.binary("sub", g, along), twice)
    return backend.where(zero, grad.dtype.type(0), grad)

"""The CPU backend: the shared ``xp`` kernels over NumPy."""

from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes
from ..device import CPU
from ..float8_casts import float8_multiply, from_float8, to_float8
from . import numpy_erf, numpy_rng_state
from .host_allocator import keep_large_buffers
from .numpy_minmax import scalar_operand_minmax
from .numpy_scatter import scatter_add
from .numpy_select import branchless_where
from .xp import XpBackend
from .xp_half import is_half_float

# PyTorch computes with IEEE semantics and says nothing when 0/0 gives nan or exp(1000) inf;
# NumPy warns from inside our kernels, pointing users at a line of ours. This filter covers
# warnings raised in minitorch_meta's backend modules only: NumPy used directly still warns.
# (np.errstate around each op would do the same at ~1.6 us per op, more than the op itself.)
warnings.filterwarnings("ignore", category=RuntimeWarning,
                        module=r"minitorch_meta\.backends\.")


def _as_strided(a, shape=None, strides=None, **options):
    """NumPy's ``as_strided``, which cannot read the array interface of ml_dtypes'
    float8_e5m2 (typestr ``<f1``): that one is strided as its bytes."""
    if a.dtype == _E5M2:
        return np.lib.stride_tricks.as_strided(a.view(np.uint8), shape, strides,
                                               **options).view(_E5M2)
    return np.lib.stride_tricks.as_strided(a, shape, strides, **options)


def _is_float8(array_dtype) -> bool:
    """Whether an array's dtype is a float8 one: NumPy has no other 1-byte float (ml_dtypes'
    are of kind "V", but float8_e5m2 of kind "f"). Two reads, on the paths every dtype takes."""
    return array_dtype.itemsize == 1 and array_dtype.kind in "fV"


_E5M2 = dtypes.float8_e5m2.numpy
_FLOAT8 = dtypes.FLOAT8


class NumpyBackend(XpBackend):
    """Arrays are ``numpy.ndarray``; GEMMs go to NumPy's BLAS."""

    # OpenBLAS packs a tall transposed operand at half speed unless given it in blocks.
    transposed_gemm_rows = 4096
    # NumPy has no BLAS for float16 (xp_half.py): float16 GEMMs run in float32.
    half_gemm_dtype = np.float32

    def __init__(self):
        super().__init__(CPU, np, _as_strided)
        # Large temporaries are reused from the heap rather than page-faulted every step.
        self.keeps_large_buffers = keep_large_buffers()
        # Relu's max(x, 0): NumPy's loop for a scalar operand is 3x slower than for arrays.
        for name, ufunc in (("maximum", np.maximum), ("minimum", np.minimum)):
            self._binary[name] = scalar_operand_minmax(ufunc)
        # float8 tensors' product (ops/float8_shell.py points ``Mul`` at it), and the
        # float8_e8m0fnu ``isfinite`` of PyTorch, True everywhere (NaN too)
        self._binary["float8_mul"] = float8_multiply
        self._unary["all_true"] = lambda a: np.ones(a.shape, np.bool_)

    # -- the float8 dtypes (CPU only): PyTorch's conversions, not ml_dtypes' own ---------
    def astype(self, a, dtype):
        source = a.dtype
        if source.itemsize == 1 and source.kind in "fV":  # float8 (_is_float8, inlined)
            return from_float8(a, dtypes.BY_NUMPY[source], dtype)
        if dtype.restricted and dtype in _FLOAT8:
            return to_float8(a, dtype)
        return super().astype(a, dtype)  # (one rule for complex sources, shared with CuPy)

    def full(self, shape, value, dtype):
        if dtype.restricted and dtype in _FLOAT8:
            return np.full(shape, to_float8(np.asarray(value), dtype)[()], dtype.numpy)
        return super().full(shape, value, dtype)

    def matmul(self, a, b):
        source = a.dtype
        if source.itemsize == 1 and source.kind in "fV":  # float8 (_is_float8, inlined: every
            # product passes here): in float32, rounded once
            d = dtypes.BY_NUMPY[a.dtype]
            return to_float8(super().matmul(from_float8(a, d, dtypes.float32),
                                            from_float8(b, d, dtypes.float32)), d)
        return super().matmul(a, b)

    def setitem(self, a, index, value):
        if _is_float8(a.dtype) and getattr(value, "dtype", None) != a.dtype:
            value = to_float8(np.asarray(value), dtypes.BY_NUMPY[a.dtype])
        a[index] = value

    def to_numpy(self, a):
        return a

    def synchronize(self):
        pass  # NumPy calls return when their work is done

    def where(self, condition, a, b):
        # np.where branches per element: 17x slower on relu's backward (numpy_select.py)
        return branchless_where(condition, a, b)

    def generator_state(self, generator):
        return numpy_rng_state.pack(generator)

    def set_generator_state(self, generator, state):
        numpy_rng_state.unpack(generator, state)

    # ``a.sum()``, ``a.max()`` and ``a.min()`` run through NumPy's Python wrappers, so their
    # floating-point warnings (inf + -inf) come from NumPy's module, which the filter above
    # leaves alone; the ufuncs' own reductions are the same loops, called from here.
    def sum(self, a, axis, keepdims):
        if is_half_float(a):  # accumulated in float32, as XpBackend.sum
            return np.add.reduce(a, axis=axis, keepdims=keepdims, dtype=np.float32).astype(a.dtype)
        return np.add.reduce(a, axis=axis, keepdims=keepdims)

    def max(self, a, axis, keepdims):
        return np.maximum.reduce(a, axis=axis, keepdims=keepdims)

    def min(self, a, axis, keepdims):
        return np.minimum.reduce(a, axis=axis, keepdims=keepdims)

    def getitem(self, a, index):
        # Indexing every dimension with an int gives NumPy's scalar, a copy; PyTorch's
        # ``x[k]`` is a 0-d view (writing to it writes to ``x``), which NumPy gives for the
        # same ints followed by an Ellipsis.
        out = a[index]
        if type(out) is np.ndarray:  # first: a row of a matrix in a loop is the hot case
            return out
        if type(index) is int:  # a vector's element
            return a[index, ...]
        items = index if isinstance(index, tuple) else (index,)
        return a[tuple(i for i in items if i is not Ellipsis) + (Ellipsis,)]

    def scatter_add(self, target, index, values):
        scatter_add(target, index, values)  # np.add.at, through a flat index where it can

    def einsum(self, equation, *operands):
        # NumPy's einsum is Python code of NumPy's: its floating-point warnings (inf * 0)
        # come from NumPy's module, which the filter above leaves alone.
        with np.errstate(all="ignore"):
            return super().einsum(equation, *operands)

    def data_ptr(self, a):
        return np.asarray(a).__array_interface__["data"][0]  # asarray: x[k] may be a scalar

    def block_start(self, a):
        return self.data_ptr(_owner(a))

    def storage_size(self, a):
        return _owner(a).nbytes // a.itemsize

    def erf(self, a):
        return numpy_erf.erf(a)  # NumPy has no erf: our own, to float64 precision (numpy_erf.py)


def _owner(a) -> np.ndarray:
    """The array whose memory ``a`` views. Views chain through ``.base`` to it (a non-array
    base, such as the bytes of ``frombuffer``, is the memory itself: its array owns it);
    ``as_strided``'s result has a stand-in object as its base, whose own base is the array
    it views."""
    a = np.asarray(a)
    while True:
        base = a.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)
        if not isinstance(base, np.ndarray):
            return a
        a = base

"""Kernels written once over an array module ``xp`` (NumPy on the CPU, CuPy on CUDA).

Everything device-specific (which module, scatter-add, erf, synchronisation, device selection)
comes from the subclass; nothing here may name ``numpy`` directly (a test enforces it),
so that the CUDA path runs exactly this code.

The convolution and pooling kernels live in ``xp_conv.py`` (im2col), ``xp_winograd.py``
(Winograd, which ``xp_conv`` picks for stride-1 layers with many channels),
``xp_conv_groups.py`` (grouped and depthwise convolutions, one batched GEMM),
``xp_pooling.py`` (max) and ``xp_avg_pooling.py`` (average, adaptive average), mixed in
here, as are ``xp_fold.py`` (``unfold``/``fold`` on their im2col/col2im),
``xp_adaptive_max_pooling.py`` and ``xp_topk.py`` (``argtopk``), and the volumetric ones,
``xp_conv3d.py`` and ``xp_pooling3d.py``, and ``xp_complex.py`` (views of complex
arrays' parts) and ``xp_fft.py`` (Fourier transforms); ``xp_half.py`` runs the
float16 ones in float32; ``xp_linalg.py`` holds the factorisations (QR, LU, Cholesky, eigh, SVD).

16-bit float (float16, bfloat16: ``xp_half.is_half_float``) sums (``sum``, ``cumsum``,
``cumprod``, ``scan``), ``erf``, the special functions and, where ``half_gemm_dtype`` says so,
GEMMs (``matmul``, ``einsum``) compute in float32 and round the result once, as PyTorch
does (see ``xp_half.py`` for why).
"""

from __future__ import annotations

import math

from ..dtypes import HALF_FLOATS
from ..memory_formats import is_non_overlapping_and_dense
from . import xp_airy, xp_bessel, xp_bessel_jy, xp_bessel_k, xp_normal, xp_special
from .base import Backend, broadcast_axes, contiguous_strides, is_basic_index
from .xp_adaptive_max_pooling import AdaptiveMaxPoolingKernels
from .xp_avg_pooling import AvgPoolingKernels
from .xp_complex import ComplexKernels
from .xp_conv import ConvKernels
from .xp_conv3d import Conv3dKernels
from .xp_conv_groups import GroupedConvKernels
from .xp_fft import FftKernels
from .xp_fold import FoldKernels
from .xp_half import HalfKernels, is_half_float
from .xp_householder import HouseholderKernels
from .xp_incomplete_gamma import incomplete_gamma
from .xp_ldl import LdlKernels
from .xp_linalg import LinalgKernels
from .xp_lu import LuKernels
from .xp_matrix_exp import MatrixExpKernels
from .xp_orthogonal_polynomials import orthogonal_polynomial as orthogonal_polynomial_kernel
from .xp_polygamma import polygamma as polygamma_kernel
from .xp_pooling import PoolingKernels
from .xp_pooling3d import Pooling3dKernels
from .xp_singular import SingularKernels
from .xp_topk import TopkKernels
from .xp_winograd import WinogradKernels
from .xp_zeta import zeta as zeta_kernel


class XpBackend(HalfKernels, ConvKernels, WinogradKernels, PoolingKernels, AvgPoolingKernels,
                FoldKernels, AdaptiveMaxPoolingKernels, LinalgKernels, TopkKernels,
                GroupedConvKernels, Conv3dKernels, Pooling3dKernels, MatrixExpKernels,
                LuKernels, SingularKernels, HouseholderKernels, LdlKernels, ComplexKernels,
                FftKernels, Backend):
    """The shared implementation of every data kernel, over ``self.xp``."""

    xp = None  # the array module, set by the subclass
    # Rows per GEMM call when im2col is a transposed view (see ``_matmul_im2col``); None:
    # one call.
    transposed_gemm_rows = None

    def __init__(self, device, xp, as_strided):
        super().__init__(device)
        self.xp = xp
        self._as_strided = as_strided
        self._unary = {"neg": xp.negative, "abs": xp.abs, "exp": xp.exp, "log": xp.log,
                       "log1p": xp.log1p,
                       "sign": xp.sign, "sqrt": xp.sqrt, "tanh": xp.tanh,
                       "erf": self._erf}
        self._binary = {"add": xp.add, "sub": xp.subtract, "mul": xp.multiply,
                        "div": xp.true_divide, "pow": xp.power, "maximum": xp.maximum,
                        "minimum": xp.minimum, "eq": xp.equal, "ne": xp.not_equal,
                        "lt": xp.less, "le": xp.less_equal, "gt": xp.greater,
                        "ge": xp.greater_equal}
        # The math of ops/unary_math.py, rounding.py, logical.py and division.py.
        self._unary.update({
            "sin": xp.sin, "cos": xp.cos, "expm1": xp.expm1, "log2": xp.log2,
            "log10": xp.log10, "floor": xp.floor, "ceil": xp.ceil, "rint": xp.rint,
            "trunc": xp.trunc, "isnan": xp.isnan, "isinf": xp.isinf, "isfinite": xp.isfinite,
            "logical_not": xp.logical_not, "invert": xp.invert})
        self._binary.update({
            "floor_divide": xp.floor_divide, "remainder": xp.remainder, "fmod": xp.fmod,
            "logical_and": xp.logical_and, "logical_or": xp.logical_or,
            "logical_xor": xp.logical_xor, "bitwise_and": xp.bitwise_and,
            "bitwise_or": xp.bitwise_or, "bitwise_xor": xp.bitwise_xor})
        # The math of ops/trigonometric.py, exponential.py, float_parts.py, special_math.py.
        self._unary.update({
            "tan": xp.tan, "arcsin": xp.arcsin, "arccos": xp.arccos, "arctan": xp.arctan,
            "sinh": xp.sinh, "cosh": xp.cosh, "arcsinh": xp.arcsinh, "arccosh": xp.arccosh,
            "arctanh": xp.arctanh, "exp2": xp.exp2, "signbit": xp.signbit})
        self._unary.update({"conj": xp.conj, "angle": xp.angle})  # ops/complex_parts.py
        self._unary.update({name: self._special_kernel(name)
                            for name in ("erfc", "erfinv", "lgamma", "digamma", "trigamma")})
        self._unary.update({name: self._special_kernel(name, xp_bessel)
                            for name in ("i0", "i0e", "i1", "i1e")})
        # torch.special's Bessel family (ops/special_bessel.py)
        self._unary.update({name: self._special_kernel(name, module) for module, names in (
            (xp_bessel_jy, ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
                            "spherical_bessel_j0")),
            (xp_bessel_k, ("modified_bessel_k0", "modified_bessel_k1",
                           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1")),
            (xp_airy, ("airy_ai",))) for name in names})
        self._unary.update({name: self._special_kernel(name, xp_normal)
                            for name in ("erfcx", "ndtr", "log_ndtr", "ndtri")})
        self._binary.update({"zeta": self._float64_kernel(zeta_kernel)})
        self._binary.update({name: self._float64_kernel(
            lambda xp, a, x, upper=upper: incomplete_gamma(xp, a, x, self.erf, upper))
            for name, upper in (("igamma", False), ("igammac", True))})
        self._binary.update({
            "arctan2": xp.arctan2, "hypot": xp.hypot, "logaddexp": xp.logaddexp,
            "logaddexp2": xp.logaddexp2, "copysign": xp.copysign, "fmax": xp.fmax,
            "fmin": xp.fmin})
        # The integer and float-step math of ops/bit_shifts.py and ops/number_theory.py.
        self._binary.update({
            "left_shift": xp.left_shift, "right_shift": xp.right_shift, "gcd": xp.gcd,
            "lcm": xp.lcm, "nextafter": xp.nextafter})
        self.generator = self.new_generator(None)
        # Winograd's transform matrices, by (KH, KW, dtype): constants, built on first use.
        self._winograd_map_cache = {}

    # -- device-specific pieces a subclass provides -----------------------------------
    def scatter_add(self, target, index, values):
        """``target[index] += values`` with repeated indices accumulated (unbuffered)."""
        raise NotImplementedError

    def erf(self, a):
        """The error function, elementwise, in ``a``'s dtype (float32 or float64)."""
        raise NotImplementedError

    def data_ptr(self, a):
        raise NotImplementedError

    def block_start(self, a):
        """The address of the start of the memory block that ``a`` views."""
        raise NotImplementedError

    def storage_offset(self, a):
        return (self.data_ptr(a) - self.block_start(a)) // a.itemsize

    def _erf(self, a):
        # The devices' erf kernels are float32/float64 ones; a float16 series summed in
        # float16 would round at every step.
        if is_half_float(a):
            return self.erf(a.astype(self.xp.float32)).astype(a.dtype)
        return self.erf(a)

    def _special_kernel(self, name, module=xp_special):
        """The kernel of one of ``xp_special``'s (or ``module``'s) functions. Their series
        are float32 or float64 ones: float16 is computed in float32 (summed in float16 it
        would round at every step)."""
        function = getattr(module, name)
        needs_erf = name in ("erfc", "erfinv") or module is xp_normal

        def kernel(a):
            xp = self.xp
            x = a.astype(xp.float32) if is_half_float(a) else a
            out = function(xp, x, self.erf) if needs_erf else function(xp, x)
            return out.astype(a.dtype, copy=False)
        return kernel

    def _float64_kernel(self, function):
        """The kernel of a function of two floating-point arrays (``xp_zeta``'s), computed
        in float64 whatever their dtype (PyTorch's CPU kernels accumulate float32 in
        double) and returned in the first operand's dtype."""
        def kernel(a, b):
            xp = self.xp
            out = function(xp, a.astype(xp.float64, copy=False), b.astype(xp.float64,
                                                                            copy=False))
            return out.astype(a.dtype, copy=False)
        return kernel

    # -- creation and transfer --------------------------------------------------------
    def empty(self, shape, dtype):
        return self.xp.empty(shape, dtype.numpy)

    def empty_strided(self, shape, strides, dtype):
        # One flat block just long enough for the farthest element, viewed with the strides
        span = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides))
        return self.as_strided(self.xp.empty((span,), dtype.numpy), shape, strides)

    def full(self, shape, value, dtype):
        return self.xp.full(shape, value, dtype.numpy)

    def arange(self, start, end, step, dtype):
        return self.xp.arange(start, end, step, dtype=dtype.numpy)

    def asarray(self, data, dtype):
        return self.xp.asarray(data, dtype=None if dtype is None else dtype.numpy)

    def dlpack(self, a, options):
        return a.__dlpack__(**options)

    def dlpack_device(self, a):
        kind, index = a.__dlpack_device__()
        return int(kind), int(index)

    def from_dlpack(self, source):
        return self.xp.from_dlpack(source)

    def new_generator(self, seed):
        return self.xp.random.default_rng(seed)

    def uniform(self, shape, low, high, dtype, generator):
        rng = generator or self.generator
        if dtype in HALF_FLOATS:
            a = self._uniform_half(rng, shape, dtype)
        else:
            a = rng.random(shape, dtype=dtype.numpy)
        if low != 0.0 or high != 1.0:
            a *= high - low
            a += low
        return a

    def _uniform_half(self, rng, shape, dtype):
        """A 16-bit float in [0, 1): the generators have none, and a float32 draw rounded
        to 16 bits could give 1.0. So a multiple of 2**-bits (the dtype's resolution below
        1: 2**-11 for float16, 2**-8 for bfloat16), each equally likely: exact in the dtype
        and never 1."""
        bits = 8 if dtype.name == "bfloat16" else 11
        steps = rng.integers(0, 2 ** bits, size=shape).astype(dtype.numpy)
        steps *= dtype.numpy.type(2.0 ** -bits)
        return steps

    def integers(self, shape, low, high, dtype, generator):
        rng = generator or self.generator
        return rng.integers(low, high, size=shape).astype(dtype.numpy, copy=False)

    def permutation(self, n, dtype, generator):
        # Sorting random keys rather than ``rng.permutation``: CuPy's Generator has no
        # permutation, and this keeps one code path for both devices.
        rng = generator or self.generator
        return self.xp.argsort(rng.random(n)).astype(dtype.numpy, copy=False)

    # The three draws below are in float64 whatever ``dtype`` (NumPy's and CuPy's
    # ``Generator`` both have ``standard_gamma``, ``poisson`` and ``binomial``; neither draws
    # float16, and float64 keeps a small concentration's draws from underflowing before
    # the clamp). ``size`` is given: CuPy's methods make a 0-d draw without it.
    def standard_gamma(self, concentration, dtype, generator):
        xp = self.xp
        rng = generator or self.generator
        shape = concentration.shape
        draws = rng.standard_gamma(concentration.astype(xp.float64, copy=False), shape)
        draws = draws.astype(dtype.numpy, copy=False)
        return xp.maximum(draws, xp.finfo(dtype.numpy).tiny)

    def poisson(self, rate, dtype, generator):
        rng = generator or self.generator
        counts = rng.poisson(rate.astype(self.xp.float64, copy=False), rate.shape)
        return counts.astype(dtype.numpy, copy=False)

    def binomial(self, count, prob, dtype, generator):
        xp = self.xp
        rng = generator or self.generator
        # the generators take whole trial counts; ``count`` holds whole numbers already
        successes = rng.binomial(count.astype(xp.int64), prob.astype(xp.float64, copy=False),
                                 count.shape)
        return successes.astype(dtype.numpy, copy=False)

    def categorical(self, weights, u):
        xp = self.xp
        rows, k = weights.shape
        cdf = xp.cumsum(weights.astype(xp.float64), axis=1)
        cdf /= cdf[:, -1:]  # the last is now exactly 1.0 > u
        if rows == 1:
            return xp.searchsorted(cdf[0], u[0], side="right").reshape(u.shape)
        # One search over all rows at once: row i's values are shifted into [i, i + 1].
        shift = xp.arange(rows, dtype=xp.float64).reshape(rows, 1)
        found = xp.searchsorted((cdf + shift).reshape(-1), (u + shift).reshape(-1),
                                side="right").reshape(u.shape)
        found -= (shift * k).astype(xp.int64)
        # ``u + i`` may round up to ``i + 1`` (u within 2**-53 of 1): that lands past the
        # row's last positive weight, which is the right category then.
        last = k - 1 - xp.argmax(weights[:, ::-1] > 0, axis=1).reshape(rows, 1)
        return xp.minimum(found, last).astype(xp.int64, copy=False)

    def normal(self, shape, mean, std, dtype, generator):
        rng = generator or self.generator
        if dtype in HALF_FLOATS:  # the generators have no 16-bit floats
            a = rng.standard_normal(shape, dtype=self.xp.float32).astype(dtype.numpy)
        else:
            a = rng.standard_normal(shape, dtype=dtype.numpy)
        if std != 1.0:
            a *= std
        if mean != 0.0:
            a += mean
        return a

    # -- elementwise -----------------------------------------------------------------
    def unary(self, name, a):
        return self._unary[name](a)

    def binary(self, name, a, b):
        return self._binary[name](a, b)

    def where(self, condition, a, b):
        return self.xp.where(condition, a, b)

    def orthogonal_polynomial(self, kind, x, n):
        return orthogonal_polynomial_kernel(self.xp, kind, x, n)

    def polygamma(self, n, a):
        xp = self.xp
        # n! (x + k)^-(n+1) leaves float32's range for moderate n although the product is
        # in it: float32 and float16 are computed in float64 (PyTorch's CPU kernel does so)
        x = a if n < 2 or a.dtype == xp.float64 else a.astype(xp.float64)
        if is_half_float(x):
            x = x.astype(xp.float32)
        return polygamma_kernel(xp, n, x).astype(a.dtype, copy=False)

    def frexp(self, a):
        mantissa, exponent = self.xp.frexp(a)
        return mantissa, exponent.astype(self.xp.int32, copy=False)

    # -- reductions ------------------------------------------------------------------
    def sum(self, a, axis, keepdims):
        if is_half_float(a):  # accumulated in float32 (see the module docstring)
            return a.sum(axis=axis, keepdims=keepdims, dtype=self.xp.float32).astype(a.dtype)
        return a.sum(axis=axis, keepdims=keepdims)

    def max(self, a, axis, keepdims):
        return a.max(axis=axis, keepdims=keepdims)

    def min(self, a, axis, keepdims):
        return a.min(axis=axis, keepdims=keepdims)

    def argmax(self, a, axis, keepdims):
        return a.argmax(axis=axis, keepdims=keepdims)

    def argmin(self, a, axis, keepdims):
        return a.argmin(axis=axis, keepdims=keepdims)

    def argsort(self, a, axis, descending):
        xp = self.xp
        if not descending:
            return xp.argsort(a, axis=axis, kind="stable").astype(xp.int64, copy=False)
        # A stable descending order keeps equal values in their original order, which
        # reversing an ascending order would not: sort the reversed array instead, reverse
        # that order, and map its positions back (NaN, last ascending, comes first).
        last = a.shape[axis] - 1
        order = xp.flip(xp.argsort(xp.flip(a, axis), axis=axis, kind="stable"), axis)
        return (last - order).astype(xp.int64, copy=False)

    def sum_to_shape(self, a, shape):
        if a.shape == shape:
            return a
        return self.sum(a, broadcast_axes(shape, a.shape), True).reshape(shape)

    # -- linear algebra --------------------------------------------------------------
    def matmul(self, a, b):
        # For operands of at most two dimensions ``dot`` is ``matmul`` (the same BLAS call),
        # but NumPy 2's matmul dispatch costs 0.5-2 µs more per call: a Python loop of
        # ``w.mv(x[k])`` (EE-559's batch vs loop) pays it on every row.
        # ``itemsize`` is the cheapest first test of a 16-bit float, and this call is in that
        # loop too.
        if a.itemsize == 2 and self.half_gemm_dtype is not None and is_half_float(a):
            gemm = self.xp.dot if a.ndim <= 2 and b.ndim <= 2 else self.xp.matmul
            return self._widened_gemm(gemm, a, b)
        if a.ndim <= 2 and b.ndim <= 2:
            return self.xp.dot(a, b)
        return self.xp.matmul(a, b)

    def _widened_gemm(self, gemm, *operands):
        """``gemm(*operands)`` on 16-bit float operands, computed in ``half_gemm_dtype``."""
        wide = self.half_gemm_dtype
        return gemm(*(a.astype(wide) for a in operands)).astype(operands[0].dtype)

    # -- layout and indexing ---------------------------------------------------------
    def reshape(self, a, shape):
        return a.reshape(shape)

    def transpose(self, a, axes):
        return a.transpose(axes)

    def astype(self, a, dtype):
        if a.dtype.kind == "c" and not dtype.is_complex:
            if dtype.numpy.kind == "b":  # PyTorch's bool of a complex number: nonzero
                return a != 0
            a = a.real  # what PyTorch keeps (NumPy and CuPy would warn before doing it)
        return a.astype(dtype.numpy, copy=False)

    def copy(self, a):
        return a.copy()

    def is_contiguous(self, a):
        # NumPy and CuPy ignore the strides of size-1 dimensions and call empty arrays
        # contiguous, as PyTorch does.
        return bool(a.flags.c_contiguous)

    def strides(self, a):
        strides = [s // a.itemsize for s in a.strides]
        if a.size == 0 and not any(strides):  # NumPy 2 makes empty arrays with strides 0
            return contiguous_strides(a.shape)
        # A dimension that indexing with None inserts has the stride 0 in NumPy and CuPy;
        # PyTorch's unsqueeze gives it the span of the dimension after it (1 when last).
        for d in reversed(range(a.ndim)):
            if strides[d] == 0 and a.shape[d] == 1:
                strides[d] = strides[d + 1] * a.shape[d + 1] if d + 1 < a.ndim else 1
        return tuple(strides)

    def has_internal_overlap(self, a):
        strides = a.strides
        if 0 not in strides:  # every write but those into an expanded view: one test
            return False
        # NumPy 2 also gives empty arrays strides 0: no elements, nothing shared
        return a.size > 0 and any(s == 0 and n > 1 for s, n in zip(strides, a.shape))

    def partially_overlaps(self, a, b):
        # PyTorch's ``get_overlap_status``: a non-dense operand is "too hard" to decide and
        # passes; equal ranges with equal strides are the same elements (``x.add_(x)``).
        if a.size == 0 or b.size == 0:
            return False
        if not (is_non_overlapping_and_dense(a.shape, self.strides(a))
                and is_non_overlapping_and_dense(b.shape, self.strides(b))):
            return False
        a_begin, b_begin = self.data_ptr(a), self.data_ptr(b)
        a_end, b_end = a_begin + a.nbytes, b_begin + b.nbytes
        if a_begin == b_begin and a_end == b_end:
            return self.strides(a) != self.strides(b)
        return a_begin < b_end and b_begin < a_end

    def getitem(self, a, index):
        return a[index]

    def as_strided(self, a, shape, strides, offset=0):
        itemsize = a.itemsize
        if offset:
            # A one-element view ``offset`` elements away, by a strided view of ``|offset|
            # + 1`` elements stepping forward or back: the same call on NumPy and CuPy, with
            # no pointer arithmetic.
            step = itemsize if offset > 0 else -itemsize
            a = self._as_strided(a, shape=(abs(offset) + 1,), strides=(step,))[abs(offset):]
        return self._as_strided(a, shape=tuple(shape),
                                strides=tuple(s * itemsize for s in strides))

    def setitem(self, a, index, value):
        a[index] = value

    def bitcast(self, a, dtype):
        return a.view(dtype.numpy)

    def index_add(self, shape, index, values, dtype):
        out = self.xp.zeros(shape, dtype.numpy)
        if is_basic_index(index):
            out[index] = values  # basic indices select each element at most once
        else:
            self.scatter_add(out, index, values)
        return out

    def accumulate(self, target, index, values):
        if is_basic_index(index):
            # Basic indexing gives a view, so ``+=`` writes into target. With an Ellipsis
            # in it, one that picks a single element is a 0-d view too (not a scalar).
            items = index if isinstance(index, tuple) else (index,)
            view = target[items if Ellipsis in items else items + (Ellipsis,)]
            view += values
        else:
            self.scatter_add(target, index, values)

    def scatter_reduce(self, target, index, values, reduce):
        if reduce == "sum":
            self.scatter_add(target, index, values)
            return
        # NumPy has ``multiply.at``/``maximum.at`` but CuPy has no ``multiply.at``: so, on
        # both, sort the picks by flat position and apply them in rounds, the k-th pick of
        # every position in round k (no position twice in a round, so a fancy-indexed
        # write is exact). Rounds = the largest number of picks of one position.
        xp = self.xp
        flat = None
        for d, picks in enumerate(index):
            term = picks * math.prod(target.shape[d + 1:])
            flat = term if flat is None else flat + term
        flat, values = (a.reshape(-1) for a in xp.broadcast_arrays(flat, values))
        if flat.size == 0:
            return
        order = xp.argsort(flat, kind="stable")  # stable: repeated picks in index order
        flat, values = flat[order], values[order]
        rank = xp.arange(flat.size) - xp.searchsorted(flat, flat, side="left")
        combine = {"prod": xp.multiply, "amax": xp.maximum, "amin": xp.minimum}[reduce]
        out = target.reshape(-1)  # a view: ``target`` is C-contiguous
        for k in range(int(rank.max()) + 1):
            chosen = rank == k
            where, vals = flat[chosen], values[chosen]
            out[where] = combine(out[where], vals)

    # -- running reductions and contractions --------------------------------------------
    # The ufuncs' own methods rather than ``a.prod``/``xp.cumsum``: those are Python code of
    # NumPy's, so its floating-point warnings (inf * 0) would come from NumPy's module and
    # escape the NumPy backend's filter on ours. ``dtype``: NumPy and CuPy would widen
    # small integers to the platform's int.
    def prod(self, a, axis, keepdims):
        return self.xp.multiply.reduce(a, axis=axis, dtype=a.dtype, keepdims=keepdims)

    # 16-bit floats are accumulated in float32 (see the module docstring), then rounded once.
    def cumsum(self, a, axis):
        wide = self._accumulator(a)
        return self.xp.add.accumulate(a, axis=axis, dtype=wide).astype(a.dtype, copy=False)

    def cumprod(self, a, axis):
        wide = self._accumulator(a)
        return self.xp.multiply.accumulate(a, axis=axis, dtype=wide).astype(a.dtype, copy=False)

    def scan(self, name, a, axis):
        # A doubling scan (log2(n) rounds, each combining every element with the one
        # ``step`` places before it) rather than ``ufunc.accumulate``: CuPy accumulates only
        # with ``add``, and this keeps one code path for both devices. max, min and
        # logaddexp are associative, so the grouping changes no value beyond rounding.
        combine, n = self._binary[name], a.shape[axis]
        out = a.astype(self._accumulator(a))  # a copy: the rounds write into it
        step = 1
        while step < n:
            later = (slice(None),) * axis + (slice(step, None),)
            earlier = (slice(None),) * axis + (slice(0, n - step),)
            out[later] = combine(out[later], out[earlier])  # the right side is a new array
            step *= 2
        return out.astype(a.dtype, copy=False)

    def _accumulator(self, a):
        """The dtype running sums and products of ``a`` are accumulated in."""
        return self.xp.float32 if is_half_float(a) else a.dtype

    def einsum(self, equation, *operands):
        xp = self.xp
        # With several operands, ``optimize`` contracts them pairwise through BLAS GEMMs
        # (and picks the order) instead of one loop over every index combination.
        if operands and self._widens_gemm(operands[0]):  # all operands share one dtype
            return self._widened_gemm(lambda *wide: self.einsum(equation, *wide), *operands)
        out = xp.asarray(xp.einsum(equation, *operands, optimize=len(operands) > 1))
        # A transpose or a diagonal comes back as a view of the operand: copy it, so that
        # writing into the result never writes into the input.
        if any(xp.may_share_memory(out, a) for a in operands):
            out = out.copy()
        return out

    # -- searching -------------------------------------------------------------------
    def searchsorted(self, sorted_sequence, values, right):
        xp = self.xp
        side = "right" if right else "left"
        if sorted_sequence.ndim == 2 and sorted_sequence.shape[0] == 1:
            sorted_sequence = sorted_sequence[0]  # one row serves (1, k) values as 1-D
        if sorted_sequence.ndim == 1:  # ``asarray``: a 0-d search gives a NumPy scalar
            found = xp.asarray(xp.searchsorted(sorted_sequence, values, side=side))
            return found.astype(xp.int64, copy=False)
        # All rows in one search, exactly: each element becomes its rank among all of them
        # (how many are smaller: equal values get equal ranks, order is kept, NaN ranks
        # last), and row r's ranks are shifted by r * (count of all), so that the rows
        # follow each other in one sorted sequence. Shifting the values themselves would
        # round floats.
        rows, m = sorted_sequence.shape
        pool = xp.sort(xp.concatenate((sorted_sequence.reshape(-1), values.reshape(-1))))
        row = xp.arange(rows, dtype=xp.int64).reshape(rows, 1)
        keys = xp.searchsorted(pool, sorted_sequence) + row * pool.size
        wanted = xp.searchsorted(pool, values) + row * pool.size
        found = xp.searchsorted(keys.reshape(-1), wanted.reshape(-1), side=side)
        return found.reshape(values.shape).astype(xp.int64, copy=False) - row * m

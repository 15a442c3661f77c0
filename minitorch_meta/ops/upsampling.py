"""Resizing the last 1, 2 or 3 dims: ``nearest``, ``nearest-exact``,
``linear``/``bilinear``/``trilinear`` and ``bicubic`` interpolation (``F.interpolate``),
with PyTorch's source-index formulas.

For each resized axis the op computes, from sizes alone, which input positions each output
position reads and with what weights, as small arrays of the output's length, in the
input's float dtype as PyTorch's CPU kernels compute them. A nearest mode whose every axis
grows by a whole number ``s`` with an exact step reads ``o // s``: the output is one
broadcast write and the gradient a sum of the ``s`` copies (in output order); other nearest
cases are one gather. Linear and cubic modes are separable: the width is interpolated
first, then the height, then the depth, each as a product with a small (out, in) matrix
holding the two (cubic: four) weights of every row (BLAS; backward the transposed
product), or, for a long axis or non-finite data, as the weighted taps gathered in
PyTorch's order of operations, whose backward adds the weighted gradient back through the
same indices (``index_add``, a scatter-add).
"""

from __future__ import annotations

import itertools
import math

from .. import dtypes
from .antialias_taps import antialias_taps
from .avg_pooling import _require_dtype
from .function import Function
from .grid_taps import A as CUBIC_A
from .linear_gradient import linear_backward_graph

_AXIS_NAMES = ("D", "H", "W")
_NAMES = {"nearest": "Nearest", "nearest-exact": "NearestExact"}
_LINEAR_KERNELS = {1: "linear", 2: "bilinear", 3: "trilinear"}
_NEAREST = ("nearest", "nearest-exact")


def output_sizes(in_sizes, size, scale_factor) -> tuple:
    """The resized sizes: ``size`` itself, or ``floor(in * scale)`` for each axis (in double
    precision, as ``F.interpolate`` computes it).

    Raises:
        RuntimeError for a scale that gives no finite size.
    """
    if size is not None:
        return tuple(size)
    sizes = []
    for n, s in zip(in_sizes, scale_factor):
        product = float(n) * float(s)
        if not math.isfinite(product):
            raise RuntimeError(f"value cannot be converted to type int64_t without overflow "
                               f"(interpolate: scale_factor {s} for an input size of {n})")
        sizes.append(math.floor(product))
    return tuple(sizes)


class Upsample(Function):
    """``input`` resized along its last ``k`` dims (1, 2 or 3) to ``size``, or by
    ``scale_factor``.

    ``mode``: ``nearest`` reads input ``floor(o * scale)``; ``nearest-exact`` reads
    ``floor((o + 0.5) * scale)``; ``linear`` (``bilinear``, ``trilinear`` for 2, 3 dims)
    weighs the two inputs around ``(o + 0.5) * scale - 0.5`` (clamped at 0), or around
    ``o * (in - 1) / (out - 1)`` with ``align_corners``. ``scale`` is ``1 / scale_factor``
    when a scale factor is given and ``recompute_scale_factor`` is not True, else
    ``in / out``; an axis whose size does not change reads each input with weight 1 and its
    neighbour with weight 0, as in PyTorch (a copy of finite values; an inf there gives NaN).
    ``cubic`` (``bicubic``, 2 dims) weighs the four inputs around the same source index
    (not clamped at 0; the taps clamped into the axis) by cubic convolution. ``antialias``
    (linear and cubic, 2 dims) takes its taps from ``antialias_taps.py``.

    Shape:
        ``(N, C, *in_sizes)`` -> ``(N, C, *out_sizes)``; dtype kept (float32, float64, and
        uint8 for the nearest modes).

    Raises:
        RuntimeError for a size that is not positive or an empty channel dim;
        NotImplementedError for other dtypes.
    """

    op_name = "interpolate"
    mode, size, scale_factor, align_corners, recompute_scale_factor = (
        "nearest", None, None, False, None)
    antialias = False
    repeats = None  # set by a forward that takes the whole-number-scale path

    @property
    def backward_name(self):
        k = len(self.input_specs[0][0]) - 2  # input_specs outlive backward; self.k does not
        kind = _NAMES.get(self.mode) or self._kernel(k).capitalize()
        return f"Upsample{kind}{k}D{'Aa' if self.antialias else ''}Backward0"

    def infer(self, x):
        shape, dtype = tuple(x._data.shape), x._dtype
        k = self.k = len(shape) - 2
        in_sizes = shape[2:]
        out_sizes = output_sizes(in_sizes, self.size, self.scale_factor)
        if min(in_sizes + out_sizes) <= 0:
            names = _AXIS_NAMES[3 - k:]
            given = ", ".join(f"{n}: {s}" for n, s in zip(names, in_sizes))
            got = ", ".join(f"{n}: {s}" for n, s in zip(names, out_sizes))
            joint = " and output" if k == 1 else " output"
            raise RuntimeError(f"Input and output sizes should be greater than 0, but got "
                               f"input ({given}){joint} ({got})")
        if shape[1] == 0:
            raise RuntimeError(f"Non-empty {len(shape)}D data tensor expected but got a tensor "
                               f"with sizes {list(shape)}")
        kernel = self._kernel(k)
        allowed = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
        if kernel == "nearest":
            allowed += (dtypes.uint8,)
        _require_dtype(f"upsample_{kernel}{k}d", dtype, allowed)
        given_scales = self.scale_factor is not None and not self.recompute_scale_factor
        self.scales = tuple(self.scale_factor) if given_scales else (None,) * k
        self.out_sizes, self.out_dtype = out_sizes, dtype
        return shape[:2] + out_sizes, dtype

    # -- forward and backward -------------------------------------------------------
    def forward(self, backend, x):
        repeats = self._repeats(x.shape[2:])
        if repeats is not None:
            if self.recording:
                self.repeats = repeats
            return _repeat_forward(backend, x, repeats, self.out_dtype)
        # The index arithmetic runs in the input's float dtype (PyTorch's opmath type).
        math_dtype = self.out_dtype if self.out_dtype.is_floating_point else dtypes.float32
        taps = [self._taps(backend, n_in, n_out, scale, math_dtype)
                for n_in, n_out, scale in zip(x.shape[2:], self.out_sizes, self.scales)]
        if self.mode in _NEAREST:
            if self.recording:
                self.taps = taps
            return backend.getitem(x, self._nearest_index(backend, taps))
        plan = _linear_plan(backend, x, taps, x.shape[2:], self.out_sizes, math_dtype,
                            same_is_copy=self.mode == "linear" or self.antialias)
        if self.recording:
            self.taps, self.plan = taps, plan
        y = x
        for axis in reversed(range(self.k)):  # width first, as PyTorch's kernel nests them
            y = _resize_axis(backend, y, plan[axis], taps[axis], self.k - axis)
        return backend.copy(x) if y is x else y

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        if self.repeats is not None:
            return (_repeat_backward(backend, gy, self.repeats, tuple(shape)),)
        if self.mode in _NEAREST:
            index = self._nearest_index(backend, self.taps)
            return (backend.index_add(tuple(shape), index, gy, dtype),)
        # The plan's matrices and copies serve a finite gradient only (see ``_linear_plan``).
        plan = self.plan
        if any(p is not None for p in plan) and not _all_finite(backend, gy):
            plan = (None,) * self.k
        g = gy
        for axis in range(self.k):  # the forward's axes in reverse: height, then width
            behind = self.k - axis
            if plan[axis] is None:
                target = tuple(g.shape[:g.ndim - behind]) + (shape[2 + axis],) + tuple(
                    g.shape[g.ndim - behind + 1:])
                g = _spread_axis(backend, g, self.taps[axis], behind, target, dtype)
            elif plan[axis] is not _SAME:
                g = _multiply_axis(backend, g, plan[axis], behind, transposed=True)
        return (g,)

    backward_graph = linear_backward_graph  # linear in x: see ``linear_gradient.py``

    def _repeats(self, in_sizes) -> tuple | None:
        """The whole number of times each input position is repeated along each axis when
        a nearest mode reads exactly ``o // s`` at output ``o``; None otherwise.

        That holds when ``out = s * in`` and the step is exactly ``1 / s``: for
        ``nearest``, PyTorch's 2-D copy and halving (any scale), or a power-of-two ``s``
        (``o * 2**-j`` is exact); for ``nearest-exact`` any ``s``, as ``(o + 0.5) / s``
        is at least ``0.5 / s`` from an integer, far more than the rounding below 2**20
        outputs.
        """
        if self.mode not in _NEAREST:
            return None
        math_dtype = self.out_dtype if self.out_dtype.is_floating_point else dtypes.float32
        real = math_dtype.numpy.type
        repeats = []
        for n_in, n_out, scale in zip(in_sizes, self.out_sizes, self.scales):
            s = n_out // n_in
            if n_out != s * n_in:
                return None
            if self.mode == "nearest" and self.k == 2 and s in (1, 2):
                repeats.append(s)
                continue
            exact_step = _ratio(n_in, n_out, scale, math_dtype) == real(1) / real(s)
            if not exact_step or (self.mode == "nearest" and s & (s - 1)) or n_out >= 2**20:
                return None
            repeats.append(s)
        return tuple(repeats)

    def _kernel(self, k: int) -> str:
        """PyTorch's kernel name for this mode and rank (its dtype errors name it)."""
        if self.mode in _NEAREST:
            return "nearest"
        return "bicubic" if self.mode == "cubic" else _LINEAR_KERNELS[k]

    def _nearest_index(self, backend, taps) -> tuple:
        """One index array per axis, shaped to broadcast: ``x[index]`` is the output."""
        index = [Ellipsis]
        for axis, (positions,) in enumerate(taps):
            index.append(backend.reshape(positions, (-1,) + (1,) * (self.k - 1 - axis)))
        return tuple(index)

    # -- the source-index formulas ----------------------------------------------------
    def _taps(self, backend, n_in: int, n_out: int, scale, math_dtype) -> tuple:
        """``(positions,)`` for the nearest modes, ``((i0, i1), (w0, w1))`` for linear,
        four positions and weights for cubic."""
        if self.antialias:
            if n_in == n_out:  # PyTorch's anti-aliased kernels skip such an axis
                return ((backend.arange(0, n_out, 1, dtypes.int64),),
                        (backend.full((n_out,), 1, math_dtype),))
            return antialias_taps(backend, n_in, n_out, scale, self.align_corners,
                                  self.mode == "cubic", math_dtype)
        if self.mode == "linear":
            return _linear_taps(backend, n_in, n_out, scale, self.align_corners, math_dtype)
        if self.mode == "cubic":
            return _cubic_taps(backend, n_in, n_out, scale, self.align_corners, math_dtype)
        if self.mode == "nearest" and self.k == 2 and n_out in (n_in, 2 * n_in):
            # PyTorch's 2-D nearest kernel copies or halves exactly for these sizes,
            # whatever the scale factor (1.1 on 4 pixels gives 4, read one to one)
            if n_out == n_in:
                return (backend.arange(0, n_out, 1, dtypes.int64),)
            halves = backend.arange(0, n_in, 0.5, dtypes.float64)  # 0, 0.5, 1, ... exactly
            return (backend.astype(halves, dtypes.int64),)
        ratio = _ratio(n_in, n_out, scale, math_dtype)
        dst = backend.arange(0, n_out, 1, math_dtype)
        if self.mode == "nearest-exact":
            # PyTorch: floor(scale * (o + 0.5) - 0.5 + 0.5), in that order of rounding
            dst = backend.binary("sub", backend.binary("mul", backend.binary("add", dst, 0.5),
                                                       ratio), 0.5)
            dst = backend.binary("add", dst, 0.5)
        else:
            dst = backend.binary("mul", dst, ratio)
        return (_floor_index(backend, dst, n_in),)


def _ratio(n_in: int, n_out: int, scale, math_dtype):
    """PyTorch's ``compute_scales_value``: ``1 / scale`` when given, else ``in / out``, as a
    scalar of the arithmetic's dtype."""
    real = math_dtype.numpy.type
    if scale is not None and scale > 0:
        return real(1.0 / scale)
    return real(n_in) / real(n_out)


def _floor_index(backend, src, n_in: int):
    """``min(floor(src), n_in - 1)`` as int64, for ``src >= 0`` (truncation is the floor)."""
    return backend.binary("minimum", backend.astype(src, dtypes.int64), n_in - 1)


def _source_index(backend, n_in: int, n_out: int, scale, align_corners: bool, math_dtype):
    """Each output position's (fractional) source index on the input axis, by PyTorch's
    formula: ``out * (n_in - 1) / (n_out - 1)`` with ``align_corners``, else
    ``(out + 0.5) * ratio - 0.5``."""
    real = math_dtype.numpy.type
    src = backend.arange(0, n_out, 1, math_dtype)
    if align_corners:
        ratio = real(n_in - 1) / real(n_out - 1) if n_out > 1 else real(0)
        return backend.binary("mul", src, ratio)
    ratio = _ratio(n_in, n_out, scale, math_dtype)
    return backend.binary("sub", backend.binary("mul", backend.binary("add", src, real(0.5)),
                                                ratio), real(0.5))


def _linear_taps(backend, n_in: int, n_out: int, scale, align_corners: bool, math_dtype):
    """The two input positions around each output's source index and their weights."""
    if n_in == n_out:  # PyTorch copies such an axis, whatever the scale factor says
        i0 = backend.arange(0, n_out, 1, dtypes.int64)
        return ((i0, i0), (backend.full((n_out,), 1, math_dtype),
                           backend.full((n_out,), 0, math_dtype)))
    real = math_dtype.numpy.type
    src = _source_index(backend, n_in, n_out, scale, align_corners, math_dtype)
    if not align_corners:
        src = backend.binary("maximum", src, real(0))  # (the cubic taps do not clamp it)
    i0 = _floor_index(backend, src, n_in)
    w1 = backend.binary("sub", src, backend.astype(i0, math_dtype))
    w1 = backend.binary("minimum", backend.binary("maximum", w1, real(0)), real(1))
    w0 = backend.binary("add", backend.unary("neg", w1), real(1))
    step = backend.astype(backend.binary("lt", i0, n_in - 1), dtypes.int64)
    return (i0, backend.binary("add", i0, step)), (w0, w1)


def _cubic_taps(backend, n_in: int, n_out: int, scale, align_corners: bool, math_dtype):
    """The four input positions around each output's source index (clamped into the
    axis) and their cubic-convolution weights (``A = -0.75``), by PyTorch's formulas: the
    source index is not clamped at 0, its floor is clamped at ``n_in - 1`` and the
    fraction into ``[0, 1]``."""
    real = math_dtype.numpy.type
    src = _source_index(backend, n_in, n_out, scale, align_corners, math_dtype)
    floor = backend.binary("minimum", backend.unary("floor", src), real(n_in - 1))
    t = backend.binary("sub", src, floor)
    t = backend.binary("minimum", backend.binary("maximum", t, real(0)), real(1))
    start = backend.astype(floor, dtypes.int64)
    positions = tuple(backend.binary("minimum", backend.binary("maximum", backend.binary(
        "add", start, j - 1), 0), n_in - 1) for j in range(4))
    one_minus_t = backend.binary("sub", real(1), t)
    weights = (_cubic_far(backend, backend.binary("add", t, real(1)), real),
               _cubic_near(backend, t, real), _cubic_near(backend, one_minus_t, real),
               _cubic_far(backend, backend.binary("add", one_minus_t, real(1)), real))
    return positions, weights


def _cubic_near(backend, x, real):
    """Cubic convolution for a tap within 1 of the source: ``((A + 2) x - (A + 3)) x x + 1``."""
    inner = backend.binary("sub", backend.binary("mul", x, real(CUBIC_A + 2)), real(CUBIC_A + 3))
    return backend.binary("add", backend.binary("mul", backend.binary("mul", inner, x), x),
                          real(1))


def _cubic_far(backend, x, real):
    """Cubic convolution for a tap 1 to 2 from the source: ``((A x - 5A) x + 8A) x - 4A``."""
    a = backend.binary("sub", backend.binary("mul", x, real(CUBIC_A)), real(5 * CUBIC_A))
    a = backend.binary("add", backend.binary("mul", a, x), real(8 * CUBIC_A))
    return backend.binary("sub", backend.binary("mul", a, x), real(4 * CUBIC_A))


def _interpolate_axis(backend, x, taps, behind: int):
    """``w0 * x[i0] + w1 * x[i1] + ...`` along the axis ``behind`` places from the end (the
    weights are in ``x``'s dtype: the interpolating modes take float inputs only)."""
    tail = (slice(None),) * (behind - 1)
    shape = (-1,) + (1,) * (behind - 1)
    total = None
    for index, weight in zip(*taps):
        term = backend.binary("mul", backend.reshape(weight, shape),
                              backend.getitem(x, (Ellipsis, index) + tail))
        total = term if total is None else backend.binary("add", total, term)
    return total


def _spread_axis(backend, g, taps, behind: int, target: tuple, dtype):
    """The transpose of ``_interpolate_axis``: each tap's weighted gradient added back into
    the input positions it read (a scatter-add)."""
    tail = (slice(None),) * (behind - 1)
    shape = (-1,) + (1,) * (behind - 1)
    total = None
    for index, weight in zip(*taps):
        part = backend.index_add(target, (Ellipsis, index) + tail,
                                 backend.binary("mul", g, backend.reshape(weight, shape)), dtype)
        total = part if total is None else backend.binary("add", total, part)
    return total


# -- whole-number scales: a broadcast write and a sum ----------------------------------------

def _repeat_forward(backend, x, repeats: tuple, dtype):
    """Each input element written ``s`` times along each axis: the output seen as
    ``(N, C, H, sH, W, sW)`` is one broadcast write of ``x`` seen as ``(N, C, H, 1, W, 1)``."""
    lead, sizes = tuple(x.shape[:2]), tuple(x.shape[2:])
    paired = lead + tuple(v for n, s in zip(sizes, repeats) for v in (n, s))
    spread = lead + tuple(v for n in sizes for v in (n, 1))
    out = backend.empty(paired, dtype)
    backend.setitem(out, Ellipsis, backend.reshape(x, spread))
    return backend.reshape(out, lead + tuple(n * s for n, s in zip(sizes, repeats)))


def _repeat_backward(backend, gy, repeats: tuple, shape: tuple):
    """The sum of the ``sH * sW`` copies' gradients, added in the outputs' row-major order
    (the order a scatter-add through the nearest index would add them in)."""
    lead, sizes = shape[:2], shape[2:]
    g = backend.reshape(gy, lead + tuple(v for n, s in zip(sizes, repeats) for v in (n, s)))
    terms = (backend.getitem(g, (Ellipsis,) + tuple(v for c in copy for v in (slice(None), c)))
             for copy in itertools.product(*(range(s) for s in repeats)))
    total = next(terms)
    second = next(terms, None)
    if second is None:  # every scale 1: the output was a copy
        return backend.reshape(gy, shape)
    total = backend.binary("add", total, second)
    for term in terms:
        total += term  # a fresh array of ours: added in place
    return total


# -- linear modes: a small interpolation matrix per axis --------------------------------------

#: Interpolating an axis as a product with its (out, in) matrix costs ``in`` multiply-adds
#: per output instead of two, in BLAS calls instead of gathers and scatter-adds. Measured
#: on the CPU (docs/benchmarks.md, "Resizing ops"): 32 -> 64 and 48 -> 96 take 0.6-0.85 of
#: the gathers' time; 64 -> 24 is even (forward alone: 2x slower); 64 -> 96 and 64 -> 128
#: are 2x slower (an inner axis takes one GEMM per plane, and larger ones start OpenBLAS's
#: threads on every call). So a matrix serves axes of at most these sizes.
MATMUL_MAX_INPUTS, MATMUL_MAX_OUTPUTS = 48, 96


def _all_finite(backend, a) -> bool:
    """Whether ``a`` holds no inf or NaN (its sum is finite; a sum that overflows only
    sends the op down its slower path)."""
    total = backend.to_numpy(backend.sum(a, None, False))
    return bool(abs(float(total)) < float("inf"))


#: a plan's mark for an axis whose size does not change (its taps read ``1 * x + 0 * x``)
_SAME = "same"


def _linear_plan(backend, x, taps, in_sizes, out_sizes, math_dtype, same_is_copy: bool) -> list:
    """How to interpolate each axis: ``_SAME`` (its size is kept and ``same_is_copy``, as
    for the linear modes: the taps give ``x`` itself), its (out, in) interpolation matrix
    (two or four weights per row), or None for the gathers of the taps (an axis over
    ``MATMUL_MAX_INPUTS`` or ``MATMUL_MAX_OUTPUTS``).

    All axes take the gathers when ``x`` is not finite: ``0 * inf`` is NaN, which the taps
    put only where an output reads the inf (as PyTorch's kernel does, even on an axis
    whose size is kept), while a matrix's zeros would spread it along the whole axis.
    """
    small = [(n_in == n_out and same_is_copy)
             or (n_in <= MATMUL_MAX_INPUTS and n_out <= MATMUL_MAX_OUTPUTS)
             for n_in, n_out in zip(in_sizes, out_sizes)]
    if not any(small) or not _all_finite(backend, x):
        return [None] * len(taps)
    return [None if not use else _SAME if n_in == n_out and same_is_copy else
            _linear_map(backend, t, n_in, n_out, math_dtype)
            for t, n_in, n_out, use in zip(taps, in_sizes, out_sizes, small)]


def _resize_axis(backend, a, plan, taps, behind: int):
    """``a`` interpolated along its axis ``behind`` places from the end, as ``plan`` says."""
    if plan is None:
        return _interpolate_axis(backend, a, taps, behind)
    if plan is _SAME:
        return a
    return _multiply_axis(backend, a, plan, behind, transposed=False)


def _linear_map(backend, taps, n_in: int, n_out: int, math_dtype):
    """The (out, in) matrix whose row ``o`` holds each tap's weight at its position."""
    rows = backend.arange(0, n_out, 1, dtypes.int64)
    matrix = None
    for index, weight in zip(*taps):  # clamped taps may name one position twice: added
        part = backend.index_add((n_out, n_in), (rows, index), weight, math_dtype)
        matrix = part if matrix is None else backend.binary("add", matrix, part)
    return matrix


def _multiply_axis(backend, a, matrix, behind: int, transposed: bool):
    """``a`` with its axis ``behind`` places from the end multiplied by ``matrix`` (the
    forward map, out x in) or by its transpose (the gradient's map, in x out)."""
    m = backend.transpose(matrix, (1, 0)) if transposed else matrix
    shape = tuple(a.shape)
    axis = len(shape) - behind
    lead, tail = shape[:axis], shape[axis + 1:]
    if behind == 1:  # the last axis: one GEMM of all rows against the matrix's transpose
        out = backend.matmul(backend.reshape(a, (-1, shape[axis])),
                             backend.transpose(m, (1, 0)))
    else:  # an inner axis: the matrix times each (axis, tail) plane
        planes = backend.reshape(a, (-1, shape[axis], _product(tail)))
        out = backend.matmul(m, planes)
    return backend.reshape(out, lead + (m.shape[0],) + tail)


def _product(sizes) -> int:
    total = 1
    for n in sizes:
        total *= n
    return total

"""``segment_reduce``: a reduction over consecutive runs (segments) of one axis.

Along ``axis`` the data is cut into segments given by their lengths or by their bounds
(offsets), one row of them per index of the dims before ``axis``. Each output element
reduces one segment (sum, mean, max, min or prod); an empty segment gives ``initial``,
else the reduction's identity (0, NaN for mean, -inf, inf, 1).

Everything runs on a ``(B, N, T)`` view of the data (``B`` the dims before ``axis``,
``N`` the axis, ``T`` the dims after it), with each element's segment number ``seg``
``(B, N)``; elements in no segment (before the first offset, after the last) get the
number ``K`` of a dump slot that the output leaves out. Sums are one scatter-add;
max, min and prod are a segmented scan by doubling (``log2`` of the longest segment
rounds over the whole array, each combining an element with the one ``s`` before it when
both lie in one segment), read at each segment's last element: exact for max and min,
and no loop over segments on any device.
"""

from __future__ import annotations

import math

from .. import dtypes
from . import shapes
from .function import Function

#: the reduction each name of ``reduce`` stands for (PyTorch takes both spellings)
REDUCTIONS = {"sum": "sum", "mean": "mean", "max": "max", "amax": "max", "min": "min",
              "amin": "min", "prod": "prod"}

#: the binary kernel that combines two elements, and the value of an empty segment
_COMBINE = {"max": "maximum", "min": "minimum", "prod": "mul"}
_IDENTITY = {"sum": 0.0, "mean": math.nan, "max": -math.inf, "min": math.inf, "prod": 1.0}

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
_COUNTS = (dtypes.int32, dtypes.int64)


class SegmentReduce(Function):
    """``reduce`` of each segment of ``data`` along ``axis``; the segments are the second
    input: their ``lengths`` (``by_offsets`` False) or their ``offsets`` (True).

    Hyper-parameters: ``reduce`` (``"sum"``, ``"mean"``, ``"max"``, ``"min"``, ``"prod"``),
    ``axis`` (as given), ``by_offsets``, ``unsafe`` (lengths need not sum to the axis'
    size), ``initial`` (a number or None).

    Shape:
        data ``(*lead, N, *trail)`` with ``lead`` of ``axis`` dims; lengths
        ``(*lead, K)`` or offsets ``(*lead, K + 1)`` -> output ``(*lead, K, *trail)`` in
        data's dtype.

    Raises:
        IndexError for an ``axis`` outside data's dims; RuntimeError for an ``axis`` that
        is not the lengths' last dim, lengths with more dims than data, lead dims that
        differ, negative lengths, lengths that do not sum to ``N`` (or, with ``unsafe``,
        exceed it) and offsets that decrease or leave ``[0, N]``; NotImplementedError for
        data that is not floating-point or lengths/offsets that are not int32/int64.
    """

    op_name = "segment_reduce"
    backward_name = "SegmentReduceBackward0"

    @property
    def saved_for_backward(self):
        # mean and sum read only the segment numbers; the others the data and output too
        return () if self.reduce in ("sum", "mean") else (0, "output")

    # -- the shape rule ----------------------------------------------------------------
    def infer(self, data, bounds):
        what = "offsets" if self.by_offsets else "lengths"
        ndim, rank = data._data.ndim, bounds._data.ndim
        axis = shapes.normalize_dim(self.op_name, self.axis, ndim)
        if ndim < rank:
            raise RuntimeError(f"segment_reduce(): Expected data.dim() >= {what}.dim(), but "
                               f"got data of {ndim} dims and {what} of {rank}")
        if axis != rank - 1:
            raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of "
                               f"{what} but got {axis}.")
        shape, lead = tuple(data._data.shape), tuple(bounds._data.shape[:-1])
        if lead != shape[:axis]:  # PyTorch reads past the end of lengths: refused here
            raise shapes.ShapeError(
                self.op_name, f"{what} of shape {shapes.fmt(bounds._data.shape)} must have "
                f"data's dims before axis {axis}, {shapes.fmt(shape[:axis])}, before its last "
                "dim (one row of segments per slice of data)")
        if data._dtype not in _FLOATS:
            raise NotImplementedError(f"segment_reduce(): data must be a floating-point tensor "
                                      f"(float16, float32, float64), but got {data._dtype}")
        if bounds._dtype not in _COUNTS:
            raise NotImplementedError(f"segment_reduce(): {what} must be an int32 or int64 "
                                      f"tensor, but got {bounds._dtype}")
        count = bounds._data.shape[-1] - (1 if self.by_offsets else 0)
        if count < 0:
            raise RuntimeError("segment_reduce(): offsets must hold at least one bound (the "
                               "start of the first segment), but got an empty last dim")
        self.dims = (math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:]))
        self.out_shape = shape[:axis] + (count,) + shape[axis + 1:]
        return self.out_shape, data._dtype

    # -- forward -----------------------------------------------------------------------
    def forward(self, backend, data, given):
        batch, size, trail = self.dims
        x = backend.reshape(data, (batch, size, trail))
        bounds = self._bounds(backend, given, batch, size)
        count = bounds.shape[1] - 1
        rows = backend.reshape(backend.arange(0, batch, 1, dtypes.int64), (batch, 1))
        seg = _segment_numbers(backend, bounds, rows, batch, size)
        lengths = backend.binary("sub", backend.getitem(bounds, (slice(None), slice(1, None))),
                                 backend.getitem(bounds, (slice(None), slice(None, -1))))
        index = (rows, seg)
        if self.reduce in ("sum", "mean"):
            out = _scatter_sum(backend, x, index, (batch, count, trail))
            out = self._finish_average(backend, out, lengths) if self.reduce == "mean" else (
                out if self.initial is None else backend.binary("add", out, self._initial(x)))
        else:
            out = self._scan_reduce(backend, x, seg, rows, bounds, lengths)
        if self.recording:
            self.index, self.lengths = index, lengths
            if self.reduce not in ("sum", "mean"):
                self.x, self.out, self.bounds = x, out, bounds
        return backend.reshape(out, self.out_shape)

    def _bounds(self, backend, given, batch, size):
        """The ``(B, K + 1)`` int64 segment bounds, after checking the given values."""
        if self.by_offsets:
            bounds = backend.astype(backend.reshape(given, (batch, -1)), dtypes.int64)
            _check_offsets(backend, bounds, size)
            return bounds
        lengths = backend.astype(backend.reshape(given, (batch, -1)), dtypes.int64)
        count = lengths.shape[1]
        bounds = backend.full((batch, count + 1), 0, dtypes.int64)
        if count and batch:
            _check_lengths(backend, lengths, size, self.unsafe)
            backend.setitem(bounds, (slice(None), slice(1, None)), backend.cumsum(lengths, 1))
        elif size and batch and not self.unsafe:
            raise RuntimeError(_sum_message(size, 0))
        return bounds

    def _initial(self, x):
        return x.dtype.type(self.initial)

    def _finish_average(self, backend, total, lengths):
        """``(sum + initial) / length``; an empty segment gives ``initial`` (or NaN)."""
        counts = backend.reshape(backend.astype(lengths, dtypes.from_numpy(total.dtype)),
                                 lengths.shape + (1,))
        empty = backend.binary("eq", counts, 0)
        if self.initial is not None:
            total = backend.binary("add", total, self._initial(total))
        mean = backend.binary("div", total, backend.binary("maximum", counts, 1))
        fill = _IDENTITY["mean"] if self.initial is None else self.initial
        return backend.where(empty, total.dtype.type(fill), mean)

    def _scan_reduce(self, backend, x, seg, rows, bounds, lengths, values=None):
        """max, min or prod of each segment of ``values`` (default ``x``), ``initial``
        folded in; an empty segment gives ``initial`` or the identity."""
        values = x if values is None else values
        name = _COMBINE[self.reduce]
        batch, size, trail = values.shape
        count = lengths.shape[1]
        identity = values.dtype.type(_IDENTITY[self.reduce])
        if size == 0 or count == 0 or batch == 0:
            out = backend.full((batch, count, trail), identity, dtypes.from_numpy(values.dtype))
        else:
            scanned = _segmented_scan(backend, name, values, seg, _longest(backend, lengths))
            last = backend.binary("maximum", backend.getitem(
                bounds, (slice(None), slice(1, None))), 1)
            ends = backend.getitem(scanned, (rows, backend.binary("sub", last, 1)))
            empty = backend.reshape(backend.binary("eq", lengths, 0), lengths.shape + (1,))
            out = backend.where(empty, identity, ends)
        if self.initial is not None:
            out = backend.binary(name, out, self._initial(values))
        return out

    # -- backward ----------------------------------------------------------------------
    def backward(self, backend, grad):
        if not self.needs_input_grad[0]:
            return None, None
        batch, size, trail = self.dims
        count = self.lengths.shape[1]
        gy = backend.reshape(grad, (batch, count, trail))
        if self.reduce == "mean":
            counts = backend.astype(self.lengths, dtypes.from_numpy(gy.dtype))
            gy = backend.binary("div", gy, backend.reshape(
                backend.binary("maximum", counts, 1), (batch, count, 1)))
        if self.reduce in ("sum", "mean"):
            gx = _gather(backend, gy, self.index)
        elif self.reduce == "prod":
            gx = backend.binary("mul", _gather(backend, gy, self.index), self._prod_factor(
                backend))
        else:
            gx = self._extremum_gradient(backend, gy)
        return backend.reshape(gx, self.input_specs[0][0]), None

    def _extremum_gradient(self, backend, gy):
        """The gradient of max/min to the elements equal to the result (a NaN element
        always counts); none when ``initial`` won alone. As PyTorch's kernel, a positive
        gradient is split evenly among tied elements, while a negative or zero one goes
        whole to each of them."""
        x, index = self.x, self.index
        reached = _gather(backend, self.out, index)
        hit = backend.binary("logical_or", backend.binary("eq", x, reached),
                             backend.unary("isnan", x))
        ties = _scatter_sum(backend, backend.astype(hit, dtypes.from_numpy(x.dtype)), index,
                            gy.shape)
        share = backend.where(backend.binary("gt", gy, 0), backend.binary(
            "div", gy, backend.binary("maximum", ties, 1)), gy)
        return backend.where(hit, _gather(backend, share, index), x.dtype.type(0))

    def _prod_factor(self, backend):
        """d out / d x: ``out / x`` where ``x`` is neither 0 nor NaN, else the product of
        the segment's other elements (and ``initial``), which ``out / x`` cannot give."""
        x, index = self.x, self.index
        kind = dtypes.from_numpy(x.dtype)
        zero, nan = backend.binary("eq", x, 0), backend.unary("isnan", x)
        special = backend.binary("logical_or", zero, nan)
        one = x.dtype.type(1)
        safe = backend.where(special, one, x)
        # the product of the segment's ordinary elements (and ``initial``)
        rest = self._scan_reduce(backend, x, index[1], index[0], self.bounds, self.lengths,
                                 values=safe)
        zeros = _scatter_sum(backend, backend.astype(zero, kind), index, rest.shape)
        nans = _scatter_sum(backend, backend.astype(nan, kind), index, rest.shape)
        other_zeros = backend.binary("sub", _gather(backend, zeros, index),
                                     backend.astype(zero, kind))
        other_nans = backend.binary("sub", _gather(backend, nans, index),
                                    backend.astype(nan, kind))
        others = backend.where(backend.binary("gt", other_nans, 0), x.dtype.type(math.nan),
                               backend.where(backend.binary("gt", other_zeros, 0),
                                             x.dtype.type(0), _gather(backend, rest, index)))
        regular = backend.binary("div", _gather(backend, self.out, index), safe)
        return backend.where(special, others, regular)


def _segment_numbers(backend, bounds, rows, batch, size):
    """``(B, N)`` int64: the segment of each element along the axis, ``K`` for elements
    in none (before the first bound or from the last one on)."""
    count = bounds.shape[1] - 1
    ends = backend.getitem(bounds, (slice(None), slice(1, None)))
    # how many segments end at each position; their running sum numbers the elements
    marks = backend.index_add((batch, size + 1), (rows, ends),
                              backend.full(ends.shape, 1, dtypes.int64), dtypes.int64)
    seg = backend.getitem(backend.cumsum(marks, 1), (slice(None), slice(0, size)))
    position = backend.reshape(backend.arange(0, size, 1, dtypes.int64), (1, size))
    started = backend.binary("ge", position, backend.getitem(bounds, (slice(None),
                                                                       slice(0, 1))))
    inside = backend.binary("logical_and", started, backend.binary("lt", seg, count))
    return backend.where(inside, seg, count)


def _segmented_scan(backend, name, values, seg, longest):
    """The running ``binary(name)`` of ``values`` ``(B, N, T)`` within each segment, by
    doubling: after the round of step ``s`` each element holds the reduction of up to
    ``2 s`` elements of its segment ending at it."""
    acc = backend.copy(values)
    size = values.shape[1]
    step = 1
    while step < longest:
        later, earlier = slice(step, None), slice(None, size - step)
        same = backend.binary("eq", backend.getitem(seg, (slice(None), later)),
                              backend.getitem(seg, (slice(None), earlier)))
        mine = backend.getitem(acc, (slice(None), later))
        joined = backend.binary(name, mine, backend.getitem(acc, (slice(None), earlier)))
        # the right side is a new array before the write: every element reads the old acc
        backend.setitem(acc, (slice(None), later), backend.where(
            backend.reshape(same, same.shape + (1,)), joined, mine))
        step *= 2
    return acc


def _scatter_sum(backend, values, index, shape):
    """``(B, K, T)`` sums of ``values`` ``(B, N, T)`` per segment (the dump slot dropped)."""
    batch, count, trail = shape
    full = backend.index_add((batch, count + 1, trail), index, values,
                             dtypes.from_numpy(values.dtype))
    return backend.getitem(full, (slice(None), slice(0, count)))


def _gather(backend, per_segment, index):
    """``(B, N, T)``: each element's segment's value of ``per_segment`` ``(B, K, T)``; 0 for
    elements in no segment."""
    batch, count, trail = per_segment.shape
    padded = backend.full((batch, count + 1, trail), 0, dtypes.from_numpy(per_segment.dtype))
    backend.setitem(padded, (slice(None), slice(0, count)), per_segment)
    return backend.getitem(padded, index)


def _longest(backend, lengths) -> int:
    return int(backend.to_numpy(backend.max(lengths, None, False)))


def _host_int(backend, a) -> int:
    return int(backend.to_numpy(a))


def _sum_message(size: int, total: int) -> str:
    return ("segment_reduce(): Expected all rows of lengths along axis to sum to "
            f"data.size(lengths.dim()-1) when !unsafe: the axis has {size} elements, but a "
            f"row of lengths sums to {total}")


def _check_lengths(backend, lengths, size: int, unsafe: bool) -> None:
    """Negative lengths, and rows that do not sum to ``size`` (with ``unsafe``: that sum
    beyond it; PyTorch would read past the data) are errors."""
    if _host_int(backend, backend.min(lengths, None, False)) < 0:
        raise RuntimeError("lengths contains negative value!")
    totals = backend.sum(lengths, 1, False)
    wrong = backend.binary("gt", totals, size) if unsafe else backend.binary("ne", totals, size)
    if _host_int(backend, backend.sum(wrong, None, False)):
        total = _host_int(backend, backend.getitem(totals, _host_int(backend, backend.argmax(
            wrong, None, False))))
        if unsafe:
            raise RuntimeError(f"segment_reduce(): lengths must sum to at most the axis' "
                               f"{size} elements (unsafe=True), but a row sums to {total}")
        raise RuntimeError(_sum_message(size, total))


def _check_offsets(backend, bounds, size: int) -> None:
    """Offsets that decrease or leave ``[0, size]`` are errors (PyTorch reads outside the
    data there, or fails on a negative segment length)."""
    if bounds.size == 0:
        return
    low = _host_int(backend, backend.min(bounds, None, False))
    high = _host_int(backend, backend.max(bounds, None, False))
    step = backend.binary("sub", backend.getitem(bounds, (slice(None), slice(1, None))),
                          backend.getitem(bounds, (slice(None), slice(None, -1))))
    decreasing = step.size and _host_int(backend, backend.min(step, None, False)) < 0
    if low < 0 or high > size or decreasing:
        raise RuntimeError(f"segment_reduce(): offsets must be non-decreasing and within "
                           f"[0, {size}] (the axis' size), but got values from {low} to "
                           f"{high}" + (", decreasing" if decreasing else ""))

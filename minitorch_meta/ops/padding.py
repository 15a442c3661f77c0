"""Padding: ``constant`` (any trailing dims), ``reflect``, ``replicate`` and ``circular``
(the last 1 to 3 dims), with PyTorch's rules; negative pads crop.

``ConstantPadNd`` writes the (cropped) input into a tensor filled with the value, and its
backward reads the same window of the gradient back. The other modes are slice copies:
each padded axis is cut into runs of output positions (an edge, the middle, the other
edge), each reading a slice of the input (reversed for a reflected edge, one element
repeated for a replicated one), and the output is one copy per combination of runs (9 in
2-D), far cheaper than a gather through index arrays. Backward adds each block's gradient
back into its input slice, blocks in the output's row-major order, so that every input
element sums its gradients in the order a scatter-add through the positions would.
"""

from __future__ import annotations

import itertools
import math

from .. import dtypes
from . import float8_shell
from .elementwise import _bound_scalar
from .function import Function
from .linear_gradient import LinearGradient
from .shapes import fmt

MODES = ("constant", "reflect", "replicate", "circular")
_AXIS_NAMES = ("D", "H", "W")


def pad_pairs(pad, shape, mode: str, value) -> list:
    """``pad`` as ``(before, after)`` pairs, one per padded dim, first dim first; PyTorch's
    checks of its length against the input's rank and the mode.

    Raises:
        RuntimeError for an odd length, a length over twice the rank, or a value with a
        mode other than ``constant``; NotImplementedError for a length the mode cannot pad
        with that rank.
    """
    if len(pad) % 2:
        raise RuntimeError(f"Padding length must be divisible by 2, but got padding {pad} "
                           f"of length {len(pad)}")
    ndim = len(shape)
    if len(pad) > 2 * ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {ndim}")
    if mode != "constant":
        if value is not None and value != 0:
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        k = len(pad) // 2
        if not 1 <= k <= 3 or ndim not in (k + 1, k + 2):
            raise NotImplementedError(f"Padding size {len(pad)} is not supported for {ndim}D "
                                      f"input tensor. (mode '{mode}' pads the last k dims of "
                                      f"a (k+1)-D or batched (k+2)-D input, k = 1, 2 or 3)")
    pairs = [(int(pad[i]), int(pad[i + 1])) for i in range(0, len(pad), 2)]
    return pairs[::-1]


def fill_value(value, dtype):
    """The constant ``value`` as a scalar of ``dtype``, converted as PyTorch converts it:
    by truth to bool, toward zero from a float to an integer dtype.

    Raises:
        RuntimeError for a value the dtype cannot hold (NaN into int, -1 into uint8).
    """
    value = 0 if value is None else value
    if dtype in dtypes.FLOAT8:  # PyTorch checks it; the backend converts it
        float8_shell.check_fill("pad", value, dtype)
        return value
    if dtype is dtypes.bool_:
        return dtype.numpy.type(bool(value))
    if not dtype.is_floating_point and isinstance(value, float) and math.isfinite(value):
        value = int(value)
    elif not dtype.is_floating_point and isinstance(value, float):
        raise RuntimeError(f"pad: value cannot be converted to type {dtype} without overflow "
                           f"(value={value!r})")
    return _bound_scalar("pad", "value", value, dtype)


class ConstantPadNd(Function):
    """``input`` with ``pad[2i]``/``pad[2i+1]`` elements of ``value`` before/after its
    ``i``-th dim from the end; a negative pad removes elements instead.

    Shape:
        each padded dim ``size + before + after``; any dtype (kept).

    Raises:
        RuntimeError when negative pads remove more elements than a dim has.
    """

    op_name, backward_name = "pad", "ConstantPadNdBackward0"
    value = None

    def infer(self, x):
        shape = tuple(x._data.shape)
        pairs = pad_pairs(self.pad, shape, "constant", self.value)
        lead = len(shape) - len(pairs)
        out, src, dst = list(shape), [slice(None)] * len(shape), [slice(None)] * len(shape)
        for d, (before, after) in enumerate(pairs, lead):
            kept = shape[d] + min(before, 0) + min(after, 0)
            if kept < 0:
                raise RuntimeError(f"narrow(): length must be non-negative. (pad: padding "
                                   f"{(before, after)} removes {-min(before, 0) - min(after, 0)}"
                                   f" elements from dimension {d} of size {shape[d]}, input "
                                   f"shape {fmt(shape)})")
            out[d] = shape[d] + before + after
            src[d] = slice(max(-before, 0), max(-before, 0) + kept)
            dst[d] = slice(max(before, 0), max(before, 0) + kept)
        self.src, self.dst = tuple(src), tuple(dst)
        self.fill = fill_value(self.value, x._dtype)
        self.out_shape, self.out_dtype = tuple(out), x._dtype
        return self.out_shape, x._dtype

    def forward(self, backend, x):
        out = backend.full(self.out_shape, self.fill, self.out_dtype)
        backend.setitem(out, self.dst, backend.getitem(x, self.src))
        return out

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        # The window the input landed in; cropped-away input elements get zero gradient.
        return (backend.index_add(tuple(shape), self.src, backend.getitem(gy, self.dst), dtype),)

    def backward_graph(self, grad):
        # the opposite pads crop what was added and put zeros where input was cropped away
        # (PyTorch's formula): the fill ``value`` has no gradient
        return (ConstantPadNd(pad=tuple(-p for p in self.pad), value=0)(grad),)


class IndexPad(Function):
    """``reflect``, ``replicate`` or ``circular`` padding of the last ``len(pad) // 2`` dims
    (1 to 3) of a batched or unbatched input; a negative pad crops.

    ``reflect`` mirrors about the edge element (``[2, 1, | 0, 1, 2, 3 |, 2]``), ``replicate``
    repeats it, ``circular`` wraps around what is left after cropping (as PyTorch does).

    Shape:
        ``(*, D_1, ..., D_k)`` -> each padded dim ``D_i + before + after``; dtype kept.

    Raises:
        RuntimeError for an empty non-batch dim (reflect, replicate), a reflect pad not
        smaller than its dim, an output with no element along every padded dim (reflect,
        replicate), or a circular pad wrapping more than once; NotImplementedError for a
        bool input to reflect or replicate.
    """

    op_name = "pad"
    mode = "reflect"

    @property
    def backward_name(self):
        if self.mode == "circular":
            return "CopySlices"  # PyTorch builds it from in-place slice copies
        kind = "Reflection" if self.mode == "reflect" else "Replication"
        return f"{kind}Pad{len(self.pad) // 2}DBackward0"

    def infer(self, x):
        shape = tuple(x._data.shape)
        pairs = pad_pairs(self.pad, shape, self.mode, self.value)
        k, mode = len(pairs), self.mode
        axes = range(len(shape) - k, len(shape))
        if mode == "circular":
            for d, (b, a) in zip(axes, pairs):  # PyTorch's checks, every dim, come first
                _check_circular(shape[d], b, a)
            self.reads = [_circular_reads(shape[d], b, a) for d, (b, a) in zip(axes, pairs)]
        else:
            self._check_reflect_replicate(x._dtype, shape, pairs)
            self.reads = [(b, shape[d] + b + a) for d, (b, a) in zip(axes, pairs)]
        # each axis's reads end with its output size
        self.out_shape = tuple(shape[:len(shape) - k]) + tuple(r[-1] for r in self.reads)
        self.out_dtype = x._dtype
        return self.out_shape, x._dtype

    def _check_reflect_replicate(self, dtype, shape, pairs) -> None:
        k, mode = len(pairs), self.mode
        if dtype is dtypes.bool_:
            kernel = "reflection" if mode == "reflect" else "replication"
            raise NotImplementedError(f'"{kernel}_pad{k}d" not implemented for \'Bool\'')
        batched = len(shape) == k + 2
        if any(s == 0 for s in shape[1 if batched else 0:]):
            raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with "
                               f"possibly 0 batch size and other non-zero dimensions for "
                               f"input, but got: {list(shape)}")
        lead = len(shape) - k
        if mode == "reflect":
            for j, (before, after) in enumerate(reversed(pairs)):  # W first, as PyTorch
                d = len(shape) - 1 - j
                if not (before < shape[d] and after < shape[d]):
                    raise RuntimeError(
                        f"Argument #{4 + 2 * j}: Padding size should be less than the "
                        f"corresponding input dimension, but got: padding ({before}, {after}) "
                        f"at dimension {d} of input {list(shape)}")
        out = [shape[d] + b + a for d, (b, a) in enumerate(pairs, lead)]
        if all(n < 1 for n in out):
            names = _AXIS_NAMES[3 - k:]
            given = ", ".join(f"{n}: {s}" for n, s in zip(names, shape[lead:]))
            got = " ".join(f"{n}: {s}" for n, s in zip(names, out))
            raise RuntimeError(f"input ({given}) is too small. Calculated output {got}")
        if min(out) < 0:  # PyTorch lets one padded dim be empty, not negative
            full = list(shape[:lead]) + out
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                               f"{full} (pad: padding {self.pad} for input shape {fmt(shape)})")

    def forward(self, backend, x):
        out = backend.empty(self.out_shape, self.out_dtype)
        for dst, src, _ in self._blocks(x.shape):
            backend.setitem(out, dst, backend.getitem(x, src))
        return out

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        gx = backend.full(tuple(shape), 0, dtype)
        # Blocks in row-major order of the output, each adding into zeros: every input
        # element sums its gradients in the order of the outputs that read it.
        for dst, src, repeated in self._blocks(shape):
            g = backend.getitem(gy, dst)
            if repeated:  # replicate: one input element read along these axes
                g = backend.sum(g, repeated, True)
            backend.setitem(gx, src, backend.binary("add", backend.getitem(gx, src), g))
        return (gx,)

    def backward_graph(self, grad):  # linear in x: see ``linear_gradient.py``
        # PyTorch's circular pad is slice copies, whose gradients' node is a slice's
        name = "SliceBackwardBackward0" if self.mode == "circular" else None
        return (LinearGradient(self, name)(grad),)

    def _blocks(self, shape):
        """``(dst, src, repeated)`` for each block of the output: ``out[dst]`` is
        ``x[src]``, broadcast along the axes ``repeated`` (replicated edges). The blocks are
        the products of each axis's pieces, in row-major order of the output."""
        lead = len(shape) - len(self.reads)
        per_axis = [_pieces(self.mode, read, shape[d]) for d, read in enumerate(self.reads, lead)]
        for combination in itertools.product(*per_axis):
            dst = (Ellipsis,) + tuple(piece[0] for piece in combination)
            src = (Ellipsis,) + tuple(piece[1] for piece in combination)
            repeated = tuple(d for d, piece in enumerate(combination, lead) if piece[2])
            yield dst, src, repeated


def _check_circular(size: int, before: int, after: int) -> None:
    """PyTorch's rules: no pad over the dim's size, no output size below zero."""
    if before > size or after > size:
        raise RuntimeError(f"Padding value causes wrapping around more than once. (padding "
                           f"({before}, {after}) for a dimension of size {size})")
    if size + before + after < 0:
        raise RuntimeError(f"Negative padding value is resulting in an empty dimension "
                           f"(padding ({before}, {after}) for a dimension of size {size})")


def _circular_reads(size: int, before: int, after: int) -> tuple:
    """``(start, kept, before, out)``: circular padding wraps around the ``kept`` elements
    from ``start`` that negative pads leave, adding ``before`` of them in front.

    Raises:
        RuntimeError for a pad over what cropping leaves of the dim (PyTorch would read
        memory it never wrote).
    """
    start, kept = max(-before, 0), size + min(before, 0) + min(after, 0)
    if max(before, after) > max(kept, 0):
        raise RuntimeError(f"Padding value causes wrapping around more than once. (padding "
                           f"({before}, {after}) wraps around the {max(kept, 0)} element(s) "
                           f"the negative pad leaves of a dimension of size {size})")
    return start, kept, max(before, 0), size + before + after


def _pieces(mode: str, read: tuple, size: int) -> list:
    """One axis of the padded output as runs of consecutive positions, in order:
    ``(dst, src, repeated)``, where the output slice ``dst`` reads the input slice ``src``
    (a reversed slice for a reflected edge; one element, ``repeated`` along ``dst``, for a
    replicated edge)."""
    if mode == "circular":
        start, kept, before, out = read
        # The crop [start, start + kept) with its last ``before`` elements in front and its
        # first ``out - before - kept`` behind.
        runs = [(0, before, start + kept - before, 1), (before, kept, start, 1),
                (before + kept, out - before - kept, start, 1)]
    else:
        before, out = read
        # Input position i = o - before for output o, in [-before, size + after): the
        # edges left of 0 and right of size - 1 read mirrored or repeated positions.
        lo, hi = -before, out - before
        left, right = (min(hi, 0), max(lo, size))
        if mode == "reflect":  # i < 0 reads -i; i >= size reads 2 (size - 1) - i
            edges = [(lo, left, -lo, -1), (right, hi, 2 * (size - 1) - right, -1)]
        else:
            edges = [(lo, left, 0, 0), (right, hi, size - 1, 0)]
        middle = (max(lo, 0), min(hi, size))
        runs = [(e[0] + before, e[1] - e[0], e[2], e[3]) for e in
                (edges[0], middle + (middle[0], 1), edges[1])]
    return [_piece(*run) for run in runs if run[1] > 0]


def _piece(dst_start: int, count: int, src_start: int, step: int) -> tuple:
    dst = slice(dst_start, dst_start + count)
    if step == 1:
        return dst, slice(src_start, src_start + count), False
    if step == 0:
        return dst, slice(src_start, src_start + 1), count > 1
    stop = src_start - count  # a reversed run; a stop of -1 would mean "the last element"
    return dst, slice(src_start, stop if stop >= 0 else None, -1), False

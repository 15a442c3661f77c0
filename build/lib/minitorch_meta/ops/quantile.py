"""``quantile`` and ``nanquantile``: PyTorch's algorithm, step for step.

Each slice along ``dim`` (the flattened input when ``dim`` is None) is sorted; the
quantile ``q`` sits at the rank ``q * (n - 1)`` of the sorted slice (``nanquantile``:
``q * (valid - 1)``, counting only the non-NaN elements, which sort last). A slice with a
NaN has the rank of its last element in ``quantile``, so the result is NaN. The rank is
then rounded by the ``interpolation`` mode (``lower``: floor, ``higher``: ceil,
``nearest``: half to even), and ``linear``/``midpoint`` interpolate between the elements
below and above it with PyTorch's ``lerp`` formula (weight ``rank - floor(rank)``, or
one half). The ranks are computed in the input's dtype, as PyTorch's are, so that float32
results round the same way.

Backward adds each result's gradient into the sorted positions it read (``index_add``:
two quantiles may read one element), then puts the sorted slice back in input order. With
``linear`` interpolation a ``q`` tensor gets a gradient too, through the weight. The
graph form (``backward_graph``, gradients of gradients) does the same with recorded reads
and writes at the saved positions; there the weight depends on ``q`` and ``q``'s gradient
on the input, through ``high - low``.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function
from .selection_graph import picked, placed, zeroed
from .sorting import along_axis

INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


class Quantile(Function):
    """The ``q``-quantiles of the input along ``dim`` (of all elements when None).

    ``q`` is the second input (a 0-d or 1-D tensor of the input's dtype), or the
    hyper-parameter ``q_value`` (a number) when there is no second input.

    Shape:
        the input's shape without ``dim`` (kept as 1 with ``keepdim``; every dim reduced
        when ``dim`` is None), with ``len(q)`` in front for a 1-D ``q``.

    Raises:
        RuntimeError for an input that is not float32/float64 or is empty, a ``q`` of
        another dtype or of more than one dim, a number ``q`` outside [0, 1], an unknown
        ``interpolation``; IndexError for a dim out of range.
    """

    op_name, saved_for_backward = "quantile", ()
    # PyTorch composes quantile; its last step squeezes the interpolated values
    backward_name = "SqueezeBackward4"
    dim, keepdim, interpolation, ignore_nan, q_value = None, False, "linear", False, None

    def infer(self, x, q=None):
        shape = x._data.shape
        self._check(x, q)
        if self.dim is None:
            self.axis = None
            reduced = (1,) * len(shape) if self.keepdim else ()
        else:
            self.axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
            reduced = shapes.reduce_shape(self.op_name, shape, self.axis, self.keepdim) \
                if shape else ()
        self.many = q is not None and q._data.ndim == 1
        lead = (q._data.shape[0],) if self.many else ()
        self.out_shape = lead + reduced
        return self.out_shape, x._dtype

    def _check(self, x, q) -> None:
        op = self.op_name
        if x._dtype not in (dtypes.float32, dtypes.float64):
            raise RuntimeError(f"{op}() input tensor must be either float or double dtype, but "
                               f"got {x._dtype}; convert it with .float() or .double()")
        if q is not None and q._dtype is not x._dtype:
            raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor ("
                               f"{x._dtype}), but got {q._dtype}")
        if q is not None and q._data.ndim > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor, but got a tensor of "
                               f"shape {shapes.fmt(q._data.shape)}")
        if 0 in x._data.shape:
            raise RuntimeError(f"{op}() input tensor must be non-empty (input shape "
                               f"{shapes.fmt(x._data.shape)})")
        if q is None and not 0 <= self.q_value <= 1:
            raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {self.q_value}")
        if self.interpolation not in INTERPOLATIONS:
            raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, "
                               f"midpoint or nearest, but got {self.interpolation}")

    def forward(self, backend, x, q=None):
        dtype = dtypes.from_numpy(x.dtype)
        if q is None:
            q = backend.full((), self.q_value, dtype)
        work = self._slices(backend, x)  # (*rest, n): the slices as the last axis
        order = backend.argsort(work, work.ndim - 1, False)
        ordered = backend.getitem(work, along_axis(backend, order, work.ndim - 1))
        ranks, scale = self._ranks(backend, ordered, q)
        ranks = self._rounded(backend, ranks)
        below = backend.astype(ranks, dtypes.int64)  # ranks >= 0: truncation is floor
        low = backend.getitem(ordered, along_axis(backend, below, work.ndim - 1))
        out, saved = low, {"below": below, "above": None}
        if self.interpolation in ("linear", "midpoint"):
            weight = backend.binary("sub", ranks, backend.astype(below, dtype)) \
                if self.interpolation == "linear" else backend.full(ranks.shape, 0.5, dtype)
            above = backend.astype(backend.unary("ceil", ranks), dtypes.int64)
            high = backend.getitem(ordered, along_axis(backend, above, work.ndim - 1))
            out = lerp(backend, low, high, weight)
            saved.update(above=above, weight=weight, spread=backend.binary("sub", high, low))
        if self.recording:
            self.order, self.work_shape, self.saved, self.scale = order, work.shape, saved, scale
            self.inputs = (x, q)  # for the graph formula (``backward_graph``)
        return self._output(backend, out)

    def _slices(self, backend, x):
        """``x`` with the reduced axis last: ``(n,)`` for all elements, else ``(*rest, n)``."""
        if self.axis is None or x.ndim == 0:
            return backend.reshape(x, (x.size,))
        axes = tuple(d for d in range(x.ndim) if d != self.axis) + (self.axis,)
        return backend.transpose(x, axes)

    def _ranks(self, backend, ordered, q):
        """The unrounded rank of each quantile in each slice, ``(*rest, m)``, and the factor
        ``d rank / d q`` (0 where the rank was replaced)."""
        dtype = dtypes.from_numpy(ordered.dtype)
        n = ordered.shape[-1]
        kept = ordered.shape[:-1] + (1,)
        qs = backend.reshape(q, (1,) * (ordered.ndim - 1) + (q.size,))
        if self.ignore_nan:
            nans = backend.sum(backend.unary("isnan", ordered), ordered.ndim - 1, True)
            scale = backend.astype(backend.binary("sub", n - 1, nans), dtype)
            ranks = backend.binary("mul", qs, scale)
            negative = backend.binary("lt", ranks, 0)  # every element NaN: rank 0, a NaN
            return (backend.where(negative, dtype.numpy.type(0), ranks),
                    backend.where(negative, dtype.numpy.type(0), scale))
        last = dtype.numpy.type(n - 1)
        ranks = backend.binary("mul", qs, last)
        has_nan = backend.binary("gt", backend.sum(backend.unary("isnan", ordered),
                                                   ordered.ndim - 1, True), 0)
        scale = backend.where(has_nan, dtype.numpy.type(0), last)
        ranks = backend.binary("add", ranks, backend.full(kept, 0, dtype))  # broadcast
        return backend.where(has_nan, last, ranks), scale

    def _rounded(self, backend, ranks):
        rounding = {"lower": "floor", "higher": "ceil", "nearest": "rint"}
        if self.interpolation in rounding:
            return backend.unary(rounding[self.interpolation], ranks)
        return ranks

    def _output(self, backend, out):
        """``(*rest, m)`` values to the op's shape: ``m`` first (or gone), reduced dims
        dropped or kept as 1."""
        out = backend.transpose(out, (out.ndim - 1,) + tuple(range(out.ndim - 1)))
        return backend.reshape(out, self.out_shape)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        work_shape, saved = self.work_shape, self.saved
        m = 1 if not self.many else gy.shape[0]
        # back to (*rest, m), the layout forward computed in
        g = backend.reshape(gy, (m,) + work_shape[:-1])
        g = backend.transpose(g, tuple(range(1, len(work_shape))) + (0,))
        last = len(work_shape) - 1
        if saved["above"] is None:
            parts = ((saved["below"], g),)
        else:
            weight = saved["weight"]
            keep = backend.binary("sub", dtype.numpy.type(1), weight)
            parts = ((saved["below"], backend.binary("mul", g, keep)),
                     (saved["above"], backend.binary("mul", g, weight)))
        g_ordered = None
        for positions, values in parts:
            added = backend.index_add(work_shape, along_axis(backend, positions, last), values,
                                      dtype)
            g_ordered = added if g_ordered is None else backend.binary("add", g_ordered, added)
        g_work = backend.full(work_shape, 0, dtype)
        backend.setitem(g_work, along_axis(backend, self.order, last), g_ordered)
        gx = self._unslice(backend, g_work, tuple(shape))
        return (gx,) if len(self.input_specs) == 1 else (gx, self._q_gradient(backend, g))

    def _unslice(self, backend, g_work, shape):
        if self.axis is None or not shape:
            return backend.reshape(g_work, shape)
        back = list(range(len(shape) - 1))
        back.insert(self.axis, len(shape) - 1)
        return backend.copy(backend.transpose(g_work, tuple(back)))

    def _q_gradient(self, backend, g):
        """``d out / d q``: the weight's share of ``high - low`` times ``d rank / d q``
        (linear interpolation only: the other modes' ranks are rounded or unused)."""
        q_shape, q_dtype = self.input_specs[1]
        if self.interpolation != "linear" or not self.needs_input_grad[1]:
            return None
        per = backend.binary("mul", backend.binary("mul", g, self.saved["spread"]), self.scale)
        # where the rank was replaced (a NaN in the slice) ``high - low`` and the gradient
        # may be NaN: q's gradient there is zero, not NaN, as PyTorch's (masked_fill)
        per = backend.where(self._replaced(), per.dtype.type(0), per)
        total = backend.sum(per, tuple(range(per.ndim - 1)), False)
        return backend.reshape(total, tuple(q_shape))

    # -- graph formulas (``create_graph=True``) -------------------------------------------
    def backward_graph(self, grad):
        backend, (shape, dtype) = self.backend, self.input_specs[0]
        work_shape, saved = self.work_shape, self.saved
        last = len(work_shape) - 1
        m = grad.shape[0] if self.many else 1
        g = grad.reshape((m,) + work_shape[:-1]).permute(tuple(range(1, last + 1)) + (0,))
        if saved["above"] is None:
            parts = ((saved["below"], g),)
        else:
            weight = self._weight_graph()
            parts = ((saved["below"], g * (1 - weight)), (saved["above"], g * weight))
        g_ordered = None
        for positions, values in parts:
            added = placed(self, values, along_axis(backend, positions, last), work_shape, dtype)
            g_ordered = added if g_ordered is None else g_ordered + added
        g_work = placed(self, g_ordered, along_axis(backend, self.order, last), work_shape, dtype)
        gx = self._unslice_graph(g_work, tuple(shape))
        return (gx,) if len(self.input_specs) == 1 else (gx, self._q_gradient_graph(g))

    def _q_requires_grad(self) -> bool:
        return len(self.needs_input_grad) > 1 and self.needs_input_grad[1] and \
            self.interpolation == "linear"

    def _weight_graph(self):
        """The interpolation weight, ``(*rest, m)``: a constant, or (with ``q`` requiring
        grad) the weight plus ``(q - q) * d rank / d q``, a zero that carries ``q``'s
        gradient while keeping the saved weight's exact value."""
        weight = self.constant(self.saved["weight"])
        if not self._q_requires_grad():
            return weight
        q = self.inputs[1]
        lead = (1,) * (len(self.work_shape) - 1) + (q.size,)
        moved = self.graph_input(1, q).reshape(lead) - self.constant(
            self.backend.reshape(q, lead))
        return weight + zeroed(self, moved * self.constant(self.scale), self._replaced())

    def _replaced(self):
        """Where forward replaced the rank (``d rank / d q`` is 0): a NaN in the slice."""
        return self.backend.binary("eq", self.scale, 0)

    def _unslice_graph(self, g_work, shape):
        if self.axis is None or not shape:
            return g_work.reshape(shape)
        back = list(range(len(shape) - 1))
        back.insert(self.axis, len(shape) - 1)
        return g_work.permute(tuple(back))

    def _q_gradient_graph(self, g):
        """``_q_gradient`` with tensor ops: ``high - low`` read from the input, recorded."""
        if not self._q_requires_grad():
            return None
        backend, last = self.backend, len(self.work_shape) - 1
        x = self.graph_input(0, self.inputs[0])
        if self.axis is None or x.dim() == 0:
            work = x.reshape(-1)
        else:
            work = x.permute(tuple(d for d in range(x.dim()) if d != self.axis) + (self.axis,))
        ordered = picked(self, work, along_axis(backend, self.order, last))
        low = picked(self, ordered, along_axis(backend, self.saved["below"], last))
        high = picked(self, ordered, along_axis(backend, self.saved["above"], last))
        per = zeroed(self, g * (high - low) * self.constant(self.scale), self._replaced())
        total = per.sum(tuple(range(last))) if last else per
        return total.reshape(tuple(self.input_specs[1][0]))


def lerp(backend, low, high, weight):
    """``low + weight * (high - low)``, as PyTorch's kernel computes it: from ``high``
    back when ``weight >= 0.5``, so that a weight of 1 gives ``high`` exactly."""
    spread = backend.binary("sub", high, low)
    from_low = backend.binary("add", low, backend.binary("mul", weight, spread))
    rest = backend.binary("sub", weight.dtype.type(1), weight)
    from_high = backend.binary("sub", high, backend.binary("mul", spread, rest))
    return backend.where(backend.binary("lt", weight, 0.5), from_low, from_high)

"""``LinearCrossEntropyChunks``: ``cross_entropy(x @ Wᵀ + b, target)`` over chunks of rows,
so that the ``(N, C)`` logits never exist whole (PyTorch's chunked ``linear_cross_entropy``,
used when ``options`` is given).

Forward makes each chunk's ``(rows, C)`` logits with one GEMM, keeps only each row's loss
``logsumexp(logits) - logits[target]`` and drops the chunk. Backward makes the chunk's
logits again (a second GEMM: memory is what chunking saves, time is what it spends), turns
them into ``softmax - one_hot(target)`` scaled by each row's share of the gradient, and
adds that chunk's part of the three gradients: ``G @ W`` for the input rows, ``Gᵀ @ x``
for the weight, ``sum(G)`` for the bias. Peak memory is one chunk's logits beside the
gradients themselves.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function
from .loss import _check_reduction
from .shapes import ShapeError, fmt


class LinearCrossEntropyChunks(Function):
    """Softmax cross-entropy of the logits ``x @ Wᵀ (+ b)`` against class indices, made
    ``chunk_size`` rows at a time; ``ignore_index`` rows give 0 and do not count in the
    mean.

    Shape:
        input ``(N, F)``, linear weight ``(C, F)``, target ``(N,)`` int64, linear bias
        ``(C,)`` or None -> ``()`` (``(N,)`` for ``'none'``).

    Raises:
        ShapeError: the shapes do not fit together; TypeError: a target that is not int64
            or operands of different dtypes; IndexError: a class index out of range.
    """

    op_name = "linear_cross_entropy"
    saved_for_backward = (0, 1, 2, 3)
    reduction, ignore_index, chunk_size = "mean", -100, 1

    @property
    def backward_name(self) -> str:
        # PyTorch's names of its two custom ops' backward nodes
        middle = "_no_reduction" if self.reduction == "none" else ""
        return ("GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked"
                f"{middle}_defaultBackward")

    def infer(self, x, w, t, b=None):
        op = self.op_name
        _check_reduction(op, self.reduction)
        xs, ws, ts = x._data.shape, w._data.shape, t._data.shape
        shapes.require_ndim(op, "input", xs, (2,), " (N, in_features)")
        shapes.require_ndim(op, "linear_weight", ws, (2,), " (num_classes, in_features)")
        if xs[1] != ws[1]:
            raise ShapeError(op, f"input has {xs[1]} features but linear_weight "
                                 f"{fmt(ws)} expects {ws[1]}")
        if ts != (xs[0],):
            raise ShapeError(op, f"expected target of shape ({xs[0]},) (one class index per "
                                 f"row of the input {fmt(xs)}), got {fmt(ts)}")
        if b is not None and b._data.shape != (ws[0],):
            raise ShapeError(op, f"expected linear_bias of shape ({ws[0]},), got "
                                 f"{fmt(b._data.shape)}")
        if t._dtype is not dtypes.int64:
            raise TypeError(f"{op}: expected target to hold class indices (int64), got "
                            f"{t.dtype}")
        others = [o for o in (w, b) if o is not None and o._dtype is not x._dtype]
        if not x._dtype.is_floating_point or others:
            got = ", ".join(str(o.dtype) for o in (x, w, b) if o is not None)
            raise TypeError(f"{op}: expected floating-point input, linear_weight and "
                            f"linear_bias of one dtype, got {got}")
        self.classes = ws[0]
        return ((xs[0],) if self.reduction == "none" else ()), x._dtype

    def forward(self, backend, x, w, t, b=None):
        self._check_targets(backend, t)
        self.x, self.w, self.b = x, w, b
        keep = backend.binary("ne", t, self.ignore_index)
        self.targets = backend.where(keep, t, 0)
        self.keep = backend.astype(keep, dtypes.from_numpy(x.dtype))
        losses = backend.empty((x.shape[0],), dtypes.from_numpy(x.dtype))
        for rows in self._chunks(x.shape[0]):
            logits = self._logits(backend, rows)
            top = backend.max(logits, 1, True)
            total = backend.sum(backend.unary("exp", backend.binary("sub", logits, top)), 1,
                                False)
            picked = backend.getitem(logits, (backend.arange(0, logits.shape[0], 1,
                                                             dtypes.int64),
                                              backend.getitem(self.targets, rows)))
            lse = backend.binary("add", backend.unary("log", total),
                                 backend.reshape(top, (logits.shape[0],)))
            backend.setitem(losses, rows, backend.binary("sub", lse, picked))
        losses = backend.binary("mul", losses, self.keep)
        if self.reduction == "none":
            return losses
        total = backend.asarray(backend.sum(losses, None, False), None)
        if self.reduction == "sum":
            return total
        self.count = backend.sum(self.keep, None, False)
        return backend.binary("div", total, self.count)

    def backward(self, backend, gy):
        x, w, b = self.x, self.w, self.b
        need_x, need_w, _, need_b = self.needs_input_grad
        dtype = dtypes.from_numpy(x.dtype)
        # each row's share of the gradient: gy (one per row, or one for all), 0 if ignored
        share = backend.binary("mul", self.keep, gy)
        if self.reduction == "mean":
            share = backend.binary("div", share, self.count)
        gx = backend.empty(x.shape, dtype) if need_x else None
        gw = backend.full(w.shape, 0, dtype) if need_w else None
        gb = backend.full(b.shape, 0, dtype) if need_b else None
        for rows in self._chunks(x.shape[0]):
            g = self._logit_gradient(backend, rows, share)
            if need_x:
                backend.setitem(gx, rows, backend.matmul(g, w))
            if need_w:
                gw += backend.matmul(backend.transpose(g, (1, 0)), backend.getitem(x, rows))
            if need_b:
                gb += backend.sum(g, 0, False)
        return gx, gw, None, gb

    def _chunks(self, n: int):
        """The row slices of the chunks, in order."""
        return [slice(start, min(start + self.chunk_size, n))
                for start in range(0, n, self.chunk_size)]

    def _logits(self, backend, rows):
        """One chunk's ``(rows, C)`` logits: ``x[rows] @ Wᵀ + b``."""
        logits = backend.matmul(backend.getitem(self.x, rows),
                                backend.transpose(self.w, (1, 0)))
        if self.b is not None:
            logits += self.b
        return logits

    def _logit_gradient(self, backend, rows, share):
        """``(softmax(logits) - one_hot(target)) * share`` for one chunk's rows."""
        logits = self._logits(backend, rows)
        e = backend.unary("exp", backend.binary("sub", logits, backend.max(logits, 1, True)))
        p = backend.binary("div", e, backend.sum(e, 1, True))
        index = (backend.arange(0, p.shape[0], 1, dtypes.int64),
                 backend.getitem(self.targets, rows))
        backend.setitem(p, index, backend.binary("sub", backend.getitem(p, index), 1))
        return backend.binary("mul", p, backend.reshape(backend.getitem(share, rows),
                                                        (p.shape[0], 1)))

    def _check_targets(self, backend, t):
        """Every target not ignored is a class of ``[0, C)`` (read once, as nll_loss does)."""
        if t.size == 0:
            return
        counted = backend.binary("ne", t, self.ignore_index)
        outside = backend.binary("add", backend.binary("lt", t, 0),
                                 backend.binary("ge", t, self.classes))
        if int(backend.to_numpy(backend.sum(backend.binary("mul", counted, outside), None,
                                            False))):
            values = backend.to_numpy(t)
            first = int(values[(values != self.ignore_index)
                               & ((values < 0) | (values >= self.classes))][0])
            raise IndexError(f"{self.op_name}: target {first} is out of bounds: class indices "
                             f"must be in [0, {self.classes}) for linear_weight with "
                             f"{self.classes} classes")

"""``logcumsumexp``: ``log(cumsum(exp(x)))`` along a dim, computed without overflow.

Forward is the backend's running ``logaddexp`` (``scan``), which never forms ``exp(x)``: it
is exact for large values (``[1000, 1000]`` gives ``1000 + log 2``), for small ones next to
large ones, and at -inf (a slice that starts with -inf stays -inf until a finite value).

The gradient ``gx[i] = sum over k >= i of gy[k] * exp(x[i] - out[k])`` is PyTorch's
formula, done in the log domain too: the positive and the negative parts of ``gy`` are each
summed by a reversed ``logcumsumexp`` of ``log|gy| - out`` (the lowest finite number stands
for ``log 0``), then ``exp(... + x)``. So the values PyTorch gives where the formula meets
``-inf - (-inf)`` (NaN at an input of -inf whose outputs are all -inf) are ours too.
"""

from __future__ import annotations

from .. import dtypes, type_info
from . import shapes
from .cumulative import flip
from .function import Function


class Logcumsumexp(Function):
    """``out[..., i, ...] = log(sum(exp(input[..., :i + 1, ...])))`` along ``dim``.

    Shape:
        the input's shape and dtype (floating-point only). A 0-d input is its own result.

    Raises:
        IndexError for a dim out of range; NotImplementedError for an integer or bool input.
    """

    op_name, backward_name = "logcumsumexp", "LogcumsumexpBackward0"
    saved_for_backward = (0, "output")
    dim = 0

    def infer(self, x):
        shape = x._data.shape
        self.axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
        if not x._dtype.is_floating_point:
            raise NotImplementedError(
                f"logcumsumexp(): expected a floating-point input, got {x._dtype} (PyTorch has "
                "no such kernel either); convert it first, e.g. with .float()")
        return shape, x._dtype

    def forward(self, backend, x):
        out = backend.copy(x) if x.ndim == 0 else backend.scan("logaddexp", x, self.axis)
        if self.recording:
            self.x, self.out = x, out
        return out

    def backward(self, backend, gy):
        if gy.ndim == 0:
            return (gy,)
        x, out, axis = self.x, self.out, self.axis
        lowest = gy.dtype.type(type_info.finfo(dtypes.from_numpy(gy.dtype)).min)
        log_size = backend.unary("log", backend.unary("abs", gy))
        gx = None
        for sign in ("gt", "lt"):  # the positive part of gy, then the negative one
            log_part = backend.where(backend.binary(sign, gy, 0), log_size, lowest)
            ratio = backend.binary("sub", log_part, out)
            summed = flip(backend, backend.scan("logaddexp", flip(backend, ratio, axis), axis),
                          axis)
            part = backend.unary("exp", backend.binary("add", summed, x))
            gx = part if gx is None else backend.binary("sub", gx, part)
        return (gx,)

    def backward_graph(self, grad):
        # ``backward`` with recorded ops (PyTorch's composition, so its double backward):
        # the output's share of the gradient flows back through this node.
        if grad.ndim == 0:
            return (grad,)
        axis = self.axis
        x, out = self.graph_input(0, self.x), self.graph_output(self.out)
        lowest = float(type_info.finfo(grad.dtype).min)
        log_size = grad.abs().log()
        gx = None
        for part in (grad > 0, grad < 0):  # the positive part of grad, then the negative
            ratio = log_size.where(part, lowest) - out
            summed = ratio.flip((axis,)).logcumsumexp(axis).flip((axis,))
            term = (summed + x).exp()
            gx = term if gx is None else gx - term
        return (gx,)

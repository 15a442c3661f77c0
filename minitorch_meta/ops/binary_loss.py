"""Binary cross-entropy: on probabilities (``binary_cross_entropy``) and on logits
(``binary_cross_entropy_with_logits``).

Each is one op with its own backward, as PyTorch's kernels are: the probability form clamps
its logs at -100 and divides its gradient by ``max(x (1 - x), 1e-12)``, which a composition
of ``log`` and ``clamp`` would not give (clamping would zero the gradient); the logit form is
computed as ``(1 - t) x - log_sigmoid(x)`` with ``log_sigmoid(x) = min(x, 0) - log1p(e^-|x|)``,
finite for any logit, and its gradient ``sigmoid(x) - t`` is exact where a composed graph
would cancel ``1 - (1 - sigmoid(x))``.
"""

from __future__ import annotations

import struct

from .. import dtypes
from ..autograd import is_grad_enabled
from ..errors import DtypeNotImplementedError
from . import shapes
from .activations import LogSigmoid
from .elementwise import logistic
from .function import Function
from .loss import _check_reduction, _reduce
from .shapes import ShapeError, fmt

#: PyTorch's floor of the logs in binary_cross_entropy, and of ``x (1 - x)`` in its gradient
#: (a C++ float there, so 1e-12 rounded to float32 in float64 too)
LOG_FLOOR, GRAD_EPSILON = -100.0, struct.unpack("f", struct.pack("f", 1e-12))[0]


class _BinaryLoss(Function):
    """The shape rule both forms share.

    Shape:
        ``input`` and ``target`` of one shape; ``weight`` (and ``pos_weight``) broadcastable
        to it -> ``()`` for ``'mean'``/``'sum'``, the input's shape for ``'none'``.
    """

    reduction = "mean"
    #: the optional inputs after ``input`` and ``target``, in order
    weight_names = ("weight",)
    #: whether a float target of another dtype is accepted, the loss then computed in the
    #: target's dtype (PyTorch's logit form does, since it writes into ``1 - target`` in
    #: place; its probability form refuses)
    promotes = False

    def infer(self, x, t, *weights):
        op = self.op_name
        _check_reduction(op, self.reduction)
        if not x._dtype.is_floating_point:
            raise DtypeNotImplementedError(f"{op}: expected a floating-point input, got {x.dtype}")
        self.out_dtype = x._dtype
        if self.promotes and t._dtype.is_floating_point:
            self.out_dtype = t._dtype
        else:
            shapes.require_same_dtype(op, "input", x._dtype, "target", t._dtype)
        shape = x._data.shape
        if t._data.shape != shape:
            hint = (f"; reshape it, e.g. target.view{fmt(shape)}"
                    if t._data.size == x._data.size else "")
            raise ShapeError(op, f"expected target of the input's shape {fmt(shape)} "
                                 f"(broadcasting is not allowed, as in PyTorch), got target of "
                                 f"shape {fmt(t.shape)}{hint}")
        for name, w in zip(self.weight_names, weights):
            if w is None:
                continue
            if not shapes.broadcasts_to(w._data.shape, shape):
                raise ShapeError(op, f"expected {name} to broadcast to the input's shape "
                                     f"{fmt(shape)}, got {name} of shape {fmt(w.shape)}")
            if w.requires_grad and is_grad_enabled():
                raise RuntimeError(f"The function '{op}' is not differentiable with respect to "
                                   f"argument '{name}'. This input cannot have requires_grad "
                                   f"True; pass {name}.detach()")
        self.count = x._data.size
        return (shape if self.reduction == "none" else ()), self.out_dtype

    def _scale(self, backend, g, w):
        """A gradient times ``weight``, then divided by the element count for ``'mean'``
        (PyTorch's order)."""
        if w is not None:
            g = backend.binary("mul", g, w)
        if self.reduction == "mean":
            g = backend.binary("div", g, g.dtype.type(self.count))
        return g

    def _scale_graph(self, g, w):
        """``_scale`` of a gradient tensor, with ``w`` the saved weight array (or None)."""
        if w is not None:
            g = g * self.constant(w)
        if self.reduction == "mean":
            g = g / self.count
        return g

    def _in_input_dtypes(self, grads):
        """Each gradient tensor in its input's dtype (the loss may be computed in another)."""
        return tuple(None if g is None else g.to(spec[1])
                     for g, spec in zip(grads, self.input_specs))


def _as_dtype(backend, w, like):
    """``w`` in ``like``'s dtype (PyTorch multiplies the weights in place into the loss)."""
    if w is None or w.dtype == like.dtype:
        return w
    return backend.astype(w, dtypes.from_numpy(like.dtype))


class BinaryCrossEntropy(_BinaryLoss):
    """``-w (t log(x) + (1 - t) log(1 - x))`` with each log clamped to ``>= -100``.

    Shape:
        ``input`` and ``target`` of one shape, both in ``[0, 1]``; ``weight`` broadcastable
        to it -> ``()`` for ``'mean'``/``'sum'``, the input's shape for ``'none'``.

    Raises:
        RuntimeError: an element of ``input`` or ``target`` outside ``[0, 1]`` (or NaN).
    """

    op_name, backward_name = "binary_cross_entropy", "BinaryCrossEntropyBackward0"
    saved_for_backward = (0, 1, 2)

    def forward(self, backend, x, t, w):
        _check_unit_interval(backend, x, t)
        w = _as_dtype(backend, w, x)
        one, floor = x.dtype.type(1), x.dtype.type(LOG_FLOOR)
        log_x = backend.binary("maximum", backend.unary("log", x), floor)
        log_1mx = backend.binary("maximum", backend.unary("log1p", backend.unary("neg", x)),
                                 floor)
        loss = backend.binary("sub", backend.binary("mul", backend.binary("sub", t, one), log_1mx),
                              backend.binary("mul", t, log_x))
        if w is not None:
            loss = backend.binary("mul", loss, w)
        self.x, self.t, self.w = x, t, w
        return _reduce(backend, loss, self.reduction)

    def backward(self, backend, gy):
        x, t, w = self.x, self.t, self.w
        one = x.dtype.type(1)
        gx = gt = None
        if self.needs_input_grad[0]:
            # d/dx = (x - t) / (x (1 - x)), the denominator floored at 1e-12 as in PyTorch
            floor = backend.binary("maximum", backend.binary("mul", backend.binary("sub", one, x),
                                                             x), x.dtype.type(GRAD_EPSILON))
            gx = backend.binary("div", backend.binary("mul", gy, backend.binary("sub", x, t)),
                                floor)
            gx = self._scale(backend, gx, w)
        if self.needs_input_grad[1]:
            # d/dt = -logit(x) = -log(x / (1 - x)), unclamped (infinite at 0 and 1), as PyTorch
            logit = backend.unary("log", backend.binary("div", x, backend.binary("sub", one, x)))
            gt = self._scale(backend, backend.binary("mul", backend.unary("neg", logit), gy), w)
        return gx, gt, None

    def backward_graph(self, grad):
        # ``backward`` with recorded ops: the floor of x (1 - x) passes no gradient where it
        # holds, as the array formula's maximum
        x, t = self.graph_input(0, self.x), self.graph_input(1, self.t)
        gx = gt = None
        if self.needs_input_grad[0]:
            floor = ((1 - x) * x).clamp(min=GRAD_EPSILON)
            gx = self._scale_graph(grad * (x - t) / floor, self.w)
        if self.needs_input_grad[1]:
            gt = self._scale_graph(-(x / (1 - x)).log() * grad, self.w)
        return gx, gt, None


def _check_unit_interval(backend, x, t) -> None:
    """PyTorch's check that every input and target lies in ``[0, 1]`` (NaN does not), with
    one device-to-host read when all is well."""
    if x.size == 0:
        return
    inside = backend.binary("mul", _in_unit_interval(backend, x), _in_unit_interval(backend, t))
    if int(backend.to_numpy(backend.sum(inside, None, False))) == x.size:
        return
    for name, a in (("input", x), ("target", t)):
        values = backend.to_numpy(a)  # on the host: only to say which element is wrong
        bad = ~((values >= 0) & (values <= 1))
        if bad.any():
            first = int(bad.reshape(-1).argmax())
            index, rest = [], first
            for size in reversed(values.shape):
                rest, i = divmod(rest, size)
                index.insert(0, str(i))
            element = f"{name}[{', '.join(index)}]" if index else name
            advice = ("; input must hold probabilities: apply sigmoid first, or pass the "
                      "logits to binary_cross_entropy_with_logits" if name == "input" else "")
            raise RuntimeError(f"binary_cross_entropy: all elements of {name} should be between "
                               f"0 and 1, but {element} = {values.reshape(-1)[first].item()} "
                               f"({int(bad.sum())} of {values.size} elements are not in "
                               f"[0, 1]){advice}")


def _in_unit_interval(backend, a):
    return backend.binary("mul", backend.binary("ge", a, 0), backend.binary("le", a, 1))


class BinaryCrossEntropyWithLogits(_BinaryLoss):
    """``-w (p t log(sigmoid(x)) + (1 - t) log(1 - sigmoid(x)))`` computed from the logits
    ``x`` without overflow (``p``: ``pos_weight``, the weight of the positive term).

    Shape:
        ``input`` and ``target`` of one shape; ``weight`` and ``pos_weight`` broadcastable to
        it (``pos_weight`` ``(C,)`` for an ``(N, C)`` input: one weight per class) -> ``()``
        for ``'mean'``/``'sum'``, the input's shape for ``'none'``.
    """

    op_name = "binary_cross_entropy_with_logits"
    backward_name = "BinaryCrossEntropyWithLogitsBackward0"
    weight_names = ("weight", "pos_weight")
    saved_for_backward = (0, 1, 2, 3)
    promotes = True

    def forward(self, backend, x, t, w, pw):
        # logits and a target of two float dtypes: computed in the target's, as in PyTorch
        x, t = (backend.astype(a, self.out_dtype) for a in (x, t))
        w, pw = _as_dtype(backend, w, x), _as_dtype(backend, pw, x)
        one = x.dtype.type(1)
        # log(1 + e^-|x|): shared by log_sigmoid(x) and log_sigmoid(-x)
        softplus = backend.unary("log1p", backend.unary("exp", backend.unary(
            "neg", backend.unary("abs", x))))
        log_sigmoid = backend.binary("sub", backend.binary("minimum", x, x.dtype.type(0)),
                                     softplus)
        if pw is not None:
            log_weight = backend.binary("add", backend.binary(
                "mul", backend.binary("sub", pw, one), t), one)
            log_sigmoid = backend.binary("mul", log_sigmoid, log_weight)
        loss = backend.binary("sub", backend.binary("mul", backend.binary("sub", one, t), x),
                              log_sigmoid)
        if w is not None:
            loss = backend.binary("mul", loss, w)
        self.x, self.t, self.w, self.pw, self.softplus = x, t, w, pw, softplus
        return _reduce(backend, loss, self.reduction)

    def backward(self, backend, gy):
        x, t, w, pw = self.x, self.t, self.w, self.pw
        one, zero = x.dtype.type(1), x.dtype.type(0)
        gx = gt = None
        if self.needs_input_grad[0]:
            sigmoid = logistic(backend, x)
            if pw is None:  # sigmoid(x) - t
                gx = backend.binary("sub", sigmoid, t)
            else:  # (p t + 1 - t) sigmoid(x) - p t
                pt = backend.binary("mul", pw, t)
                gx = backend.binary("sub", backend.binary("mul", backend.binary(
                    "sub", backend.binary("add", pt, one), t), sigmoid), pt)
            gx = self._scale(backend, backend.binary("mul", gx, gy), w)
        if self.needs_input_grad[1]:
            if pw is None:  # -x
                gt = backend.binary("mul", backend.unary("neg", x), gy)
            else:  # log_sigmoid(-x) - p log_sigmoid(x)
                softplus = self.softplus
                log_sig = backend.binary("sub", backend.binary("minimum", x, zero), softplus)
                log_sig_neg = backend.binary("sub", backend.binary(
                    "minimum", backend.unary("neg", x), zero), softplus)
                gt = backend.binary("mul", backend.binary(
                    "sub", log_sig_neg, backend.binary("mul", log_sig, pw)), gy)
            gt = self._scale(backend, gt, w)
        # each gradient in its input's dtype (the computation may have used another)
        gx, gt = (None if g is None else backend.astype(g, spec[1])
                  for g, spec in zip((gx, gt), self.input_specs))
        return gx, gt, None, None

    def backward_graph(self, grad):
        # ``backward`` with recorded ops (PyTorch's composition of its double backward)
        x, t = self.graph_input(0, self.x), self.graph_input(1, self.t)
        pw = None if self.pw is None else self.constant(self.pw)
        gx = gt = None
        if self.needs_input_grad[0]:
            if pw is None:
                gx = x.sigmoid() - t
            else:
                pt = pw * t
                gx = (pt + 1 - t) * x.sigmoid() - pt
            gx = self._scale_graph(gx * grad, self.w)
        if self.needs_input_grad[1]:
            if pw is None:
                gt = -x * grad
            else:
                gt = (LogSigmoid()(-x) - LogSigmoid()(x) * pw) * grad
            gt = self._scale_graph(gt, self.w)
        return self._in_input_dtypes((gx, gt)) + (None, None)

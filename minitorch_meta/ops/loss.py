"""Losses and ``log_softmax``: ``mse_loss``, ``l1_loss``, ``smooth_l1_loss``, ``huber_loss``,
``kl_div``. ``nll_loss`` (so ``cross_entropy``) is in ``nll_loss.py``, the binary
cross-entropies in ``binary_loss.py``."""

from __future__ import annotations

import math

from .. import dtypes
from ..caller_warnings import warn_at_caller
from ..errors import DtypeNotImplementedError
from . import shapes
from .function import Function
from .shapes import fmt

REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(op: str, reduction: str, allowed: tuple = REDUCTIONS) -> None:
    if reduction not in allowed:
        raise ValueError(f"{op}: reduction must be one of {allowed}, got {reduction!r}")


def _reduce(backend, values, reduction: str):
    """``values`` reduced: as they are, summed, or averaged (NaN when empty, as in PyTorch)."""
    if reduction == "none":
        return values
    total = backend.asarray(backend.sum(values, None, False), None)
    if reduction == "sum":
        return total
    return backend.binary("div", total, total.dtype.type(values.size))


class _PointwiseLoss(Function):
    """Base of losses that compare ``input`` and ``target`` element by element.

    Shape:
        ``input`` and ``target`` of the same shape (broadcasting is accepted with a warning,
        as in PyTorch) -> ``()`` for ``'mean'``/``'sum'``, the broadcast shape for ``'none'``.
    """

    reduction = "mean"

    def check_hyper_parameters(self) -> None:
        """Raise ``ValueError`` for a hyper-parameter out of range (none by default)."""

    def infer(self, x, t):
        _check_reduction(self.op_name, self.reduction)
        self.check_hyper_parameters()
        if not x.dtype.is_floating_point:
            raise DtypeNotImplementedError(f"{self.op_name}: expected a floating-point input, "
                                           f"got {x.dtype}")
        shapes.require_same_dtype(self.op_name, "input", x.dtype, "target", t.dtype)
        shape = tuple(x.shape)
        if tuple(t.shape) != shape:
            shape = shapes.broadcast(self.op_name, x.shape, t.shape)
            warn_at_caller(f"{self.op_name}: using a target size {fmt(t.shape)} that is different "
                           f"to the input size {fmt(x.shape)}; this will likely lead to incorrect "
                           "results due to broadcasting. Please ensure they have the same size.")
        self.count = 1
        for s in shape:
            self.count *= s
        return (shape if self.reduction == "none" else ()), x.dtype

    def forward(self, backend, x, t):
        self.diff = backend.binary("sub", x, t)
        if self.recording:  # references only: for a graph formula (``backward_graph``)
            self.x, self.t = x, t
        return _reduce(backend, self.pointwise(backend, self.diff), self.reduction)

    def backward(self, backend, gy):
        g = self.derivative(backend, self.diff)
        if self.reduction == "mean":
            gy = backend.binary("div", gy, gy.dtype.type(max(self.count, 1)))
        g = backend.binary("mul", g, gy)
        gx = None
        if self.needs_input_grad[0]:
            gx = backend.sum_to_shape(g, tuple(self.input_specs[0][0]))
        gt = None
        if self.needs_input_grad[1]:
            gt = backend.unary("neg", backend.sum_to_shape(g, tuple(self.input_specs[1][0])))
        return gx, gt

    def backward_graph(self, grad):
        need_x, need_t = self.needs_input_grad
        diff = self.graph_input(0, self.x) - self.graph_input(1, self.t)
        if self.reduction == "mean":
            grad = grad / max(self.count, 1)
        g = self.derivative_graph(diff) * grad
        return (g.sum_to_size(tuple(self.input_specs[0][0])) if need_x else None,
                -g.sum_to_size(tuple(self.input_specs[1][0])) if need_t else None)

    def derivative_graph(self, diff):
        """``derivative`` of the difference tensor ``diff``, with recorded ops."""
        raise NotImplementedError

    def clipped_graph(self, inside, bound: float, outside: float):
        """``_clipped`` with recorded ops: ``inside`` (a tensor) where ``-bound < diff <
        bound``, else ``±outside``; the masks are piecewise constant."""
        backend, diff = self.backend, self.diff
        bound = diff.dtype.type(bound)
        low = self.constant(backend.binary("le", diff, -bound))
        high = self.constant(backend.binary("ge", diff, bound))
        return inside.masked_fill(low, -outside).masked_fill(high, outside)


class MseLoss(_PointwiseLoss):
    """Mean (or sum) of squared differences."""

    op_name, backward_name = "mse_loss", "MseLossBackward0"
    saved_for_backward = (0, 1)

    def pointwise(self, backend, diff):
        return backend.binary("mul", diff, diff)

    def derivative(self, backend, diff):
        return backend.binary("mul", diff, diff.dtype.type(2))

    def backward_graph(self, grad):
        need_x, need_t = self.needs_input_grad
        diff = self.graph_input(0, self.x) - self.graph_input(1, self.t)
        if self.reduction == "mean":
            grad = grad / max(self.count, 1)
        g = diff * 2 * grad
        return (g.sum_to_size(tuple(self.input_specs[0][0])) if need_x else None,
                -g.sum_to_size(tuple(self.input_specs[1][0])) if need_t else None)


class L1Loss(_PointwiseLoss):
    """Mean (or sum) of absolute differences."""

    op_name = "l1_loss"

    @property
    def backward_name(self):
        # PyTorch's l1_loss is the composite abs(input - target).mean() (or .sum()).
        return {"mean": "MeanBackward0", "sum": "SumBackward0"}.get(self.reduction,
                                                                    "AbsBackward0")

    def pointwise(self, backend, diff):
        return backend.unary("abs", diff)

    def derivative(self, backend, diff):
        return backend.unary("sign", diff)

    def derivative_graph(self, diff):  # piecewise constant: no gradient of its own
        return self.constant(self.backend.unary("sign", self.diff))


class SmoothL1Loss(_PointwiseLoss):
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = input -
    target``): quadratic near zero, absolute beyond ``beta``.

    Shape:
        as ``mse_loss``.

    Raises:
        ValueError: a negative ``beta`` (``nn.functional`` runs ``beta=0`` as ``l1_loss``).
    """

    op_name, backward_name = "smooth_l1_loss", "SmoothL1LossBackward0"
    saved_for_backward = (0, 1)
    beta = 1.0

    def check_hyper_parameters(self):
        if not self.beta >= 0:
            raise ValueError(f"smooth_l1_loss does not support negative values for beta: "
                             f"expected beta >= 0, got {self.beta}")

    def pointwise(self, backend, diff):
        half, beta = diff.dtype.type(0.5), diff.dtype.type(self.beta)
        z = backend.unary("abs", diff)
        quadratic = backend.binary("div", backend.binary("mul", backend.binary("mul", half, z),
                                                         z), beta)
        linear = backend.binary("sub", z, half * beta)
        return backend.where(backend.binary("lt", z, beta), quadratic, linear)

    def derivative(self, backend, diff):
        beta = diff.dtype.type(self.beta)
        return _clipped(backend, diff, beta, backend.binary("div", diff, beta), 1)

    def derivative_graph(self, diff):
        return self.clipped_graph(diff / self.beta, self.beta, 1.0)


class HuberLoss(_PointwiseLoss):
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)`` (``d = input -
    target``): ``smooth_l1_loss`` times ``beta``, with ``delta`` for ``beta``.

    Shape:
        as ``mse_loss``.

    Raises:
        ValueError: ``delta <= 0``.
    """

    op_name, backward_name = "huber_loss", "HuberLossBackward0"
    saved_for_backward = (0, 1)
    delta = 1.0

    def check_hyper_parameters(self):
        if not self.delta > 0:
            raise ValueError(f"huber_loss does not support non-positive values for delta: "
                             f"expected delta > 0, got {self.delta}")

    def pointwise(self, backend, diff):
        half, delta = diff.dtype.type(0.5), diff.dtype.type(self.delta)
        z = backend.unary("abs", diff)
        quadratic = backend.binary("mul", backend.binary("mul", half, z), z)
        linear = backend.binary("mul", delta, backend.binary("sub", z, half * delta))
        return backend.where(backend.binary("lt", z, delta), quadratic, linear)

    def derivative(self, backend, diff):
        delta = diff.dtype.type(self.delta)
        return _clipped(backend, diff, delta, diff, delta)

    def derivative_graph(self, diff):
        return self.clipped_graph(diff, self.delta, self.delta)


def _clipped(backend, diff, bound, inside, outside):
    """``inside`` where ``-bound < diff < bound``, else ``±outside`` with ``diff``'s sign:
    the derivative of the smooth-L1 and Huber losses (PyTorch's branches: ``<=`` and ``>=``
    take the outer value)."""
    outside = diff.dtype.type(outside)
    return backend.where(backend.binary("le", diff, -bound), -outside, backend.where(
        backend.binary("ge", diff, bound), outside, inside))


class KlDiv(Function):
    """Pointwise Kullback-Leibler divergence ``t (log t - x)`` of a target distribution ``t``
    from log-probabilities ``x`` (``exp(t) (t - x)`` when ``log_target``: ``t`` is then
    log-probabilities too), reduced by ``'mean'`` or ``'sum'`` (``nn.functional.kl_div``
    divides the sum by the batch size for ``'batchmean'``).

    Shape:
        ``input`` and ``target`` broadcastable -> ``()`` for ``'mean'``/``'sum'``, the
        broadcast shape for ``'none'``.
    """

    op_name = "kl_div"
    saved_for_backward = (0, 1)
    reduction, log_target = "mean", False

    @property
    def backward_name(self):
        # PyTorch's kl_div is composed: xlogy(t, t) - t * x (or exp(t) * (t - x)), then
        # mean() or sum(); its grad_fn is the last of those.
        if self.reduction == "none":
            return "MulBackward0" if self.log_target else "SubBackward0"
        return "MeanBackward0" if self.reduction == "mean" else "SumBackward0"

    def infer(self, x, t):
        _check_reduction("kl_div", self.reduction)
        if not (x._dtype.is_floating_point and t._dtype.is_floating_point):
            raise DtypeNotImplementedError(f"kl_div: expected floating-point input and target, "
                                           f"got input.dtype={x.dtype} and target.dtype="
                                           f"{t.dtype}")
        shapes.require_same_dtype("kl_div", "input", x._dtype, "target", t._dtype)
        shape = self.shape = shapes.broadcast("kl_div", x._data.shape, t._data.shape)
        self.count = math.prod(shape)
        return (shape if self.reduction == "none" else ()), x._dtype

    def forward(self, backend, x, t):
        self.x, self.t = x, t
        if self.log_target:
            pointwise = backend.binary("mul", backend.unary("exp", t), backend.binary("sub", t, x))
        else:  # xlogy(t, t) - t x, where xlogy(0, y) = 0
            zero = t.dtype.type(0)
            t_log_t = backend.where(backend.binary("eq", t, zero), zero,
                                    backend.binary("mul", t, backend.unary("log", t)))
            pointwise = backend.binary("sub", t_log_t, backend.binary("mul", t, x))
        return _reduce(backend, pointwise, self.reduction)

    def backward(self, backend, gy):
        x, t = self.x, self.t
        if self.reduction == "mean":
            gy = backend.binary("div", gy, gy.dtype.type(max(self.count, 1)))
        if x.shape != t.shape and gy.shape != self.shape:
            # a reduced loss of broadcast inputs: each gradient starts from the full shape
            gy = backend.binary("add", backend.full(self.shape, 0, dtypes.from_numpy(gy.dtype)),
                                gy)
        exp_t = backend.unary("exp", t) if self.log_target else None
        gx = gt = None
        if self.needs_input_grad[0]:
            gx = backend.unary("neg", backend.binary("mul", gy, exp_t if self.log_target else t))
            gx = backend.sum_to_shape(gx, tuple(self.input_specs[0][0]))
        if self.needs_input_grad[1]:
            if self.log_target:  # exp(t) (t - x) + exp(t)
                through_exp = backend.binary("mul", backend.binary(
                    "mul", gy, backend.binary("sub", t, x)), exp_t)
                gt = backend.binary("add", through_exp, backend.binary("mul", gy, exp_t))
            else:
                # What PyTorch's composition gives: xlogy(t, t)'s two gradients, log t (0
                # where t == 0) and t / t (NaN at t == 0, as in PyTorch), and -x from t * x.
                zero = t.dtype.type(0)
                log_t = backend.where(backend.binary("eq", t, zero), zero,
                                      backend.unary("log", t))
                through_xlogy = backend.binary("add", backend.binary("mul", gy, log_t),
                                               backend.binary("div", backend.binary("mul", gy, t),
                                                              t))
                gt = backend.binary("sub", through_xlogy, backend.binary("mul", gy, x))
            gt = backend.sum_to_shape(gt, tuple(self.input_specs[1][0]))
        return gx, gt

    def backward_graph(self, grad):
        """``backward`` with recorded ops (the same terms, PyTorch's composition's)."""
        x, t = self.graph_input(0, self.x), self.graph_input(1, self.t)
        if self.reduction == "mean":
            grad = grad / max(self.count, 1)
        if tuple(grad.shape) != tuple(self.shape):
            grad = grad.expand(self.shape)
        exp_t = t.exp() if self.log_target else None
        gx = gt = None
        if self.needs_input_grad[0]:
            gx = (-(grad * (exp_t if self.log_target else t))).sum_to_size(
                tuple(self.input_specs[0][0]))
        if self.needs_input_grad[1]:
            if self.log_target:
                gt = grad * (t - x) * exp_t + grad * exp_t
            else:  # log t is 0 where t == 0 (a piecewise constant mask)
                zero = self.constant(self.backend.binary("eq", self.t, self.t.dtype.type(0)))
                gt = grad * t.log().masked_fill(zero, 0) + grad * t / t - grad * x
            gt = gt.sum_to_size(tuple(self.input_specs[1][0]))
        return gx, gt


def check_softmax_dtype(name: str, dtype, axis: int, ndim: int) -> None:
    """PyTorch's error for an integer or bool input to ``softmax``/``log_softmax``: its
    kernel's name (``_lastdim_`` along the last dim) and the dtype.

    Raises:
        DtypeNotImplementedError (a NotImplementedError, as PyTorch's, and the TypeError
        raised here before).
    """
    if dtype.is_floating_point or dtype.is_complex:  # complex: the op's own refusal
        return
    kernel = f"{name}_lastdim_kernel_impl" if axis >= ndim - 1 else f"{name}_kernel_impl"
    raise DtypeNotImplementedError(f'"{kernel}" not implemented for '
                                   f"'{dtypes.SCALAR_TYPE_NAMES[dtype]}'")


class LogSoftmax(Function):
    """``x - log(sum(exp(x)))`` along ``dim``, computed stably.

    Shape:
        unchanged.
    """

    op_name, backward_name = "log_softmax", "LogSoftmaxBackward0"
    saved_for_backward = ("output",)

    def infer(self, x):
        self.axis = shapes.normalize_dim("log_softmax", self.dim, len(x._data.shape))
        check_softmax_dtype("log_softmax", x._dtype, self.axis, len(x._data.shape))
        return x._data.shape, x._dtype

    def forward(self, backend, x):
        if x.size == 0:  # no element to normalise (and a max over none would raise)
            self.out = backend.binary("sub", x, x)
            return self.out
        shifted = backend.binary("sub", x, backend.max(x, self.axis, True))
        total = backend.sum(backend.unary("exp", shifted), self.axis, True)
        self.out = backend.binary("sub", shifted, backend.unary("log", total))
        return self.out

    def backward(self, backend, gy):
        total = backend.sum(gy, self.axis, True)
        return (backend.binary("sub", gy, backend.binary("mul", backend.unary("exp", self.out),
                                                          total)),)

    def backward_graph(self, grad):
        out = self.graph_output(self.out)
        return (grad - out.exp() * grad.sum(self.axis, keepdim=True),)

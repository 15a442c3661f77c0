"""Smooth activations with their own backward: ``softplus``, ``elu`` (and ``selu``),
``logsigmoid`` and ``mish``.

Each is one ``Function`` rather than a composition because the formula PyTorch evaluates
is not the naive one: ``softplus`` switches to the identity above ``threshold`` (where
``log1p(exp(x))`` would overflow), ``logsigmoid`` is ``min(x, 0) - log1p(exp(-|x|))`` so
that it stays finite for large ``|x|``, and ``elu`` uses ``expm1`` so that small negative
inputs keep their precision. Forward and backward follow PyTorch's CPU kernels term by
term, so values and gradients agree at 0, at the thresholds, at ±inf and at NaN.
All are floating-point only (see ``Unary.floating_only``).
"""

from __future__ import annotations

from .elementwise import Unary, _python_number


def number(op: str, name: str, position: int, value):
    """A hyper-parameter as a Python number (a NumPy scalar is unwrapped), else TypeError."""
    message = f"{op}(): argument '{name}' (position {position}) must be Number, not {{type}}"
    return _python_number(value, message.format(type="Tensor") + "; pass a Python number "
                          "(e.g. value.item())", message)


class Softplus(Unary):
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``.

    Shape:
        the output has the input's shape.
    """

    op_name, backward_name, floating_only = "softplus", "SoftplusBackward0", True
    saved_for_backward = (0,)
    _hyper = ("beta", "threshold")

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        self.beta = number("softplus", "beta", 2, beta)
        self.threshold = number("softplus", "threshold", 3, threshold)

    def forward(self, backend, x):
        beta = x.dtype.type(self.beta)
        scaled = backend.binary("mul", x, beta)
        linear = backend.binary("gt", scaled, x.dtype.type(self.threshold))
        smooth = backend.binary("div", backend.unary("log1p", backend.unary("exp", scaled)),
                                beta)
        if self.recording:
            self.scaled, self.linear = scaled, linear
        return backend.where(linear, x, smooth)

    def backward(self, backend, gy):
        # exp(beta x) / (exp(beta x) + 1): inf / inf is NaN where it overflows below the
        # threshold, as in PyTorch (whose kernel evaluates the same expression).
        z = backend.unary("exp", self.scaled)
        sigmoid = backend.binary("div", z, backend.binary("add", z, z.dtype.type(1)))
        return (backend.where(self.linear, gy, backend.binary("mul", gy, sigmoid)),)


class Elu(Unary):
    """``scale * x`` where ``x > 0``, else ``scale * alpha * (exp(input_scale * x) - 1)``.

    ``elu`` is ``scale = input_scale = 1``; ``selu`` is PyTorch's fixed ``alpha`` and
    ``scale`` (both named ``EluBackward0``, as in PyTorch). The gradient at 0 is
    ``scale * alpha * input_scale``, the left branch's, as in PyTorch.

    Shape:
        the output has the input's shape.
    """

    op_name, backward_name, floating_only = "elu", "EluBackward0", True
    saved_for_backward = (0,)
    _hyper = ("alpha", "scale", "input_scale")

    def __init__(self, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0):
        self.alpha = number("elu", "alpha", 2, alpha)
        self.scale, self.input_scale = scale, input_scale

    def coefficients(self, dtype):
        """(negative, positive, input) coefficients in the input's dtype; the negative one
        is a product in that dtype, as PyTorch forms it."""
        t = dtype.type
        return t(self.alpha) * t(self.scale), t(self.scale), t(self.input_scale)

    def forward(self, backend, x):
        negative, positive, inner = self.coefficients(x.dtype)
        zero = x.dtype.type(0)
        curve = backend.binary("mul", backend.unary("expm1", backend.binary("mul", x, inner)),
                               negative)
        if self.recording:
            self.x, self.left = x, backend.binary("le", x, zero)
        # A zero takes the linear branch (-0.0 stays -0.0, as in PyTorch); its gradient is
        # the curve's (``left``).
        return backend.where(backend.binary("lt", x, zero), curve,
                             backend.binary("mul", x, positive))

    def backward(self, backend, gy):
        negative, positive, inner = self.coefficients(gy.dtype)
        slope = backend.binary("mul", backend.binary("mul", gy, inner * negative),
                               backend.unary("exp", backend.binary("mul", self.x, inner)))
        return (backend.where(self.left, slope, backend.binary("mul", gy, positive)),)


#: PyTorch's SELU constants (Klambauer et al., 2017)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


class LogSigmoid(Unary):
    """``log(1 / (1 + exp(-x)))``, computed as ``min(x, 0) - log1p(exp(-|x|))``.

    Shape:
        the output has the input's shape.
    """

    op_name, backward_name, floating_only = "log_sigmoid", "LogSigmoidBackward0", True
    saved_for_backward = (0,)

    def forward(self, backend, x):
        zero = x.dtype.type(0)
        z = backend.unary("exp", backend.unary("neg", backend.unary("abs", x)))
        if self.recording:
            self.x, self.z = x, z
        return backend.binary("sub", backend.binary("minimum", x, zero),
                              backend.unary("log1p", z))

    def backward(self, backend, gy):
        # PyTorch's form: (x < 0) - sign * z / (1 + z), sign = +1 where x < 0, else -1.
        one = gy.dtype.type(1)
        negative = backend.binary("lt", self.x, gy.dtype.type(0))
        ratio = backend.binary("div", self.z, backend.binary("add", self.z, one))
        slope = backend.where(negative, backend.binary("sub", one, ratio), ratio)
        return (backend.binary("mul", gy, slope),)


class Mish(Unary):
    """``x * tanh(log1p(exp(x)))`` (no threshold, as in PyTorch's kernel).

    Shape:
        the output has the input's shape.
    """

    op_name, backward_name, floating_only = "mish", "MishBackward0", True
    saved_for_backward = (0,)

    def forward(self, backend, x):
        t = backend.unary("tanh", backend.unary("log1p", backend.unary("exp", x)))
        if self.recording:
            self.x, self.t = x, t
        return backend.binary("mul", x, t)

    def backward(self, backend, gy):
        # tanh(sp(x)) + x * sigmoid(x) * (1 - tanh(sp(x))^2)
        x, t, one = self.x, self.t, gy.dtype.type(1)
        sigmoid = backend.binary("div", one, backend.binary(
            "add", one, backend.unary("exp", backend.unary("neg", x))))
        tail = backend.binary("mul", backend.binary("mul", x, sigmoid),
                              backend.binary("sub", one, backend.binary("mul", t, t)))
        return (backend.binary("mul", gy, backend.binary("add", t, tail)),)

"""Activations that are one op each, with their own closed-form backward.

- ``erf``, and the smooth activations of transformers: ``gelu`` (exact, on erf, or its tanh
  approximation) and ``silu`` (``x * sigmoid(x)``): one graph node per layer (PyTorch's
  ``GeluBackward0``, ``SiluBackward0``) and the gradient in closed form, not the chain
  through the pieces.
- ``softplus``, ``elu`` (and ``selu``), ``logsigmoid`` and ``mish``: one ``Function`` each
  because the formula PyTorch evaluates is not the naive one: ``softplus`` switches to the
  identity above ``threshold`` (where ``log1p(exp(x))`` would overflow), ``logsigmoid`` is
  ``min(x, 0) - log1p(exp(-|x|))`` so that it stays finite for large ``|x|``, and ``elu``
  uses ``expm1`` so that small negative inputs keep their precision. Forward and backward
  follow PyTorch's CPU kernels term by term, so values and gradients agree at 0, at the
  thresholds, at ±inf and at NaN. These are floating-point only (``Unary.floating_only``).
"""

from __future__ import annotations

import math

from .. import dtypes
from .elementwise import Unary, _python_number, logistic
from .function import Function

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_HALF = math.sqrt(0.5)
_ONE_OVER_SQRT_TWO_PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_TWO_OVER_PI = math.sqrt(2.0 / math.pi)
_TANH_CUBIC = 0.044715  # the cubic term of gelu's tanh approximation (Hendrycks & Gimpel)


class Erf(Function):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t²) dt``, elementwise.

    Integer and bool inputs give float32 (PyTorch's rule for ``erf``).

    Shape:
        the output has the input's shape.
    """

    op_name, backward_name = "erf", "ErfBackward0"
    saved_for_backward = (0,)

    def infer(self, x):
        dtype = x._dtype if x._dtype.is_floating_point else dtypes.get_default_dtype()
        self.out_dtype = dtype
        return x._data.shape, dtype

    def forward(self, backend, x):
        if x.dtype != self.out_dtype.numpy:
            x = backend.astype(x, self.out_dtype)
        if self.recording:
            self.x = x
        return backend.unary("erf", x)

    def backward(self, backend, gy):  # 2/sqrt(pi) * exp(-x²)
        x = self.x
        density = backend.unary("exp", backend.unary("neg", backend.binary("mul", x, x)))
        return (backend.binary("mul", gy, backend.binary(
            "mul", density, x.dtype.type(_TWO_OVER_SQRT_PI))),)

    def backward_graph(self, grad):
        x = self.graph_input(0, self.x)
        return (grad * ((-(x * x)).exp() * _TWO_OVER_SQRT_PI),)


class _FloatingActivation(Function):
    """An activation defined for floating-point dtypes only (PyTorch has no integer kernel).

    Shape:
        the output has the input's shape and dtype.
    """

    #: PyTorch's name of its CPU kernel, quoted in the error for other dtypes
    kernel_name = ""
    saved_for_backward = (0,)

    def infer(self, x):
        if not x._dtype.is_floating_point:
            raise NotImplementedError(
                f"\"{self.kernel_name}\" not implemented for '{x._dtype}': {self.op_name} takes "
                "floating-point tensors; convert the input first, e.g. with .float()")
        return x._data.shape, x._dtype


class Gelu(_FloatingActivation):
    """``x * Phi(x)``, ``Phi`` the standard normal distribution function, elementwise; with
    ``approximate='tanh'``, ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x³)))``.

    Shape:
        the output has the input's shape and dtype.

    Raises:
        TypeError: ``approximate`` is not a string. RuntimeError: it is neither ``'none'``
            nor ``'tanh'``. NotImplementedError: the input is not floating-point.
    """

    op_name, backward_name, kernel_name = "gelu", "GeluBackward0", "GeluKernelImpl"

    def __init__(self, approximate: str = "none"):
        if not isinstance(approximate, str):
            raise TypeError(f"gelu(): argument 'approximate' must be str, not "
                            f"{type(approximate).__name__}")
        if approximate not in ("none", "tanh"):
            raise RuntimeError(f"approximate argument must be either none or tanh. (got "
                               f"approximate={approximate!r})")
        super().__init__(approximate=approximate)

    def forward(self, backend, x):
        scalar = x.dtype.type
        # Both forms are 0.5 x (1 + gate): gate = erf(x / sqrt 2), or the tanh
        if self.approximate == "tanh":
            gate = backend.unary("tanh", backend.binary("mul", x, _tanh_slope(
                backend, x, _TANH_CUBIC)))
        else:
            gate = backend.unary("erf", backend.binary("mul", x, scalar(_SQRT_HALF)))
        cdf = backend.binary("mul", backend.binary("add", gate, scalar(1)), scalar(0.5))
        if self.recording:
            self.x, self.cdf = x, cdf
        return backend.binary("mul", x, cdf)

    def backward(self, backend, gy):
        x, cdf = self.x, self.cdf
        scalar = x.dtype.type
        if self.approximate == "tanh":
            # d/dx of 0.5 x (1 + tanh(u)) = cdf + 0.5 x sech²(u) du/dx, where
            # u = sqrt(2/pi) (x + 0.044715 x³), so du/dx = sqrt(2/pi) (1 + 3 * 0.044715 x²).
            # sech²(u) = 4 e / (1 + e)² with e = exp(-2|u|): 1 - tanh²(u) would cancel to
            # rounding noise as the tanh saturates (NumPy's float32 tanh is 1 ulp off there)
            u = backend.binary("mul", x, _tanh_slope(backend, x, _TANH_CUBIC))
            e = backend.unary("exp", backend.binary("mul", backend.unary("abs", u), scalar(-2)))
            one_plus_e = backend.binary("add", e, scalar(1))
            sech2 = backend.binary("div", backend.binary("mul", e, scalar(4)),
                                   backend.binary("mul", one_plus_e, one_plus_e))
            slope = backend.binary("mul", backend.binary("mul", backend.binary(
                "mul", x, sech2), _tanh_slope(backend, x, 3 * _TANH_CUBIC)), scalar(0.5))
        else:
            # d/dx of x Phi(x) = Phi(x) + x phi(x), phi the standard normal density
            density = backend.binary("mul", backend.unary("exp", backend.binary(
                "mul", backend.binary("mul", x, x), scalar(-0.5))),
                scalar(_ONE_OVER_SQRT_TWO_PI))
            slope = backend.binary("mul", x, density)
        return (backend.binary("mul", gy, backend.binary("add", cdf, slope)),)

    def backward_graph(self, grad):
        # ``backward``'s formulas with tensor ops, the distribution function recomputed
        x = self.graph_input(0, self.x)
        if self.approximate == "tanh":
            u = x * _tanh_slope_graph(x, _TANH_CUBIC)
            cdf = (u.tanh() + 1) * 0.5
            e = (u.abs() * -2).exp()  # sech² as in ``backward``; smooth at u = 0 as well
            sech2 = e * 4 / ((e + 1) * (e + 1))
            slope = x * sech2 * _tanh_slope_graph(x, 3 * _TANH_CUBIC) * 0.5
        else:
            cdf = ((x * _SQRT_HALF).erf() + 1) * 0.5
            slope = x * ((x * x * -0.5).exp() * _ONE_OVER_SQRT_TWO_PI)
        return (grad * (cdf + slope),)


def _tanh_slope_graph(x, cubic: float):
    """``_tanh_slope`` of a tensor, recorded."""
    return (x * x * cubic + 1) * _SQRT_TWO_OVER_PI


def _tanh_slope(backend, x, cubic: float):
    """``sqrt(2/pi) (1 + cubic x²)``: with ``cubic = 0.044715``, times ``x``, the argument of
    gelu's tanh; with three times that, the argument's derivative."""
    scalar = x.dtype.type
    return backend.binary("mul", backend.binary("add", backend.binary(
        "mul", backend.binary("mul", x, x), scalar(cubic)), scalar(1)),
        scalar(_SQRT_TWO_OVER_PI))


class Silu(_FloatingActivation):
    """``x * sigmoid(x)`` elementwise (also called swish).

    Shape:
        the output has the input's shape and dtype.

    Raises:
        NotImplementedError: the input is not floating-point.
    """

    op_name, backward_name, kernel_name = "silu", "SiluBackward0", "silu_cpu"

    def forward(self, backend, x):
        sigmoid = logistic(backend, x)
        if self.recording:
            self.x, self.sigmoid = x, sigmoid
        return backend.binary("mul", x, sigmoid)

    def backward(self, backend, gy):  # sigmoid (1 + x (1 - sigmoid))
        x, sigmoid = self.x, self.sigmoid
        one = x.dtype.type(1)
        slope = backend.binary("mul", sigmoid, backend.binary("add", one, backend.binary(
            "mul", x, backend.binary("sub", one, sigmoid))))
        return (backend.binary("mul", gy, slope),)

    def backward_graph(self, grad):
        x = self.graph_input(0, self.x)
        sigmoid = x.sigmoid()
        return (grad * (sigmoid * (x * (1 - sigmoid) + 1)),)


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
            self.x, self.scaled, self.linear = x, scaled, linear
        return backend.where(linear, x, smooth)

    def backward(self, backend, gy):
        # exp(beta x) / (exp(beta x) + 1): inf / inf is NaN where it overflows below the
        # threshold, as in PyTorch (whose kernel evaluates the same expression).
        z = backend.unary("exp", self.scaled)
        sigmoid = backend.binary("div", z, backend.binary("add", z, z.dtype.type(1)))
        return (backend.where(self.linear, gy, backend.binary("mul", gy, sigmoid)),)

    def backward_graph(self, grad):  # the threshold's mask is piecewise constant
        z = (self.graph_input(0, self.x) * self.beta).exp()
        return (grad.where(self.constant(self.linear), grad * (z / (z + 1))),)


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

    def backward_graph(self, grad):
        negative, positive, inner = (float(c) for c in self.coefficients(self.x.dtype))
        curve = grad * (inner * negative) * (self.graph_input(0, self.x) * inner).exp()
        return (curve.where(self.constant(self.left), grad * positive),)


class Celu(Elu):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``: PyTorch's ``elu`` with
    ``input_scale = 1 / alpha`` (``CeluBackward0``).

    Shape:
        the output has the input's shape.

    Raises:
        TypeError: ``alpha`` is not a number. RuntimeError: ``alpha`` is 0.
        NotImplementedError: the input is not floating-point (PyTorch's type).
    """

    op_name, backward_name = "celu", "CeluBackward0"

    def __init__(self, alpha: float = 1.0):
        alpha = number("celu", "alpha", 2, alpha)
        if alpha == 0:
            raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
        super().__init__(alpha, 1.0, 1.0 / alpha)

    def infer(self, x):
        if not x._dtype.is_floating_point:
            raise NotImplementedError(
                f"\"elu_cpu\" not implemented for '{x._dtype}': celu takes floating-point "
                "tensors; convert the input first, e.g. with .float()")
        return super().infer(x)


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

    def backward_graph(self, grad):
        # The slope is sigmoid(-x) on both branches; as one expression it is smooth at 0,
        # where the branches' abs(x) would give no second derivative.
        return (grad * (-self.graph_input(0, self.x)).sigmoid(),)


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
        sigmoid = logistic(backend, x)
        tail = backend.binary("mul", backend.binary("mul", x, sigmoid),
                              backend.binary("sub", one, backend.binary("mul", t, t)))
        return (backend.binary("mul", gy, backend.binary("add", t, tail)),)

    def backward_graph(self, grad):
        x = self.graph_input(0, self.x)
        t = x.exp().log1p().tanh()
        return (grad * (t + x * x.sigmoid() * (1 - t * t)),)

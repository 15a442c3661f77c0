"""Elementwise ops with broadcasting: arithmetic, comparisons, exp/log/abs/neg, relu,
leaky_relu, maximum/minimum and clamp.

A binary op takes two tensors, or one tensor and a Python scalar (``scalar=``, with
``reflected=True`` for ``2 - x``). Results follow PyTorch's type promotion.
"""

from __future__ import annotations

import math
import sys

from .. import dtypes
from ..autograd.engine import input_gradient_is_used
from ..errors import ComplexScalarError, DtypeNotImplementedError
from . import complex_support, shapes
from .complex_support import conj_tensor, over_conj, times_conj
from .function import Function
from .graph_backward import reduce_to_input


class Binary(Function):
    """Base of the binary ops; ``kernel`` names the backend's elementwise kernel.

    Shape:
        ``a`` and ``b`` broadcast together (NumPy rules); the output has the broadcast shape.
    """

    kernel = "add"
    scalar = None
    reflected = False
    _hyper = ("scalar", "reflected")

    def __init__(self, scalar=None, reflected: bool = False):
        # Explicit parameters, not Function's keywords: binary ops are the most frequent.
        if scalar is not None:
            self.scalar = scalar
        if reflected:
            self.reflected = reflected

    def infer(self, a, b=None):
        # ``_data.shape`` / ``_dtype``: plain reads on the hot path (``.shape`` builds a Size).
        if b is None:
            shape = a._data.shape
            self.compute_dtype = dtype = dtypes.scalar_result(a._dtype, self.scalar)
            # a real tensor with a Python complex (``x * 1j``): the dispatcher saw no
            # complex input, so the op's own check is here (an attribute read otherwise)
            if dtype.is_complex and not self.complex_aware:
                complex_support.refuse(self, dtype)
        else:
            # Same shapes and same dtypes, the common case, need no broadcasting or promotion.
            shape, other_shape = a._data.shape, b._data.shape
            dtype = a._dtype
            if dtype is not b._dtype:  # before broadcasting: a 0-d operand promotes less
                dtype = dtypes.promote_tensors(dtype, not shape, b._dtype, not other_shape)
            if shape != other_shape:
                shape = shapes.broadcast(self.op_name, shape, other_shape)
            self.compute_dtype = dtype
        return shape, self.result_dtype(self.compute_dtype)

    def result_dtype(self, compute_dtype):
        return compute_dtype

    def operands(self, backend, a, b):
        """The kernel's (left, right) operands, cast to the compute dtype."""
        dtype = self.compute_dtype
        np_dtype = dtype.numpy
        if a.dtype != np_dtype:
            a = backend.astype(a, dtype)
        if b is None:
            try:  # (a try costs nothing until it catches: the float path stays as fast)
                scalar = np_dtype.type(self.scalar)
            except OverflowError:
                scalar = _scalar_beyond_range(self.scalar, dtype)
            return (scalar, a) if self.reflected else (a, scalar)
        if b.dtype != np_dtype:
            b = backend.astype(b, dtype)
        return a, b

    def forward(self, backend, a, b=None):
        x, y = self.operands(backend, a, b)
        out = backend.binary(self.kernel, x, y)
        self.save(x, y, out)
        return out

    def save(self, x, y, out):
        """Keep what ``grads`` needs (nothing, by default)."""

    def grads(self, backend, gy):
        """Gradients with respect to the (left, right) operands, unreduced (None for an
        operand that needs none: see ``operand_needs``)."""
        raise NotImplementedError

    def operand_needs(self) -> tuple:
        """Whether the (left, right) operands need a gradient; a scalar never does."""
        if len(self.input_specs) == 2:
            return self.needs_input_grad
        return not self.reflected, self.reflected  # one tensor: 2 * x or, reflected, x * 2

    def refuse_left_gradient(self, error: Exception) -> None:
        """Raise ``error`` (the op has no derivative in its left operand, as ``zeta``'s
        ``x``) when the running backward uses that gradient; not when only the right
        operand's is asked for (``autograd.grad(zeta(x, q), q)``), as in PyTorch. A left
        operand that needs a gradient is always a tensor, so input 0."""
        if self.operand_needs()[0] and input_gradient_is_used(self, 0):
            raise error

    def backward(self, backend, gy):
        g_left, g_right = self.grads(backend, gy)
        specs = self.input_specs
        if len(specs) == 1:
            g = g_right if self.reflected else g_left
            return (_reduce(backend, g, specs[0]),)
        # (a gradient may be None although needed: not used by this backward, see zeta)
        need_left, need_right = self.needs_input_grad
        return (_reduce(backend, g_left, specs[0]) if need_left and g_left is not None else None,
                _reduce(backend, g_right, specs[1]) if need_right and g_right is not None
                else None)

    #: ``grads_graph(grad)``: ``grads`` with tensor ops (see ``graph_backward.py``), from
    #: the operands as ``graph_operand`` gives them; None where an op has no such form
    grads_graph = None

    @property
    def backward_graph(self):
        return None if self.grads_graph is None else self._backward_graph_of_operands

    def _backward_graph_of_operands(self, grad):
        g_left, g_right = self.grads_graph(grad)
        specs = self.input_specs
        if len(specs) == 1:
            g = g_right if self.reflected else g_left
            return (reduce_to_input(g, specs[0]),)
        need_left, need_right = self.needs_input_grad
        return (reduce_to_input(g_left, specs[0]) if need_left and g_left is not None else None,
                reduce_to_input(g_right, specs[1]) if need_right and g_right is not None
                else None)

    def graph_operand(self, side: int, array):
        """The left (``side`` 0) or right (1) operand for ``grads_graph``: a tensor joined
        to its input's graph (``array`` is what forward saved of it), or the Python
        scalar of ``2 * x``."""
        if len(self.input_specs) == 2:
            return self.graph_input(side, array)
        if side == (1 if self.reflected else 0):
            return self.graph_input(0, array)
        return self.scalar


def _scalar_beyond_range(scalar, dtype):
    """A Python int that NumPy 2 refuses to convert to the integer ``dtype`` (``-1`` as
    uint8), wrapped into it as PyTorch does (``uint8 - 1`` is 255, ``add_(-1)`` too)."""
    if dtype.is_floating_point or not isinstance(scalar, int):
        raise OverflowError(f"the number {scalar!r} is too big to convert to {dtype}")
    return dtype.numpy.type(dtypes.wrap_int(scalar, dtype))


def _reduce(backend, grad, spec):
    """Sum a broadcast gradient back to the input's shape and dtype."""
    shape, dtype = spec
    grad = backend.sum_to_shape(grad, tuple(shape))
    if grad.dtype != dtype.numpy:
        grad = backend.astype(grad, dtype)
    return grad


class Add(Binary):
    op_name, backward_name, kernel = "add", "AddBackward0", "add"
    complex_aware = True

    def grads(self, backend, gy):
        return gy, gy

    def grads_graph(self, grad):
        return grad, grad


#: PyTorch's error for subtracting bools, by the number of bool operands (``sub`` and
#: ``rsub`` raise it)
BOOL_SUBTRACTION_ERRORS = {
    1: "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
       "trying to invert a mask, use the `~` or `logical_not()` operator instead.",
    2: "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
       "or `logical_xor()` operator instead.",
}


class Sub(Binary):
    """``a - b`` (or ``scalar - a`` when reflected).

    Raises:
        RuntimeError when an operand is bool (a tensor or a Python bool), as PyTorch:
        ``~``/``logical_not`` inverts a mask, ``^``/``logical_xor`` compares two.
    """

    op_name, kernel = "sub", "sub"
    complex_aware = True

    @property
    def backward_name(self):
        return "RsubBackward1" if self.reflected else "SubBackward0"

    def infer(self, a, b=None):
        bools = (a._dtype is dtypes.bool_) + (
            isinstance(self.scalar, bool) if b is None else b._dtype is dtypes.bool_)
        if bools:
            raise RuntimeError(BOOL_SUBTRACTION_ERRORS[bools])
        return super().infer(a, b)

    def grads(self, backend, gy):
        return gy, backend.unary("neg", gy) if self.operand_needs()[1] else None

    def grads_graph(self, grad):
        return grad, -grad if self.operand_needs()[1] else None


class Mul(Binary):
    op_name, backward_name, kernel = "mul", "MulBackward0", "mul"
    saved_for_backward = ((0, 1), (1, 0))  # each operand is the other's gradient factor
    complex_aware = True  # the conjugate of the other operand is the factor

    def save(self, x, y, out):
        self.x, self.y = x, y

    def grads(self, backend, gy):
        need_left, need_right = self.operand_needs()
        return (times_conj(backend, gy, self.y) if need_left else None,
                times_conj(backend, gy, self.x) if need_right else None)

    def grads_graph(self, grad):
        need_left, need_right = self.operand_needs()
        return (grad * conj_tensor(self.graph_operand(1, self.y)) if need_left else None,
                grad * conj_tensor(self.graph_operand(0, self.x)) if need_right else None)


class Div(Binary):
    op_name, kernel = "div", "div"
    saved_for_backward = (1, (0, 1))
    complex_aware = True

    @property
    def backward_name(self):
        # PyTorch computes ``2 / x`` as ``x.reciprocal() * 2``.
        return "MulBackward0" if self.reflected else "DivBackward0"

    def infer(self, a, b=None):
        shape, dtype = super().infer(a, b)
        if not self.compute_dtype.is_floating_point and not self.compute_dtype.is_complex:
            self.compute_dtype = dtypes.get_default_dtype()  # true division of integers
        return shape, self.compute_dtype

    def save(self, x, y, out):
        self.y, self.out = y, out

    def grads(self, backend, gy):
        g_left = over_conj(backend, gy, self.y)  # the right operand's needs it too
        if not self.operand_needs()[1]:
            return g_left, None
        return g_left, backend.unary("neg", times_conj(backend, g_left, self.out))

    def grads_graph(self, grad):
        g_left = grad / conj_tensor(self.graph_operand(1, self.y))
        if not self.operand_needs()[1]:
            return g_left, None
        return g_left, -(g_left * conj_tensor(self.graph_output(self.out)))


class Pow(Binary):
    op_name, kernel = "pow", "pow"
    saved_for_backward = (0, 1, ("output", 1))
    complex_aware = True  # with a Python number as the exponent only (see ``infer``)

    @property
    def backward_name(self):
        # PyTorch's overloads: Tensor ** Scalar (0), Tensor ** Tensor (1), Scalar ** Tensor (2).
        if self.reflected:
            return "PowBackward2"
        return "PowBackward0" if self.scalar is not None else "PowBackward1"

    def infer(self, a, b=None):
        shape, dtype = super().infer(a, b)
        if dtype.is_complex and (b is not None or self.reflected):
            raise NotImplementedError(
                f"pow: a complex tensor exponent, or a complex base with a tensor exponent, is "
                f"not supported yet by minitorch_meta (got {dtype}); only a complex tensor to "
                "the power of a Python number is (z ** 2, z ** 0.5)")
        if dtype is dtypes.bool_:
            raise NotImplementedError("pow: not implemented for bool tensors (PyTorch has no "
                                      "such kernel); convert them first, e.g. with .int()")
        if (not dtype.is_floating_point and b is None and not self.reflected
                and isinstance(self.scalar, int) and self.scalar < 0):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return shape, dtype

    def forward(self, backend, a, b=None):
        if self.compute_dtype.is_floating_point or (b is None and not self.reflected):
            return super().forward(backend, a, b)
        # An integer tensor exponent may hold negative values, which NumPy refuses:
        # PyTorch's integer x ** -n is 1 / x ** n cut toward zero.
        x, y = self.operands(backend, a, b)
        out = _integer_power(backend, x, y)
        self.save(x, y, out)
        return out

    def save(self, x, y, out):
        self.x, self.y, self.out = x, y, out

    def grads(self, backend, gy):
        x, y = self.x, self.y
        # one tensor: the base (x ** 2) or, reflected, the exponent (2 ** x)
        need_left, need_right = self.operand_needs()
        g_left = g_right = None
        if need_left:
            if len(self.input_specs) == 1 and self.scalar == 0:
                g_left = backend.binary("mul", gy, 0)  # d/dx x**0 is 0, even at x == 0
            else:
                g_left = times_conj(backend, gy, backend.binary(
                    "mul", y, backend.binary("pow", x, backend.binary("sub", y, 1))))
        if need_right:
            g_right = backend.binary("mul", gy, backend.binary("mul", self.out,
                                                                backend.unary("log", x)))
        return g_left, g_right

    def grads_graph(self, grad):
        x, y = self.graph_operand(0, self.x), self.graph_operand(1, self.y)
        need_left, need_right = self.operand_needs()
        g_left = g_right = None
        if need_left:
            if len(self.input_specs) == 1 and self.scalar == 0:
                g_left = grad * 0  # d/dx x**0 is 0, even at x == 0
            else:
                g_left = grad * conj_tensor(y * x ** (y - 1))
        if need_right:
            g_right = grad * (self.graph_output(self.out) * _log(x))
        return g_left, g_right


def _integer_power(backend, base, exponent):
    """``base ** exponent`` for integers, a negative exponent giving ``1 / base ** -n`` cut
    toward zero as PyTorch's: 1 for a base of 1, +-1 for -1 (by the exponent's parity) and
    0 for any other base (0 included)."""
    negative = backend.binary("lt", exponent, 0)
    powers = backend.binary("pow", base, backend.binary("maximum", exponent, 0))
    odd = backend.binary("ne", backend.binary("bitwise_and", exponent, 1), 0)
    minus_one = backend.where(odd, base, backend.binary("mul", base, base))  # -1 or 1
    reciprocal = backend.where(backend.binary("eq", backend.unary("abs", base), 1), minus_one,
                               backend.binary("mul", base, 0))
    return backend.where(negative, reciprocal, powers)


def _log(x):
    """``log`` of a tensor operand, or of the Python number of ``2 ** x``."""
    return math.log(x) if isinstance(x, (int, float)) else x.log()


class Compare(Binary):
    """Comparisons: boolean results, no gradient."""

    differentiable = False

    def result_dtype(self, compute_dtype):
        return dtypes.bool_


def _comparison(name: str, kernel: str) -> type:
    return type(name.capitalize(), (Compare,), {"op_name": name, "kernel": kernel,
                                                "backward_name": f"{name}Backward0"})


Eq, Ne, Lt, Le, Gt, Ge = (_comparison(n, n) for n in ("eq", "ne", "lt", "le", "gt", "ge"))
Eq.complex_aware = Ne.complex_aware = True  # equality needs no order


class Unary(Function):
    """Base of the one-input elementwise ops.

    Shape:
        the output has the input's shape.
    """

    kernel = "neg"
    #: Refuse integer and bool inputs (``leaky_relu``, as PyTorch does).
    floating_only = False
    #: The result is floating-point whatever the input (``exp``, ``sin``, ...): an integer
    #: or bool input is computed in float32, as in PyTorch (``exp(tensor([1]))``).
    float_result = False
    #: The error a bool input raises, as ``(type, message)``, where PyTorch has no bool
    #: kernel (``neg``, ``abs``, ``relu``); None: bools are computed like other integers.
    bool_refusal = None

    def infer(self, x):
        dtype = x._dtype
        if dtype is dtypes.bool_ and self.bool_refusal is not None:
            error, message = self.bool_refusal
            raise error(message)
        if not dtype.is_floating_point and not dtype.is_complex:
            if self.floating_only:
                # NotImplementedError: PyTorch's type, as it has no integer kernel
                raise NotImplementedError(f"{self.op_name}: expected a floating-point tensor, "
                                          f"got dtype {x.dtype}; convert it with .float()")
            if self.float_result:
                dtype = dtypes.get_default_dtype()
        self.out_dtype = dtype
        return x._data.shape, dtype

    def forward(self, backend, x):
        if x.dtype != self.out_dtype.numpy:
            x = backend.astype(x, self.out_dtype)
        out = self.compute(backend, x)
        if self.recording:
            self.x, self.out = x, out
        return out

    def compute(self, backend, x):
        """The forward kernels, on ``x`` already in the output's dtype."""
        return backend.unary(self.kernel, x)


class Neg(Unary):
    op_name, backward_name, kernel = "neg", "NegBackward0", "neg"
    complex_aware = True
    bool_refusal = (RuntimeError, "Negation, the `-` operator, on a bool tensor is not "
                    "supported. If you are trying to invert a mask, use the `~` or "
                    "`logical_not()` operator instead.")

    def backward(self, backend, gy):
        return (backend.unary("neg", gy),)

    def backward_graph(self, grad):
        return (-grad,)


class Abs(Unary):
    op_name, backward_name, kernel = "abs", "AbsBackward0", "abs"
    bool_refusal = (NotImplementedError, "abs: not implemented for bool tensors (PyTorch has "
                    "no such kernel); a bool is its own absolute value, or convert with .int()")
    saved_for_backward = (0,)
    complex_aware = True  # |z| is real: the gradient is grad * z / |z| (0 at 0)

    def infer(self, x):
        shape, dtype = super().infer(x)
        return shape, dtype.to_real()  # (``out_dtype`` stays complex: no cast before abs)

    def backward(self, backend, gy):
        if self.x.dtype.kind == "c":
            return (backend.binary("mul", gy, complex_support.sgn(backend, self.x)),)
        return (backend.binary("mul", gy, backend.unary("sign", self.x)),)

    def backward_graph(self, grad):  # sign is piecewise constant: no gradient of its own
        if self.x.dtype.kind == "c":  # z / |z| is not: the recorded sgn carries its own
            return (grad * self.graph_input(0, self.x).sgn(),)
        return (grad * self.constant(self.backend.unary("sign", self.x)),)


class Exp(Unary):
    op_name, backward_name, kernel, float_result = "exp", "ExpBackward0", "exp", True
    saved_for_backward = ("output",)
    complex_aware = True

    def backward(self, backend, gy):
        return (times_conj(backend, gy, self.out),)

    def backward_graph(self, grad):
        return (grad * conj_tensor(self.graph_output(self.out)),)


class Log(Unary):
    op_name, backward_name, kernel, float_result = "log", "LogBackward0", "log", True
    saved_for_backward = (0,)
    complex_aware = True

    def backward(self, backend, gy):
        return (over_conj(backend, gy, self.x),)

    def backward_graph(self, grad):
        return (grad / conj_tensor(self.graph_input(0, self.x)),)


class Sqrt(Unary):
    op_name, backward_name, kernel, float_result = "sqrt", "SqrtBackward0", "sqrt", True
    saved_for_backward = ("output",)
    complex_aware = True

    def backward(self, backend, gy):
        return (over_conj(backend, gy, backend.binary("mul", self.out, 2)),)

    def backward_graph(self, grad):
        return (grad / conj_tensor(self.graph_output(self.out) * 2),)


class Tanh(Unary):
    op_name, backward_name, kernel, float_result = "tanh", "TanhBackward0", "tanh", True
    saved_for_backward = ("output",)

    def backward(self, backend, gy):  # 1 - tanh(x)^2
        one = self.out.dtype.type(1)
        return (backend.binary("mul", gy, backend.binary(
            "sub", one, backend.binary("mul", self.out, self.out))),)

    def backward_graph(self, grad):
        out = self.graph_output(self.out)
        return (grad * (1 - out * out),)


class Sigmoid(Unary):
    """``1 / (1 + exp(-x))`` elementwise.

    Shape:
        the output has the input's shape.
    """

    op_name, backward_name, float_result = "sigmoid", "SigmoidBackward0", True
    saved_for_backward = ("output",)

    def compute(self, backend, x):
        return logistic(backend, x)

    def backward(self, backend, gy):  # sigmoid * (1 - sigmoid)
        one = self.out.dtype.type(1)
        return (backend.binary("mul", gy, backend.binary(
            "mul", self.out, backend.binary("sub", one, self.out))),)

    def backward_graph(self, grad):
        out = self.graph_output(self.out)
        return (grad * (out * (1 - out)),)


def logistic(backend, x):
    """``1 / (1 + exp(-x))`` on a float array: sigmoid's forward, and the factor in the
    backward of silu, mish and the logit losses. For very negative ``x``, ``exp(-x)``
    overflows to inf and ``1 / inf`` is the right 0."""
    one = x.dtype.type(1)
    return backend.binary("div", one, backend.binary(
        "add", one, backend.unary("exp", backend.unary("neg", x))))


class Relu(Unary):
    """max(x, 0) elementwise.

    Shape:
        the output has the input's shape.
    """

    op_name, backward_name = "relu", "ReluBackward0"
    saved_for_backward = ("output",)
    bool_refusal = (RuntimeError, "Boolean inputs not supported for relu")

    def forward(self, backend, x):
        out = backend.binary("maximum", x, x.dtype.type(0))
        self.out = out
        return out

    def backward(self, backend, gy):
        # PyTorch passes the gradient unless the output is <= 0; the output is >= 0 or NaN,
        # so that is ``out != 0`` (NaN passes it, as in PyTorch, where ``out > 0`` would not).
        # ``where``, not a product with the mask: an infinite gradient into a zero output
        # gives 0, as PyTorch's threshold_backward does (``lp_pool`` relies on it), not NaN.
        passes = backend.binary("ne", self.out, self.out.dtype.type(0))
        return (backend.where(passes, gy, gy.dtype.type(0)),)

    def backward_graph(self, grad):  # the mask is piecewise constant: no gradient of its own
        passes = self.backend.binary("ne", self.out, self.out.dtype.type(0))
        return (grad.where(self.constant(passes), 0),)


class LeakyRelu(Unary):
    """``x`` where ``x > 0``, else ``negative_slope * x``, elementwise (floating-point only).

    As in PyTorch, the gradient is 1 where ``x > 0`` and ``negative_slope`` elsewhere, at 0
    and NaN included.

    Shape:
        the output has the input's shape.

    Raises:
        TypeError: ``negative_slope`` is not a number, or the input is not floating-point.
    """

    op_name, backward_name, floating_only = "leaky_relu", "LeakyReluBackward0", True
    saved_for_backward = (0,)
    _hyper = ("negative_slope",)

    def __init__(self, negative_slope: float = 0.01):
        self.negative_slope = _slope(negative_slope)

    def forward(self, backend, x):
        positive = backend.binary("gt", x, x.dtype.type(0))
        out = backend.where(positive, x, backend.binary("mul", x,
                                                        x.dtype.type(self.negative_slope)))
        if self.recording:
            self.positive = positive  # all backward needs of x
        return out

    def backward(self, backend, gy):
        slope = gy.dtype.type(self.negative_slope)
        return (backend.where(self.positive, gy, backend.binary("mul", gy, slope)),)

    def backward_graph(self, grad):
        return (grad.where(self.constant(self.positive), grad * self.negative_slope),)


def _slope(value):
    """``leaky_relu``'s ``negative_slope`` as a Python number (PyTorch's message otherwise)."""
    return _python_number(
        value, "leaky_relu(): argument 'negative_slope' (position 2) must be Number, not Tensor; "
               "minitorch_meta takes a Python number (e.g. slope.item())",
        "leaky_relu(): argument 'negative_slope' (position 2) must be Number, not {type}")


def _python_number(value, if_tensor: str, if_other: str):
    """``value`` as a Python number, so that type promotion sees its kind: a NumPy scalar and
    a 0-d tensor that does not require grad are unwrapped (np.float32 is no Python float);
    another Tensor raises ``TypeError(if_tensor)``, a complex number ``ComplexScalarError``
    (PyTorch's kernels refuse it with a RuntimeError) and any other type
    ``TypeError(if_other)``, with ``{type}`` replaced by its type's name."""
    if type(value) in (float, int, bool):
        return value
    from ..tensor import Tensor  # here, not at load time: tensor.py imports the ops

    if isinstance(value, Tensor):
        # PyTorch's argument parser reads a 0-d tensor that needs no gradient as a number
        if value.dim() != 0 or value.requires_grad:
            raise TypeError(if_tensor)
        return value.item()
    if getattr(value, "shape", None) == () and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, (float, int)):
        return value
    if isinstance(value, complex):
        raise ComplexScalarError(if_other.format(type="complex"))
    raise TypeError(if_other.format(type=type(value).__name__))


class Where(Function):
    """``condition ? a : b`` elementwise; gradients flow to the chosen side.

    Shape:
        the three inputs broadcast together.
    """

    op_name, backward_name = "where", "WhereBackward0"
    saved_for_backward = (0,)

    def infer(self, condition, a, b):
        if condition.dtype is not dtypes.bool_:
            raise RuntimeError(f"where: expected condition to be a bool tensor, got dtype "
                               f"{condition.dtype}; compare first, e.g. where(x > 0, a, b)")
        shape = shapes.broadcast("where", shapes.broadcast("where", condition.shape, a.shape),
                                 b.shape)
        self.out_dtype = dtypes.promote_tensors(a.dtype, not a.shape, b.dtype, not b.shape)
        return shape, self.out_dtype

    def forward(self, backend, condition, a, b):
        self.condition = condition
        return backend.astype(backend.where(condition, a, b), self.out_dtype)

    def backward(self, backend, gy):
        zero = gy.dtype.type(0)
        ga = gb = None
        if self.needs_input_grad[1]:
            ga = _reduce(backend, backend.where(self.condition, gy, zero), self.input_specs[1])
        if self.needs_input_grad[2]:
            gb = _reduce(backend, backend.where(self.condition, zero, gy), self.input_specs[2])
        return None, ga, gb

    def backward_graph(self, grad):
        condition = self.constant(self.condition)
        ga = gb = None
        if self.needs_input_grad[1]:
            ga = reduce_to_input(grad.where(condition, 0), self.input_specs[1])
        if self.needs_input_grad[2]:
            gb = reduce_to_input(grad.where(condition.logical_not(), 0), self.input_specs[2])
        return None, ga, gb


class Maximum(Binary):
    """The larger of two tensors elementwise; NaN propagates (PyTorch's ``maximum``).

    Shape:
        ``a`` and ``b`` broadcast together; the output has the broadcast shape and the
        promoted dtype.
    """

    op_name, backward_name, kernel = "maximum", "MaximumBackward0", "maximum"
    saved_for_backward = (0, 1)  # the comparison of the two operands decides each gradient
    #: the comparison kernel, true where its left operand loses (and gets no gradient)
    loses = "lt"

    def save(self, x, y, out):
        self.x, self.y = x, y

    def grads(self, backend, gy):
        x, y, loses = self.x, self.y, self.loses
        # PyTorch's formula: a tie splits the gradient in half; each operand then gets none
        # where it loses. Where either is NaN, neither ``==`` nor ``<`` holds, so both get
        # the whole gradient, as in PyTorch.
        half = backend.binary("mul", gy, gy.dtype.type(0.5))
        shared = backend.where(backend.binary("eq", x, y), half, gy)
        zero = gy.dtype.type(0)
        need_left, need_right = self.operand_needs()
        return (backend.where(backend.binary(loses, x, y), zero, shared) if need_left else None,
                backend.where(backend.binary(loses, y, x), zero, shared) if need_right else None)

    def grads_graph(self, grad):
        # The masks are piecewise constant in the operands: no gradient of their own.
        backend, x, y, loses = self.backend, self.x, self.y, self.loses
        shared = (grad * 0.5).where(self.constant(backend.binary("eq", x, y)), grad)
        need_left, need_right = self.operand_needs()
        return (shared.masked_fill(self.constant(backend.binary(loses, x, y)), 0)
                if need_left else None,
                shared.masked_fill(self.constant(backend.binary(loses, y, x)), 0)
                if need_right else None)


class Minimum(Maximum):
    """The smaller of two tensors elementwise; NaN propagates (PyTorch's ``minimum``).

    Shape:
        ``a`` and ``b`` broadcast together; the output has the broadcast shape and the
        promoted dtype.
    """

    op_name, backward_name, kernel = "minimum", "MinimumBackward0", "minimum"
    loses = "gt"


class Clamp(Function):
    """``input`` limited to ``[min, max]`` elementwise; the bounds are Python numbers.

    Either bound may be None (not both). As in PyTorch the result is
    ``minimum(maximum(x, min), max)``: when ``min > max`` every element becomes ``max``, and
    NaN stays NaN. The gradient passes where ``min <= x <= max`` (bounds included) and is
    zero elsewhere, NaN included.

    Shape:
        the output has the input's shape; its dtype is the input's promoted with the bounds
        (PyTorch's rule: an integer tensor with a float bound gives float32).

    Raises:
        TypeError: a bound is not a number (a Tensor: use ``maximum``/``minimum``), or a
            bool tensor with bool bounds.
        RuntimeError: both bounds are None, or a bound overflows the result dtype.
    """

    op_name, backward_name = "clamp", "ClampBackward1"
    saved_for_backward = (0,)
    _hyper = ("min", "max")

    def __init__(self, min=None, max=None):  # noqa: A002 - PyTorch's names
        # Explicit parameters, not Function's keywords: ``clamp(x, 0, 1)`` is positional.
        self.min = _number(self.op_name, "min", min)
        self.max = _number(self.op_name, "max", max)
        if self.min is None and self.max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")

    def infer(self, x):
        dtype = x._dtype
        for bound in (self.min, self.max):
            if bound is not None:
                dtype = dtypes.scalar_result(dtype, bound)
        if dtype is dtypes.bool_:  # PyTorch has no bool kernel either (NotImplementedError)
            raise DtypeNotImplementedError(f"{self.op_name}: bool tensors cannot be clamped "
                                           "with bool bounds; convert the tensor first, e.g. "
                                           "with .int()")
        self.compute_dtype = dtype
        self.low = _bound_scalar(self.op_name, "min", self.min, dtype)
        self.high = _bound_scalar(self.op_name, "max", self.max, dtype)
        return x._data.shape, dtype

    def forward(self, backend, x):
        if x.dtype != self.compute_dtype.numpy:
            x = backend.astype(x, self.compute_dtype)
        out = x
        if self.low is not None:
            out = backend.binary("maximum", out, self.low)
        if self.high is not None:
            out = backend.binary("minimum", out, self.high)
        if self.recording:
            self.x = x
        return out

    def backward(self, backend, gy):
        return (backend.where(self._passes(backend), gy, gy.dtype.type(0)),)

    def backward_graph(self, grad):  # the mask is piecewise constant: no gradient of its own
        return (grad.where(self.constant(self._passes(self.backend)), 0),)

    def _passes(self, backend):
        """Where the gradient passes: ``min <= x <= max``."""
        x, passes = self.x, None
        if self.low is not None:
            passes = backend.binary("ge", x, self.low)
        if self.high is not None:
            below = backend.binary("le", x, self.high)
            # bool * bool is a logical and
            passes = below if passes is None else backend.binary("mul", passes, below)
        return passes


class ClampMin(Clamp):
    """``clamp(input, min=min)`` under PyTorch's own name and ``grad_fn``; ``min`` is required.

    Shape:
        the output has the input's shape (dtype as for ``Clamp``).
    """

    op_name, backward_name = "clamp_min", "ClampMinBackward0"

    def __init__(self, min):  # noqa: A002 - PyTorch's name
        _require(self.op_name, "min", min)
        super().__init__(min=min)


class ClampMax(Clamp):
    """``clamp(input, max=max)`` under PyTorch's own name and ``grad_fn``; ``max`` is required.

    Shape:
        the output has the input's shape (dtype as for ``Clamp``).
    """

    op_name, backward_name = "clamp_max", "ClampMaxBackward0"

    def __init__(self, max):  # noqa: A002 - PyTorch's name
        _require(self.op_name, "max", max)
        super().__init__(max=max)


def _require(op: str, name: str, value) -> None:
    if value is None:
        raise TypeError(f"{op}(): expected {name} to be a number, got None")


def _number(op: str, name: str, value):
    """A clamp bound as a Python number (or None), so that promotion sees its kind."""
    if value is None:
        return None
    return _python_number(
        value, f"{op}(): {name} is a Tensor: this op takes number bounds; torch.{op} sends "
               "tensor bounds to ClampTensor (ops/clamp_tensor.py)",
        f"{op}(): expected {name} to be a number or None, got {{type}}")


def _bound_scalar(op: str, name: str, value, dtype):
    """``value`` as a scalar of ``dtype``, refused (as PyTorch does) when it cannot hold it."""
    if value is None:
        return None
    low, high = _finite_range(dtype)
    # inf and NaN are values of a float dtype (a float bound means a float dtype); a
    # finite number beyond the dtype's range is not
    fits = (isinstance(value, float) and not math.isfinite(value)) or low <= value <= high
    if dtype in dtypes.FLOAT8:  # unchecked, as PyTorch; the backend converts it
        return value
    if not fits:
        raise RuntimeError(f"{op}: value cannot be converted to type {dtype} without overflow "
                           f"({name}={value!r})")
    return dtype.numpy.type(value)


#: the largest finite float of each float width in bytes (IEEE 754 half, single, double)
_FLOAT_MAX = {2: 65504.0, 4: 3.4028234663852886e38, 8: sys.float_info.max}
#: bfloat16's: float32's exponent range with 8 significant bits ((2 - 2**-7) * 2**127)
_BFLOAT16_MAX = 3.3895313892515355e38


def _finite_range(dtype) -> tuple:
    """The smallest and largest finite values of ``dtype`` (bool excluded). From its width,
    not from NumPy: ops name no array library (see tests/backends/test_cuda_static.py)."""
    bits = 8 * dtype.itemsize
    if dtype in dtypes.FLOAT8:
        _, largest, smallest, _ = dtypes.FLOAT8_LIMITS[dtype]
        return smallest, largest
    if dtype.is_floating_point:
        largest = _BFLOAT16_MAX if dtype is dtypes.bfloat16 else _FLOAT_MAX[dtype.itemsize]
        return -largest, largest
    if dtype.numpy.kind == "u":
        return 0, 2 ** bits - 1
    return -2 ** (bits - 1), 2 ** (bits - 1) - 1

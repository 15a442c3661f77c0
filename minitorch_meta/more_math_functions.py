"""Module-level trigonometric, exponential, float-part and special elementwise math
(``minitorch_meta.tan``, ``.atan2``, ``.xlogy``, ``.lgamma``, ...), and their in-place
Tensor methods (``tan_``, ...).

Each is a thin wrapper over one op's ``Function`` (``ops/trigonometric.py``,
``exponential.py``, ``float_parts.py``, ``special_math.py``); the Tensor methods of the
same names are these functions. The NumPy-style names (``arcsin``, ``arctan2``, ...) and
``fix`` are the same functions under PyTorch's aliases.
"""

from __future__ import annotations

from . import dtypes
from .autocasting import autocast_op
from .functions import call_binary as _call
from .functions import pow as _pow
from .math_functions import _is_tensor, _tensors
from .math_functions import trunc as _trunc
from .ops import exponential, float_parts, special_math, trigonometric


def _unary(op_class, name: str, doc: str | None = None):
    """``name(input)``: the op ``op_class`` on one tensor."""
    def function(input):
        return op_class()(input)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _tensor_pair(op_class, name: str, doc: str):
    """``name(input, other)`` on two tensors (a number raises, as in PyTorch)."""
    def function(input, other):
        _tensors(name, input, other)
        return op_class()(input, other)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


# -- circular and hyperbolic functions ------------------------------------------------------
tan = autocast_op("tan")(_unary(trigonometric.Tan, "tan"))
asin = autocast_op("asin")(_unary(trigonometric.Asin, "asin",
                                  "The inverse sine (NaN outside [-1, 1])."))
acos = autocast_op("acos")(_unary(trigonometric.Acos, "acos",
                                  "The inverse cosine (NaN outside [-1, 1])."))
atan = _unary(trigonometric.Atan, "atan")
sinh = autocast_op("sinh")(_unary(trigonometric.Sinh, "sinh"))
cosh = autocast_op("cosh")(_unary(trigonometric.Cosh, "cosh"))
asinh = _unary(trigonometric.Asinh, "asinh")
acosh = _unary(trigonometric.Acosh, "acosh", "The inverse hyperbolic cosine (NaN below 1).")
atanh = _unary(trigonometric.Atanh, "atanh", "The inverse hyperbolic tangent (NaN outside "
                                             "[-1, 1], ±inf at ±1).")
atan2 = autocast_op("atan2")(_tensor_pair(
    trigonometric.Atan2, "atan2", "The angle of the point ``(other, input)``, in [-pi, pi]."))
hypot = _tensor_pair(trigonometric.Hypot, "hypot", "``sqrt(input² + other²)`` (floating-point "
                                                   "tensors).")
deg2rad = _unary(trigonometric.Deg2Rad, "deg2rad", "Degrees to radians.")
rad2deg = _unary(trigonometric.Rad2Deg, "rad2deg", "Radians to degrees.")
sinc = _unary(trigonometric.Sinc, "sinc", "``sin(pi x) / (pi x)``, 1 at 0.")
arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
arcsinh, arccosh, arctanh = asinh, acosh, atanh

# -- exponentials and logarithms ------------------------------------------------------------
exp2 = _unary(exponential.Exp2, "exp2", "``2 ** x``.")
logaddexp = _tensor_pair(exponential.Logaddexp, "logaddexp",
                         "``log(exp(input) + exp(other))`` without overflow.")
logaddexp2 = _tensor_pair(exponential.Logaddexp2, "logaddexp2",
                          "``log2(2 ** input + 2 ** other)`` without overflow.")


def xlogy(input, other):
    """``input * log(other)``, and 0 where ``input == 0`` unless ``other`` is NaN; either
    may be a number."""
    return _call("xlogy", exponential.Xlogy, input, other)


def logit(input, eps: float | None = None):
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    return exponential.Logit(eps)(input)


# -- parts of a float -----------------------------------------------------------------------
frac = _unary(float_parts.Frac, "frac", "``x - trunc(x)`` (floating-point tensors).")
fix = _trunc
signbit = _unary(float_parts.Signbit, "signbit", "Whether the sign bit is set (bool).")
sgn = _unary(float_parts.Sgn, "sgn", "``x / |x|``: for real tensors, ``sign``.")
fmax = _tensor_pair(float_parts.Fmax, "fmax", "The elementwise maximum, ignoring NaN.")
fmin = _tensor_pair(float_parts.Fmin, "fmin", "The elementwise minimum, ignoring NaN.")


def copysign(input, other):
    """``|input|`` with the sign of ``other`` (a tensor or a number)."""
    return _call("copysign", float_parts.Copysign, input, other, scalar_first=False)


def heaviside(input, values):
    """The step function: 0 below 0, ``values`` at 0, 1 above (no gradient)."""
    for position, (name, value) in enumerate((("input", input), ("values", values)), 1):
        if not _is_tensor(value):
            raise TypeError(f"heaviside(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {type(value).__name__}")
    return float_parts.Heaviside()(input, values)


def nan_to_num(input, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None):
    """NaN, inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (by default 0 and
    the dtype's largest and smallest finite values)."""
    return float_parts.NanToNum(nan, posinf, neginf)(input)


def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (either may be a number), as PyTorch's:
    the tensors are converted to float64 first, or to complex128 when either operand is
    complex (their gradients come back in their own dtypes)."""
    if not _is_tensor(input) and not _is_tensor(exponent):
        raise TypeError(f"float_power(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    complex_ = any(isinstance(v, complex) or (_is_tensor(v) and v.is_complex())
                   for v in (input, exponent))
    return _pow(_as_double(input, complex_), _as_double(exponent, complex_))


def _as_double(value, complex_: bool):
    """``value`` as float64, or complex128 when the result is complex (a cast to float64
    would drop the imaginary part)."""
    if _is_tensor(value):
        return value.to(dtypes.complex128) if complex_ else value.double()
    return value if isinstance(value, complex) else float(value)


# -- special functions ----------------------------------------------------------------------
erfc = _unary(special_math.Erfc, "erfc", "``1 - erf(x)``, accurate in the tails.")
erfinv = autocast_op("erfinv")(_unary(special_math.Erfinv, "erfinv",
                                      "The inverse of ``erf`` on [-1, 1]."))
lgamma = _unary(special_math.Lgamma, "lgamma", "``log |Gamma(x)|``.")
digamma = _unary(special_math.Digamma, "digamma", "``psi(x)``, the derivative of ``lgamma``.")


# -- in-place Tensor methods ----------------------------------------------------------------
def _in_place(function, name: str, elementwise: bool = True):
    """The Tensor method ``name`` (``tan_``): ``function``'s result written into the tensor,
    under the rules of ``add_`` (refused inside a graph, and for an integer tensor whose
    result is floating-point). An ``elementwise`` one refuses an operand partly overlapping
    the tensor, as PyTorch's elementwise ops (``addmm_`` does not)."""
    def method(self, *args, **kwargs):
        inputs = (*args, *kwargs.values()) if elementwise else ()
        return self._inplace(name, lambda t: function(t, *args, **kwargs), inputs=inputs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``."
    return method


tan_, asin_, acos_, atan_ = (_in_place(f, n) for f, n in (
    (tan, "tan_"), (asin, "asin_"), (acos, "acos_"), (atan, "atan_")))
sinh_, cosh_, asinh_, acosh_, atanh_ = (_in_place(f, n) for f, n in (
    (sinh, "sinh_"), (cosh, "cosh_"), (asinh, "asinh_"), (acosh, "acosh_"), (atanh, "atanh_")))
arcsin_, arccos_, arctan_ = (_in_place(f, n) for f, n in (
    (asin, "arcsin_"), (acos, "arccos_"), (atan, "arctan_")))
arcsinh_, arccosh_, arctanh_ = (_in_place(f, n) for f, n in (
    (asinh, "arcsinh_"), (acosh, "arccosh_"), (atanh, "arctanh_")))
atan2_, arctan2_, hypot_ = (_in_place(f, n) for f, n in (
    (atan2, "atan2_"), (atan2, "arctan2_"), (hypot, "hypot_")))
deg2rad_, rad2deg_, sinc_ = (_in_place(f, n) for f, n in (
    (deg2rad, "deg2rad_"), (rad2deg, "rad2deg_"), (sinc, "sinc_")))
exp2_, xlogy_, logit_ = (_in_place(f, n) for f, n in (
    (exp2, "exp2_"), (xlogy, "xlogy_"), (logit, "logit_")))
frac_, fix_, sgn_, copysign_ = (_in_place(f, n) for f, n in (
    (frac, "frac_"), (fix, "fix_"), (sgn, "sgn_"), (copysign, "copysign_")))
heaviside_, nan_to_num_ = (_in_place(f, n) for f, n in (
    (heaviside, "heaviside_"), (nan_to_num, "nan_to_num_")))
erfc_, erfinv_, lgamma_, digamma_ = (_in_place(f, n) for f, n in (
    (erfc, "erfc_"), (erfinv, "erfinv_"), (lgamma, "lgamma_"), (digamma, "digamma_")))


def float_power_(self, exponent):
    """In-place ``float_power``: only a float64 tensor can hold its result."""
    if self._dtype.itemsize != 8 or not self._dtype.is_floating_point:
        raise RuntimeError(f"float_power_: the base has dtype {self._dtype} but the result "
                           "is torch.float64; call it on a float64 tensor (x.double()), or "
                           "use the out-of-place float_power")
    return self._inplace("float_power_", float_power, exponent)

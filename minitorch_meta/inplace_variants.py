"""The remaining in-place Tensor methods (``ceil_``, ``cos_``, ``eq_``, ``logical_and_``,
``addcmul_``, ``squeeze_``, ``tril_``, ...) and the ``torch.<name>_`` functions PyTorch
offers for in-place methods (``torch.relu_(x)``, ``torch.zero_(x)``, ...).

Every value-changing method here is built by the one factory the other in-place methods
use (``more_math_functions._in_place``, or ``alias_functions._comparison_in_place`` for the
comparisons): the out-of-place function's result written into this tensor under the rules
of ``add_`` (refused on a leaf that requires grad and inside a graph while grad mode is on;
a result of a higher kind than this tensor's dtype, such as a float result in an integer
tensor, is refused; the result must have this tensor's shape, which does not broadcast).

The shape-changing methods (``squeeze_``, ``unsqueeze_``, ``transpose_``, ``swapaxes_``,
``swapdims_``, ``t_``) make this tensor the view the out-of-place function returns: the
memory stays, the shape and strides change, and the version counter is bumped once, as in
PyTorch.
"""

from __future__ import annotations

from . import functions as F
from . import incomplete_gamma_functions as IG
from . import math_functions as M
from . import shape_functions as SF
from .alias_functions import _comparison_in_place
from .more_math_functions import _in_place

# -- value-changing methods: name -> the out-of-place function -----------------------------
_FUNCTIONS = {
    "addcdiv_": M.addcdiv, "addcmul_": M.addcmul, "addmm_": F.addmm, "lerp_": M.lerp,
    "ceil_": M.ceil, "floor_": M.floor, "round_": M.round, "trunc_": M.trunc,
    "sign_": M.sign, "cos_": M.cos, "sin_": M.sin, "erf_": F.erf, "expm1_": M.expm1,
    "log10_": M.log10, "log1p_": M.log1p, "log2_": M.log2, "reciprocal_": M.reciprocal,
    "rsqrt_": M.rsqrt, "square_": M.square,
    "logical_and_": M.logical_and, "logical_or_": M.logical_or,
    "logical_xor_": M.logical_xor, "logical_not_": M.logical_not,
    "bitwise_and_": M.bitwise_and, "bitwise_or_": M.bitwise_or,
    "bitwise_xor_": M.bitwise_xor, "bitwise_not_": M.bitwise_not,
    "tril_": F.tril, "triu_": F.triu,
    "igamma_": IG.igamma, "igammac_": IG.igammac,
}
IN_PLACE = {name: _in_place(function, name, elementwise=name != "addmm_")
            for name, function in _FUNCTIONS.items()}
IN_PLACE.update({name: _comparison_in_place(function, name) for name, function in (
    ("eq_", F.eq), ("ne_", F.ne), ("lt_", F.lt), ("le_", F.le), ("gt_", F.gt),
    ("ge_", F.ge))})


# -- shape-changing methods -----------------------------------------------------------------
def _restride(function, name: str):
    """The Tensor method ``name`` (``squeeze_``): this tensor becomes ``function``'s view of
    it (same memory), under the in-place rules (refused on a leaf that requires grad)."""
    def method(self, *args, **kwargs):
        self._check_inplace(name)
        self._data = function(self, *args, **kwargs)._data
        self._counter().value += 1  # an in-place op, as PyTorch counts it
        return self
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"In-place ``{name[:-1]}``: this tensor's shape and strides change, its "
                      "memory stays.")
    return method


IN_PLACE.update({name: _restride(function, name) for name, function in (
    ("squeeze_", F.squeeze), ("unsqueeze_", F.unsqueeze), ("transpose_", F.transpose),
    ("swapaxes_", SF.swapaxes), ("swapdims_", SF.swapdims), ("t_", F.t))})


# -- torch.<name>_ functions ----------------------------------------------------------------
def _function_of_method(name: str):
    """``torch.<name>(input, ...)``: the Tensor method ``input.<name>(...)``."""
    def function(input, *args, **kwargs):
        from .tensor import Tensor

        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return getattr(Tensor, name)(input, *args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``input.{name}(...)``: the in-place method as a function."
    return function


# The in-place methods PyTorch also offers as ``torch.<name>`` (torch 2.13's list).
TORCH_FUNCTION_NAMES = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_",
    "arcsinh_", "arctan_", "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_",
    "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "erf_",
    "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "log10_",
    "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_",
    "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_",
    "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_",
)
FUNCTIONS = {name: _function_of_method(name) for name in TORCH_FUNCTION_NAMES}

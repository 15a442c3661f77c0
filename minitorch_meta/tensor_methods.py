"""``TensorMethods``: the math methods of ``Tensor``, each the function of the same name.

A method is the module-level function itself (``mv = F.mv``: ``t.mv(v)`` calls
``F.mv(t, v)``), so a method and ``minitorch_meta.<name>`` never differ, and a method
call costs no extra Python frame (per-op overhead matters in loops over tiny tensors).
Only methods whose arguments differ from the function's (``view(2, 3)``, reflected
operators) are written out, and the ``new_*`` factories, which take this tensor's dtype
and device.
"""

from __future__ import annotations

from . import alias_functions as AF
from . import bessel_gamma_functions as BG
from . import broadcast_functions as BF
from . import closeness as CL
from . import complex_functions as CXF
from . import conjugation as CJ
from . import covariance as CV
from . import cumulative_functions as CF
from . import deprecated_resizing as DR
from . import diagonal_fill as DF
from . import dtypes
from . import functions as F
from . import histogram_functions as HI
from . import householder as HH
from . import incomplete_gamma_functions as IG
from . import index_functions as IF
from . import indexing_functions as IX
from . import infinity_predicates as IP
from . import inplace_division as ID
from . import inplace_variants as IV
from . import layout_functions as LF
from . import legacy_linalg as LL
from . import linalg_aliases as LA
from . import math_functions as M
from . import more_math_functions as MM
from . import number_functions as NF
from . import predicates as PR
from . import product_functions as PF
from . import python_apply as PA
from . import random_fills as RF
from . import removed_linalg as RL
from . import renorm_functions as RN
from . import resizing as RZ
from . import scatter_functions as SC
from . import search_functions as SE
from . import shape_functions as SF
from . import shared_memory as SHM
from . import statistics_functions as ST
from . import storage as STO
from . import strided_factories as SFA
from . import strided_functions as SV
from . import unique_functions as UF
from . import unsafe_splits as US
from . import view_copies as VC
from .autocasting import autocast_op
from .caller_warnings import warn_at_caller
from .inplace_autograd import follows_graph, recorded_inplace
from .int_arguments import varargs_or_keyword
from .ops import bit_shifts, division, layout, logical
from .ops import elementwise as ew
from .ops import nonzero_static as NZS
from .ops.view_dtype import ViewDtype
from .ops.views import MatrixTranspose
from .tensor_arguments import require_tensor
from .utils import dlpack as DL


def _shape_args(shape) -> tuple:
    """``view(2, 3)`` and ``view((2, 3))`` both mean the shape ``(2, 3)``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _ints_given(op: str, name: str, positional: tuple, keyword) -> tuple:
    """The ints of ``_positional_or_keyword``: ``(2, 3)`` for each of its three forms."""
    return _shape_args(varargs_or_keyword(op, name, positional, keyword))


class TensorMethods:
    """Operators and named methods shared by every ``Tensor``."""

    __slots__ = ()

    # arithmetic (reflected forms swap the operands); an operand of another type gives
    # NotImplemented, so that Python tries its reflected method (``add`` raises instead)
    def __add__(self, other):
        return F._binary(ew.Add, self, other)

    def __sub__(self, other):
        return F._binary(ew.Sub, self, other)

    def __mul__(self, other):
        return F._binary(ew.Mul, self, other)

    def __truediv__(self, other):
        return F._binary(ew.Div, self, other)

    @autocast_op("__pow__")
    def __pow__(self, other):
        return F._binary(ew.Pow, self, other)

    __neg__ = F.neg
    __abs__ = F.abs
    __matmul__ = F.matmul

    def __radd__(self, other):
        return F._binary(ew.Add, other, self)

    def __rsub__(self, other):
        return F._binary(ew.Sub, other, self)

    def __rmul__(self, other):
        return F._binary(ew.Mul, other, self)

    @autocast_op("__rtruediv__")
    def __rtruediv__(self, other):
        return F._binary(ew.Div, other, self)

    @autocast_op("__rpow__")
    def __rpow__(self, other):
        return F._binary(ew.Pow, other, self)

    def __rmatmul__(self, other):
        return F.matmul(other, self)

    # comparisons (``==`` compares elementwise, as in PyTorch)
    def __eq__(self, other):
        return F._binary(ew.Eq, self, other)

    def __ne__(self, other):
        return F._binary(ew.Ne, self, other)

    def __lt__(self, other):
        return F._binary(ew.Lt, self, other)

    def __le__(self, other):
        return F._binary(ew.Le, self, other)

    def __gt__(self, other):
        return F._binary(ew.Gt, self, other)

    def __ge__(self, other):
        return F._binary(ew.Ge, self, other)

    add, sub, mul, div, pow = F.add, F.sub, F.mul, F.div, F.pow
    eq, ne, lt, le, gt, ge = F.eq, F.ne, F.lt, F.le, F.gt, F.ge
    equal = F.equal
    neg, abs, exp, log, sqrt, relu = F.neg, F.abs, F.exp, F.log, F.sqrt, F.relu
    tanh, sigmoid, softmax, log_softmax = F.tanh, F.sigmoid, F.softmax, F.log_softmax
    erf = F.erf
    maximum, minimum = F.maximum, F.minimum
    prelu = F.prelu
    hardshrink = F.hardshrink
    clamp, clip, clamp_min, clamp_max = F.clamp, F.clip, F.clamp_min, F.clamp_max

    def clamp_(self, min=None, max=None):  # noqa: A002 - PyTorch's names
        """In-place ``clamp``, under the rules of ``add_`` (no write inside a graph)."""
        return self._clamp_in_place("clamp_", F.clamp, min, max)

    def clip_(self, min=None, max=None):  # noqa: A002 - PyTorch's names
        return self._clamp_in_place("clip_", F.clamp, min, max)

    def clamp_min_(self, min):  # noqa: A002 - PyTorch's name
        return self._clamp_in_place("clamp_min_", F.clamp_min, min)

    def clamp_max_(self, max):  # noqa: A002 - PyTorch's name
        return self._clamp_in_place("clamp_max_", F.clamp_max, max)

    # In-place forms of elementwise ops, under the rules of ``add_``: refused on a tensor
    # in a graph while grad mode is on, and on an integer tensor whose result is float.
    def relu_(self):
        return self._inplace("relu_", F.relu)

    def neg_(self):
        return self._inplace("neg_", F.neg)

    def abs_(self):
        if self._dtype.is_complex:  # |z| is real: PyTorch refuses to write it back as complex
            raise RuntimeError("In-place abs is not supported for complex tensors (use "
                               "z.abs(), a real tensor)")
        return self._inplace("abs_", F.abs)

    def exp_(self):
        return self._inplace("exp_", F.exp)

    def log_(self):
        return self._inplace("log_", F.log)

    def sqrt_(self):
        return self._inplace("sqrt_", F.sqrt)

    def tanh_(self):
        return self._inplace("tanh_", F.tanh)

    def sigmoid_(self):
        return self._inplace("sigmoid_", F.sigmoid)

    def pow_(self, exponent):
        return self._inplace("pow_", F.pow, exponent)

    def _clamp_in_place(self, op: str, function, *bounds):
        self._check_inplace(op)  # first, as in PyTorch: before the bounds are looked at
        # ``_write`` refuses a result of a higher kind: float into int, and int into bool (a
        # bool tensor clamped by numbers becomes int64), as PyTorch
        return self._write(op, function(self, *bounds), inputs=bounds)

    # reductions
    sum, mean, var, std = F.sum, F.mean, F.var, F.std
    max, argmax, min, argmin = F.max, F.argmax, F.min, F.argmin
    all, any = F.all, F.any
    amax, amin, norm = F.amax, F.amin, F.norm
    cumsum, prod, logsumexp = F.cumsum, F.prod, F.logsumexp

    # products
    mm, mv, dot, matmul, addmm = F.mm, F.mv, F.dot, F.matmul, F.addmm

    # shape
    flatten, t, transpose = F.flatten, F.t, F.transpose
    unsqueeze, squeeze = F.unsqueeze, F.squeeze
    chunk, unbind = F.chunk, F.unbind

    def split(self, split_size, dim: int = 0) -> tuple:
        # PyTorch's method names its argument ``split_size`` (the function's is longer)
        return F.split(self, split_size, dim)

    # selection
    sort, topk, masked_fill = F.sort, F.topk, F.masked_fill

    def masked_fill_(self, mask, value):
        """In-place ``masked_fill``, under the rules of ``add_`` (recorded inside a graph,
        ``inplace_autograd.py``); into an ``expand`` view too, with PyTorch's deprecation
        warning."""
        if (self.requires_grad or getattr(value, "requires_grad", False)) \
                and follows_graph(self, (value,)):
            return recorded_inplace(self, "masked_fill_", F.masked_fill, (mask, value), ())
        self._check_inplace("masked_fill_")
        return self._write("masked_fill_", F.masked_fill(self, mask, value),
                           lambda: F.masked_fill(SC.unwritten(self), mask, True))

    # elementwise math (math_functions.py)
    sin, cos, log1p, expm1, log2, log10 = M.sin, M.cos, M.log1p, M.expm1, M.log2, M.log10
    rsqrt, reciprocal, square = M.rsqrt, M.reciprocal, M.square
    floor, ceil, round, trunc, sign = M.floor, M.ceil, M.round, M.trunc, M.sign
    isnan, isinf, isfinite = M.isnan, M.isinf, M.isfinite
    logical_not, logical_and, logical_or, logical_xor = (
        M.logical_not, M.logical_and, M.logical_or, M.logical_xor)
    bitwise_not, bitwise_and, bitwise_or, bitwise_xor = (
        M.bitwise_not, M.bitwise_and, M.bitwise_or, M.bitwise_xor)
    floor_divide, remainder, fmod = M.floor_divide, M.remainder, M.fmod
    lerp, addcmul, addcdiv = M.lerp, M.addcmul, M.addcdiv
    __invert__ = M.invert

    # ``//``, ``%``, ``&``, ``|``, ``^``: a type they do not take gives NotImplemented
    def __floordiv__(self, other):
        return F._binary(division.FloorDivide, self, other)

    def __rfloordiv__(self, other):
        return F._binary(division.FloorDivide, other, self)

    def __mod__(self, other):
        return F._binary(division.Remainder, self, other)

    def __rmod__(self, other):
        return F._binary(division.Remainder, other, self)

    def __and__(self, other):
        return F._binary(logical.BitwiseAnd, self, other)

    def __rand__(self, other):
        return F._binary(logical.BitwiseAnd, other, self)

    def __or__(self, other):
        return F._binary(logical.BitwiseOr, self, other)

    def __ror__(self, other):
        return F._binary(logical.BitwiseOr, other, self)

    def __xor__(self, other):
        return F._binary(logical.BitwiseXor, self, other)

    def __rxor__(self, other):
        return F._binary(logical.BitwiseXor, other, self)

    def view(self, *shape, size=None, dtype=None):
        """The same elements in a new shape (``view(2, 3)``, ``view((2, 3))``,
        ``view(size=...)``), or the same memory read as another dtype (``view(torch.int32)``,
        ``view(dtype=...)``: ops/view_dtype.py)."""
        if dtype is not None or (len(shape) == 1 and isinstance(shape[0], dtypes.dtype)):
            if size is not None or len(shape) > (dtype is None):
                raise TypeError("view() takes a shape or a dtype, not both")
            return ViewDtype(dtype=dtype or shape[0])(self)
        if size is None:  # the common call, on every forward: no more work than a shape needs
            return layout.View(shape=_shape_args(shape))(self)
        return layout.View(shape=_ints_given("view", "size", shape, size))(self)

    def view_as(self, other):
        require_tensor("view_as", "other", other, position=1)
        return self.view(tuple(other.shape))

    def reshape(self, *sizes, shape=None):
        return F.reshape(self, _ints_given("reshape", "shape", sizes, shape))

    @property
    def T(self):  # noqa: N802 - PyTorch's name
        return F.permute(self, tuple(reversed(range(self.dim()))))

    def permute(self, *order, dims=None):
        return F.permute(self, _ints_given("permute", "dims", order, dims))

    def expand(self, *shape, size=None):
        return layout.Expand(shape=_ints_given("expand", "size", shape, size))(self)

    def expand_as(self, other):
        require_tensor("expand_as", "other", other, position=1)
        return self.expand(tuple(other.shape))

    # new tensors with this tensor's dtype and device unless given (PyTorch's ``new_*``).
    # ``factories`` imports ``tensor``, which imports this module: import it on call.
    def new(self, *args, device=None, size=None):
        """PyTorch's legacy constructor in this tensor's dtype and on its device:
        ``x.new(2, 3)`` (or ``size=``) uninitialised, ``x.new([1, 2])`` a copy of data,
        ``x.new(t)`` an alias of a tensor of the same dtype, ``x.new()`` empty."""
        from .legacy import construct
        from .size import Size

        if size is not None:
            if args:
                raise TypeError("new(): give the sizes either positionally or as size=, not "
                                "both")
            args = (Size(size),)
        return construct("new", self._dtype, self.device, args, device)

    def new_empty(self, *sizes, size=None, dtype=None, device=None,
                  requires_grad: bool = False):
        """An uninitialised tensor of ``size`` (ints, one tuple, or ``size=``)."""
        from .factories import empty, new_options

        sizes = varargs_or_keyword("new_empty", "size", sizes, size, required=True)
        return empty(*sizes, **new_options(self, dtype, device, requires_grad))

    def new_zeros(self, *sizes, size=None, dtype=None, device=None,
                  requires_grad: bool = False):
        """Zeros of ``size`` (ints, one tuple, or ``size=``)."""
        from .factories import new_options, zeros

        sizes = varargs_or_keyword("new_zeros", "size", sizes, size, required=True)
        return zeros(*sizes, **new_options(self, dtype, device, requires_grad))

    def new_ones(self, *sizes, size=None, dtype=None, device=None,
                 requires_grad: bool = False):
        """Ones of ``size`` (ints, one tuple, or ``size=``)."""
        from .factories import new_options, ones

        sizes = varargs_or_keyword("new_ones", "size", sizes, size, required=True)
        return ones(*sizes, **new_options(self, dtype, device, requires_grad))

    def new_full(self, size, fill_value, *, dtype=None, device=None,
                 requires_grad: bool = False):
        """``fill_value`` everywhere in a tensor of ``size`` (one tuple), in this tensor's
        dtype unless given (whatever the kind of ``fill_value``)."""
        from .factories import check_size_sequence, full, new_options

        check_size_sequence("new_full", size)
        return full(size, fill_value, **new_options(self, dtype, device, requires_grad))

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad: bool = False):
        """A copy of ``data`` in this tensor's dtype and on its device unless given; it
        requires grad only if asked. A Tensor ``data`` is copied with PyTorch's warning."""
        from .factories import _like, tensor
        from .tensor import Tensor

        if isinstance(data, Tensor):
            warn_at_caller("To copy construct from a tensor, it is recommended to use "
                           "sourceTensor.detach().clone() or "
                           "sourceTensor.detach().clone().requires_grad_(True), rather than "
                           "tensor.new_tensor(sourceTensor).", UserWarning)
        return tensor(data, **_like(self, dtype, device, requires_grad))

    # reordering, tiling, triangles and diagonals
    roll, tril, triu, diag, trace = F.roll, F.tril, F.triu, F.diag, F.trace
    index_select, gather = F.index_select, F.gather

    def flip(self, *order, dims=None):
        """``x.flip(0, 1)``, ``x.flip((0, 1))`` and ``x.flip(dims=(0, 1))`` alike."""
        if not order and dims is None:
            raise TypeError('flip() missing 1 required positional arguments: "dims" (e.g. '
                            "x.flip(0) or x.flip((0, 1)))")
        return F.flip(self, _ints_given("flip", "dims", order, dims))

    def repeat(self, *counts, repeats=None):
        """``x.repeat(2, 3)``, ``x.repeat((2, 3))`` and ``x.repeat(repeats=(2, 3))`` alike
        (see ``functions.repeat``)."""
        if not counts and repeats is None:
            raise TypeError("repeat() missing 1 required positional argument: 'repeats' (one "
                            "int per dimension, e.g. x.repeat(2, 1))")
        return F.repeat(self, _ints_given("repeat", "repeats", counts, repeats))
    # more shape ops (shape_functions.py), selection and sampling
    narrow, select, unflatten, nonzero = SF.narrow, SF.select, SF.unflatten, SF.nonzero
    movedim, moveaxis, swapaxes, swapdims = SF.movedim, SF.moveaxis, SF.swapaxes, SF.swapdims

    @property
    def mT(self):  # noqa: N802 - PyTorch's name
        """The last two dims swapped (each matrix of a batch transposed), as a view."""
        return MatrixTranspose()(self)

    def reshape_as(self, other):
        require_tensor("reshape_as", "other", other, position=1)
        return F.reshape(self, tuple(other.shape))

    @property
    def itemsize(self) -> int:
        """Bytes per element (``element_size()``)."""
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes the elements take (``numel() * itemsize``; on meta too, where nothing is
        allocated)."""
        return self.numel() * self._dtype.itemsize

    def bernoulli(self, p=None, *, generator=None):
        from .sampling import bernoulli

        return bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples: int, replacement: bool = False, *, generator=None):
        from .sampling import multinomial

        return multinomial(self, num_samples, replacement, generator=generator)

    # Python functions over the elements, CPU only (python_apply.py)
    apply_, map_ = PA.apply_, PA.map_
    # writes at an index's positions (scatter_functions.py)
    scatter, scatter_add, index_add, index_copy, index_fill = (
        SC.scatter, SC.scatter_add, SC.index_add, SC.index_copy, SC.index_fill)
    scatter_, scatter_add_, index_add_, index_copy_, index_fill_ = (
        SC.scatter_, SC.scatter_add_, SC.index_add_, SC.index_copy_, SC.index_fill_)
    unique, unique_consecutive, bincount = UF.unique, UF.unique_consecutive, UF.bincount
    # broadcasting (broadcast_functions.py)
    type_as, where = BF.type_as, BF.where_method
    scatter_reduce, scatter_reduce_ = SC.scatter_reduce, SC.scatter_reduce_
    # diagonals, writes into views, tiling, splits, turns (layout_functions.py)
    diagonal, diag_embed, diagflat = LF.diagonal, LF.diag_embed, LF.diagflat
    diagonal_scatter, select_scatter, slice_scatter = (
        LF.diagonal_scatter, LF.select_scatter, LF.slice_scatter)
    unfold, tile, repeat_interleave = LF.unfold, LF.tile, LF.repeat_interleave
    tensor_split, hsplit, vsplit, dsplit = LF.tensor_split, LF.hsplit, LF.vsplit, LF.dsplit
    split_with_sizes = LF.split_with_sizes
    rot90, fliplr, flipud, ravel = LF.rot90, LF.fliplr, LF.flipud, LF.ravel

    def broadcast_to(self, *shape, size=None):
        """``x.broadcast_to(2, 4)``, ``x.broadcast_to((2, 4))`` and ``size=`` alike (the
        function ``torch.broadcast_to`` takes one size, as PyTorch's)."""
        given = varargs_or_keyword("broadcast_to", "size", shape, size)
        return LF.broadcast_to(self, given[0] if len(given) == 1 else given)
    # order statistics and quantiles (statistics_functions.py)
    argsort, msort, kthvalue, median, nanmedian, mode = (
        ST.argsort, ST.msort, ST.kthvalue, ST.median, ST.nanmedian, ST.mode)
    quantile, nanquantile = ST.quantile, ST.nanquantile
    nansum, nanmean, count_nonzero, aminmax = ST.nansum, ST.nanmean, ST.count_nonzero, ST.aminmax
    # batched and outer products (product_functions.py)
    bmm, baddbmm, addbmm, addmv, addr = PF.bmm, PF.baddbmm, PF.addbmm, PF.addmv, PF.addr
    baddbmm_, addbmm_, addmv_, addr_ = PF.baddbmm_, PF.addbmm_, PF.addmv_, PF.addr_
    outer, ger, inner, kron, cross, vdot = PF.outer, PF.ger, PF.inner, PF.kron, PF.cross, PF.vdot
    # linear algebra (linalg_aliases.py)
    inverse, det, logdet, slogdet, cholesky, svd, matrix_power, pinverse = (
        LA.inverse, LA.det, LA.logdet, LA.slogdet, LA.cholesky, LA.svd, LA.matrix_power,
        LA.pinverse)
    matrix_exp = LA.matrix_exp

    # trigonometric, exponential, float-part and special math (more_math_functions.py)
    tan, asin, acos, atan, atan2, hypot = MM.tan, MM.asin, MM.acos, MM.atan, MM.atan2, MM.hypot
    sinh, cosh, asinh, acosh, atanh = MM.sinh, MM.cosh, MM.asinh, MM.acosh, MM.atanh
    arcsin, arccos, arctan, arctan2 = MM.arcsin, MM.arccos, MM.arctan, MM.arctan2
    arcsinh, arccosh, arctanh = MM.arcsinh, MM.arccosh, MM.arctanh
    deg2rad, rad2deg, sinc, exp2 = MM.deg2rad, MM.rad2deg, MM.sinc, MM.exp2
    logaddexp, logaddexp2, xlogy, logit = MM.logaddexp, MM.logaddexp2, MM.xlogy, MM.logit
    frac, fix, signbit, sgn, copysign = MM.frac, MM.fix, MM.signbit, MM.sgn, MM.copysign
    heaviside, fmax, fmin, nan_to_num = MM.heaviside, MM.fmax, MM.fmin, MM.nan_to_num
    float_power, erfc, erfinv, lgamma, digamma = (
        MM.float_power, MM.erfc, MM.erfinv, MM.lgamma, MM.digamma)
    tan_, asin_, acos_, atan_, atan2_, hypot_ = (
        MM.tan_, MM.asin_, MM.acos_, MM.atan_, MM.atan2_, MM.hypot_)
    sinh_, cosh_, asinh_, acosh_, atanh_ = MM.sinh_, MM.cosh_, MM.asinh_, MM.acosh_, MM.atanh_
    arcsin_, arccos_, arctan_, arctan2_ = MM.arcsin_, MM.arccos_, MM.arctan_, MM.arctan2_
    arcsinh_, arccosh_, arctanh_ = MM.arcsinh_, MM.arccosh_, MM.arctanh_
    deg2rad_, rad2deg_, sinc_, exp2_ = MM.deg2rad_, MM.rad2deg_, MM.sinc_, MM.exp2_
    xlogy_, logit_, frac_, fix_, sgn_ = MM.xlogy_, MM.logit_, MM.frac_, MM.fix_, MM.sgn_
    copysign_, heaviside_, nan_to_num_ = MM.copysign_, MM.heaviside_, MM.nan_to_num_
    float_power_, erfc_, erfinv_, lgamma_, digamma_ = (
        MM.float_power_, MM.erfc_, MM.erfinv_, MM.lgamma_, MM.digamma_)

    # PyTorch's alias names (alias_functions.py)
    absolute, negative, positive = AF.absolute, AF.negative, AF.positive
    multiply, divide, true_divide, subtract = AF.multiply, AF.divide, AF.true_divide, AF.subtract
    greater, greater_equal, less, less_equal = AF.greater, AF.greater_equal, AF.less, AF.less_equal
    not_equal = AF.not_equal
    absolute_, negative_, multiply_, divide_ = (
        AF.absolute_, AF.negative_, AF.multiply_, AF.divide_)
    true_divide_, subtract_, not_equal_ = AF.true_divide_, AF.subtract_, AF.not_equal_
    greater_, greater_equal_, less_, less_equal_ = (
        AF.greater_, AF.greater_equal_, AF.less_, AF.less_equal_)
    # questions about a tensor (predicates.py)
    is_complex, is_signed, is_nonzero, is_same_size = (
        PR.is_complex, PR.is_signed, PR.is_nonzero, PR.is_same_size)
    get_device, ndimension, is_inference, byte = (
        PR.get_device, PR.ndimension, PR.is_inference, PR.byte)
    is_cpu = property(PR.is_cpu)
    # running reductions and differences (cumulative_functions.py)
    cumprod, cummax, cummin, logcumsumexp, diff = (
        CF.cumprod, CF.cummax, CF.cummin, CF.logcumsumexp, CF.diff)
    cumprod_, cumsum_ = CF.cumprod_, CF.cumsum_
    # reads and writes at masks, flat positions and index tuples (indexing_functions.py)
    masked_select, masked_scatter, masked_scatter_ = (
        IX.masked_select, IX.masked_scatter, IX.masked_scatter_)
    take, take_along_dim, put, put_ = IX.take, IX.take_along_dim, IX.put, IX.put_
    index_put, index_put_ = IX.index_put, IX.index_put_
    # searching and index building (search_functions.py, index_functions.py)
    histc, argwhere = SE.histc, IF.argwhere
    # dtype conversions (predicates.py) and in-place rounded divisions (inplace_division.py)
    char, short = PR.char, PR.short
    remainder_, fmod_, floor_divide_ = ID.remainder_, ID.fmod_, ID.floor_divide_
    __imod__, __ifloordiv__ = ID.remainder_, ID.floor_divide_
    # in-place random fills (random_fills.py)
    bernoulli_, exponential_, cauchy_, log_normal_, geometric_, random_ = (
        RF.bernoulli_, RF.exponential_, RF.cauchy_, RF.log_normal_, RF.geometric_, RF.random_)
    # questions about values (infinity_predicates.py, functions.py)
    isneginf, isposinf, isreal = IP.isneginf, IP.isposinf, IP.isreal
    isclose, allclose = CL.isclose, CL.allclose
    # bit shifts, divisors, float steps, dist, sum_to_size (number_functions.py)
    bitwise_left_shift, bitwise_right_shift = NF.bitwise_left_shift, NF.bitwise_right_shift
    bitwise_left_shift_, bitwise_right_shift_ = NF.bitwise_left_shift_, NF.bitwise_right_shift_
    gcd, lcm, gcd_, lcm_ = NF.gcd, NF.lcm, NF.gcd_, NF.lcm_
    nextafter, nextafter_, frexp, ldexp, ldexp_ = (
        NF.nextafter, NF.nextafter_, NF.frexp, NF.ldexp, NF.ldexp_)
    dist, sum_to_size = NF.dist, NF.sum_to_size
    __ilshift__, __irshift__ = NF.bitwise_left_shift_, NF.bitwise_right_shift_
    # renorm, the diagonal fill and strided allocation (renorm_functions.py,
    # diagonal_fill.py, strided_factories.py)
    renorm, renorm_ = RN.renorm, RN.renorm_
    fill_diagonal_, new_empty_strided = DF.fill_diagonal_, SFA.new_empty_strided
    # covariance (covariance.py)
    cov, corrcoef = CV.cov, CV.corrcoef
    # histogram (histogram_functions.py)
    histogram = HI.histogram
    # the older linear algebra names (legacy_linalg.py)
    cholesky_solve, cholesky_inverse, triangular_solve, qr = (
        LL.cholesky_solve, LL.cholesky_inverse, LL.triangular_solve, LL.qr)
    orgqr, ormqr, adjoint = LL.orgqr, LL.ormqr, LL.adjoint
    mH, H = property(LL.mH), property(LL.H)  # noqa: N815 - PyTorch's names
    geqrf = HH.geqrf
    lu, lu_solve, lstsq, symeig, eig, solve = (
        RL.lu, RL.lu_solve, RL.lstsq, RL.symeig, RL.eig, RL.solve)

    def __lshift__(self, other):
        return F._binary(bit_shifts.LeftShift, self, other)

    def __rlshift__(self, other):
        return F._binary(bit_shifts.LeftShift, other, self)

    def __rshift__(self, other):
        return F._binary(bit_shifts.RightShift, self, other)

    def __rrshift__(self, other):
        return F._binary(bit_shifts.RightShift, other, self)

    # conjugation of real tensors (conjugation.py); a view's copy (view_copies.py)
    conj, conj_physical, resolve_conj, resolve_neg, is_conj, is_neg = (
        CJ.conj, CJ.conj_physical, CJ.resolve_conj, CJ.resolve_neg, CJ.is_conj, CJ.is_neg)
    narrow_copy = VC.narrow_copy
    # PyTorch's low-level resizing (resizing.py)
    resize_, resize_as_ = RZ.resize_, RZ.resize_as_
    # Bessel and gamma-family functions (bessel_gamma_functions.py)
    i0, i0_, mvlgamma, mvlgamma_ = BG.i0, BG.i0_, BG.mvlgamma_method, BG.mvlgamma_
    polygamma, polygamma_ = BG.polygamma_method, BG.polygamma_
    # slices reduced in at an index's positions (scatter_functions.py)
    index_reduce, index_reduce_ = SC.index_reduce, SC.index_reduce_
    # chunk and split whose pieces are not tracked as views (unsafe_splits.py)
    unsafe_chunk, unsafe_split = US.unsafe_chunk, US.unsafe_split
    unsafe_split_with_sizes = US.unsafe_split_with_sizes
    # DLPack export, for numpy.from_dlpack(t) and friends (utils/dlpack.py)
    __dlpack__, __dlpack_device__ = DL.tensor_dlpack, DL.tensor_dlpack_device
    # views of the storage with any strides (strided_functions.py)
    as_strided, as_strided_ = SV.as_strided, SV.as_strided_
    as_strided_scatter = SV.as_strided_scatter
    # deprecated out-of-place resizes (deprecated_resizing.py); a fixed-size nonzero
    resize, resize_as = DR.resize, DR.resize_as
    nonzero_static = NZS.nonzero_static
    # the regularised incomplete gamma functions (incomplete_gamma_functions.py)
    igamma, igammac = IG.igamma, IG.igammac
    # storages; shared and pinned memory (storage.py, shared_memory.py)
    untyped_storage, storage, storage_type = STO.untyped_storage, STO.storage, STO.storage_type
    set_, is_set_to, const_data_ptr = STO.set_, STO.is_set_to, STO.const_data_ptr
    share_memory_, is_shared = SHM.share_memory_, SHM.is_shared
    pin_memory, is_pinned = SHM.pin_memory, SHM.is_pinned
    # complex numbers' parts (complex_functions.py): views, with setters
    real = property(CXF.real, CXF.set_real)
    imag = property(CXF.imag, CXF.set_imag)
    angle = CXF.angle
    # the short-time Fourier transform and its inverse (stft.py, which needs Tensor)
    def stft(self, *args, **kwargs):
        from .stft import stft
        return stft(self, *args, **kwargs)

    def istft(self, *args, **kwargs):
        from .stft import istft
        return istft(self, *args, **kwargs)


# the remaining in-place methods, from one table (inplace_variants.py)
for _name, _method in IV.IN_PLACE.items():
    setattr(TensorMethods, _name, _method)

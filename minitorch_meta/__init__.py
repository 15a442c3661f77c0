"""minitorch_meta: a small PyTorch-shaped autograd framework on NumPy, CuPy and meta.

``import minitorch_meta as torch`` runs PyTorch code for the subset covered here: tensors
and autograd, ``nn`` (Conv2d, MaxPool2d, Linear, losses, ...), ``optim``, and a ``"meta"``
device that checks every shape of a model without allocating data.
"""

import math as _math

from . import dtypes as _dtypes
from . import special
from .alias_functions import (
    absolute,
    divide,
    greater,
    greater_equal,
    less,
    less_equal,
    multiply,
    negative,
    not_equal,
    positive,
    rsub,
    subtract,
    true_divide,
)
from .amp.autocast_mode import autocast
from .autocasting import (
    clear_autocast_cache,
    get_autocast_dtype,
    is_autocast_cache_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from .autograd import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .autograd.anomaly_mode import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from .broadcast_functions import broadcast_shapes, broadcast_tensors
from .combinatorial_functions import block_diag, cartesian_prod, combinations, meshgrid, vander
from .compiling import compile
from .conversion import asarray, scalar_tensor
from .cumulative_functions import cummax, cummin, cumprod, diff, logcumsumexp
from .device import device, get_default_device, set_default_device
from .dtypes import dtype, get_default_dtype, set_default_dtype
from .errors import DeviceError, MetaDataError, ShapeError, ShapeRuntimeError
from .factories import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from .formatting import set_printoptions
from .functional_aliases import (
    adaptive_avg_pool1d,
    avg_pool1d,
    batch_norm,
    binary_cross_entropy_with_logits,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    cosine_embedding_loss,
    dropout,
    embedding,
    group_norm,
    hinge_embedding_loss,
    instance_norm,
    kl_div,
    layer_norm,
    margin_ranking_loss,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    pairwise_distance,
    poisson_nll_loss,
    rms_norm,
    triplet_margin_loss,
)
from .functions import (
    abs,
    adaptive_max_pool1d,
    add,
    addmm,
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    cat,
    cdist,
    celu,
    channel_shuffle,
    chunk,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    clone,
    concat,
    cosine_similarity,
    cumsum,
    diag,
    div,
    dot,
    einsum,
    eq,
    equal,
    erf,
    exp,
    flatten,
    flip,
    gather,
    ge,
    gt,
    hardshrink,
    index_select,
    le,
    log,
    log_softmax,
    logsumexp,
    lt,
    masked_fill,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    mm,
    mul,
    mv,
    ne,
    neg,
    norm,
    numel,
    pdist,
    permute,
    pixel_shuffle,
    pixel_unshuffle,
    pow,
    prelu,
    prod,
    relu,
    reshape,
    roll,
    rrelu,
    selu,
    sigmoid,
    softmax,
    sort,
    split,
    sqrt,
    squeeze,
    stack,
    std,
    sub,
    sum,
    t,
    tanh,
    threshold,
    topk,
    trace,
    transpose,
    tril,
    triu,
    unbind,
    unsqueeze,
    var,
    where,
)
from .index_functions import argwhere, tril_indices, triu_indices, unravel_index
from .indexing_functions import (
    index_put,
    index_put_,
    masked_scatter,
    masked_select,
    put,
    take,
    take_along_dim,
)
from .integration_functions import cumulative_trapezoid, trapezoid, trapz
from .layout_functions import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_to,
    column_stack,
    diag_embed,
    diagflat,
    diagonal,
    diagonal_scatter,
    dsplit,
    fliplr,
    flipud,
    hsplit,
    ravel,
    repeat_interleave,
    rot90,
    row_stack,
    select_scatter,
    slice_scatter,
    split_with_sizes,
    tensor_split,
    tile,
    vsplit,
)
from .legacy import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from .linalg_aliases import (
    chain_matmul,
    cholesky,
    det,
    inverse,
    logdet,
    lu_unpack,
    matrix_exp,
    matrix_power,
    pinverse,
    slogdet,
    svd,
)
from .math_functions import (
    addcdiv,
    addcmul,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    ceil,
    cos,
    expm1,
    floor,
    floor_divide,
    fmod,
    isfinite,
    isinf,
    isnan,
    lerp,
    log1p,
    log2,
    log10,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    reciprocal,
    remainder,
    round,
    rsqrt,
    sign,
    sin,
    square,
    trunc,
)
from .more_math_functions import (
    acos,
    acosh,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    copysign,
    cosh,
    deg2rad,
    digamma,
    erfc,
    erfinv,
    exp2,
    fix,
    float_power,
    fmax,
    fmin,
    frac,
    heaviside,
    hypot,
    lgamma,
    logaddexp,
    logaddexp2,
    logit,
    nan_to_num,
    rad2deg,
    sgn,
    signbit,
    sinc,
    sinh,
    tan,
    xlogy,
)
from .predicates import is_complex, is_floating_point, is_nonzero, is_same_size, is_signed
from .product_functions import (
    addbmm,
    addmv,
    addr,
    baddbmm,
    bmm,
    cross,
    ger,
    inner,
    kron,
    outer,
    tensordot,
    vdot,
)
from .promotion import can_cast, promote_types, result_type
from .random import Generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from .sampling import bernoulli, multinomial, normal, randint_like
from .scatter_functions import (
    index_add,
    index_copy,
    index_fill,
    scatter,
    scatter_add,
    scatter_reduce,
)
from .search_functions import bucketize, histc, isin, searchsorted
from .shape_functions import (
    dstack,
    hstack,
    moveaxis,
    movedim,
    narrow,
    nonzero,
    select,
    swapaxes,
    swapdims,
    unflatten,
    vstack,
)
from .size import Size
from .statistics_functions import (
    aminmax,
    argsort,
    count_nonzero,
    kthvalue,
    median,
    mode,
    msort,
    nanmean,
    nanmedian,
    nanquantile,
    nansum,
    quantile,
    std_mean,
    var_mean,
)
from .tensor import Tensor, is_tensor
from .threads import get_num_threads, set_num_threads
from .type_info import finfo, iinfo
from .unique_functions import bincount, unique, unique_consecutive

float32 = float = _dtypes.float32
float64 = double = _dtypes.float64
int64 = long = _dtypes.int64
int32 = int = _dtypes.int32
uint8 = _dtypes.uint8
bool = _dtypes.bool_
float16 = half = _dtypes.float16
int16 = short = _dtypes.int16
int8 = _dtypes.int8
complex64 = cfloat = _dtypes.complex64
complex128 = cdouble = _dtypes.complex128
bfloat16 = _dtypes.bfloat16

__version__ = "0.1.0"

# PyTorch's module constants (Python floats)
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan


#: the subpackages ``__getattr__`` loads on first use, and its other names
_LAZY_MODULES = ("nn", "optim", "cuda", "data", "utils", "backends", "ops", "tools",
                 "distributed", "linalg", "__config__", "testing", "distributions", "func",
                 "amp", "cpu", "accelerator", "profiler", "multiprocessing", "fft", "jit", "types",
                 "library", "hub")
_LAZY_NAMES = ("save", "load", "summary")


def __dir__():
    # ``dir(minitorch_meta)`` and tab completion list the lazily loaded names too.
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))


def __getattr__(name):
    # Subpackages load on first use, so that importing minitorch_meta stays fast and
    # never imports CuPy, matplotlib or tqdm.
    import importlib

    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in ("save", "load"):
        from . import serialization

        return getattr(serialization, name)
    if name in ("complex32", "chalf"):
        raise AttributeError(f"module 'minitorch_meta' has no attribute {name!r}: "
                             f"{_dtypes.COMPLEX32_UNSUPPORTED}")
    if name == "summary":
        from .tools.summary import summary

        return summary
    raise AttributeError(f"module 'minitorch_meta' has no attribute {name!r}")


__all__ = [
    "DeviceError", "Generator", "MetaDataError", "ShapeError", "Size", "Tensor", "abs", "add",
    "addmm", "all", "allclose", "amax", "amin", "any", "arange", "argmax", "argmin",
    "as_tensor", "bool",
    "cat", "chunk", "clamp", "clamp_max", "clamp_min", "clip", "clone", "concat", "device", "div",
    "double", "dtype", "empty", "empty_like",
    "enable_grad", "eq", "equal", "exp", "eye", "flatten", "float", "float32", "float64",
    "from_numpy", "full", "full_like", "ge", "get_default_dtype", "get_num_threads", "gt",
    "int", "int32", "int64", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled",
    "is_tensor", "isclose", "le",
    "linspace", "log", "log_softmax", "long", "lt", "manual_seed", "masked_fill", "matmul",
    "max", "maximum",
    "mean", "min", "minimum", "mm", "mul", "mv", "dot", "ne", "neg", "no_grad", "norm", "numel",
    "ones", "ones_like", "permute",
    "pow", "rand", "rand_like", "randint", "randn", "randn_like", "randperm", "relu", "reshape",
    "set_grad_enabled", "set_num_threads",
    "sigmoid", "softmax", "sort", "split", "sqrt", "squeeze", "stack", "std", "sub", "sum",
    "t", "tanh", "tensor", "topk", "transpose", "uint8", "unbind", "unsqueeze", "var", "where",
    "zeros",
    "zeros_like",
    "flip", "roll", "tril", "triu", "diag", "trace", "index_select", "gather",
    "cumsum", "prod", "logsumexp", "einsum",
    "erf",
    "addcdiv", "addcmul", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "ceil",
    "cos", "e", "expm1", "finfo", "floor", "floor_divide", "fmod", "iinfo", "inf", "isfinite",
    "isinf", "isnan", "lerp", "log10", "log1p", "log2", "logical_and", "logical_not",
    "logical_or", "logical_xor", "nan", "pi", "reciprocal", "remainder", "round", "rsqrt",
    "sign", "sin", "square", "trunc",
    "BoolTensor", "ByteTensor", "DoubleTensor", "FloatTensor", "IntTensor", "LongTensor",
    "bernoulli", "dstack", "hstack", "logspace", "moveaxis", "movedim", "multinomial",
    "narrow", "nonzero", "normal", "randint_like", "select", "swapaxes", "swapdims",
    "unflatten", "vstack",
    "cosine_similarity", "prelu", "selu",
    "compile",
    "index_add", "index_copy", "index_fill", "scatter", "scatter_add",
    "bincount", "unique", "unique_consecutive", "cdist",
    "float16", "half", "set_printoptions",
    "ShapeRuntimeError", "broadcast_shapes", "broadcast_tensors",
    "scatter_reduce",
    "adaptive_max_pool1d", "pixel_shuffle", "pixel_unshuffle",
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to", "column_stack", "diag_embed",
    "diagflat", "diagonal", "diagonal_scatter", "dsplit", "fliplr", "flipud", "hsplit",
    "ravel", "repeat_interleave", "rot90", "row_stack", "select_scatter", "slice_scatter",
    "split_with_sizes", "tensor_split", "tile", "vsplit",
    "argsort", "kthvalue", "median", "mode", "msort", "nanmedian", "nanquantile", "quantile",
    "aminmax", "count_nonzero", "nanmean", "nansum", "std_mean", "var_mean",
    "addbmm", "addmv", "addr", "baddbmm", "bmm", "cross", "ger", "inner", "kron", "outer",
    "tensordot", "vdot", "block_diag", "cartesian_prod", "combinations", "meshgrid", "vander",
    "cumulative_trapezoid", "trapezoid", "trapz",
    "celu", "hardshrink", "rrelu", "threshold",
    "chain_matmul", "cholesky", "det", "inverse", "logdet", "matrix_power", "pinverse",
    "slogdet", "svd",
    "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
    "asin", "asinh", "atan", "atan2", "atanh", "copysign", "cosh", "deg2rad", "digamma",
    "erfc", "erfinv", "exp2", "fix", "float_power", "fmax", "fmin", "frac", "heaviside",
    "hypot", "lgamma", "logaddexp", "logaddexp2", "logit", "nan_to_num", "rad2deg", "sgn",
    "signbit", "sinc", "sinh", "tan", "xlogy",
    "absolute", "divide", "greater", "greater_equal", "less", "less_equal", "multiply",
    "negative", "not_equal", "positive", "rsub", "subtract", "true_divide", "special",
    "set_default_dtype", "get_default_device", "set_default_device", "get_rng_state",
    "initial_seed", "seed", "set_rng_state",
    "can_cast", "promote_types", "result_type", "asarray", "scalar_tensor", "is_complex",
    "is_floating_point", "is_nonzero", "is_same_size", "is_signed",
    "adaptive_avg_pool1d", "avg_pool1d", "batch_norm", "binary_cross_entropy_with_logits",
    "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "cosine_embedding_loss",
    "dropout", "embedding", "group_norm", "hinge_embedding_loss", "instance_norm", "kl_div",
    "layer_norm", "margin_ranking_loss", "max_pool1d", "max_pool2d", "pairwise_distance",
    "poisson_nll_loss", "rms_norm", "triplet_margin_loss",
    "cummax", "cummin", "cumprod", "diff", "logcumsumexp",
    "index_put", "index_put_", "masked_scatter", "masked_select", "put", "take",
    "take_along_dim",
    "channel_shuffle", "pdist",
    "argwhere", "bucketize", "histc", "isin", "searchsorted", "tril_indices", "triu_indices",
    "unravel_index",
    "CharTensor", "ShortTensor", "int8", "int16", "short",
    "conv3d", "conv_transpose3d", "max_pool3d",
    "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "set_anomaly_enabled",
    "autocast", "clear_autocast_cache", "get_autocast_dtype", "is_autocast_cache_enabled",
    "is_autocast_enabled", "set_autocast_cache_enabled", "set_autocast_dtype",
    "set_autocast_enabled",
    "matrix_exp", "lu_unpack",
]

# torch.relu_(x), torch.zero_(x), ...: the in-place methods as functions (inplace_variants.py)
from .inplace_variants import FUNCTIONS as _IN_PLACE_FUNCTIONS  # noqa: E402

globals().update(_IN_PLACE_FUNCTIONS)
__all__ += list(_IN_PLACE_FUNCTIONS)
from .algorithm_settings import (  # noqa: E402
    are_deterministic_algorithms_enabled,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from .infinity_predicates import isneginf, isposinf, isreal  # noqa: E402

__all__ += ["are_deterministic_algorithms_enabled", "get_float32_matmul_precision",
            "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision",
            "use_deterministic_algorithms", "isneginf", "isposinf", "isreal"]

from .variate_functions import _standard_gamma, binomial, poisson  # noqa: E402, F401

__all__ += ["binomial", "poisson"]

# small functions: renorm, empty_strided, bilinear (renorm_functions.py,
# strided_factories.py, nn/bilinear.py)
from .covariance import corrcoef, cov  # noqa: E402
from .histogram_functions import histogram  # noqa: E402
from .nn.bilinear import bilinear  # noqa: E402
from .renorm_functions import renorm  # noqa: E402
from .strided_factories import empty_strided  # noqa: E402

__all__ += ["bilinear", "corrcoef", "cov", "empty_strided", "histogram", "renorm"]
from .legacy_linalg import (  # noqa: E402
    adjoint,
    cholesky_inverse,
    cholesky_solve,
    frobenius_norm,
    nuclear_norm,
    orgqr,
    ormqr,
    qr,
    triangular_solve,
)

__all__ += ["adjoint", "cholesky_inverse", "cholesky_solve", "frobenius_norm", "nuclear_norm",
            "orgqr", "ormqr", "qr", "triangular_solve"]
from . import small_functions as _small_functions  # noqa: E402
from .conjugation import (  # noqa: E402
    conj,
    conj_physical,
    is_conj,
    is_neg,
    resolve_conj,
    resolve_neg,
)
from .process_settings import (  # noqa: E402
    get_num_interop_threads,
    is_warn_always_enabled,
    set_flush_denormal,
    set_num_interop_threads,
    set_warn_always,
)
from .small_functions import (  # noqa: E402
    concatenate,
    detach,
    detach_,
    fill,
    get_device,
    typename,
    vmap,
)
from .view_copies import (  # noqa: E402
    alias_copy,
    detach_copy,
    diagonal_copy,
    expand_copy,
    narrow_copy,
    permute_copy,
    select_copy,
    slice_copy,
    split_copy,
    split_with_sizes_copy,
    squeeze_copy,
    t_copy,
    transpose_copy,
    unbind_copy,
    unfold_copy,
    unsqueeze_copy,
    view_copy,
)

range = _small_functions.range  # noqa: A001 - PyTorch's (deprecated) name shadows the builtin
__all__ += ["conj", "conj_physical", "is_conj", "is_neg", "resolve_conj", "resolve_neg",
            "get_num_interop_threads", "is_warn_always_enabled", "set_flush_denormal",
            "set_num_interop_threads", "set_warn_always", "concatenate", "detach", "detach_",
            "fill", "get_device", "typename", "vmap", "range", "alias_copy", "detach_copy",
            "diagonal_copy", "expand_copy", "narrow_copy", "permute_copy", "select_copy",
            "slice_copy", "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy",
            "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy"]
from .bessel_gamma_functions import i0, i0_, mvlgamma, polygamma  # noqa: E402

__all__ += ["i0", "i0_", "mvlgamma", "polygamma"]

# low-level resizing (resizing.py)
from .resizing import resize_as_function as resize_as_  # noqa: E402

__all__ += ["resize_as_"]

# index_reduce (scatter_functions.py); torch.celu_, torch.dropout_, ... (inplace_functions.py)
from .inplace_functions import (  # noqa: E402
    alpha_dropout,
    alpha_dropout_,
    celu_,
    dropout_,
    feature_alpha_dropout,
    feature_alpha_dropout_,
    feature_dropout,
    feature_dropout_,
    rrelu_,
    selu_,
    threshold_,
)
from .scatter_functions import index_reduce  # noqa: E402

__all__ += ["index_reduce", "alpha_dropout", "alpha_dropout_", "celu_", "dropout_",
            "feature_alpha_dropout", "feature_alpha_dropout_", "feature_dropout",
            "feature_dropout_", "rrelu_", "selu_", "threshold_"]

# window functions (windows.py) and torch.signal.windows (signal/)
from . import signal  # noqa: E402
from .windows import (  # noqa: E402
    bartlett_window,
    blackman_window,
    hamming_window,
    hann_window,
    kaiser_window,
)

__all__ += ["bartlett_window", "blackman_window", "hamming_window", "hann_window",
            "kaiser_window", "signal"]

from .householder import geqrf  # noqa: E402

__all__ += ["geqrf"]
from .removed_linalg import eig, lstsq, lu, lu_solve, matrix_rank, solve, symeig  # noqa: E402

__all__ += ["eig", "lstsq", "lu", "lu_solve", "matrix_rank", "solve", "symeig"]
# finite differences (finite_differences.py), histogramdd (histogram_functions.py),
# as_strided and its relatives (strided_functions.py, view_copies.py)
from .finite_differences import gradient  # noqa: E402
from .histogram_functions import histogramdd  # noqa: E402
from .strided_functions import as_strided, as_strided_, as_strided_scatter  # noqa: E402
from .view_copies import as_strided_copy  # noqa: E402

__all__ += ["gradient", "histogramdd", "as_strided", "as_strided_", "as_strided_copy",
            "as_strided_scatter"]
from .nn.rnn_cell_functions import (  # noqa: E402
    gru_cell,
    lstm_cell,
    rnn_relu_cell,
    rnn_tanh_cell,
)

__all__ += ["gru_cell", "lstm_cell", "rnn_relu_cell", "rnn_tanh_cell"]
from .nn.rnn_functions import gru, lstm, rnn_relu, rnn_tanh  # noqa: E402

__all__ += ["gru", "lstm", "rnn_relu", "rnn_tanh"]

from .lowrank import pca_lowrank, svd_lowrank  # noqa: E402

__all__ += ["pca_lowrank", "svd_lowrank"]
# nonzero with a fixed number of rows (ops/nonzero_static.py)
from .ops.nonzero_static import nonzero_static  # noqa: E402

__all__ += ["nonzero_static"]

# the regularised incomplete gamma functions (incomplete_gamma_functions.py)
from .incomplete_gamma_functions import igamma, igammac  # noqa: E402

__all__ += ["igamma", "igammac"]

# Last, once every function is defined: PyTorch's ``out=`` keyword, on the top-level functions that
# have it (out_argument.py).
from . import out_argument as _out_argument  # noqa: E402
from .closeness import allclose, isclose  # noqa: E402
from .number_functions import (  # noqa: E402
    bitwise_left_shift,
    bitwise_right_shift,
    dist,
    frexp,
    gcd,
    gcd_,
    lcm,
    lcm_,
    ldexp,
    ldexp_,
    nextafter,
)

__all__ += ["bitwise_left_shift", "bitwise_right_shift", "dist", "frexp", "gcd", "gcd_",
            "lcm", "lcm_", "ldexp", "ldexp_", "nextafter"]

# unsafe splits, native_* entry points, native layer forms (unsafe_splits.py,
# native_functions.py, functional_aliases.py)
from .functional_aliases import (  # noqa: E402
    constant_pad_nd,
    convolution,
    max_pool1d_with_indices,
)
from .native_functions import (  # noqa: E402
    native_batch_norm,
    native_channel_shuffle,
    native_dropout,
    native_group_norm,
    native_layer_norm,
    native_norm,
)
from .unsafe_splits import unsafe_chunk, unsafe_split, unsafe_split_with_sizes  # noqa: E402

__all__ += ["constant_pad_nd", "convolution", "max_pool1d_with_indices", "native_batch_norm",
            "native_channel_shuffle", "native_dropout", "native_group_norm",
            "native_layer_norm", "native_norm", "unsafe_chunk", "unsafe_split",
            "unsafe_split_with_sizes"]

# DLPack and buffers (utils/dlpack.py, conversion.py); is_inference (predicates.py)
from .conversion import frombuffer  # noqa: E402
from .predicates import is_inference  # noqa: E402
from .utils.dlpack import from_dlpack, to_dlpack  # noqa: E402

newaxis = None  # PyTorch's (and NumPy's) name for a new dim in an index: x[:, newaxis]
__all__ += ["frombuffer", "from_dlpack", "is_inference", "newaxis", "to_dlpack"]

# Small names of PyTorch's (device_modules.py, default_tensor_type.py, predicates.py)
from .default_tensor_type import set_default_tensor_type  # noqa: E402
from .device_modules import get_device_module  # noqa: E402
from .predicates import is_distributed  # noqa: E402

__all__ += ["get_device_module", "is_distributed", "set_default_tensor_type"]

# memory formats and layouts (memory_formats.py, memory_format_functions.py)
from .memory_format_functions import empty_permuted  # noqa: E402
from .memory_formats import (  # noqa: E402
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)

__all__ += ["channels_last", "channels_last_3d", "contiguous_format", "empty_permuted",
            "layout", "memory_format", "preserve_format", "sparse_bsc", "sparse_bsr",
            "sparse_coo", "sparse_csc", "sparse_csr", "strided"]

# storages, shared memory and memory-mapped files (storage.py, shared_memory.py)
from .shared_memory import from_file  # noqa: E402
from .storage import (  # noqa: E402
    BoolStorage,
    ByteStorage,
    CharStorage,
    DoubleStorage,
    FloatStorage,
    HalfStorage,
    IntStorage,
    LongStorage,
    ShortStorage,
    TypedStorage,
    UntypedStorage,
    is_storage,
)

__all__ += ["BoolStorage", "ByteStorage", "CharStorage", "DoubleStorage", "FloatStorage",
            "HalfStorage", "IntStorage", "LongStorage", "ShortStorage", "TypedStorage",
            "UntypedStorage", "from_file", "is_storage"]
# PyTorch's native entry points of nn.functional ops (embedding_bag_function.py,
# embedding_renorm.py, ctc_loss_function.py, grid_sampler_functions.py, norm_except_dim.py)
from .ctc_loss_function import ctc_loss  # noqa: E402
from .embedding_bag_function import embedding_bag  # noqa: E402
from .embedding_renorm import embedding_renorm_  # noqa: E402
from .grid_sampler_functions import (  # noqa: E402
    affine_grid_generator,
    grid_sampler,
    grid_sampler_2d,
)
from .norm_except_dim import norm_except_dim  # noqa: E402

__all__ += ["affine_grid_generator", "ctc_loss", "embedding_bag", "embedding_renorm_",
            "grid_sampler", "grid_sampler_2d", "norm_except_dim"]
from .grid_sampler_functions import grid_sampler_3d  # noqa: E402

__all__ += ["grid_sampler_3d"]

# the CPU default generator as an object (default_generator.py)
from .default_generator import default_generator  # noqa: E402

__all__ += ["default_generator"]

# torch.segment_reduce (segment_reduce_function.py, ops/segment_reduce.py)
from .segment_reduce_function import segment_reduce  # noqa: E402

__all__ += ["segment_reduce"]

# torch.cond, torch.while_loop in eager mode (control_flow.py)
from .control_flow import cond, while_loop  # noqa: E402

__all__ += ["cond", "while_loop"]
# complex numbers (complex_functions.py, ops/complex_parts.py; dtypes above)
from .complex_functions import (  # noqa: E402
    angle,
    complex,
    imag,
    polar,
    real,
    view_as_complex,
    view_as_real,
)

__all__ += ["angle", "cdouble", "cfloat", "complex", "complex64", "complex128", "imag",
            "polar", "real", "view_as_complex", "view_as_real"]
# PyTorch's "shell" unsigned dtypes (dtypes.py; their op support: ops/unsigned_shell.py)
uint16, uint32, uint64 = _dtypes.uint16, _dtypes.uint32, _dtypes.uint64
__all__ += ["uint16", "uint32", "uint64"]
# PyTorch's 8-bit floats (dtypes.py; conversions: float8_casts.py; ops: ops/float8_shell.py)
float8_e4m3fn, float8_e5m2 = _dtypes.float8_e4m3fn, _dtypes.float8_e5m2
float8_e4m3fnuz, float8_e5m2fnuz = _dtypes.float8_e4m3fnuz, _dtypes.float8_e5m2fnuz
float8_e8m0fnu = _dtypes.float8_e8m0fnu
__all__ += ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
            "float8_e8m0fnu"]

# Small names of PyTorch's (symbolic_numbers.py, legacy_autocast.py, algorithm_settings.py,
# build_flags.py, threads.py); GradScaler is torch.amp's, as in PyTorch
from .algorithm_settings import (  # noqa: E402
    get_deterministic_debug_mode,
    set_deterministic_debug_mode,
)
from .amp import GradScaler  # noqa: E402
from .autocasting import autocast_decrement_nesting, autocast_increment_nesting  # noqa: E402
from .build_flags import (  # noqa: E402
    compiled_with_cxx11_abi,
    has_lapack,
    has_mkl,
    has_openmp,
    has_spectral,
)
from .legacy_autocast import (  # noqa: E402
    get_autocast_cpu_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cpu_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_gpu_dtype,
)
from .symbolic_numbers import (  # noqa: E402
    sym_float,
    sym_int,
    sym_ite,
    sym_max,
    sym_min,
    sym_not,
    sym_sqrt,
    sym_sum,
)
from .threads import init_num_threads  # noqa: E402

legacy_contiguous_format = contiguous_format  # PyTorch's old name: the same object
__all__ += ["GradScaler", "autocast_decrement_nesting", "autocast_increment_nesting",
            "compiled_with_cxx11_abi", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype",
            "get_deterministic_debug_mode", "has_lapack", "has_mkl", "has_openmp",
            "has_spectral", "init_num_threads", "is_autocast_cpu_enabled",
            "legacy_contiguous_format", "set_autocast_cpu_dtype", "set_autocast_cpu_enabled",
            "set_autocast_gpu_dtype", "set_deterministic_debug_mode", "sym_float", "sym_int",
            "sym_ite", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_sum"]

# the short-time Fourier transform and its inverse (stft.py, over fft.py's ops)
from .stft import istft, stft  # noqa: E402

__all__ += ["istft", "stft"]

_out_argument.give_out_keyword(globals(), _out_argument.FUNCTIONS_WITH_OUT,
                               _out_argument.EXACT_DTYPE)

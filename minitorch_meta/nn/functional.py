"""``nn.functional``: the layer math as functions — conv2d, max_pool2d, linear, relu,
leaky_relu, losses, layer_norm, gelu, silu, embedding.

Each function is a thin wrapper over one op (``ops/``): it normalises arguments and
handles PyTorch's conveniences (unbatched inputs, ``return_indices``), nothing more. The
loss functions live in ``loss_functions.py`` and are imported here.
"""

from __future__ import annotations

from .. import functions
from ..autocasting import autocast_op
from ..autograd import no_grad
from ..caller_warnings import warn_at_caller
from ..embedding_renorm import embedding_renorm_
from ..errors import MetaDataError
from ..factories import rand
from ..ops import activations, avg_pooling, elementwise, layout, linalg, pooling
from ..ops import conv as conv_ops
from ..ops import embedding as embedding_ops
from ..ops import layer_norm as layer_norm_ops
from ..ops import one_hot as one_hot_ops
from ..ops.shapes import ShapeError, fmt, int_tuple_argument
from ..tensor import Tensor
from .adaptive_mean import mean_of_other_ranks
from .batchnorm import batch_norm as batch_norm  # composed of ops; lives beside its layers
from .conv_functions import conv1d as conv1d  # 1-D and transposed convolutions
from .conv_functions import conv_transpose1d as conv_transpose1d
from .conv_functions import conv_transpose2d as conv_transpose2d
from .loss_functions import (  # noqa: F401 - the losses, in a file of their own
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from .norm_functions import group_norm as group_norm
from .norm_functions import instance_norm as instance_norm
from .norm_functions import local_response_norm as local_response_norm
from .norm_functions import rms_norm as rms_norm
from .pool1d_functions import adaptive_avg_pool1d as adaptive_avg_pool1d  # 1-D pooling
from .pool1d_functions import avg_pool1d as avg_pool1d
from .pool1d_functions import max_pool1d as max_pool1d
from .resize_functions import interpolate as interpolate  # padding and resizing, own file
from .resize_functions import pad as pad
from .resize_functions import upsample as upsample
from .resize_functions import upsample_bilinear as upsample_bilinear
from .resize_functions import upsample_nearest as upsample_nearest


def _batched(op: str, input: Tensor, rank: int = 4):
    """Unbatched inputs ``(C, H, W)`` run as a batch of one, as PyTorch allows."""
    if input.dim() == rank - 1:
        return input.unsqueeze(0), True
    if input.dim() != rank:
        raise ShapeError(op, f"expected a {rank - 1}-D (unbatched) or {rank}-D (batched) input "
                             f"(N, C, H, W), but got a {input.dim()}-D input of shape "
                             f"{fmt(input.shape)}")
    return input, False


@autocast_op("conv2d")
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """2-D cross-correlation of ``input`` with ``weight`` (PyTorch's ``F.conv2d``).

    Shape:
        input ``(N, C_in, H, W)`` or ``(C_in, H, W)``, weight ``(C_out, C_in / groups, kH,
        kW)``, bias ``(C_out,)`` -> ``(N, C_out, H_out, W_out)``.
    """
    x, unbatched = _batched("conv2d", input)
    y = conv_ops.Conv2d(stride=stride, padding=padding, dilation=dilation,
                        groups=groups)(x, weight, bias)
    return y.squeeze(0) if unbatched else y


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """Max pooling over ``kernel_size`` windows; ``stride`` defaults to ``kernel_size``.

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)``.
    """
    x, unbatched = _batched("max_pool2d", input)
    op = pooling.MaxPool2d(kernel_size=kernel_size, stride=stride, padding=padding,
                           dilation=dilation, ceil_mode=ceil_mode, return_indices=return_indices)
    if not return_indices:
        y = op(x)
        return y.squeeze(0) if unbatched else y
    y, indices = op(x)
    if unbatched:
        y, indices = y.squeeze(0), indices.squeeze(0)
    return y, indices


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """Average pooling over ``kernel_size`` windows; ``stride`` defaults to ``kernel_size``.

    Padding counts in each window's divisor with ``count_include_pad``;
    ``divisor_override`` replaces every divisor.

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.
    """
    return avg_pooling.AvgPool2d(kernel_size=kernel_size, stride=stride, padding=padding,
                                 ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                                 divisor_override=divisor_override)(input)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average pooling to ``output_size`` (an int, or a pair whose None keeps that input size).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, *output_size)`` or ``(C, *output_size)``;
        an output of ones is the mean over H and W of an input of any rank >= 2, as PyTorch.
    """
    mean = mean_of_other_ranks("adaptive_avg_pool2d", input, output_size, 2, (3, 4))
    if mean is not None:
        return mean
    return avg_pooling.AdaptiveAvgPool2d(output_size=output_size)(input)


@autocast_op("linear")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Row-vector affine map ``input @ weight.T + bias`` (addmm for a batch of rows).

    Shape:
        input ``(*, in_features)``, weight ``(out_features, in_features)``,
        bias ``(out_features,)`` -> ``(*, out_features)``.
    """
    shape, weight_shape = input.shape, weight.shape  # read once: each read builds a Size
    if len(weight_shape) != 2:
        raise ShapeError("linear", f"expected weight to be 2-D (out_features, in_features), got "
                                   f"shape {fmt(weight_shape)}")
    if not shape or shape[-1] != weight_shape[1]:
        raise ShapeError("linear", f"input has {shape[-1] if shape else 0} features "
                                   f"(last dimension of input shape {fmt(shape)}) but weight "
                                   f"{fmt(weight_shape)} expects in_features={weight_shape[1]}")
    if len(shape) == 2:
        w_t = weight.t()
        if bias is None:
            return functions.mm(input, w_t)
        return linalg.Addmm()(bias, input, w_t)
    y = functions.matmul(input, weight.t())
    return y + bias if bias is not None else y


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` elementwise.

    Shape:
        unchanged.
    """
    return functions.relu(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``input`` where positive, else ``negative_slope * input``, elementwise.

    ``inplace`` is accepted and returns a new tensor, as ``relu`` does.

    Shape:
        unchanged.

    Raises:
        TypeError: ``negative_slope`` is not a number, or ``input`` is not floating-point.
    """
    return elementwise.LeakyRelu(negative_slope)(input)


def tanh(input: Tensor) -> Tensor:
    """``tanh(input)`` elementwise.

    Shape:
        unchanged.
    """
    return functions.tanh(input)


def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-input))`` elementwise.

    Shape:
        unchanged.
    """
    return functions.sigmoid(input)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False,
            generator=None) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Identity when ``training`` is False. ``inplace`` is accepted and returns a new tensor.

    Shape:
        unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    from .channel_dropout import require_floating

    require_floating(input)
    keep = rand(tuple(input.shape), generator=generator, dtype=input.dtype,
                device=input.device) >= p
    return input * keep * (1.0 / (1.0 - p))


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return layout.Flatten(start_dim=start_dim, end_dim=end_dim)(input)


@autocast_op("log_softmax")
def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype=None) -> Tensor:
    """``log(softmax(input))`` along ``dim``, computed stably (``dtype``: cast first, as
    PyTorch).

    Shape:
        unchanged.
    """
    if dtype is not None:
        input = input.to(dtype)
    return functions.log_softmax(input, _softmax_dim("log_softmax", input, dim))


@autocast_op("softmax")
def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype=None) -> Tensor:
    """``exp(input) / sum(exp(input))`` along ``dim`` (``dtype``: cast first, as PyTorch).

    Shape:
        unchanged.
    """
    if dtype is not None:
        input = input.to(dtype)
    return functions.softmax(input, _softmax_dim("softmax", input, dim))


def _softmax_dim(name: str, input: Tensor, dim: int | None) -> int:
    """``dim``, or PyTorch's legacy implicit choice (with its deprecation warning) when None.

    The legacy rule guesses that 0-, 1- and 3-D inputs are unbatched: dim 0, else dim 1.
    """
    if dim is None:
        warn_at_caller(f"Implicit dimension choice for {name} has been deprecated. Change "
                       "the call to include dim=X as an argument.")
        return 0 if input.dim() in (0, 1, 3) else 1
    return dim


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices as one-hot rows: ``out[..., c] = 1`` where ``tensor[...] == c``.

    ``num_classes=-1`` uses the largest value + 1, which needs the values: on meta, pass
    ``num_classes``.

    Shape:
        ``(*)`` int64 -> ``(*, num_classes)`` int64.

    Raises:
        TypeError: ``num_classes`` not an int.
        RuntimeError: ``tensor`` is not an int64 tensor, a negative value, a value
            ``>= num_classes``, or an empty input without ``num_classes``.
        MetaDataError: ``num_classes=-1`` on meta.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"one_hot(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if isinstance(num_classes, bool) or not hasattr(num_classes, "__index__"):
        raise TypeError(f"one_hot(): argument 'num_classes' (position 2) must be int, not "
                        f"{type(num_classes).__name__}")
    num_classes = num_classes.__index__()  # a NumPy integer counts as an int
    if num_classes == -1 and tensor.numel() > 0:
        # At least 1: all-negative values must reach the op's "non-negative" check.
        num_classes = max(_largest_class(tensor) + 1, 1)
    return one_hot_ops.OneHot(num_classes=num_classes)(tensor)


def _largest_class(tensor: Tensor) -> int:
    """The largest value of ``tensor``, read from its data (refused on meta with advice)."""
    one_hot_ops.check_index_dtype(tensor.dtype)  # PyTorch's dtype error comes first
    try:
        return int(tensor.max().item())
    except MetaDataError:
        raise MetaDataError(
            "one_hot: num_classes=-1 means 'the largest value + 1', but a meta tensor has no "
            f"values; pass num_classes, e.g. one_hot(labels, num_classes=10) (input shape "
            f"{fmt(tensor.shape)})") from None


@autocast_op("layer_norm")
def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dimensions (mean 0, biased variance
    1, ``eps`` added to the variance), then scale by ``weight`` and shift by ``bias``.

    Shape:
        input ``(*, *normalized_shape)``; weight and bias ``normalized_shape``; output: the
        input's shape.

    Raises:
        TypeError: ``normalized_shape`` is not a tuple, list or Size of ints.
        ShapeError: the shapes do not fit (see ``ops.layer_norm.LayerNorm``).
    """
    normalized_shape = int_tuple_argument("layer_norm", "normalized_shape", 2,
                                          normalized_shape)
    return layer_norm_ops.LayerNorm(normalized_shape=normalized_shape, eps=eps)(
        input, weight, bias)


def gelu(input: Tensor, *, approximate: str = "none") -> Tensor:
    """``input * Phi(input)`` (``Phi`` the standard normal distribution function) elementwise,
    or with ``approximate='tanh'`` its tanh approximation.

    Shape:
        unchanged.

    Raises:
        TypeError: ``approximate`` is not a string. RuntimeError: it is neither ``'none'``
            nor ``'tanh'``. NotImplementedError: the input is not floating-point.
    """
    return activations.Gelu(approximate=approximate)(input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``input * sigmoid(input)`` elementwise. ``inplace`` is accepted and returns a new
    tensor, as ``relu`` does.

    Shape:
        unchanged.

    Raises:
        NotImplementedError: the input is not floating-point.
    """
    return activations.Silu()(input)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` at the indices ``input``: ``weight[input]``.

    ``padding_idx`` (negative counts from the end) names a row whose gradient stays zero;
    ``scale_grad_by_freq`` divides each row's gradient by how often its index occurs in
    ``input``. With ``max_norm``, the rows ``input`` names whose ``norm_type``-norm exceeds
    it are first scaled down to it, in place (``embedding_renorm_``). ``sparse=True`` is
    not supported.

    Shape:
        input ``(*)`` int64 or int32, weight ``(num_embeddings, embedding_dim)`` ->
        ``(*, embedding_dim)``.

    Raises:
        AssertionError: ``padding_idx`` outside ``[-num_embeddings, num_embeddings)``
            (PyTorch's type). RuntimeError: indices that are not int64 or int32.
        IndexError: an index outside ``[0, num_embeddings)`` (not checked on meta).
        NotImplementedError: ``sparse=True``.
    """
    embedding_ops.check_supported(sparse)
    padding_idx = embedding_ops.padding_row(padding_idx, _embedding_rows(weight))
    if max_norm is not None:
        with no_grad():
            embedding_renorm_(weight, input, max_norm, norm_type)
    return embedding_ops.Embedding(padding_idx=padding_idx,
                                   scale_grad_by_freq=scale_grad_by_freq)(weight, input)


def _embedding_rows(weight: Tensor) -> int:
    """The weight's number of rows (its shape is checked by the op; 0 if it has none)."""
    shape = weight.shape
    return shape[0] if shape else 0


# More activations, vector similarity and channel dropout, each in a file of its own.
from ..functions import pdist  # noqa: E402, F401
from ..native_functions import native_channel_shuffle  # noqa: E402, F401
from .activation_functions import (  # noqa: E402, F401
    elu,
    hardsigmoid,
    hardswish,
    hardtanh,
    logsigmoid,
    mish,
    prelu,
    relu6,
    selu,
    softplus,
    softsign,
)
from .adaptive_max_pooling import (  # noqa: E402, F401
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
)
from .alpha_dropout import alpha_dropout, feature_alpha_dropout  # noqa: E402, F401
from .attention_functions import scaled_dot_product_attention  # noqa: E402, F401
from .bilinear import bilinear  # noqa: E402, F401
from .channel_dropout import dropout1d, dropout2d, dropout3d  # noqa: E402, F401
from .channel_shuffle import channel_shuffle  # noqa: E402, F401
from .conv3d_functions import conv3d, conv_transpose3d  # noqa: E402, F401 - volumetric
from .ctc_loss import ctc_loss  # noqa: E402, F401
from .embedding_bag import embedding_bag  # noqa: E402, F401
from .extra_activation_functions import (  # noqa: E402, F401
    celu,
    celu_,
    elu_,
    glu,
    hardshrink,
    hardtanh_,
    leaky_relu_,
    relu_,
    rrelu,
    rrelu_,
    selu_,
    softmin,
    softshrink,
    tanhshrink,
    threshold,
    threshold_,
)
from .fold import fold, unfold  # noqa: E402, F401
from .fractional_max_pooling import (  # noqa: E402, F401 - windows at random fractional steps
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from .grid_sampling import affine_grid, grid_sample  # noqa: E402, F401 - spatial transformers
from .gumbel_softmax import gumbel_softmax  # noqa: E402, F401
from .linear_cross_entropy_functions import linear_cross_entropy  # noqa: E402, F401
from .lp_pooling import lp_pool1d, lp_pool2d, lp_pool3d  # noqa: E402, F401
from .margin_loss_functions import (  # noqa: E402, F401 - more losses, in a file of their own
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from .multihead_functions import multi_head_attention_forward  # noqa: E402, F401
from .pixel_shuffle import pixel_shuffle, pixel_unshuffle  # noqa: E402, F401
from .pool3d_functions import (  # noqa: E402, F401
    adaptive_avg_pool3d,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool3d,
    max_pool3d,
    max_pool3d_with_indices,
)
from .similarity import cosine_similarity, normalize, pairwise_distance  # noqa: E402, F401
from .unpooling import (  # noqa: E402, F401 - max pooling's indices and their inverse
    max_pool1d_with_indices,
    max_pool2d_with_indices,
    max_unpool1d,
    max_unpool2d,
    max_unpool3d,
)

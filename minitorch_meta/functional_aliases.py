"""The layer functions PyTorch also offers at top level (``torch.conv2d``, ``torch.dropout``,
``torch.kl_div``, ...), with the signatures of those top-level forms.

They are not all ``nn.functional``'s: PyTorch's top-level forms are its native ops, so
``torch.embedding`` takes ``(weight, indices)``, ``torch.dropout`` requires ``train``,
``torch.batch_norm`` takes ``weight`` and ``bias`` before the running statistics, and the
losses take ``reduction`` as an int (0 none, 1 mean, 2 sum) that defaults to 0: PyTorch
2.13's schemas say 1 (mean), but its Python bindings give every element's loss when
``reduction`` is left out, and we follow what they do. Each function here maps its
arguments onto the ``nn.functional`` form (imported on call, so that ``import
minitorch_meta`` stays light) and adds no math of its own. ``cudnn_enabled``-style flags
choose a backend in PyTorch and are ignored here.
"""

from __future__ import annotations

from .int_arguments import is_int
from .tensor import Tensor

#: PyTorch's ``reduction`` enum (``torch.nn._reduction.get_enum``).
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _functional():
    from .nn import functional

    return functional


def _reduction(function: str, reduction) -> str:
    """The ``nn.functional`` name of an int ``reduction``."""
    if not is_int(reduction):
        raise TypeError(f"{function}(): argument 'reduction' must be int (0 none, 1 mean, "
                        f"2 sum), not {type(reduction).__name__}; nn.functional.{function} "
                        f"takes the name")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{function}(): reduction must be 0 (none), 1 (mean) or 2 (sum), "
                         f"got {reduction}")
    return _REDUCTIONS[reduction]


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """``nn.functional.conv1d``."""
    return _functional().conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """``nn.functional.conv2d``."""
    return _functional().conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """``nn.functional.conv_transpose1d``."""
    return _functional().conv_transpose1d(input, weight, bias, stride, padding,
                                          output_padding, groups, dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """``nn.functional.conv_transpose2d``."""
    return _functional().conv_transpose2d(input, weight, bias, stride, padding,
                                          output_padding, groups, dilation)


def max_pool1d(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
               ceil_mode: bool = False) -> Tensor:
    """``nn.functional.max_pool1d`` without ``return_indices``; an empty ``stride`` (the
    default) means ``kernel_size``."""
    return _functional().max_pool1d(input, kernel_size, _stride(stride), padding, dilation,
                                    ceil_mode)


def max_pool2d(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
               ceil_mode: bool = False) -> Tensor:
    """``nn.functional.max_pool2d`` without ``return_indices``; an empty ``stride`` (the
    default) means ``kernel_size``."""
    return _functional().max_pool2d(input, kernel_size, _stride(stride), padding, dilation,
                                    ceil_mode)


def avg_pool1d(input: Tensor, kernel_size, stride=(), padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """``nn.functional.avg_pool1d``; an empty ``stride`` (the default) means ``kernel_size``."""
    return _functional().avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                                    count_include_pad)


def _stride(stride):
    """PyTorch's native pooling ops write "no stride" as an empty list."""
    return None if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else stride


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """``nn.functional.adaptive_avg_pool1d``."""
    return _functional().adaptive_avg_pool1d(input, output_size)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """``nn.functional.batch_norm``, its arguments in the native order, all required."""
    return _functional().batch_norm(input, running_mean, running_var, weight, bias, training,
                                    momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                  running_mean: Tensor | None, running_var: Tensor | None,
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """``nn.functional.instance_norm``, its arguments in the native order, all required."""
    return _functional().instance_norm(input, running_mean, running_var, weight, bias,
                                       use_input_stats, momentum, eps)


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> Tensor:
    """``nn.functional.layer_norm``."""
    return _functional().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> Tensor:
    """``nn.functional.group_norm``."""
    return _functional().group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """``nn.functional.rms_norm``."""
    return _functional().rms_norm(input, normalized_shape, weight, eps)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``nn.functional.dropout(input, p, training=train)``: both arguments required, and a
    probability outside [0, 1] is the native op's RuntimeError."""
    from .inplace_functions import _check_probability

    _check_probability(p)
    return _functional().dropout(input, p, train)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """``nn.functional.embedding(indices, weight, ...)``: the table comes first here, and a
    negative ``padding_idx`` (the default -1) means no padding row."""
    return _functional().embedding(indices, weight, padding_idx if padding_idx >= 0 else None,
                                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """``nn.functional.pairwise_distance``."""
    return _functional().pairwise_distance(x1, x2, p, eps, keepdim)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    """``nn.functional.cosine_embedding_loss``, ``reduction`` an int."""
    return _functional().cosine_embedding_loss(
        input1, input2, target, margin, reduction=_reduction("cosine_embedding_loss", reduction))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    """``nn.functional.margin_ranking_loss``, ``reduction`` an int."""
    return _functional().margin_ranking_loss(
        input1, input2, target, margin, reduction=_reduction("margin_ranking_loss", reduction))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: int = 0) -> Tensor:
    """``nn.functional.hinge_embedding_loss``, ``reduction`` an int."""
    return _functional().hinge_embedding_loss(
        input, target, margin, reduction=_reduction("hinge_embedding_loss", reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                        reduction: int = 0) -> Tensor:
    """``nn.functional.triplet_margin_loss``, ``reduction`` an int."""
    return _functional().triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap,
        reduction=_reduction("triplet_margin_loss", reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """``nn.functional.poisson_nll_loss``, every argument required, ``reduction`` an int."""
    return _functional().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                          reduction=_reduction("poisson_nll_loss", reduction))


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *,
           log_target: bool = False) -> Tensor:
    """The KL divergence of ``nn.functional.kl_div``, ``reduction`` an int: 1 is the mean
    over all elements, without the functional form's warning (as in PyTorch); the default,
    0, keeps every element's term."""
    from .ops.loss import KlDiv

    return KlDiv(reduction=_reduction("kl_div", reduction), log_target=log_target)(input, target)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None,
                                     reduction: int = 0) -> Tensor:
    """``nn.functional.binary_cross_entropy_with_logits``, ``reduction`` an int."""
    return _functional().binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction("binary_cross_entropy_with_logits",
                                                    reduction), pos_weight=pos_weight)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """``nn.functional.conv3d``."""
    return _functional().conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """``nn.functional.conv_transpose3d``."""
    return _functional().conv_transpose3d(input, weight, bias, stride, padding,
                                          output_padding, groups, dilation)


def max_pool3d(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
               ceil_mode: bool = False) -> Tensor:
    """``nn.functional.max_pool3d`` without ``return_indices``; an empty ``stride`` (the
    default) means ``kernel_size``."""
    return _functional().max_pool3d(input, kernel_size, _stride(stride), padding, dilation,
                                    ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """``nn.functional.max_pool1d(..., return_indices=True)``: ``(output, indices)``; an
    empty ``stride`` (the default) means ``kernel_size``."""
    return _functional().max_pool1d(input, kernel_size, _stride(stride), padding, dilation,
                                    ceil_mode, return_indices=True)


def constant_pad_nd(input: Tensor, pad, value=0) -> Tensor:
    """``nn.functional.pad(input, pad, value=value)`` (``pad`` as ``(left, right, top,
    bottom, ...)``, the last dim first), with the native op's messages.

    Raises:
        RuntimeError: an odd number of pads, or more than two per dim of the input.
    """
    from .ops.shapes import int_tuple_argument

    pads = int_tuple_argument("constant_pad_nd", "pad", 2, pad)
    if len(pads) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pads)}")
    if len(pads) > 2 * input.dim():
        raise RuntimeError(f"Length of pad should be no more than twice the number of "
                           f"dimensions of the input. Pad length is {len(pads)} while the "
                           f"input has {input.dim()} dimensions.")
    return _functional().pad(input, pads, "constant", value)


#: the ``nn.functional`` convolution of each weight rank, plain and transposed
_CONVOLUTIONS = {3: ("conv1d", "conv_transpose1d"), 4: ("conv2d", "conv_transpose2d"),
                 5: ("conv3d", "conv_transpose3d")}


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride, padding,
                dilation, transposed: bool, output_padding, groups: int) -> Tensor:
    """The convolution of ``weight``'s rank (3: 1-D, 4: 2-D, 5: 3-D), transposed or not,
    every argument required; each of ``stride``, ``padding``, ``dilation`` and
    ``output_padding`` (read only when ``transposed``) lists one value per spatial dim, or
    one value for all.

    Shape:
        as ``nn.functional.conv{1,2,3}d`` or ``conv_transpose{1,2,3}d``.

    Raises:
        RuntimeError: a weight of fewer than 3 or more than 5 dims, an input of another rank
            than the weight's, or a list of the wrong length.
    """
    spatial = weight.dim() - 2
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if spatial > 3:
        raise RuntimeError(f"convolution: a weight of {weight.dim()} dimensions; expected 3, "
                           f"4 or 5 (a 1-D, 2-D or 3-D convolution)")
    if input.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for "
                           f"{weight.dim()}-dimensional weight {list(weight.shape)}, but got "
                           f"{input.dim()}-dimensional input of size {list(input.shape)} "
                           f"instead")
    stride, padding, dilation, output_padding = (
        _per_dim(name, values, spatial) for name, values in (
            ("stride", stride), ("padding", padding), ("dilation", dilation),
            ("output_padding", output_padding)))
    plain, transpose = _CONVOLUTIONS[weight.dim()]
    if transposed:
        return getattr(_functional(), transpose)(input, weight, bias, stride, padding,
                                                 output_padding, groups, dilation)
    return getattr(_functional(), plain)(input, weight, bias, stride, padding, dilation,
                                         groups)


def _per_dim(name: str, values, spatial: int) -> tuple:
    """``values`` (a list of ints) as one int per spatial dim: a single value is repeated."""
    from .ops.shapes import int_tuple_argument

    position = {"stride": 4, "padding": 5, "dilation": 6, "output_padding": 8}[name]
    values = int_tuple_argument("convolution", name, position, values)
    if len(values) == 1:
        return values * spatial
    if len(values) != spatial:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of "
                           f"{spatial} values to match the convolution dimensions, but got "
                           f"{name}={list(values)}")
    return values

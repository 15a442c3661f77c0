"""The normalisations beside batch and layer norm, as functions: ``group_norm``,
``instance_norm``, ``rms_norm`` and ``local_response_norm`` (re-exported by
``nn.functional``).

``group_norm`` and ``rms_norm`` are one op each (``ops/group_norm.py``, ``ops/rms_norm.py``);
``instance_norm`` is group norm with one group per channel (or, from running statistics,
batch norm's per-channel affine map); ``local_response_norm`` is composed of ops as
PyTorch composes it, so its values, gradients and ``grad_fn`` are PyTorch's.
"""

from __future__ import annotations

import math

from .. import functions
from ..autocasting import autocast_op
from ..autograd import no_grad
from ..errors import ShapeError
from ..ops import avg_pooling
from ..ops import group_norm as group_norm_ops
from ..ops import rms_norm as rms_norm_ops
from ..ops.norm_parameter_dtypes import check_parameter_dtypes
from ..ops.shapes import fmt, int_tuple_argument
from ..tensor import Tensor
from .batchnorm import check_channels, check_running_pair, normalise_with_running_stats
from .resize_functions import pad


@autocast_op("group_norm")
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise each sample over groups of ``C / num_groups`` channels (mean 0, biased
    variance 1, ``eps`` added to the variance), then scale and shift each channel.

    Shape:
        input ``(N, C, *)``; weight and bias ``(C,)``; output: the input's shape.

    Raises:
        TypeError: ``num_groups`` is not an int.
        ShapeError, ValueError: the shapes do not fit (see ``ops.group_norm.GroupNorm``).
    """
    if isinstance(num_groups, bool) or not hasattr(num_groups, "__index__"):
        raise TypeError(f"group_norm(): argument 'num_groups' (position 2) must be int, not "
                        f"{type(num_groups).__name__}")
    return group_norm_ops.GroupNorm(num_groups=num_groups.__index__(), eps=eps)(
        input, weight, bias)


@autocast_op("rms_norm")
def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """Divide by the root mean square over the last ``len(normalized_shape)`` dimensions
    (``eps`` added to the mean square; None: the machine epsilon of the computing dtype),
    then scale by ``weight``.

    Shape:
        input ``(*, *normalized_shape)``; weight ``normalized_shape``; output: the input's
        shape.

    Raises:
        TypeError: ``normalized_shape`` is not a tuple, list or Size of ints.
        ShapeError: the shapes do not fit (see ``ops.rms_norm.RMSNorm``).
    """
    normalized_shape = int_tuple_argument("rms_norm", "normalized_shape", 2, normalized_shape)
    return rms_norm_ops.RMSNorm(normalized_shape=normalized_shape, eps=eps)(input, weight)


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample over its positions, then scale and shift each
    channel.

    With ``use_input_stats`` (the default) the statistics are the sample's; given running
    statistics are then updated in place with the batch's mean of the samples' means and of
    their unbiased variances: ``running = (1 - momentum) * running + momentum * batch``.
    Without, ``running_mean``/``running_var`` normalise (evaluation).

    Shape:
        input ``(N, C, *)``; running_mean, running_var, weight, bias ``(C,)``; output: the
        input's shape.

    Raises:
        ValueError: with ``use_input_stats``, one position per channel (no variance), or only
            one of ``running_mean``/``running_var``.
        RuntimeError: ``use_input_stats=False`` without running statistics.
        ShapeError: an input of fewer than 2 dimensions, or a per-channel tensor whose size
            is not the number of channels.
        NotImplementedError: an input that is not floating-point.
    """
    shape = tuple(input.shape)
    if use_input_stats and math.prod(shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"torch.Size({list(shape)}): each channel of each sample is "
                         "normalised over its positions, so it needs at least 2")
    if len(shape) < 2:
        raise ShapeError("instance_norm", f"expected an input of at least 2 dimensions "
                                          f"(N, C, *), got shape {fmt(shape)}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"instance_norm\" not implemented for '{input.dtype}': "
                                  "convert the input first, e.g. with .float()")
    per_channel = (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                   ("running_var", running_var))
    for name, values in per_channel:
        check_channels("instance_norm", name, values, shape[1], shape)
    if use_input_stats:
        check_running_pair(running_mean, running_var)
    # PyTorch runs batch norm, whose CPU kernel takes float32 per-channel tensors beside a
    # float16 input: computed in float32, answered in float16
    answer_dtype = input.dtype
    answer_in_half = check_parameter_dtypes(input.dtype, per_channel)
    if answer_in_half:
        input = input.float()
        weight, bias = (None if p is None else p.float() for p in (weight, bias))
    if use_input_stats:
        output = group_norm_ops.GroupNorm(num_groups=shape[1], eps=eps)(input, weight, bias)
        if running_mean is not None or running_var is not None:
            _update_running_stats(input, running_mean, running_var, momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when "
                               "use_input_stats is false")
        output = normalise_with_running_stats(input, (1, shape[1]) + (1,) * (len(shape) - 2),
                                              running_mean, running_var, weight, bias, eps)
    if answer_in_half:
        output = output.to(answer_dtype)
    # PyTorch runs batch norm on the input viewed as (1, N * C, *), then views it back
    return functions._composed(output, "ViewBackward0")


def _update_running_stats(input, running_mean, running_var, momentum) -> None:
    """Blend the batch's mean of the per-sample statistics into the running ones, in place
    (no graph); the variance is unbiased (Bessel's correction), as batch norm's."""
    positions = tuple(range(2, input.dim()))
    with no_grad():
        if running_mean is not None:
            batch = functions.mean(functions.mean(input, positions), 0)
            running_mean.mul_(1 - momentum).add_(batch * momentum)
        if running_var is not None:
            batch = functions.mean(functions.var(input, positions), 0)
            running_var.mul_(1 - momentum).add_(batch * momentum)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """``input / (k + alpha * mean of input² over size neighbouring channels) ** beta``:
    each position's channels damped by their neighbours' energy (AlexNet's normalisation).
    The window is centred on the channel and padded with zeros at the ends, so the mean
    always divides by ``size``.

    Shape:
        input ``(N, C, *)`` with at least one position dimension; output: the input's shape.

    Raises:
        ValueError: an input of fewer than 3 dimensions.
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions): "
                         "local_response_norm takes (N, C, *) with at least one position "
                         "dimension")
    if input.numel() == 0:
        return input
    shape = tuple(input.shape)
    # The channels as the height of a one-channel image whose width is every position, so
    # that a (size, 1) average pool sums each window of channels (PyTorch pools 3-D inputs
    # so, and larger ones with a (size, 1, 1) 3-D pool: the same sums).
    square = (input * input).reshape(shape[0], 1, shape[1], math.prod(shape[2:]))
    square = pad(square, (0, 0, size // 2, (size - 1) // 2))
    energy = avg_pooling.AvgPool2d(kernel_size=(size, 1), stride=1, padding=0, ceil_mode=False,
                                   count_include_pad=True, divisor_override=None)(square)
    energy = energy.reshape(shape)
    return input / (energy * alpha + k).pow(beta)

"""Batch normalisation: ``F.batch_norm`` and the layers ``BatchNorm1d``, ``BatchNorm2d``,
``BatchNorm3d``, on ``_NormBase``, the state they share with the instance norm layers.

Each channel is normalised with the mean and variance of the batch (training) or with the
running estimates kept in the layer's buffers (evaluation), then scaled by ``weight`` and
shifted by ``bias``. The forward pass is composed of existing differentiable ops (mean,
sub, mul, sqrt, div, add), so autograd supplies the gradients; the output's ``grad_fn``
is named as PyTorch's, ``NativeBatchNormBackward0``. Running statistics are updated in
place under ``no_grad``; on meta those writes are shape-only no-ops.
"""

from __future__ import annotations

import math

from .. import dtypes, functions
from ..autograd import no_grad
from ..errors import ShapeError
from ..factories import empty, ones, tensor, zeros
from ..ops.norm_parameter_dtypes import check_parameter_dtypes
from ..ops.shapes import fmt
from ..tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter


def _verify_batch_size(shape) -> None:
    """PyTorch's rule: training needs more than one value per channel to have a variance."""
    values_per_channel = shape[0] * math.prod(shape[2:])
    if values_per_channel == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input size "
                         f"torch.Size({list(shape)})")


def check_running_pair(running_mean: Tensor | None, running_var: Tensor | None) -> None:
    """PyTorch's rule while training: the running statistics are updated together, so both
    are given or neither is."""
    if (running_mean is None) != (running_var is None):
        given = "running_mean" if running_var is None else "running_var"
        raise ValueError(f"running_mean and running_var must either both be None or neither "
                         f"be None (only {given} was given)")


def check_channels(op: str, name: str, values: Tensor | None, channels: int, shape) -> None:
    """``values`` (a per-channel vector) must hold one value per input channel."""
    if values is not None and values.numel() != channels:
        raise ShapeError(op, f"{name} should contain {channels} elements not "
                             f"{values.numel()} (the input of shape {fmt(shape)} has "
                             f"{channels} channels in dimension 1)")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dimension 1) of ``input``, then scale and shift it.

    ``training=True`` uses the batch's mean and biased variance over every dimension but
    the channel one, and, when given, updates ``running_mean``/``running_var`` in place:
    ``running = (1 - momentum) * running + momentum * batch`` with the *unbiased* batch
    variance. ``training=False`` normalises with ``running_mean``/``running_var``.
    ``momentum`` may also be a 0-d tensor (the layers pass one for the cumulative average,
    so the batch count is never read back to Python: no GPU sync, and it works on meta).

    Shape:
        input ``(N, C, *)``; running_mean, running_var, weight, bias ``(C,)``;
        output: the input's shape.

    Raises:
        ValueError: one value per channel while training, a non-positive ``eps``, or only
            one of ``running_mean``/``running_var`` while training.
        RuntimeError: ``training=False`` without running statistics.
        ShapeError: an input of fewer than 2 dimensions, or a per-channel tensor whose size
            is not the number of channels.
    """
    shape = tuple(input.shape)
    if len(shape) < 2:
        raise ShapeError("batch_norm", f"expected an input of at least 2 dimensions (N, C, *), "
                                       f"got shape {fmt(shape)}")
    channels = shape[1]
    if training:
        _verify_batch_size(shape)
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if training:
        check_running_pair(running_mean, running_var)
    per_channel = (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                   ("running_var", running_var))
    for name, values in per_channel:
        check_channels("batch_norm", name, values, channels, shape)
    answer_in_half = check_parameter_dtypes(input.dtype, per_channel)
    # Statistics are per channel: reduce over N and every spatial axis at once, and keep
    # the reduced axes so that they broadcast back over the input.
    axes = (0,) + tuple(range(2, len(shape)))
    stat_shape = (1, channels) + (1,) * (len(shape) - 2)
    if training:
        output = _normalise_with_batch_stats(input, axes, stat_shape, running_mean,
                                             running_var, weight, bias, momentum, eps)
    else:
        output = normalise_with_running_stats(input, stat_shape, running_mean, running_var,
                                               weight, bias, eps)
    if answer_in_half:  # computed in the parameters' float32, answered in the input's dtype
        output = output.to(input.dtype)
    return functions._composed(output, "NativeBatchNormBackward0", input, weight, bias)


def _normalise_with_batch_stats(input, axes, stat_shape, running_mean, running_var, weight,
                                bias, momentum, eps):
    mean = functions.mean(input, axes, keepdim=True)
    centred = input - mean
    # The biased variance normalises, as in PyTorch; centring first avoids the cancellation
    # of E[x²] - E[x]².
    var = functions.mean(centred * centred, axes, keepdim=True)
    if running_mean is not None or running_var is not None:
        count = math.prod(input.shape[a] for a in axes)
        _update_running_stats(running_mean, running_var, mean, var, count, momentum)
    # Fold 1/std and weight into one per-channel factor: one pass over the input, not two.
    scale = 1.0 / functions.sqrt(var + eps)
    if weight is not None:
        scale = scale * weight.view(stat_shape)
    output = centred * scale
    return output + bias.view(stat_shape) if bias is not None else output


def _update_running_stats(running_mean, running_var, mean, var, count: int, momentum) -> None:
    """Blend the batch statistics into the running ones, in place (no graph)."""
    channels = mean.shape[1]
    keep = 1 - momentum  # a number, or a 0-d tensor for the cumulative average
    with no_grad():
        if running_mean is not None:
            running_mean.mul_(keep).add_(mean.reshape(channels) * momentum)
        if running_var is not None:
            # The running variance estimates the population's: Bessel's correction.
            unbiased = var.reshape(channels) * (count / (count - 1))
            running_var.mul_(keep).add_(unbiased * momentum)


def normalise_with_running_stats(input, stat_shape, running_mean, running_var, weight, bias,
                                  eps):
    if running_mean is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if running_var is None:
        raise RuntimeError("running_var must be defined in evaluation mode")
    # With fixed statistics the whole map is per-channel affine: ``input * scale + shift``,
    # two passes over the input.
    scale = 1.0 / functions.sqrt(running_var + eps)
    if weight is not None:
        scale = scale * weight
    shift = -(running_mean * scale)
    if bias is not None:
        shift = shift + bias
    return input * scale.view(stat_shape) + shift.view(stat_shape)


class _NormBase(Module):
    """The state batch and instance norm layers share (PyTorch's ``_NormBase``).

    ``weight`` (ones) and ``bias`` (zeros) are parameters when ``affine``; the buffers
    ``running_mean`` (zeros), ``running_var`` (ones) and ``num_batches_tracked`` (int64 0-d)
    exist when ``track_running_stats``. ``momentum=None`` makes the running statistics a
    cumulative average over the ``num_batches_tracked`` batches seen.
    """

    _version = 2  # PyTorch's: the state-dict format with ``num_batches_tracked``

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            # A count, whatever the layer's dtype.
            self.register_buffer("num_batches_tracked",
                                 tensor(0, dtype=dtypes.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Forget the statistics seen so far: mean 0, variance 1, no batch counted."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Reset the running statistics, and the affine map to the identity."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        # Version 2 added ``num_batches_tracked``: an older (or unversioned) dict that lacks
        # it keeps the layer's own count rather than reporting it missing, as in PyTorch.
        # ``state_dict`` is load_state_dict's copy, so the caller's dict is not changed.
        version = local_metadata.get("version")
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats \
                and key not in state_dict:
            kept = self.num_batches_tracked
            state_dict[key] = kept if kept is not None and not kept.is_meta \
                else tensor(0, dtype=dtypes.int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    """What ``BatchNorm1d``, ``BatchNorm2d`` and ``BatchNorm3d`` share; they differ only in
    the input ranks they accept."""

    def _channel_dim(self, input: Tensor) -> int:
        return 1  # every accepted input is a batch

    def _check_channels(self, input: Tensor) -> None:
        channels = input.shape[self._channel_dim(input)]
        if channels != self.num_features:
            raise ShapeError("batch_norm", f"{self._get_name()}(num_features="
                                           f"{self.num_features}) expects {self.num_features} "
                                           f"channels in dimension 1, but the input of shape "
                                           f"{fmt(input.shape)} has {channels}; set "
                                           f"num_features={channels} or make the layer before "
                                           f"produce {self.num_features} channels")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        self._check_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                # The cumulative average: batch k gets weight 1/k. Kept a tensor, so the
                # count is not read back (see ``batch_norm``).
                stats = self.running_mean if self.running_mean is not None else input
                factor = 1.0 / self.num_batches_tracked.to(stats.dtype)
        # Eval mode uses the running statistics when there are any, the batch's otherwise.
        use_batch_stats = self.training or (self.running_mean is None
                                            and self.running_var is None)
        # Buffers are passed only when they are to be updated (training and tracking) or
        # read (eval): a layer that does not track leaves its buffers alone.
        pass_buffers = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if pass_buffers else None,
                          self.running_var if pass_buffers else None, self.weight, self.bias,
                          use_batch_stats, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of features ``(N, C)`` or of sequences ``(N, C, L)``, per channel.

    Shape:
        input ``(N, C)`` or ``(N, C, L)`` -> output of the same shape.

    Raises:
        ValueError: an input that is not 2-D or 3-D; one value per channel while training.
        ShapeError: ``C`` is not ``num_features``.
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of images ``(N, C, H, W)``, per channel.

    Shape:
        input ``(N, C, H, W)`` -> output of the same shape.

    Raises:
        ValueError: an input that is not 4-D; one value per channel while training.
        ShapeError: ``C`` is not ``num_features``.
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of volumes ``(N, C, D, H, W)``, per channel.

    Shape:
        input ``(N, C, D, H, W)`` -> output of the same shape.

    Raises:
        ValueError: an input that is not 5-D; one value per channel while training.
        ShapeError: ``C`` is not ``num_features``.
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "batch_norm"]

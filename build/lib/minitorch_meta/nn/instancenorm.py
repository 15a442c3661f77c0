"""Instance normalisation layers: ``InstanceNorm1d``, ``InstanceNorm2d``, ``InstanceNorm3d``.

Each channel of each sample is normalised over its own positions (``F.instance_norm``).
The state (optional affine parameters, optional running statistics) is batch norm's
(``_NormBase``), with PyTorch's other defaults: no affine map and no running statistics.
Unlike batch norm, the layers never count ``num_batches_tracked``, as in PyTorch.
"""

from __future__ import annotations

from ..caller_warnings import warn_at_caller
from ..tensor import Tensor
from .batchnorm import _NormBase
from .norm_functions import instance_norm


class _InstanceNorm(_NormBase):
    """What the instance norm layers share; they differ in the ranks they accept.

    ``_ranks`` is (unbatched, batched): an input of the first rank is one sample.
    """

    _ranks = (2, 3)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:
        unbatched, batched = self._ranks
        if input.dim() not in self._ranks:
            raise ValueError(f"expected {unbatched}D or {batched}D input (got {input.dim()}D "
                             "input)")

    def _channel_dim(self, input: Tensor) -> int:
        return input.dim() - self._ranks[0]  # 1 in a batch, 0 in one sample

    def _check_features(self, input: Tensor) -> None:
        """The channel count must be ``num_features`` when it sizes the affine parameters;
        otherwise it is not used, and a mismatch only warns, as in PyTorch."""
        feature_dim = self._channel_dim(input)
        channels = input.shape[feature_dim]
        if channels == self.num_features:
            return
        if self.affine:
            raise ValueError(f"expected input's size at dim={feature_dim} to match num_features"
                             f" ({self.num_features}), but got: {channels}.")
        warn_at_caller(f"input's size at dim={feature_dim} does not match num_features. You can "
                       "silence this warning by not passing in num_features, which is not used "
                       "because affine=False")

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        # Eval mode normalises with the running statistics when there are any.
        return instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                             self.training or not self.track_running_stats,
                             self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        self._check_features(input)
        if input.dim() == self._ranks[0]:  # one sample: run it as a batch of one
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of sequences ``(N, C, L)`` (or one sequence ``(C, L)``): each
    channel of each sample normalised over its ``L`` positions.

    Shape:
        input ``(N, C, L)`` or ``(C, L)`` -> output of the same shape.

    Raises:
        ValueError: an input that is not 2-D or 3-D, a single position while normalising
            with the input's statistics, or (with ``affine``) ``C`` other than
            ``num_features``.
    """

    _ranks = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of images ``(N, C, H, W)`` (or one image ``(C, H, W)``): each
    channel of each sample normalised over its ``H × W`` pixels.

    Shape:
        input ``(N, C, H, W)`` or ``(C, H, W)`` -> output of the same shape.

    Raises:
        ValueError: an input that is not 3-D or 4-D, a single pixel while normalising with
            the input's statistics, or (with ``affine``) ``C`` other than ``num_features``.
    """

    _ranks = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of volumes ``(N, C, D, H, W)`` (or one volume ``(C, D, H, W)``).

    Shape:
        input ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> output of the same shape.

    Raises:
        ValueError: an input that is not 4-D or 5-D, a single voxel while normalising with
            the input's statistics, or (with ``affine``) ``C`` other than ``num_features``.
    """

    _ranks = (4, 5)


__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]

"""The lazy norm layers: ``LazyBatchNorm1d``/``2d``/``3d`` and ``LazyInstanceNorm1d``/
``2d``/``3d`` take ``num_features`` from their first input's channel count.

``_LazyNormBase`` (PyTorch's name) holds everything they share: the placeholders
(``weight`` and ``bias`` when ``affine``, the buffers ``running_mean`` and ``running_var``
when tracking running statistics) and their materialisation. Each public class borrows the
rank rule of the class it becomes. As in PyTorch, a lazy batch norm is no ``BatchNorm2d``
(it derives from the private ``_BatchNorm``), and the lazy instance norms default to
``affine=True, track_running_stats=True``, unlike ``InstanceNorm2d``.
"""

from __future__ import annotations

from .. import dtypes
from ..factories import tensor
from ..tensor import Tensor
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .lazy import LazyModuleMixin, infer_channels, materialize
from .parameter import UninitializedBuffer, UninitializedParameter

_PER_CHANNEL = ("weight", "bias", "running_mean", "running_var")


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """Shape inference of the lazy norm layers: ``num_features`` is the channel count of the
    first input, which every per-channel tensor then gets as its size.

    Raises:
        ValueError: the first input has a rank the ordinary layer refuses (PyTorch's
            message); the layer stays lazy.
    """

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        # No affine map and no statistics yet: they would be tensors thrown away at once.
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            # A count has its size already, whatever the layer's dtype.
            self.num_batches_tracked = tensor(0, dtype=dtypes.int64, device=device)

    def reset_parameters(self) -> None:
        # The constructor's call (no features yet) and a placeholder have nothing to reset.
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            self.num_features = infer_channels(self, input)
            materialize(self, dict.fromkeys(_PER_CHANNEL, (self.num_features,)))
            return
        # Loaded from a state dict, or nothing to materialise (no affine map, no
        # statistics): the count comes from a loaded tensor, else from the input.
        present = [getattr(self, name) for name in _PER_CHANNEL]
        present = [value for value in present if value is not None]
        self.num_features = present[0].shape[0] if present else infer_channels(self, input)


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm1d`` whose ``num_features`` is the channel count of its first input.

    Shape:
        input ``(N, C)`` or ``(N, C, L)`` -> output of the same shape.
    """

    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm2d`` whose ``num_features`` is the channel count of its first input.

    Shape:
        input ``(N, C, H, W)`` -> output of the same shape.
    """

    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm3d`` whose ``num_features`` is the channel count of its first input.

    Shape:
        input ``(N, C, D, H, W)`` -> output of the same shape.
    """

    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """An ``InstanceNorm1d`` whose ``num_features`` is the channel count of its first input.

    Shape:
        input ``(N, C, L)`` or ``(C, L)`` -> output of the same shape.
    """

    cls_to_become = InstanceNorm1d
    _ranks = InstanceNorm1d._ranks


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """An ``InstanceNorm2d`` whose ``num_features`` is the channel count of its first input.

    Shape:
        input ``(N, C, H, W)`` or ``(C, H, W)`` -> output of the same shape.
    """

    cls_to_become = InstanceNorm2d
    _ranks = InstanceNorm2d._ranks


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """An ``InstanceNorm3d`` whose ``num_features`` is the channel count of its first input.

    Shape:
        input ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> output of the same shape.
    """

    cls_to_become = InstanceNorm3d
    _ranks = InstanceNorm3d._ranks


__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]

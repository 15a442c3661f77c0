"""Normalisation layers that keep no running statistics: ``LayerNorm`` (each sample over
its last dimensions, the normalisation of transformers), ``RMSNorm`` (the same without
centring), ``GroupNorm`` (each sample over groups of channels) and ``LocalResponseNorm``
(each position over neighbouring channels). Batch and instance norm are in
``batchnorm.py`` and ``instancenorm.py``."""

from __future__ import annotations

from ..factories import empty
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class LayerNorm(Module):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last
    ``len(normalized_shape)`` dimensions of each sample.

    ``normalized_shape`` is an int (the last dimension's size) or a tuple/list of ints.
    With ``elementwise_affine``, ``weight`` (ones) and, unless ``bias=False``, ``bias``
    (zeros) are parameters of shape ``normalized_shape``; otherwise both are None.

    Shape:
        input ``(*, *normalized_shape)`` -> output of the same shape.

    Raises:
        ShapeError: the input's last dimensions are not ``normalized_shape``.
    """

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        _set_up_shape_norm(self, normalized_shape, eps, elementwise_affine, bias, device, dtype)

    def reset_parameters(self) -> None:
        """The identity map: weight ones, bias zeros."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """``x / sqrt(mean(x²) + eps) * weight`` over the last ``len(normalized_shape)``
    dimensions of each sample (root mean square layer normalisation: no centring, no bias).

    ``normalized_shape`` is an int (the last dimension's size) or a tuple/list of ints.
    ``eps=None`` is the machine epsilon of the dtype the statistics are computed in. With
    ``elementwise_affine``, ``weight`` (ones) is a parameter of shape ``normalized_shape``;
    otherwise it is None.

    Shape:
        input ``(*, *normalized_shape)`` -> output of the same shape.

    Raises:
        ShapeError: the input's last dimensions are not ``normalized_shape``.
    """

    def __init__(self, normalized_shape, eps: float | None = None,
                 elementwise_affine: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        _set_up_shape_norm(self, normalized_shape, eps, elementwise_affine, None, device, dtype)

    def reset_parameters(self) -> None:
        """The identity map: weight ones."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class GroupNorm(Module):
    """Group normalisation: the ``num_channels`` channels of each sample split into
    ``num_groups`` groups, each normalised over its channels and positions, then each channel
    scaled and shifted (``num_groups=1``: over the whole sample; ``num_groups=num_channels``:
    instance norm).

    With ``affine``, ``weight`` (ones) and, unless ``bias=False``, ``bias`` (zeros) are
    parameters of shape ``(num_channels,)``; otherwise both are None.

    Shape:
        input ``(N, C, *)`` with ``C = num_channels`` -> output of the same shape.

    Raises:
        ValueError: (at construction) ``num_groups`` not positive or not dividing
            ``num_channels``.
        ShapeError: an input whose channels are not divisible into the groups, or not
            ``num_channels`` when there are affine parameters.
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        if num_groups <= 0:  # (PyTorch: a ZeroDivisionError for 0, a later error below)
            raise ValueError(f"num_groups must be positive, but got {num_groups}")
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _register_affine(self, (num_channels,), affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """The identity map: weight ones, bias zeros."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class LocalResponseNorm(Module):
    """Local response normalisation (AlexNet's): each channel divided by
    ``(k + alpha * mean of input² over size neighbouring channels) ** beta``.

    Shape:
        input ``(N, C, *)`` with at least one position dimension -> output of the same
        shape.

    Raises:
        ValueError: an input of fewer than 3 dimensions.
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _set_up_shape_norm(module: Module, normalized_shape, eps, elementwise_affine: bool,
                       bias: bool | None, device, dtype) -> None:
    """What ``LayerNorm`` and ``RMSNorm`` set up alike: ``normalized_shape`` as a tuple (an
    int is the last dimension's size), ``eps``, ``elementwise_affine``, and the affine
    parameters (``bias=None``: none at all), reset to the identity map."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    module.normalized_shape = tuple(normalized_shape)
    module.eps = eps
    module.elementwise_affine = elementwise_affine
    _register_affine(module, module.normalized_shape, elementwise_affine, bias, device, dtype)
    module.reset_parameters()


def _register_affine(module: Module, shape: tuple, affine: bool, bias: bool | None, device,
                     dtype) -> None:
    """``weight`` and (with ``bias``) ``bias`` parameters of ``shape`` when ``affine``;
    None registered in their place otherwise, so that both attributes exist (``bias=None``:
    a layer with no bias at all, as ``RMSNorm``)."""
    module.register_parameter("weight", Parameter(empty(shape, device=device, dtype=dtype))
                              if affine else None)
    if bias is not None:
        module.register_parameter("bias", Parameter(empty(shape, device=device, dtype=dtype))
                                  if affine and bias else None)


def _reset_affine(module: Module) -> None:
    """The identity map: weight ones and bias zeros, where they exist."""
    if module.weight is not None:
        init.ones_(module.weight)
    if getattr(module, "bias", None) is not None:
        init.zeros_(module.bias)


__all__ = ["GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"]

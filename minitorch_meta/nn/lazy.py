"""Lazy layers: ``LazyLinear`` and ``LazyConv2d`` learn their input size from their first call.

Until then their parameters are ``UninitializedParameter`` placeholders. A forward
pre-hook reads the input's shape, materialises the parameters on their device (meta
included, so a meta dry run is enough), initialises them, removes itself and turns the
module into its ordinary class (``cls_to_become``): a ``LazyLinear`` becomes a ``Linear``.
"""

from __future__ import annotations

from ..autograd import no_grad
from ..errors import ShapeError
from ..ops.shapes import fmt
from ..tensor import Tensor
from .conv import Conv2d
from .linear import Linear
from .parameter import UninitializedParameter, is_lazy


class LazyModuleMixin:
    """Shape inference on the first call for a module whose parameters are placeholders.

    A subclass defines ``initialize_parameters(*inputs)`` and names its ordinary class in
    ``cls_to_become``.

    Raises:
        RuntimeError: parameters are still uninitialised after ``initialize_parameters``.
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Registered first, so it runs before any hook a user adds later.
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer is still a placeholder."""
        members = list(self._parameters.values()) + list(self._buffers.values())
        return any(is_lazy(value) for value in members)

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define "
                                  "initialize_parameters(*inputs)")


def _infer_parameters(module, args) -> None:
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` whose ``in_features`` is the last dimension of its first input.

    Shape:
        input ``(*, in_features)`` -> output ``(*, out_features)``.
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        if not self.has_uninitialized_params():
            self.in_features = self.weight.shape[1]  # loaded from a state dict
            return
        if input.dim() == 0:
            raise ShapeError("linear", "expected an input with at least one dimension "
                                       "(*, in_features), got a 0-D tensor")
        with no_grad():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


class LazyConv2d(LazyModuleMixin, Conv2d):
    """A ``Conv2d`` whose ``in_channels`` is the channel count of its first input.

    Shape:
        input ``(N, C_in, H, W)`` or ``(C_in, H, W)`` -> ``(N, C_out, H_out, W_out)``.
    """

    cls_to_become = Conv2d

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        if not self.has_uninitialized_params():
            self.in_channels = self.weight.shape[1] * self.groups  # loaded from a state dict
            return
        if input.dim() not in (3, 4):
            raise ShapeError("conv2d", f"expected a 3-D (C_in, H, W) or 4-D (N, C_in, H, W) input "
                                       f"to {type(self).__name__}, but got input of shape "
                                       f"{fmt(input.shape)}")
        if input.shape[-3] % self.groups:  # PyTorch's check, deferred to the first input
            raise ValueError(f"in_channels must be divisible by groups, got in_channels="
                             f"{input.shape[-3]} (the input's channels) and groups="
                             f"{self.groups}")
        with no_grad():
            self.in_channels = input.shape[-3]
            self.weight.materialize((self.out_channels, self.in_channels // self.groups)
                                    + self.kernel_size)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

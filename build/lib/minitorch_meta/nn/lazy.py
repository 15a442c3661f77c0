"""Lazy layers learn their input size from their first call: ``LazyModuleMixin``, the
helpers every lazy layer shares, and ``LazyLinear``.

Until then their parameters (and buffers) are ``UninitializedParameter``
(``UninitializedBuffer``) placeholders. A forward pre-hook reads the input's shape,
materialises the placeholders on their device (meta included, so a meta dry run is
enough), initialises them, removes itself and turns the module into its ordinary class
(``cls_to_become``): a ``LazyLinear`` becomes a ``Linear``. The lazy convolutions are in
``lazy_conv.py``, the lazy batch and instance norms in ``lazy_norm.py``.
"""

from __future__ import annotations

from ..autograd import no_grad
from ..errors import ShapeError
from ..tensor import Tensor
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


def infer_channels(module, input: Tensor) -> int:
    """The channel count of ``input``, the first input of the lazy ``module``: checked first
    by the module's own rank rule (``_check_input_dim``), then read in the dimension its
    ``_channel_dim(input)`` names (1 in a batch, 0 in one unbatched sample)."""
    module._check_input_dim(input)
    return input.shape[module._channel_dim(input)]


def materialize(module, shapes: dict) -> None:
    """Give each placeholder of ``module`` named in ``shapes`` (None members are skipped)
    its shape, then draw the module's initial values (``reset_parameters``).

    Raises:
        RuntimeError: some of those members were loaded from a state dict and others not:
            drawing fresh values would silently overwrite the loaded ones.
    """
    members = {name: getattr(module, name) for name in shapes}
    members = {name: value for name, value in members.items() if value is not None}
    loaded = [name for name, value in members.items() if not is_lazy(value)]
    if loaded:
        waiting = [name for name in members if name not in loaded]
        raise RuntimeError(f"{module._get_name()}: {', '.join(loaded)} were loaded from a state "
                           f"dict but {', '.join(waiting)} were not; load every one of them, or "
                           "none before the first call")
    with no_grad():
        for name, value in members.items():
            value.materialize(shapes[name])
        module.reset_parameters()


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
        self.in_features = input.shape[-1]
        materialize(self, {"weight": (self.out_features, self.in_features),
                           "bias": (self.out_features,)})

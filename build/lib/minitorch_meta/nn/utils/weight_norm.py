"""``nn.utils.weight_norm`` / ``remove_weight_norm``: the older, hook-based weight
normalisation (deprecated in PyTorch for ``nn.utils.parametrizations.weight_norm``, with
the same FutureWarning here).

The parameter ``weight`` is replaced by ``weight_g`` (magnitude) and ``weight_v``
(direction), which ``state_dict`` holds; a forward pre-hook recomputes ``module.weight``
(a plain attribute) from them before every call.
"""

from __future__ import annotations

from typing import Any

from ...caller_warnings import warn_at_caller
from ..module import Module
from ..parameter import Parameter, UninitializedParameter
from .weight_norm_math import WHOLE_TENSOR, norm_except_dim
from .weight_norm_math import weight_norm as _weight_norm

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]

_DEPRECATED = ("`torch.nn.utils.weight_norm` is deprecated in favor of "
               "`torch.nn.utils.parametrizations.weight_norm`.")


class WeightNorm:
    """The forward pre-hook that rebuilds ``module.<name>`` from ``<name>_g`` and
    ``<name>_v``."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = WHOLE_TENSOR if dim is None else dim

    def compute_weight(self, module: Module) -> Any:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int) -> WeightNorm:
        """Split ``module.<name>`` into ``<name>_g`` and ``<name>_v`` and add the hook.

        Raises:
            RuntimeError: ``name`` already has a weight_norm hook.
            ValueError: the parameter is still uninitialised (a lazy module not yet called).
        """
        warn_at_caller(_DEPRECATED, FutureWarning)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Put back ``module.<name>`` as one parameter holding the current weight."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrise ``module.<name>`` as ``g * v / ||v||`` (norm over every dim but
    ``dim``; ``dim=None``: over the whole tensor), with hooks. Deprecated: warns.

    Shape:
        ``<name>_v``: the weight's; ``<name>_g``: the weight's with every dim but ``dim``
        of size 1 (0-d for ``dim=None``).
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``weight_norm``: ``<name>`` becomes one parameter again.

    Raises:
        ValueError: ``module`` has no weight_norm hook on ``name``.
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")

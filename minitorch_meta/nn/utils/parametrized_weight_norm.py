"""``nn.utils.parametrizations.weight_norm``: ``weight = g * v / ||v||`` as a
parametrization (the successor of the hook-based ``nn.utils.weight_norm``).

``g`` and ``v`` are ``parametrizations.weight.original0`` and ``original1`` in the
``state_dict``, as in PyTorch; a load pre-hook renames the old ``weight_g`` / ``weight_v``
of a checkpoint saved with the hook-based ``weight_norm`` to them, so it still loads.
"""

from __future__ import annotations

from ..module import Module
from .parametrize import register_parametrization
from .weight_norm_math import WHOLE_TENSOR, norm_except_dim
from .weight_norm_math import weight_norm as _weight_norm


class _WeightNorm(Module):
    """The parametrization: ``(g, v) -> g * v / ||v||``; its right inverse splits a weight
    into its norm (over every dim but ``dim``) and itself."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = WHOLE_TENSOR if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrise ``module.<name>`` by its magnitude ``g`` (norm over every dim but
    ``dim``; ``dim=None``: over the whole tensor) and direction ``v``.

    Shape:
        ``original0`` (g): the weight's shape with every dim but ``dim`` of size 1 (0-d for
        ``dim=None``); ``original1`` (v): the weight's.
    """
    register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    module._register_load_state_dict_pre_hook(_OldCheckpointKeys(name))
    return module


class _OldCheckpointKeys:
    """The load pre-hook that renames a hook-based ``weight_norm`` checkpoint's
    ``<name>_g`` / ``<name>_v`` to ``parametrizations.<name>.original0`` / ``original1``
    (only when both are there)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, state_dict, prefix: str, *_) -> None:
        g_key, v_key = f"{prefix}{self.name}_g", f"{prefix}{self.name}_v"
        if g_key in state_dict and v_key in state_dict:
            new_prefix = f"{prefix}parametrizations.{self.name}."
            state_dict[new_prefix + "original0"] = state_dict.pop(g_key)
            state_dict[new_prefix + "original1"] = state_dict.pop(v_key)

"""``nn.utils.spectral_norm`` / ``remove_spectral_norm``: the older, hook-based spectral
normalisation (``nn.utils.parametrizations.spectral_norm`` is its successor).

The parameter ``weight`` becomes ``weight_orig``; the buffers ``weight_u`` and
``weight_v`` hold the power iteration's vectors; a forward pre-hook sets ``module.weight``
(a plain attribute) to ``weight_orig / sigma`` before every call, running
``n_power_iterations`` steps first in training mode. ``state_dict`` keys are PyTorch's:
``weight_orig``, ``weight_u``, ``weight_v``, and its version hooks
(``spectral_norm_state.py``) load PyTorch's first-version checkpoints.
"""

from __future__ import annotations

from typing import Any

from ... import functions
from ...autograd import no_grad
from ..conv3d import ConvTranspose3d
from ..conv_transpose import ConvTranspose1d, ConvTranspose2d
from ..module import Module
from ..parameter import Parameter, UninitializedParameter
from .spectral_norm_math import normalize_into, random_unit_vector, weight_to_matrix
from .spectral_norm_state import SpectralNormLoadStateDictPreHook, SpectralNormStateDictHook

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that sets ``module.<name>`` to ``<name>_orig / sigma``, sigma
    being the estimate ``u . (W v)`` of the largest singular value of the weight matrix.

    Raises:
        ValueError: ``n_power_iterations`` is not positive.
    """

    _version: int = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        return weight_to_matrix(weight, self.dim)

    def compute_weight(self, module: Module, do_power_iteration: bool):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    normalize_into(v, functions.mv(weight_mat.t(), u), self.eps)
                    normalize_into(u, functions.mv(weight_mat, v), self.eps)
                # clones: the graph must not see the next call's in-place updates
                u, v = u.clone(), v.clone()
        sigma = functions.dot(u, functions.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        """Put back ``module.<name>`` as one parameter holding the normalised weight."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> SpectralNorm:
        """Move ``module.<name>`` to ``<name>_orig``, add the buffers, the forward
        pre-hook and the state-dict hooks.

        Raises:
            RuntimeError: ``name`` already has a spectral_norm hook.
            ValueError: the parameter is None or still uninitialised.
            KeyError: ``module`` has no parameter ``name``.
        """
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        h, w = fn.reshape_weight_to_matrix(weight).shape
        u = random_unit_vector(weight, h, fn.eps)
        v = random_unit_vector(weight, w, fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


def default_dim(module: Module) -> int:
    """The dim that indexes output channels: 1 for transposed convolutions, else 0."""
    return 1 if isinstance(module, ConvTranspose1d | ConvTranspose2d | ConvTranspose3d) else 0


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its estimated largest singular value before every call
    (one power-iteration step per call in training mode), with hooks.

    Shape:
        ``weight_u``: ``(weight.shape[dim],)``; ``weight_v``: ``(numel / that,)``.
    """
    SpectralNorm.apply(module, name, n_power_iterations,
                       default_dim(module) if dim is None else dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``spectral_norm``: ``<name>`` becomes one parameter holding the normalised
    weight (and its state-dict hooks go).

    Raises:
        ValueError: ``module`` has no spectral_norm hook on ``name``.
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    _remove_first(module._state_dict_hooks, SpectralNormStateDictHook, name)
    _remove_first(module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook, name)
    return module


def _remove_first(registry, kind: type, name: str) -> None:
    """Remove the first hook of class ``kind`` for the parameter ``name`` (a load
    pre-hook is held through ``ModuleBoundHook``'s ``hook``)."""
    for key, hook in registry.items():
        hook = getattr(hook, "hook", hook)
        if isinstance(hook, kind) and hook.fn.name == name:
            del registry[key]
            return

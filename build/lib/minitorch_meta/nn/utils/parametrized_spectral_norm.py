"""``nn.utils.parametrizations.spectral_norm``: the weight divided by an estimate of its
largest singular value, as a parametrization.

The estimate comes from the power iteration on the buffers ``_u`` and ``_v`` of the
parametrization (``parametrizations.weight.0._u`` in the ``state_dict``): 15 steps when
registered, then ``n_power_iterations`` steps on each access in training mode and none in
eval mode, as in PyTorch.
"""

from __future__ import annotations

from ... import functions
from ...autograd import no_grad
from ...tensor import Tensor
from ..module import Module
from ..similarity import normalize
from .parametrize import register_parametrization
from .spectral_norm import default_dim
from .spectral_norm_math import normalize_into, random_unit_vector, weight_to_matrix

_INITIAL_ITERATIONS = 15  # PyTorch's start: u and v close to the singular vectors at once


class _SpectralNorm(Module):
    """The parametrization ``W -> W / sigma(W)`` (a 1-D weight is just normalised).

    Raises:
        IndexError: ``dim`` out of range for the weight.
        ValueError: ``n_power_iterations`` is not positive.
    """

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            self.register_buffer("_u", random_unit_vector(weight_mat, h, eps))
            self.register_buffer("_v", random_unit_vector(weight_mat, w, eps))
            self._power_method(weight_mat, _INITIAL_ITERATIONS)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        return weight_to_matrix(weight, self.dim)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                normalize_into(self._u, functions.mv(weight_mat, self._v), self.eps)
                normalize_into(self._v, functions.mv(weight_mat.mT, self._u), self.eps)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: the graph must not see the next access's in-place updates
        u, v = self._u.clone(), self._v.clone()
        sigma = functions.dot(u, functions.mv(weight_mat, v))  # vdot: tensors are real
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value  # any weight is its own preimage (up to the scale it loses)


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Make ``module.<name>`` the weight divided by its estimated spectral norm (``dim``:
    the output dim, by default 1 for transposed convolutions and 0 otherwise).

    Shape:
        ``_u``: ``(weight.shape[dim],)``; ``_v``: ``(numel / that,)``.

    Raises:
        ValueError: ``module`` has no tensor ``name``.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = default_dim(module)
    register_parametrization(module, name,
                             _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module

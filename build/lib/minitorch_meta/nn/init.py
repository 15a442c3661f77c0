"""``nn.init``: PyTorch's parameter initialisers, with the same formulas.

Each fills a tensor in place without recording autograd and returns it. On meta they cost
nothing (there is no data to fill), so a model built on meta runs no initialiser work.
"""

from __future__ import annotations

import math

from .. import functions, linalg
from ..autograd import no_grad
from ..caller_warnings import warn_at_caller
from ..factories import eye as identity_matrix  # nn.init.eye is the deprecated alias
from ..tensor import Tensor
from .init_deprecated import deprecated_alias
from .init_identity import dirac_, eye_  # noqa: F401 (nn.init's names)
from .init_sparse import sparse_  # noqa: F401 (nn.init's name)

_LINEAR_LIKE = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for ``nonlinearity`` (``'relu'`` -> sqrt(2), ...).

    Raises:
        ValueError: an unknown nonlinearity or a non-numeric ``negative_slope``.
    """
    if nonlinearity in _LINEAR_LIKE:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out): input/output features times the receptive field size."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         f"dimensions (got shape {tuple(tensor.shape)})")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with samples of U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with samples of N(mean, std²)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot: N(0, std²) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity) -> float:
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def _is_empty(tensor: Tensor) -> bool:
    if 0 in tuple(tensor.shape):
        warn_at_caller("Initializing zero-element tensors is a no-op")
        return True
    return False


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """He: U(-bound, bound) with ``bound = gain * sqrt(3 / fan)``."""
    if _is_empty(tensor):
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """He: N(0, std²) with ``std = gain / sqrt(fan)``."""
    if _is_empty(tensor):
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def default_layer_init_(weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's default for ``Linear`` and ``Conv2d``: ``kaiming_uniform_(a=sqrt(5))`` on the
    weight, and the bias uniform in ``±1/sqrt(fan_in)`` (zero when ``fan_in`` is 0)."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator=None) -> Tensor:
    """Fill with samples of N(mean, std²) restricted to ``[a, b]``, by PyTorch 2.13's
    rejection methods: normal draws outside the bounds are redrawn when ``[a, b]`` holds more
    than 30% of the mass; otherwise uniform draws on ``[a, b]`` are accepted with probability
    ``pdf(x) / pdf(mode)``. A no-op on meta (no data to fill).

    Warns (UserWarning) when ``mean`` is more than 2 ``std`` from ``[a, b]``, as PyTorch does.
    """
    if tensor.is_meta:
        return tensor
    if mean < a - 2 * std or mean > b + 2 * std:
        warn_at_caller("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                       "distribution of values may be incorrect.")
    with no_grad():
        mass = _normal_cdf((b - mean) / std) - _normal_cdf((a - mean) / std)
        if mass > 0.3:
            result = _redraw_outside(tensor, mean, std, a, b, generator)
        else:
            result = _accept_uniform(tensor, mean, std, a, b, generator)
        if result is not tensor:
            tensor.copy_(result)
    return tensor


def _normal_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _redraw_outside(tensor: Tensor, mean, std, a, b, generator) -> Tensor:
    """Normal draws, those outside ``[a, b]`` drawn again until none is."""
    # The bounds in the tensor's dtype, so that the test agrees with the stored values.
    low, high = (tensor.new_tensor(bound, device="cpu").item() for bound in (a, b))
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = result != result.clamp(low, high)
        if not outside.any().item():
            return result
        fresh = tensor.new_empty(tuple(tensor.shape)).normal_(mean, std, generator=generator)
        result = functions.where(outside, fresh, result)


def _accept_uniform(tensor: Tensor, mean, std, a, b, generator) -> Tensor:
    """Uniform draws on ``[a, b]``, each kept with probability ``pdf(x) / pdf(mode)``
    (drawn again otherwise): for a narrow or far-off interval, where normal draws would
    rarely land in it."""
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def draw():
        candidates = tensor.new_empty(tuple(tensor.shape)).uniform_(a, b, generator=generator)
        log_ratio = ((candidates - mean) / std) ** 2 * -0.5 - log_peak
        coin = tensor.new_empty(tuple(tensor.shape)).uniform_(generator=generator)
        return candidates, coin.log() > log_ratio  # True: rejected

    result, pending = draw()
    while pending.any().item():
        candidates, rejected = draw()
        result = functions.where(pending, candidates, result)
        pending = functions.where(pending, rejected, pending)
    return result


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain`` (Saxe et al., 2013), as PyTorch
    does: the Q of a QR factorisation of a normal matrix, its signs fixed by R's diagonal;
    dimensions after the first are flattened. A no-op on meta and on empty tensors.

    Raises:
        ValueError: the tensor has fewer than 2 dimensions (PyTorch's message).
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        wide = rows < cols
        q, r = linalg.qr(flattened.t() if wide else flattened)
        diagonal = (r * identity_matrix(r.shape[0], dtype=r.dtype, device=r.device)).sum(0)
        # multiplying by the signs of R's diagonal makes Q unique (uniformly distributed)
        q = q * (1 - 2 * (diagonal < 0))
        tensor.copy_((q.t() if wide else q).reshape(tuple(tensor.shape)))
        tensor.mul_(gain)
    return tensor


# PyTorch's deprecated names (a FutureWarning, then the in-place initialiser)
uniform = deprecated_alias(uniform_)
normal = deprecated_alias(normal_)
constant = deprecated_alias(constant_)
eye = deprecated_alias(eye_)
dirac = deprecated_alias(dirac_)
xavier_uniform = deprecated_alias(xavier_uniform_)
xavier_normal = deprecated_alias(xavier_normal_)
kaiming_uniform = deprecated_alias(kaiming_uniform_)
kaiming_normal = deprecated_alias(kaiming_normal_)
orthogonal = deprecated_alias(orthogonal_)
sparse = deprecated_alias(sparse_)

"""``Muon``: momentum whose update is orthogonalised by a Newton–Schulz iteration (Keller
Jordan, 2024), PyTorch's ``torch.optim.Muon``, for 2-D parameters only.

The update is PyTorch's, step for step (``g`` the gradient, ``B`` the momentum buffer, ``(m,
n)`` the parameter's shape)::

    B = lerp(B, g, 1 - momentum)                (B starts at zeros)
    U = lerp(g, B, momentum) if nesterov else B
    X = U (transposed if m > n) / max(||U||, eps)
    ns_steps times:  A = X @ Xᵀ;  X = a * X + (b * A + c * A @ A) @ X
    p = p * (1 - lr * weight_decay)
    p = p - adjusted_lr * X (transposed back)

where ``adjusted_lr`` is ``lr * sqrt(max(1, m / n))`` (``adjust_lr_fn=None`` or
``"original"``) or ``lr * 0.2 * sqrt(max(m, n))`` (``"match_rms_adamw"``).

PyTorch runs the iteration in bfloat16; there is no bfloat16 here (``dtypes.py``), so it
runs in the gradient's dtype (docs/differences.md).

State per parameter: ``momentum_buffer`` (the gradient's shape), as in PyTorch.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..factories import zeros_like
from ..functions import addmm
from ..tensor import Tensor
from ._updates import lerp_
from .optimizer import Optimizer

#: Keller Jordan's quintic coefficients, chosen for the steepest slope at zero.
DEFAULT_NS_COEFFICIENTS = (3.4445, -4.775, 2.0315)
ADJUST_LR_FNS = (None, "original", "match_rms_adamw")


class Muon(Optimizer):
    """Muon, PyTorch's ``torch.optim.Muon``: SGD with (Nesterov) momentum whose update is
    replaced by a near-orthogonal matrix of the same singular vectors, for the 2-D weights of
    hidden layers (biases and embeddings belong to another optimizer, e.g. ``AdamW``).

    Args:
        lr: learning rate; ``weight_decay``: decoupled weight decay (``p *= 1 - lr * wd``);
        momentum, nesterov: the momentum buffer and whether the update looks ahead;
        ns_coefficients, ns_steps, eps: the Newton–Schulz polynomial ``(a, b, c)``, its
            number of iterations and the floor of the norm it divides by first;
        adjust_lr_fn: ``None``/``"original"`` or ``"match_rms_adamw"`` (see the module).

    Raises:
        ValueError: ``lr``, ``momentum`` or ``weight_decay`` is negative, ``adjust_lr_fn`` is
            unknown, a parameter is not 2-D; at ``step``, ``ns_steps >= 100`` or
            ``ns_coefficients`` does not hold three values (PyTorch's checks and messages).
    """

    def __init__(self, params: Iterable, lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = DEFAULT_NS_COEFFICIENTS,
                 eps: float = 1e-7, ns_steps: int = 5, adjust_lr_fn: str | None = None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in ADJUST_LR_FNS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        # as PyTorch, only the constructor's groups are checked (not add_param_group's)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _update(self, p: Tensor, group: dict) -> None:
        g = p._grad
        if g.dim() != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        state = self.state[p]
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = zeros_like(g)
        momentum = group["momentum"]
        buffer = lerp_(state["momentum_buffer"], g, 1 - momentum)
        update = lerp_(g.clone(), buffer, momentum) if group["nesterov"] else buffer
        update = orthogonalise(update, group["ns_coefficients"], group["ns_steps"],
                               group["eps"])
        lr = float(group["lr"])
        p.mul_(1 - lr * group["weight_decay"])
        p.add_(update, alpha=-adjusted_lr(lr, group["adjust_lr_fn"], p.shape))


def orthogonalise(update: Tensor, coefficients: tuple[float, float, float], steps: int,
                  eps: float) -> Tensor:
    """``steps`` Newton–Schulz iterations towards ``U Vᵀ`` (``update = U S Vᵀ``), with
    PyTorch's quintic ``X ← a X + (b A + c A²) X``, ``A = X Xᵀ``; a new tensor.

    The iteration works on the wide orientation (``Xᵀ`` when there are more rows than
    columns), so that ``A`` is the smaller Gram matrix. The coefficients trade exact
    convergence for speed: singular values end near 1 (roughly 0.7 to 1.2), not at 1.

    Raises:
        ValueError: ``steps >= 100``, ``update`` is not 2-D, or not three coefficients.
    """
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if update.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = update.size(0) > update.size(1)
    x = update.T if tall else update
    # scaling to Frobenius norm 1 bounds the spectral norm by 1, where the iteration converges
    x = x / x.norm().clamp(min=eps)
    for _ in range(steps):
        gram = x @ x.T
        x = addmm(x, addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def adjusted_lr(lr: float, adjust_lr_fn: str | None, shape) -> float:
    """The learning rate scaled for a ``(rows, columns)`` parameter so that updates of
    rectangular matrices have comparable RMS: ``sqrt(max(1, rows / columns))`` (Keller
    Jordan's, ``None`` or ``"original"``) or ``0.2 * sqrt(max(rows, columns))`` (Moonshot's,
    ``"match_rms_adamw"``, which lets AdamW's ``lr`` and ``weight_decay`` be reused)."""
    rows, columns = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / columns))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, columns))
    else:  # a group added later with another value: PyTorch leaves lr as it is
        ratio = 1.0
    return lr * ratio

"""The top-level activation and dropout functions PyTorch writes in place (``torch.celu_``,
``torch.selu_``, ``torch.rrelu_``, ``torch.threshold_``, ``torch.dropout_``,
``torch.alpha_dropout_``, ``torch.feature_dropout_``, ``torch.feature_alpha_dropout_``),
and the native out-of-place dropouts they pair with (``torch.alpha_dropout``,
``torch.feature_dropout``, ``torch.feature_alpha_dropout``).

The activations are ``nn.functional``'s in-place forms. The dropouts take PyTorch's native
signature ``(input, p, train)``, all required, and its RuntimeError for a probability
outside [0, 1] (``nn.functional`` raises ValueError there). When the result would be the
input itself (not training, or ``p = 0``) the input is returned untouched, as PyTorch
does: no write, so no in-place rule applies. Otherwise the result is written into the
input under the rules of ``Tensor.add_`` (refused on a leaf that requires grad, and on an
integer input whose result is float).
"""

from __future__ import annotations

from .tensor import Tensor


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``celu`` written into ``input``."""
    from .nn.extra_activation_functions import celu_ as written

    return written(input, alpha)


def selu_(input: Tensor) -> Tensor:
    """``selu`` written into ``input``."""
    from .nn.extra_activation_functions import selu_ as written

    return written(input)


def rrelu_(input: Tensor, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0,
           training: bool = False) -> Tensor:
    """``rrelu`` written into ``input``."""
    from .nn.extra_activation_functions import rrelu_ as written

    return written(input, lower, upper, training)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """``threshold`` written into ``input``."""
    from .nn.extra_activation_functions import threshold_ as written

    return written(input, threshold, value)


def _check_probability(p: float) -> None:
    """The native ops' check of a dropout probability (a RuntimeError)."""
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _identity(input: Tensor, p: float, train: bool) -> bool:
    """Whether a dropout of ``input`` returns it unchanged (checking ``p`` first)."""
    _check_probability(p)
    return not train or p == 0.0


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``nn.functional.alpha_dropout(input, p, training=train)``."""
    from .nn.alpha_dropout import alpha_dropout as functional

    return input if _identity(input, p, train) else functional(input, p, True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``nn.functional.feature_alpha_dropout(input, p, training=train)``: one draw per
    channel ``input[n, c]``."""
    from .nn.alpha_dropout import feature_alpha_dropout as functional

    return input if _identity(input, p, train) else functional(input, p, True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Whole channels ``input[n, c]`` zeroed with probability ``p``, the rest scaled by
    ``1 / (1 - p)`` (what ``nn.functional.dropout2d`` runs, without its rank warnings)."""
    from .nn.channel_dropout import feature_dropout as functional

    return input if _identity(input, p, train) else functional(input, p, True)


def _written(name: str, function):
    """``torch.<name>(input, p, train)``: ``function``'s result written into ``input``."""
    def in_place(input: Tensor, p: float, train: bool) -> Tensor:
        if _identity(input, p, train):
            return input
        return input._inplace(name, function, p, train)
    in_place.__name__ = in_place.__qualname__ = name
    in_place.__doc__ = f"``{name[:-1]}`` written into ``input``."
    return in_place


def _dropout(input: Tensor, p: float, train: bool) -> Tensor:
    from .nn.functional import dropout

    return dropout(input, p, train)


dropout_ = _written("dropout_", _dropout)
alpha_dropout_ = _written("alpha_dropout_", alpha_dropout)
feature_alpha_dropout_ = _written("feature_alpha_dropout_", feature_alpha_dropout)
feature_dropout_ = _written("feature_dropout_", feature_dropout)

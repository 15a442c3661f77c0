"""One time step of PyTorch's recurrent cells (Elman RNN, LSTM, GRU), written with ops.

The layers (``rnn.py``) and the cells (``rnn_cell.py``) share these. A step takes the
input's projection ``x @ w_ih.T + b_ih`` already made, so that a layer computes it for all
time steps in one matrix product, and only the hidden state's product runs per step.
Composed of ops, a step differentiates and runs on every backend (meta included) with no
kernel of its own. The gate order inside the weights is PyTorch's: LSTM ``i, f, g, o``,
GRU ``r, z, n``, so state dicts load either way.
"""

from __future__ import annotations

import math

from ..functions import sigmoid, tanh
from ..tensor import Tensor
from . import functional as F
from . import init


def reset_recurrent_parameters(module) -> None:
    """Every weight and bias of ``module`` uniform in ``±1/sqrt(hidden_size)``: PyTorch's
    draw for its recurrent layers and cells alike."""
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


def elman_step(projected: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None,
               nonlinearity: str) -> Tensor:
    """``h' = act(projected + h @ w_hh.T + b_hh)``, act ``tanh`` or ``relu``.

    Shape:
        projected ``(N, H)``, h ``(N, H)``, w_hh ``(H, H)`` -> ``(N, H)``.
    """
    pre = projected + F.linear(h, w_hh, b_hh)
    return tanh(pre) if nonlinearity == "tanh" else F.relu(pre)


def lstm_step(projected: Tensor, state: tuple, w_hh: Tensor, b_hh: Tensor | None,
              w_hr: Tensor | None = None) -> tuple:
    """An LSTM step: gates ``i, f, g, o`` from ``projected + h @ w_hh.T + b_hh``, then
    ``c' = f * c + i * g`` and ``h' = o * tanh(c')``, projected by ``w_hr`` if given.

    Shape:
        projected ``(N, 4H)``; state ``(h, c)``: h ``(N, P)`` (``P = H``, or ``proj_size``
        with ``w_hr`` ``(P, H)``), c ``(N, H)``; w_hh ``(4H, P)`` -> ``(h', c')`` as state.
    """
    h, c = state
    i, f, g, o = (projected + F.linear(h, w_hh, b_hh)).chunk(4, 1)
    c = sigmoid(f) * c + sigmoid(i) * tanh(g)
    h = sigmoid(o) * tanh(c)
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def gru_step(projected: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """A GRU step: ``r, z`` gates from both projections, the candidate
    ``n = tanh(x_n + r * (h @ w_hn.T + b_hn))``, and ``h' = (1 - z) * n + z * h``.

    Shape:
        projected ``(N, 3H)``, h ``(N, H)``, w_hh ``(3H, H)`` -> ``(N, H)``.
    """
    x_r, x_z, x_n = projected.chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r = sigmoid(x_r + h_r)
    z = sigmoid(x_z + h_z)
    n = tanh(x_n + r * h_n)
    return n + z * (h - n)  # (1 - z) * n + z * h with one product fewer

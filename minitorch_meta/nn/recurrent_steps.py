"""Running a recurrent op (``ops/recurrent.py``) and cutting its flat output into states.

The layers (``rnn.py``) and the cells (``rnn_cell.py``) share this: a cell is a layer of
one step. The caller gives the input's projection ``x @ w_ih.T + b_ih`` already made, so
that a layer computes it for all time steps in one matrix product. The gate order inside
the weights is PyTorch's (LSTM ``i, f, g, o``, GRU ``r, z, n``), so state dicts load
either way.
"""

from __future__ import annotations

import math

from ..ops.recurrent import ElmanLayer, GRULayer, LSTMLayer, output_layout
from ..tensor import Tensor
from . import init

#: the op of each of ``RNNBase``'s modes, and its hyper-parameters beyond the batch's
LAYER_OPS = {"RNN_TANH": (ElmanLayer, {"nonlinearity": "tanh"}),
             "RNN_RELU": (ElmanLayer, {"nonlinearity": "relu"}),
             "LSTM": (LSTMLayer, {}), "GRU": (GRULayer, {})}


#: the name of the last graph node of each new state of one step in PyTorch, whose CPU
#: cells compose a step of small ops: ``h'`` (``o * tanh(c')`` for LSTM), and LSTM's
#: ``c' = f * c + i * g``
STEP_NODE_NAMES = {"RNN_TANH": ("TanhBackward0",), "RNN_RELU": ("ReluBackward0",),
                   "GRU": ("AddBackward0",), "LSTM": ("MulBackward0", "AddBackward0")}


def named_step(state, mode: str):
    """A cell's new state (``h``, or LSTM's ``(h, c)``, fresh from ``run_recurrent``) with
    PyTorch's node names; only the names change (our step is one fused op)."""
    from ..functions import _composed

    states = state if isinstance(state, tuple) else (state,)
    named = tuple(_composed(t, name) for t, name in zip(states, STEP_NODE_NAMES[mode]))
    return named if isinstance(state, tuple) else named[0]


def reset_recurrent_parameters(module) -> None:
    """Every weight and bias of ``module`` uniform in ``±1/sqrt(hidden_size)``: PyTorch's
    draw for its recurrent layers and cells alike."""
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


def run_recurrent(mode: str, projected: Tensor, state, w_hh: Tensor, b_hh: Tensor | None,
                  w_hr: Tensor | None = None, batch_sizes=None, reverse: bool = False):
    """Run one layer in one direction over every step: ``(hidden states, final state)``.

    ``state`` is ``h`` or LSTM's ``(h, c)``, and so is the final state. ``batch_sizes``
    is None when every step has the whole batch, else the packed steps' row counts.

    Shape:
        projected ``(L, N, G)`` (or packed ``(R, G)`` with ``batch_sizes``), ``h``
        ``(N, P)``, ``c`` ``(N, H)``, ``w_hh`` ``(G, P)`` -> hidden states ``(L, N, P)``
        (packed: ``(R, P)``) and the final state of ``state``'s shapes.
    """
    op, hyper = LAYER_OPS[mode]
    h, c = state if isinstance(state, tuple) else (state, None)
    batch, width = h.shape
    rows = projected if batch_sizes is not None else projected.reshape(-1, projected.shape[-1])
    flat = op.apply(rows, h, c, w_hh, b_hh, w_hr,
                    batch_sizes=batch if batch_sizes is None else tuple(batch_sizes),
                    reverse=reverse, **hyper)
    steps, *finals = (flat[start:end].view(*shape) for start, end, shape in
                      output_layout(rows.shape[0], batch, width,
                                    None if c is None else c.shape[1]))
    hidden = steps.view(*projected.shape[:-1], width)
    return hidden, finals[0] if c is None else tuple(finals)

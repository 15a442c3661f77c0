"""Recurrent cells, one time step each: ``RNNCell``, ``LSTMCell`` and ``GRUCell``.

A cell is a layer of one time step: its step is the functional cell's
(``rnn_cell_functions.py``), which runs the same op as the whole-sequence layers
(``rnn.py``, through ``recurrent_steps.run_recurrent``). A cell adds its parameters, the
zero state when none is given, and PyTorch's unbatched form (``(H_in,)`` inputs).
Parameter names and shapes are PyTorch's (``weight_ih``, ``weight_hh``, ``bias_ih``,
``bias_hh``).
"""

from __future__ import annotations

from ..autocasting import autocast_op
from ..factories import empty, zeros
from ..tensor import Tensor
from .module import Module
from .parameter import Parameter
from .recurrent_steps import reset_recurrent_parameters
from .rnn_cell_functions import gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell


class RNNCellBase(Module):
    """The parameters, initialisation, checks and repr the three cells share."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(empty(gates, input_size, device=device, dtype=dtype))
        self.weight_hh = Parameter(empty(gates, hidden_size, device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(gates, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(gates, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in ``±1/sqrt(hidden_size)``, as PyTorch draws them."""
        reset_recurrent_parameters(self)

    def _batched_input(self, input: Tensor) -> tuple:
        """``(input as (N, H_in), whether it was batched)``; a ValueError unless 1-D or 2-D."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.dim()}D instead")
        return (input, True) if input.dim() == 2 else (input.unsqueeze(0), False)

    def _state(self, hx, input: Tensor, batched: bool, label: str = "hidden") -> Tensor:
        """``hx`` as ``(N, H)``, or zeros when it is None."""
        if hx is None:
            return zeros(input.shape[0], self.hidden_size, dtype=input.dtype,
                         device=input.device)
        if hx.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected {label} to be 1D or 2D, got "
                             f"{hx.dim()}D instead")
        return hx if batched else hx.unsqueeze(0)

    def _weights(self) -> tuple:
        """The functional cell's weight and bias arguments."""
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text


class RNNCell(RNNCellBase):
    """One Elman step: ``h' = act(x @ W_ih.T + b_ih + h @ W_hh.T + b_hh)``, act ``tanh``
    or ``relu``.

    Shape:
        input ``(N, H_in)`` or ``(H_in,)``, hx ``(N, H)`` or ``(H,)`` (zeros if omitted)
        -> ``h'`` as hx.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    @autocast_op("recurrent_layer")
    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, batched = self._batched_input(input)
        h = self._state(hx, x, batched)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        step = rnn_tanh_cell if self.nonlinearity == "tanh" else rnn_relu_cell
        h = step(x, h, *self._weights())
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: gates ``i, f, g, o``, ``c' = f * c + i * g``, ``h' = o * tanh(c')``.

    Shape:
        input ``(N, H_in)`` or ``(H_in,)``, hx ``(h, c)`` each ``(N, H)`` or ``(H,)``
        (zeros if omitted) -> ``(h', c')`` as hx.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    @autocast_op("recurrent_layer")
    def forward(self, input: Tensor, hx: tuple | None = None) -> tuple:
        x, batched = self._batched_input(input)
        if hx is None:
            state = (self._state(None, x, batched), self._state(None, x, batched))
        else:
            state = tuple(self._state(value, x, batched, f"hx[{k}]")
                          for k, value in enumerate(hx))
        h, c = lstm_cell(x, state, *self._weights())
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: gates ``r, z``, candidate ``n``, ``h' = (1 - z) * n + z * h``.

    Shape:
        input ``(N, H_in)`` or ``(H_in,)``, hx ``(N, H)`` or ``(H,)`` (zeros if omitted)
        -> ``h'`` as hx.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    @autocast_op("recurrent_layer")
    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, batched = self._batched_input(input)
        h = gru_cell(x, self._state(hx, x, batched), *self._weights())
        return h if batched else h.squeeze(0)

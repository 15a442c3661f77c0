"""Recurrent layers over whole sequences: ``RNN`` (Elman), ``LSTM`` and ``GRU``.

One base class, ``RNNBase``, holds what the three share: PyTorch's arguments, checks and
parameter names (``weight_ih_l0``, ``bias_hh_l1_reverse``, ``weight_hr_l0`` with
``proj_size``), so state dicts move between PyTorch and here unchanged; the layout of
inputs (unbatched, packed) and default hidden states, checked as PyTorch's modules check
them. The layers then call PyTorch's functional forms (``torch.lstm`` and the others,
``rnn_functions.py``) with their weights, as PyTorch's modules do: the loop over layers,
directions and time is written there once.
"""

from __future__ import annotations

import numbers

from ..autocasting import autocast_op
from ..caller_warnings import warn_at_caller
from ..factories import empty, zeros
from ..tensor import Tensor
from .module import Module
from .parameter import Parameter
from .recurrent_steps import reset_recurrent_parameters
from .rnn_functions import GATES, gru, layer_suffix, lstm, rnn_relu, rnn_tanh
from .utils.rnn import PackedSequence

#: the functional form each mode calls (PyTorch's ``_VF.rnn_tanh`` and the others)
FUNCTIONS = {"RNN_TANH": rnn_tanh, "RNN_RELU": rnn_relu, "LSTM": lstm, "GRU": gru}


class RNNBase(Module):
    """The shared body of ``RNN``, ``LSTM`` and ``GRU`` (PyTorch's ``nn.RNNBase``).

    Shape:
        input ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first``, or unbatched
        ``(L, H_in)``), hidden ``(D * num_layers, N, H_out)`` -> output
        ``(L, N, D * H_out)`` and the last hidden state ``(D * num_layers, N, H_out)``,
        where ``D`` is 2 if bidirectional else 1 and ``H_out`` is ``proj_size`` or
        ``hidden_size``.
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        super().__init__()
        _check_arguments(mode, input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, proj_size)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        self.proj_size = proj_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(self._directions):
                self._add_layer_weights(layer, direction, GATES[mode] * hidden_size,
                                        device, dtype)
        self.reset_parameters()

    @property
    def _directions(self) -> int:
        return 2 if self.bidirectional else 1

    @property
    def _output_size(self) -> int:
        return self.proj_size if self.proj_size > 0 else self.hidden_size

    def _add_layer_weights(self, layer: int, direction: int, gate_size: int, device,
                           dtype) -> None:
        """Register one layer and direction's parameters, in PyTorch's order and names."""
        suffix = layer_suffix(layer, direction)
        layer_input = self.input_size if layer == 0 else self._output_size * self._directions
        shapes = [("weight_ih", (gate_size, layer_input)),
                  ("weight_hh", (gate_size, self._output_size))]
        if self.bias:
            shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
        if self.proj_size > 0:
            shapes.append(("weight_hr", (self.proj_size, self.hidden_size)))
        for name, shape in shapes:
            self.register_parameter(name + suffix,
                                    Parameter(empty(shape, device=device, dtype=dtype)))
            self._flat_weights_names.append(name + suffix)

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in ``±1/sqrt(hidden_size)``, as PyTorch draws them."""
        reset_recurrent_parameters(self)

    def flatten_parameters(self) -> None:
        """Does nothing: PyTorch packs the weights into one buffer for cuDNN here; these
        layers read each weight where it is."""

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        """The parameters, one list per layer and direction (PyTorch's ``all_weights``)."""
        per_layer = len(self._flat_weights_names) // (self.num_layers * self._directions)
        weights = self._flat_weights
        return [weights[i:i + per_layer] for i in range(0, len(weights), per_layer)]

    # -- forward --------------------------------------------------------------------
    @autocast_op("recurrent_layer")
    def forward(self, input, hx=None):
        """Run every layer over the sequence: ``(output, h_n)``, and for LSTM
        ``(output, (h_n, c_n))``. A ``PackedSequence`` input gives a packed output."""
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        batched = self._check_input_rank(input)
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        self._check_input(input, 1 if self.batch_first else 0)
        hx = self._initial_states(input.shape[0 if self.batch_first else 1], input, hx,
                                  batched)
        output, hidden = self._hidden_of(FUNCTIONS[self.mode](
            input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
            self.training, self.bidirectional, self.batch_first))
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = (tuple(h.squeeze(1) for h in hidden) if isinstance(hidden, tuple)
                      else hidden.squeeze(1))
        return output, hidden

    def _forward_packed(self, input: PackedSequence, hx) -> tuple:
        """``forward`` on packed sequences: each step runs only the sequences that have it,
        so each one's final state is its own last step's (in the batch's original order)."""
        data, batch_sizes = input.data, input.batch_sizes
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        self._check_input(data, 0)
        if hx is not None and input.sorted_indices is not None:
            hx = _permuted(hx, input.sorted_indices)  # hx is given in the batch's order
        hx = self._initial_states(int(batch_sizes[0]), data, hx, True)
        output, hidden = self._hidden_of(FUNCTIONS[self.mode](
            data, batch_sizes, hx, self._flat_weights, self.bias, self.num_layers,
            self.dropout, self.training, self.bidirectional))
        if input.unsorted_indices is not None:
            hidden = _permuted(hidden, input.unsorted_indices)
        return PackedSequence(output, input.batch_sizes, input.sorted_indices,
                              input.unsorted_indices), hidden

    def _check_input_rank(self, input: Tensor) -> bool:
        """Whether ``input`` is batched (3-D); a ValueError unless it is 2-D or 3-D."""
        if input.dim() not in (2, 3):
            ending = " tensor instead" if self.mode.startswith("RNN") else " instead"
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{input.dim()}D{ending}")
        return input.dim() == 3

    def _check_input(self, input: Tensor, time_dim: int) -> None:
        weight_dtype = self.weight_ih_l0.dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight_dtype}). Convert input: input.to({weight_dtype}), or "
                             f"convert model: model.to({input.dtype})")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")
        if input.shape[time_dim] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")

    def _initial_states(self, batch: int, like: Tensor, hx, batched: bool):
        """The initial states ``(D * num_layers, N, H_out)``: ``hx``, checked, or zeros (of
        ``like``'s dtype and device) without it."""
        expected_h = (self.num_layers * self._directions, batch, self._output_size)
        if hx is None:
            return zeros(expected_h, dtype=like.dtype, device=like.device)
        hx = _batched_hidden(hx, batched)
        _check_hidden_size(hx, expected_h, "Expected hidden size {}, got {}")
        return hx

    def _hidden_of(self, result: tuple) -> tuple:
        """``(output, hidden)`` from the functional form's tuple."""
        return result

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text


class RNN(RNNBase):
    """An Elman RNN: ``h_t = act(x_t @ W_ih.T + b_ih + h_{t-1} @ W_hh.T + b_hh)``, with
    ``nonlinearity`` ``'tanh'`` (the default) or ``'relu'``, stacked ``num_layers`` deep.

    Shape:
        input ``(L, N, H_in)`` (or ``(N, L, H_in)`` with ``batch_first``, or ``(L, H_in)``),
        ``h_0`` ``(D * num_layers, N, H)`` -> output ``(L, N, D * H)`` and ``h_n``
        ``(D * num_layers, N, H)``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device=None,
                 dtype=None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             f"'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)


class GRU(RNNBase):
    """A gated recurrent unit layer: gates ``r, z`` and candidate ``n`` per step, with
    ``h_t = (1 - z) * n + z * h_{t-1}`` (PyTorch's equations), ``num_layers`` deep.

    Shape:
        as ``RNN``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device=None, dtype=None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


class LSTM(RNNBase):
    """A long short-term memory layer: gates ``i, f, g, o`` per step, the cell state
    ``c_t = f * c_{t-1} + i * g`` and ``h_t = o * tanh(c_t)`` (times ``W_hr.T`` with
    ``proj_size``), ``num_layers`` deep.

    Shape:
        input as ``RNN``; ``(h_0, c_0)``: ``(D * num_layers, N, H_out)`` and
        ``(D * num_layers, N, H)`` -> output ``(L, N, D * H_out)`` and ``(h_n, c_n)`` of
        ``h_0``'s and ``c_0``'s shapes; ``H_out`` is ``proj_size`` if set, else ``H``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device=device, dtype=dtype)

    def _initial_states(self, batch: int, like: Tensor, hx, batched: bool) -> tuple:
        layers = self.num_layers * self._directions
        if hx is None:
            return (super()._initial_states(batch, like, None, batched),
                    zeros((layers, batch, self.hidden_size), dtype=like.dtype,
                          device=like.device))
        h, c = _lstm_hidden(hx, batched)
        _check_hidden_size(h, (layers, batch, self._output_size),
                           "Expected hidden[0] size {}, got {}")
        _check_hidden_size(c, (layers, batch, self.hidden_size),
                           "Expected hidden[1] size {}, got {}")
        return h, c

    def _hidden_of(self, result: tuple) -> tuple:
        return result[0], result[1:]


def _permuted(hidden, order: Tensor):
    """A hidden state ``(layers, N, H)`` (or LSTM's pair) with its batch rows reordered."""
    if isinstance(hidden, tuple):
        return tuple(part.index_select(1, order) for part in hidden)
    return hidden.index_select(1, order)


def _batched_hidden(hx: Tensor, batched: bool) -> Tensor:
    """``hx`` with a batch dim, checked against the input's rank as PyTorch does."""
    if batched and hx.dim() != 3:
        raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                           f"{hx.dim()}-D tensor")
    if not batched:
        if hx.dim() != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                               f"{hx.dim()}-D tensor")
        hx = hx.unsqueeze(1)
    return hx


def _lstm_hidden(hx, batched: bool) -> tuple:
    """LSTM's ``(h_0, c_0)`` with a batch dim, their ranks checked as PyTorch does."""
    if not isinstance(hx, (tuple, list)) or len(hx) != 2:
        raise TypeError(f"LSTM expects hx to be a tuple (h_0, c_0) of two tensors, got "
                        f"{type(hx).__name__}")
    h, c = hx
    rank = 3 if batched else 2
    if h.dim() != rank or c.dim() != rank:
        what = "batched 3-D" if batched else "unbatched 2-D"
        raise RuntimeError(f"For {what} input, hx and cx should also be {rank}-D but got "
                           f"({h.dim()}-D, {c.dim()}-D) tensors")
    return (h, c) if batched else (h.unsqueeze(1), c.unsqueeze(1))


def _check_hidden_size(hx: Tensor, expected: tuple, message: str) -> None:
    if tuple(hx.shape) != expected:
        raise RuntimeError(message.format(expected, list(hx.shape)))


def _check_arguments(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
                     proj_size) -> None:
    """PyTorch's checks of the constructor's arguments, with its errors and warning."""
    if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
            or not 0 <= dropout <= 1):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warn_at_caller(f"dropout option adds dropout after all but last recurrent layer, so "
                       f"non-zero dropout expects num_layers greater than 1, but got "
                       f"dropout={dropout} and num_layers={num_layers}")
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int),
                              ("hidden_size", hidden_size, int)):
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                            f"{type(value).__name__}")
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable "
                         "projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")

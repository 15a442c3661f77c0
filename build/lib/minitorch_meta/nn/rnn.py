"""Recurrent layers over whole sequences: ``RNN`` (Elman), ``LSTM`` and ``GRU``.

One base class, ``RNNBase``, holds what the three share: PyTorch's arguments, checks and
parameter names (``weight_ih_l0``, ``bias_hh_l1_reverse``, ``weight_hr_l0`` with
``proj_size``), so state dicts move between PyTorch and here unchanged; the layout of
inputs (``batch_first``, unbatched) and hidden states; and the loop over layers and
directions. For each layer and direction the input's projection is one matrix product
over all time steps, and the loop over time is one op (``ops/recurrent.py``, through
``recurrent_steps.run_recurrent``) with its own backward through time.
"""

from __future__ import annotations

import numbers

from ..autocasting import autocast_op
from ..caller_warnings import warn_at_caller
from ..factories import empty, zeros
from ..functions import cat, stack
from ..tensor import Tensor
from . import functional as F
from .module import Module
from .parameter import Parameter
from .recurrent_steps import reset_recurrent_parameters, run_recurrent
from .utils.rnn import PackedSequence

#: gate blocks stacked in each weight, by mode (LSTM: i, f, g, o; GRU: r, z, n)
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


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
        suffix = _suffix(layer, direction)
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

    def _layer_weights(self, layer: int, direction: int) -> tuple:
        """``(w_ih, w_hh, b_ih, b_hh, w_hr)`` of one layer and direction (None if absent)."""
        suffix = _suffix(layer, direction)
        return tuple(getattr(self, name + suffix, None)
                     for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"))

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
        sequence = input.transpose(0, 1) if self.batch_first else input
        self._check_input(sequence)
        states = self._initial_states(sequence.shape[1], sequence, hx, batched)
        output, finals = self._run_layers(sequence, states)
        if self.batch_first:
            output = output.transpose(0, 1)
        hidden = self._stack_states(finals)
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = (tuple(h.squeeze(1) for h in hidden) if isinstance(hidden, tuple)
                      else hidden.squeeze(1))
        return output, hidden

    def _forward_packed(self, input: PackedSequence, hx) -> tuple:
        """``forward`` on packed sequences: each step runs only the sequences that have it,
        so each one's final state is its own last step's (in the batch's original order)."""
        data, batch_sizes = input.data, input.batch_sizes.tolist()
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        self._check_input(data)
        if hx is not None and input.sorted_indices is not None:
            hx = _permuted(hx, input.sorted_indices)  # hx is given in the batch's order
        states = self._initial_states(batch_sizes[0], data, hx, True)
        output, finals = self._run_layers(data, states, batch_sizes)
        hidden = self._stack_states(finals)
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

    def _check_input(self, sequence: Tensor) -> None:
        weight_dtype = self.weight_ih_l0.dtype
        if sequence.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({sequence.dtype}) does not match weight dtype "
                             f"({weight_dtype}). Convert input: input.to({weight_dtype}), or "
                             f"convert model: model.to({sequence.dtype})")
        if sequence.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {sequence.shape[-1]}")
        if sequence.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")

    def _initial_states(self, batch: int, like: Tensor, hx, batched: bool) -> list:
        """One initial state per layer and direction: ``hx``'s, or zeros (of ``like``'s
        dtype and device) without it."""
        layers = self.num_layers * self._directions
        expected_h = (layers, batch, self._output_size)
        if hx is None:
            h = [zeros(batch, self._output_size, dtype=like.dtype, device=like.device)
                 for _ in range(layers)]
            return h
        hx = _batched_hidden(hx, batched)
        _check_hidden_size(hx, expected_h, "Expected hidden size {}, got {}")
        return list(hx.unbind(0))

    def _run_layers(self, sequence: Tensor, states: list, batch_sizes=None) -> tuple:
        """The last layer's output sequence and every layer and direction's final state.
        ``sequence`` is ``(L, N, H_in)``, or packed data with its ``batch_sizes``."""
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self._directions):
                index = layer * self._directions + direction
                out, final = self._run_direction(sequence, states[index], layer, direction,
                                                 batch_sizes)
                outputs.append(out)
                finals.append(final)
            sequence = outputs[0] if len(outputs) == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                sequence = F.dropout(sequence, self.dropout, True)
        return sequence, finals

    def _run_direction(self, sequence: Tensor, state, layer: int, direction: int,
                       batch_sizes=None) -> tuple:
        """One layer in one direction over time: ``(outputs, final state)``, the outputs
        ``(L, N, H_out)``, or packed like ``sequence`` when ``batch_sizes`` is given."""
        w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(layer, direction)
        projected = F.linear(sequence, w_ih, b_ih)  # one product for all steps
        return run_recurrent(self.mode, projected, state, w_hh, b_hh, w_hr, batch_sizes,
                             reverse=bool(direction))

    def _stack_states(self, finals: list):
        return stack(finals, 0)

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

    def _initial_states(self, batch: int, like: Tensor, hx, batched: bool) -> list:
        if hx is None:
            h = super()._initial_states(batch, like, None, batched)
            return [(h_k, zeros(batch, self.hidden_size, dtype=like.dtype, device=like.device))
                    for h_k in h]
        h, c = _lstm_hidden(hx, batched)
        layers = self.num_layers * self._directions
        _check_hidden_size(h, (layers, batch, self._output_size),
                           "Expected hidden[0] size {}, got {}")
        _check_hidden_size(c, (layers, batch, self.hidden_size),
                           "Expected hidden[1] size {}, got {}")
        return list(zip(h.unbind(0), c.unbind(0)))

    def _stack_states(self, finals: list):
        return stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0)


def _suffix(layer: int, direction: int) -> str:
    """PyTorch's parameter-name ending for a layer and direction: ``_l1``, ``_l1_reverse``."""
    return f"_l{layer}" + ("_reverse" if direction else "")


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

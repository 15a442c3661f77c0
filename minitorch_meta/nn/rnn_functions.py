"""PyTorch's functional multi-layer recurrent layers: ``torch.rnn_tanh``, ``torch.rnn_relu``,
``torch.lstm`` and ``torch.gru``, what ``nn.RNN``, ``nn.LSTM`` and ``nn.GRU`` call.

Each takes its weights as one flat list in PyTorch's order (per layer and direction:
``w_ih, w_hh``, then ``b_ih, b_hh`` with ``has_biases``, then LSTM's ``w_hr`` with
projections) and has PyTorch's two overloads: padded,
``(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)``,
and packed, ``(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
bidirectional)``. The loop over layers and directions, the dropout between layers and
packed sequences are written here once; the layers (``rnn.py``) add their own checks and
defaults and call these. For each layer and direction the input's projection is one
matrix product over all time steps, and the loop over time is one op
(``ops/recurrent.py``, through ``recurrent_steps.run_recurrent``).
"""

from __future__ import annotations

import numbers

from ..autocasting import autocast_op
from ..dtypes import int64
from ..functions import _composed, cat, stack
from ..int_arguments import is_int
from ..tensor import Tensor
from . import functional as F
from .recurrent_steps import run_recurrent

#: gate blocks stacked in each weight, by mode (LSTM: i, f, g, o; GRU: r, z, n)
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}

_PADDED = ("input", "hx", "params", "has_biases", "num_layers", "dropout", "train",
           "bidirectional", "batch_first")
_PACKED = ("data", "batch_sizes", "hx", "params", "has_biases", "num_layers", "dropout",
           "train", "bidirectional")


@autocast_op("recurrent_layer")
def rnn_tanh(*args, **kwargs) -> tuple:
    """A multi-layer Elman RNN with ``tanh``, from a flat list of weights.

    ``rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first)`` or, packed, ``rnn_tanh(data, batch_sizes, hx, params, has_biases,
    num_layers, dropout, train, bidirectional)``; returns ``(output, h_n)``.

    Shape:
        input ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first``; packed: data
        ``(R, H_in)`` and batch_sizes ``(L,)``), hx ``(D * num_layers, N, H)`` -> output
        ``(L, N, D * H)`` (packed: ``(R, D * H)``) and h_n of hx's shape.

    Raises:
        TypeError: the arguments fit neither overload.
        RuntimeError: a wrong number of weights, or shapes that do not fit.
    """
    return _functional("rnn_tanh", "RNN_TANH", args, kwargs)


@autocast_op("recurrent_layer")
def rnn_relu(*args, **kwargs) -> tuple:
    """``rnn_tanh`` with ``relu`` as the nonlinearity.

    Shape:
        as ``rnn_tanh``.
    """
    return _functional("rnn_relu", "RNN_RELU", args, kwargs)


@autocast_op("recurrent_layer")
def gru(*args, **kwargs) -> tuple:
    """A multi-layer GRU from a flat list of weights (arguments as ``rnn_tanh``);
    returns ``(output, h_n)``.

    Shape:
        as ``rnn_tanh``, the weights of ``3 * H`` rows.
    """
    return _functional("gru", "GRU", args, kwargs)


@autocast_op("recurrent_layer")
def lstm(*args, **kwargs) -> tuple:
    """A multi-layer LSTM from a flat list of weights (arguments as ``rnn_tanh``, but
    ``hx`` the pair ``(h_0, c_0)``); returns ``(output, h_n, c_n)``. Projections
    (``proj_size``) are on when ``h_0``'s last size differs from ``c_0``'s, as PyTorch
    decides; each layer and direction then has a fifth (or third) weight ``w_hr``.

    Shape:
        input as ``rnn_tanh``; h_0 ``(D * num_layers, N, P)``, c_0
        ``(D * num_layers, N, H)`` -> output ``(L, N, D * P)`` (packed: ``(R, D * P)``),
        h_n and c_n of h_0's and c_0's shapes; ``P`` is ``proj_size``, else ``H``.
    """
    return _functional("lstm", "LSTM", args, kwargs)


def layer_suffix(layer: int, direction: int) -> str:
    """PyTorch's parameter-name ending for a layer and direction: ``_l1``, ``_l1_reverse``."""
    return f"_l{layer}" + ("_reverse" if direction else "")


# -- arguments ------------------------------------------------------------------------
def _functional(name: str, mode: str, args: tuple, kwargs: dict) -> tuple:
    bound = _bind(name, args, kwargs)
    if "data" in bound:
        return _run(mode, bound["data"], bound["batch_sizes"], bound["hx"], bound["params"],
                    bound["has_biases"], bound["num_layers"], bound["dropout"],
                    bound["train"], bound["bidirectional"], False)
    return _run(mode, bound["input"], None, bound["hx"], bound["params"],
                bound["has_biases"], bound["num_layers"], bound["dropout"], bound["train"],
                bound["bidirectional"], bound["batch_first"])


def _bind(name: str, args: tuple, kwargs: dict) -> dict:
    """The arguments by name, for the first of PyTorch's overloads (packed, then padded)
    that they fit; PyTorch's TypeError when they fit neither."""
    for names in (_PACKED, _PADDED):
        if len(args) > len(names) or set(kwargs) - set(names):
            continue
        bound = dict(zip(names, args))
        if set(bound) & set(kwargs):
            continue
        bound.update(kwargs)
        if set(bound) == set(names) and all(_fits(name, key, value)
                                            for key, value in bound.items()):
            return bound
    got = ", ".join([type(a).__name__ for a in args]
                    + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    hx = "tuple of Tensors hx" if name == "lstm" else "Tensor hx"
    raise TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n * (Tensor data, Tensor batch_sizes, {hx}, tuple of Tensors params, bool "
        f"has_biases, int num_layers, float dropout, bool train, bool bidirectional)\n * "
        f"(Tensor input, {hx}, tuple of Tensors params, bool has_biases, int num_layers, "
        f"float dropout, bool train, bool bidirectional, bool batch_first)")


def _fits(name: str, key: str, value) -> bool:
    """Whether ``value`` has the type PyTorch's parser takes for argument ``key``."""
    if key in ("input", "data", "batch_sizes"):
        return isinstance(value, Tensor)
    if key == "hx":
        return _tensors(value) if name == "lstm" else isinstance(value, Tensor)
    if key == "params":
        return _tensors(value)
    if key == "num_layers":
        return is_int(value)
    if key == "dropout":
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    return isinstance(value, bool)


def _tensors(value) -> bool:
    return isinstance(value, (tuple, list)) and all(isinstance(t, Tensor) for t in value)


# -- the layers -----------------------------------------------------------------------
def _run(mode: str, input: Tensor, batch_sizes, hx, params, has_biases: bool,
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple:
    """Every layer over the sequence: ``(output, h_n)``, LSTM ``(output, h_n, c_n)``."""
    h0, c0 = _hidden(mode, hx)
    sizes = None if batch_sizes is None else _batch_sizes(batch_sizes, input)
    if sizes is None:
        _check_padded(input)
    directions = 2 if bidirectional else 1
    sequence = input.transpose(0, 1) if batch_first and sizes is None else input
    batch = sizes[0] if sizes is not None else sequence.shape[1]
    # PyTorch's rule: an LSTM projects when h_0 and c_0 differ in width
    weights = _layer_weights(mode, params, has_biases, c0 is not None and h0.dim() > 0 and
                             c0.dim() > 0 and h0.shape[-1] != c0.shape[-1], num_layers,
                             directions)
    width = _check_states(h0, c0, num_layers * directions, batch)
    _check_weights(mode, weights, input.shape[-1], (width, width if c0 is None
                                                    else c0.shape[2]), directions)
    if train and dropout and not 0 <= dropout <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout}")
    states = (list(h0.unbind(0)) if c0 is None
              else list(zip(h0.unbind(0), c0.unbind(0))))
    output, finals = _run_layers(mode, sequence, states, weights, num_layers, directions,
                                 dropout if train else 0.0, sizes)
    if directions == 1:  # (two directions: a ``cat``, PyTorch's node too)
        output = _composed(output, "StackBackward0" if sizes is None else "CatBackward0")
    if batch_first and sizes is None:
        output = output.transpose(0, 1)
        if mode != "LSTM":  # PyTorch's Elman and GRU layers transpose in place
            output = _composed(output, "TransposeBackward1")
    if c0 is None:
        return output, stack(finals, 0)
    return output, stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0)


def _run_layers(mode: str, sequence: Tensor, states: list, weights: list, num_layers: int,
                directions: int, dropout: float, sizes) -> tuple:
    """The last layer's output sequence and every layer and direction's final state.
    ``sequence`` is ``(L, N, H_in)``, or packed data with its batch ``sizes``."""
    finals = []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            w_ih, w_hh, b_ih, b_hh, w_hr = weights[index]
            projected = F.linear(sequence, w_ih, b_ih)  # one product for all steps
            out, final = run_recurrent(mode, projected, states[index], w_hh, b_hh, w_hr,
                                       sizes, reverse=bool(direction))
            outputs.append(out)
            finals.append(final)
        sequence = outputs[0] if len(outputs) == 1 else cat(outputs, -1)
        if dropout and layer < num_layers - 1:
            sequence = F.dropout(sequence, dropout, True)
    return sequence, finals


# -- checks ---------------------------------------------------------------------------
def _hidden(mode: str, hx) -> tuple:
    """``(h_0, c_0)``, ``c_0`` None but for LSTM, which needs exactly two states."""
    if mode != "LSTM":
        return hx, None
    if len(hx) != 2:
        raise RuntimeError(f"lstm expects two hidden states, got {len(hx)}")
    return tuple(hx)


def _batch_sizes(batch_sizes: Tensor, data: Tensor) -> list:
    """The packed steps' row counts as ints, checked as PyTorch does."""
    if batch_sizes.dtype is not int64:
        raise RuntimeError(f"expected scalar type Long but found {batch_sizes.dtype} for "
                           f"batch_sizes: pass the int64 batch_sizes of a PackedSequence")
    if batch_sizes.dim() != 1 or data.dim() != 2:
        raise RuntimeError(f"packed input must be data of 2 dimensions (rows, features) "
                           f"and batch_sizes of 1, got {data.dim()} and {batch_sizes.dim()}")
    if batch_sizes.shape[0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    return batch_sizes.tolist()


def _check_padded(input: Tensor) -> None:
    if input.dim() != 3:
        raise RuntimeError(f"input must have 3 dimensions (sequence, batch, features; "
                           f"batch first with batch_first=True), got {input.dim()}: give an "
                           f"unbatched sequence a batch dim of 1")
    if input.shape[0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")


def _check_states(h0: Tensor, c0, layers: int, batch: int) -> int:
    """``h_0`` (and ``c_0``) of ``layers`` states over the batch; returns their width."""
    for label, state in (("hidden[0]", h0), ("hidden[1]", c0)):
        if state is None:
            continue
        width = state.shape[-1] if state.dim() else 0
        if state.dim() != 3 or tuple(state.shape[:2]) != (layers, batch):
            raise RuntimeError(f"Expected {label} size ({layers}, {batch}, {width}), got "
                               f"{list(state.shape)}")
    return h0.shape[2]


def _layer_weights(mode: str, params, has_biases: bool, projecting: bool, num_layers: int,
                   directions: int) -> list:
    """``(w_ih, w_hh, b_ih, b_hh, w_hr)`` of each layer and direction (None if absent)."""
    per_layer = (4 if has_biases else 2) + (1 if projecting else 0)
    expected = per_layer * num_layers * directions
    if len(params) != expected:
        raise RuntimeError(
            f"got an incorrect number of RNN parameters: expected {expected} ({per_layer} per "
            f"layer and direction: w_ih, w_hh{', b_ih, b_hh' if has_biases else ''}"
            f"{', w_hr' if projecting else ''}; {num_layers} layer(s), {directions} "
            f"direction(s)), got {len(params)}")
    weights = []
    for start in range(0, expected, per_layer):
        group = list(params[start:start + per_layer])
        w_ih, w_hh = group[:2]
        b_ih, b_hh = group[2:4] if has_biases else (None, None)
        weights.append((w_ih, w_hh, b_ih, b_hh, group[-1] if projecting else None))
    return weights


def _check_weights(mode: str, weights: list, input_size: int, widths: tuple,
                   directions: int) -> None:
    """Each weight's shape against the states' and the input's sizes, naming it as the
    layers' parameters are named. ``widths``: h's size (``proj_size`` if projecting) and
    the hidden size (c's)."""
    width, hidden = widths
    for index, (w_ih, w_hh, b_ih, b_hh, w_hr) in enumerate(weights):
        layer, direction = divmod(index, directions)
        rows = GATES[mode] * hidden
        expected = {"weight_ih": (w_ih, (rows, input_size if layer == 0
                                         else width * directions)),
                    "weight_hh": (w_hh, (rows, width)), "bias_ih": (b_ih, (rows,)),
                    "bias_hh": (b_hh, (rows,)), "weight_hr": (w_hr, (width, hidden))}
        for name, (tensor, shape) in expected.items():
            if tensor is not None and tuple(tensor.shape) != shape:
                raise RuntimeError(f"{mode.lower()}: expected {name}"
                                   f"{layer_suffix(layer, direction)} of shape {shape}, got "
                                   f"{tuple(tensor.shape)}")

"""PyTorch's functional recurrent cells: ``torch.rnn_tanh_cell``, ``torch.rnn_relu_cell``,
``torch.lstm_cell`` and ``torch.gru_cell``, one time step over a batch of rows.

The step maths is the recurrent layers' op (``ops/recurrent.py``, run through
``recurrent_steps.run_recurrent``) over one step; the ``nn`` cells (``rnn_cell.py``) call
these functions, so a step is written once. These functions check the sizes as PyTorch
does, in its order and words: weights first, then the input, then each hidden state.
"""

from __future__ import annotations

from ..autocasting import autocast_op
from ..tensor import Tensor
from ..tensor_arguments import require_tensor
from . import functional as F
from .recurrent_steps import named_step, run_recurrent


@autocast_op("recurrent_layer")
def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """One Elman step ``tanh(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``.

    Shape:
        input ``(N, H_in)``, hx ``(N, H)``, w_ih ``(H, H_in)``, w_hh ``(H, H)``, b_ih and
        b_hh ``(H,)`` -> ``(N, H)``.

    Raises:
        RuntimeError: the sizes do not fit (PyTorch's messages).
    """
    return _elman("RNN_TANH", input, hx, w_ih, w_hh, b_ih, b_hh)


@autocast_op("recurrent_layer")
def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """One Elman step ``relu(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``.

    Shape:
        input ``(N, H_in)``, hx ``(N, H)``, w_ih ``(H, H_in)``, w_hh ``(H, H)``, b_ih and
        b_hh ``(H,)`` -> ``(N, H)``.

    Raises:
        RuntimeError: the sizes do not fit (PyTorch's messages).
    """
    return _elman("RNN_RELU", input, hx, w_ih, w_hh, b_ih, b_hh)


@autocast_op("recurrent_layer")
def lstm_cell(input: Tensor, hx, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> tuple:
    """One LSTM step, gates ``i, f, g, o``: ``c' = f * c + i * g``, ``h' = o * tanh(c')``.

    Shape:
        input ``(N, H_in)``, hx a pair ``(h, c)`` each ``(N, H)``, w_ih ``(4H, H_in)``,
        w_hh ``(4H, H)``, b_ih and b_hh ``(4H,)`` -> ``(h', c')`` each ``(N, H)``.

    Raises:
        TypeError: hx is not a tuple or list of tensors.
        RuntimeError: hx does not hold two states, or the sizes do not fit.
    """
    if not isinstance(hx, (tuple, list)) or not all(isinstance(t, Tensor) for t in hx):
        raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, "
                        f"not {type(hx).__name__}")
    if len(hx) != 2:
        raise RuntimeError(f"lstm_cell expects two hidden states, got {len(hx)}")
    _check_arguments("lstm_cell", 4, input, tuple(hx), w_ih, w_hh, b_ih, b_hh)
    _, state = run_recurrent("LSTM", F.linear(input, w_ih, b_ih), tuple(hx), w_hh, b_hh)
    return named_step(state, "LSTM")


@autocast_op("recurrent_layer")
def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
             b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """One GRU step, gates ``r, z``, candidate ``n``: ``h' = (1 - z) * n + z * hx``.

    Shape:
        input ``(N, H_in)``, hx ``(N, H)``, w_ih ``(3H, H_in)``, w_hh ``(3H, H)``, b_ih and
        b_hh ``(3H,)`` -> ``(N, H)``.

    Raises:
        RuntimeError: the sizes do not fit (PyTorch's messages).
    """
    _check_arguments("gru_cell", 3, input, (hx,), w_ih, w_hh, b_ih, b_hh)
    _, h = run_recurrent("GRU", F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)
    return named_step(h, "GRU")


def _elman(mode: str, input, hx, w_ih, w_hh, b_ih, b_hh) -> Tensor:
    _check_arguments(f"{mode.lower()}_cell", 1, input, (hx,), w_ih, w_hh, b_ih, b_hh)
    _, h = run_recurrent(mode, F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)
    return named_step(h, mode)


def _check_arguments(op: str, gates: int, input: Tensor, states: tuple, w_ih: Tensor,
                     w_hh: Tensor, b_ih, b_hh) -> None:
    """PyTorch's checks of ``op``'s arguments: their types, its sizes in its order, then
    one dtype for all."""
    arguments = (("input", input), ("hx", states[0]), ("w_ih", w_ih), ("w_hh", w_hh),
                 ("b_ih", b_ih), ("b_hh", b_hh))
    for position, (name, value) in enumerate(arguments, 1):
        # (lstm_cell has checked its pair of states; only the biases may be None)
        if not (name == "hx" and gates == 4) and not (value is None and name.startswith("b_")):
            require_tensor(op, name, value, position)
    _check_sizes(gates, input, states, w_ih, w_hh)
    if not input.is_floating_point():
        # PyTorch's LSTM and GRU steps refuse integers too; its Elman steps promote them
        raise RuntimeError(f"expected a floating-point input to the recurrent step, got "
                           f"{input.dtype}")
    named = (*((f"hx[{k}]" if len(states) > 1 else "hx", s) for k, s in enumerate(states)),
             ("w_ih", w_ih), ("w_hh", w_hh), ("b_ih", b_ih), ("b_hh", b_hh))
    for name, tensor in named:
        # PyTorch's matrix products refuse mixed dtypes (a RuntimeError there too)
        if tensor is not None and tensor.dtype is not input.dtype:
            raise RuntimeError(f"expected {name} to have the input's dtype {input.dtype}, "
                               f"got {tensor.dtype}")


#: the order of PyTorch's checks (weights, input, hidden states) in each cell
_CHECK_ORDER = {1: "wih", 3: "ihw", 4: "iwh"}


def _check_sizes(gates: int, input: Tensor, states: tuple, w_ih: Tensor,
                 w_hh: Tensor) -> None:
    """PyTorch's size checks; ``hidden_size`` is ``w_hh``'s second size. ``Tensor.size``
    raises PyTorch's IndexError on a tensor with too few dimensions."""
    checks = {"w": lambda: _check_weights(gates, w_ih, w_hh),
              "i": lambda: _check_input(input, w_ih),
              "h": lambda: _check_states(input, states, w_hh.size(1))}
    for key in _CHECK_ORDER[gates]:
        checks[key]()
    # PyTorch lets other ranks reach its matrix products; a step here takes rows only
    for name, tensor in (("input", input), *((f"hidden{k}", s) for k, s in enumerate(states))):
        if tensor.dim() != 2:
            raise RuntimeError(f"expected {name} to be 2-D (batch, features), got "
                               f"{tensor.dim()}-D of shape {tuple(tensor.shape)}")


def _check_weights(gates: int, w_ih: Tensor, w_hh: Tensor) -> None:
    hidden_size = w_hh.size(1)
    for name, weight in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if weight.size(0) != gates * hidden_size:
            raise RuntimeError(f"{name} first dim must be {gates} * hidden_size = "
                               f"{gates * hidden_size}, but got {weight.size(0)}")


def _check_input(input: Tensor, w_ih: Tensor) -> None:
    if input.size(1) != w_ih.size(1):
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                           f"expected {w_ih.size(1)}")


def _check_states(input: Tensor, states: tuple, hidden_size: int) -> None:
    for label, state in enumerate(states):
        if input.size(0) != state.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden"
                               f"{label} batch size {state.size(0)}")
        if state.size(1) != hidden_size:
            raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got "
                               f"{state.size(1)}, expected {hidden_size}")

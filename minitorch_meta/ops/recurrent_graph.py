"""The second-order formula of the recurrent layer ops (``ops/recurrent.py``).

A layer's backward through time runs on arrays, so its gradients have no graph. Under
``create_graph=True`` the op's ``backward_graph`` instead rebuilds the layer's forward from
differentiable tensor ops, joined to the op's inputs (the cell step written with
``matmul``, ``sigmoid``, ``tanh`` and slices, unrolled over the same steps in the same order,
packed ``batch_sizes``, ``reverse`` and LSTM's projection included), and differentiates
that graph with ``create_graph=True``. Its values are the op's to rounding, and so are its
gradients, which are now recorded and can be differentiated again to any order. It costs
one graph node per operation of every step, which only second-order gradients (and
forward-mode products, ``autograd/forward_products.py``) pay.
"""

from __future__ import annotations

from ..autograd.grad_mode import enable_grad
from ..autograd.gradients import grad as gradients


def layer_gradients(node, grad) -> tuple:
    """One recorded gradient (or None) per input of the recurrent op ``node`` (``x``,
    ``h0``, ``c0``, ``w_hh``, ``b_hh``, ``w_hr``), for the flat output's gradient ``grad``.

    Shape:
        ``grad`` of the op's flat output -> the inputs' shapes.
    """
    x, h0, c0, b_hh = node.saved_inputs
    w_hh, w_hr = node.weights
    arrays = (x, h0, c0, w_hh, b_hh, w_hr)
    wanted = [k for k, a in enumerate(arrays) if a is not None and node.needs_input_grad[k]]
    with enable_grad():
        joined = [None if a is None else node.graph_input(k, a) for k, a in enumerate(arrays)]
        # A view of each wanted input is a node of its own: the gradient with respect to it
        # counts this op's uses only, whatever else the input feeds.
        for k in wanted:
            joined[k] = joined[k].view(tuple(joined[k].shape))
        flat = _rebuilt_forward(node, *joined)
        found = gradients(flat, [joined[k] for k in wanted], grad, create_graph=True,
                          materialize_grads=True)
    result = [None] * len(arrays)
    for k, g in zip(wanted, found):
        result[k] = g
    return tuple(result)


def _rebuilt_forward(node, x, h, c, w_hh, b_hh, w_hr):
    """The op's flat output from tensor ops: every step's hidden state in row order, the
    final hidden state, then (LSTM) the final cell state."""
    from ..functions import cat

    step = _STEPS[node.op_name]
    batch = h.shape[0]
    state = [h] if c is None else [h, c]
    hidden_rows = {}
    for start, count in node._steps(x.shape[0]):
        current = state if count == batch else [s[:count] for s in state]
        new = step(node, x[start:start + count], current, w_hh, b_hh, w_hr)
        hidden_rows[start] = new[0]
        # a packed step runs the first ``count`` rows; the others keep their state
        state = new if count == batch else [cat([n, s[count:]], 0)
                                            for n, s in zip(new, state)]
    parts = [hidden_rows[start] for start in sorted(hidden_rows)] + state
    return cat([part.reshape(-1) for part in parts], 0)


def _hidden_gates(h, w_hh, b_hh):
    gates = h.matmul(w_hh.t())
    return gates if b_hh is None else gates + b_hh


def _elman_step(node, x, state, w_hh, b_hh, w_hr) -> list:
    pre = x + _hidden_gates(state[0], w_hh, b_hh)
    return [pre.tanh() if node.nonlinearity == "tanh" else pre.relu()]


def _lstm_step(node, x, state, w_hh, b_hh, w_hr) -> list:
    gates = x + _hidden_gates(state[0], w_hh, b_hh)
    size = gates.shape[1] // 4
    i, f, g, o = (gates[:, k * size:(k + 1) * size] for k in range(4))
    c = f.sigmoid() * state[1] + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = h.matmul(w_hr.t())
    return [h, c]


def _gru_step(node, x, state, w_hh, b_hh, w_hr) -> list:
    hidden = _hidden_gates(state[0], w_hh, b_hh)
    size = hidden.shape[1] // 3
    r, z = ((x[:, k * size:(k + 1) * size] + hidden[:, k * size:(k + 1) * size]).sigmoid()
            for k in range(2))
    n = (x[:, 2 * size:] + r * hidden[:, 2 * size:]).tanh()
    return [n + z * (state[0] - n)]


#: the step of each recurrent op, by its ``op_name``
_STEPS = {"rnn": _elman_step, "lstm": _lstm_step, "gru": _gru_step}

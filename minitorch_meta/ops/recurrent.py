"""Recurrent layers as one op each over a whole sequence: Elman RNN, LSTM and GRU.

A recurrent layer run as ops, one small op after another, costs ~15 graph nodes per time
step, each with its dispatch, bookkeeping and backward call: on a (32, 128) state that
overhead is most of the time. Here the time loop runs inside one op on backend arrays, and
its backward is the loop run back (backpropagation through time), as PyTorch's CPU LSTM
does (``MkldnnRnnLayerBackward0``). It also makes the meta device's cost independent of
the sequence's length: one shape rule instead of one graph node per step.

The caller projects the input first, ``x @ w_ih.T + b_ih`` for every step at once (one
GEMM), and passes those rows: step ``t``'s rows follow step ``t - 1``'s. The hidden state's
weight gradient is one GEMM too, over every step's gate gradients, after the loop.

Packed sequences: step ``t`` runs only the first ``batch_sizes[t]`` rows of the batch
(sequences are sorted longest first); the others keep their state. So the final state of
each row is its own last step's, in both directions.

The output is one flat array so that every part of it carries a gradient (an op's extra
outputs carry none): every step's hidden state ``(R, P)``, then the final hidden state
``(N, P)``, then (LSTM) the final cell state ``(N, H)``. ``nn/recurrent_steps.py`` cuts
it into views.
"""

from __future__ import annotations

from .elementwise import logistic
from .function import Function
from .recurrent_graph import layer_gradients
from .shapes import ShapeError, fmt


class RecurrentLayer(Function):
    """The time loop and its backward, shared by the three cells (subclasses define one
    step forward and back).

    Inputs: ``x`` ``(R, G)``, the input's projection of every step's rows; ``h0``
    ``(N, P)``; ``c0`` ``(N, H)`` (LSTM, else None); ``w_hh`` ``(G, P)``; ``b_hh`` ``(G,)``
    or None; ``w_hr`` ``(P, H)`` (LSTM with ``proj_size``, else None). ``G`` is
    ``gates * H``; ``P`` is ``H`` except with ``proj_size``.

    Hyper-parameters: ``batch_sizes``, an int ``N`` when every step has the whole batch
    (then ``R = T * N``), or the tuple of each step's row count (packed); ``reverse``, to
    run from the last step to the first.

    Shape:
        as above -> ``(R * P + N * P,)`` (LSTM: ``+ N * H``): every step's hidden state,
        the final hidden state and the final cell state, flattened one after the other.
    """

    #: gate blocks in ``G`` (Elman 1, GRU 3, LSTM 4)
    gates = 1
    #: LSTM: a cell state beside the hidden state
    has_cell = False
    # backward reads the weights (the input projection and states are copied into
    # buffers); the second-order formula reads every input
    saved_for_backward = (0, 1, 2, 3, 4, 5)

    # -- shape rule ------------------------------------------------------------------
    def infer(self, x, h0, c0, w_hh, b_hh, w_hr):
        rows, width = _shape_2d(self.op_name, "input projection", x)
        batch, hidden_width = _shape_2d(self.op_name, "h0", h0)
        size = width // self.gates
        self._check_weights(x, h0, c0, w_hh, b_hh, w_hr, size, hidden_width, batch)
        self._check_batch_sizes(rows, batch)
        self.out_dtype = x._dtype
        self.layout = output_layout(rows, batch, hidden_width, size if self.has_cell else None)
        return (self.layout[-1][1],), x._dtype

    def _check_weights(self, x, h0, c0, w_hh, b_hh, w_hr, size, hidden_width, batch):
        width = x._data.shape[1]
        if width != self.gates * size or size == 0:
            raise ShapeError(self.op_name, f"expected the input projection's width to be "
                             f"{self.gates} * hidden_size, got {width}")
        projected = hidden_width if w_hr is None else w_hr._data.shape[0]
        expected = {"w_hh": (w_hh, (width, hidden_width)), "b_hh": (b_hh, (width,)),
                    "c0": (c0, (batch, size)), "w_hr": (w_hr, (projected, size))}
        for name, (tensor, shape) in expected.items():
            if tensor is not None and tuple(tensor._data.shape) != shape:
                raise ShapeError(self.op_name, f"expected {name} of shape {fmt(shape)}, got "
                                 f"{fmt(tuple(tensor._data.shape))}")
        if self.has_cell and c0 is None:
            raise ShapeError(self.op_name, "expected a cell state c0, got None")
        for tensor in (h0, c0, w_hh, b_hh, w_hr):
            if tensor is not None and tensor._dtype is not x._dtype:
                raise ShapeError(self.op_name, f"expected every state and weight in "
                                 f"{x._dtype} like the input, got {tensor._dtype}")

    def _check_batch_sizes(self, rows: int, batch: int) -> None:
        sizes = self.batch_sizes
        if isinstance(sizes, int):
            if sizes != batch or rows % max(batch, 1) or (batch == 0 and rows):
                raise ShapeError(self.op_name, f"expected the input projection's rows to be "
                                 f"steps * batch ({batch}), got {rows}")
            return
        if not sizes or sizes[0] != batch or sum(sizes) != rows or any(
                later > earlier for earlier, later in zip(sizes, sizes[1:])):
            raise ShapeError(self.op_name, f"expected batch_sizes that do not grow, start at "
                             f"the batch ({batch}) and add up to the input's rows ({rows}), "
                             f"got {list(sizes)}")

    # -- the loop ----------------------------------------------------------------------
    def _steps(self, rows: int) -> list:
        """``(first row, row count)`` of each step, in the order the forward runs them."""
        sizes = self.batch_sizes
        if isinstance(sizes, int):
            sizes = [sizes] * (rows // sizes) if sizes else []
        steps, start = [], 0
        for size in sizes:
            steps.append((start, size))
            start += size
        return steps[::-1] if self.reverse else steps

    def forward(self, backend, x, h0, c0, w_hh, b_hh, w_hr):
        rows, batch = x.shape[0], h0.shape[0]
        out = backend.empty((self.layout[-1][1],), self.out_dtype)
        hidden = _part(backend, out, self.layout[0])
        packed = not isinstance(self.batch_sizes, int)
        # Packed steps write their rows into the state; start from copies, not the inputs.
        state = [h0] if c0 is None else [h0, c0]
        if packed:
            state = [backend.copy(s) for s in state]
        self._allocate(backend, rows, x, h0)
        w_hh_t = backend.transpose(w_hh, (1, 0))
        for start, count in self._steps(rows):
            block = slice(start, start + count)
            current = state if count == batch else [backend.getitem(s, slice(0, count))
                                                    for s in state]
            if self.recording:
                backend.setitem(self.h_prev, block, current[0])
            new = self._step(backend, backend.getitem(x, block), current, block, w_hh_t,
                             b_hh, w_hr)
            backend.setitem(hidden, block, new[0])
            state = _updated(backend, state, new, count, batch)
        for (start, end, _), final in zip(self.layout[1:], state):
            backend.setitem(out, slice(start, end), backend.reshape(final, (end - start,)))
        if self.recording:
            self.weights = (w_hh, w_hr)
            self.saved_inputs = (x, h0, c0, b_hh)  # references: only backward_graph reads them
        return out

    def _allocate(self, backend, rows: int, x, h0) -> None:
        """The buffers backward reads, one row per step's row (none when not recording)."""
        if self.recording:
            self.h_prev = backend.empty((rows, h0.shape[1]), self.out_dtype)

    # -- backward ----------------------------------------------------------------------
    def backward(self, backend, grad):
        rows, batch = self.input_specs[0][0][0], self.input_specs[1][0][0]
        w_hh, w_hr = self.weights
        g_hidden = _part(backend, grad, self.layout[0])
        # copies: backward writes the rows of each step into them
        d_state = [backend.copy(_part(backend, grad, part)) for part in self.layout[1:]]
        d_x = backend.empty((rows, w_hh.shape[0]), self.out_dtype)
        self._allocate_grads(backend, rows, d_x)
        for start, count in reversed(self._steps(rows)):
            block = slice(start, start + count)
            current = d_state if count == batch else [backend.getitem(s, slice(0, count))
                                                      for s in d_state]
            d_h = backend.binary("add", backend.getitem(g_hidden, block), current[0])
            new = self._step_backward(backend, block, d_h, current[1:], d_x, w_hh, w_hr)
            d_state = _updated(backend, d_state, new, count, batch)
        return self._input_grads(backend, d_x, d_state)

    def backward_graph(self, grad):
        """The gradients as recorded tensor ops, from the layer's forward rebuilt step by
        step (``recurrent_graph.py``), so that they can be differentiated again."""
        return layer_gradients(self, grad)

    def _allocate_grads(self, backend, rows: int, d_x) -> None:
        """Buffers of per-row gradients a cell fills (LSTM's projection, GRU's hidden
        gates); none by default."""

    def _hidden_gate_grads(self, d_x):
        """The gradient of ``h @ w_hh.T + b_hh`` for every row: the input projection's
        for Elman and LSTM, where both are added before any nonlinearity."""
        return d_x

    def _input_grads(self, backend, d_x, d_state) -> tuple:
        """One gradient per input: ``x``, ``h0``, ``c0``, ``w_hh``, ``b_hh``, ``w_hr``."""
        needs = self.needs_input_grad
        d_gates = self._hidden_gate_grads(d_x)
        g_w_hh = g_b_hh = None
        if needs[3]:  # one GEMM over every step: sum over t of d_gates[t].T @ h[t - 1]
            g_w_hh = backend.matmul(backend.transpose(d_gates, (1, 0)), self.h_prev)
        if needs[4]:
            g_b_hh = backend.sum(d_gates, 0, False)
        g_c0 = d_state[1] if self.has_cell and needs[2] else None
        return (d_x if needs[0] else None, d_state[0] if needs[1] else None, g_c0,
                g_w_hh, g_b_hh, self._projection_grad(backend) if needs[5] else None)

    def _projection_grad(self, backend):
        return None


class ElmanLayer(RecurrentLayer):
    """``h_t = act(x_t + h_{t-1} @ w_hh.T + b_hh)``, act ``tanh`` or ``relu``
    (hyper-parameter ``nonlinearity``); see ``RecurrentLayer``.

    Shape:
        as ``RecurrentLayer``, ``G = H``.
    """

    op_name, backward_name = "rnn", "RnnLayerBackward0"

    def _allocate(self, backend, rows, x, h0):
        super()._allocate(backend, rows, x, h0)
        if self.recording:
            self.activated = backend.empty(x.shape, self.out_dtype)

    def _step(self, backend, x, state, block, w_hh_t, b_hh, w_hr):
        pre = backend.binary("add", x, _hidden_gates(backend, state[0], w_hh_t, b_hh))
        if self.nonlinearity == "tanh":
            h = backend.unary("tanh", pre)
        else:
            h = backend.binary("maximum", pre, pre.dtype.type(0))
        if self.recording:
            backend.setitem(self.activated, block, h)
        return [h]

    def _step_backward(self, backend, block, d_h, d_rest, d_x, w_hh, w_hr):
        h = backend.getitem(self.activated, block)
        if self.nonlinearity == "tanh":
            slope = _tanh_slope(backend, h)
        else:
            slope = backend.astype(backend.binary("gt", h, 0), self.out_dtype)
        d_pre = backend.binary("mul", d_h, slope)
        backend.setitem(d_x, block, d_pre)
        return [backend.matmul(d_pre, w_hh)]


class LSTMLayer(RecurrentLayer):
    """LSTM: gates ``i, f, g, o`` of ``x_t + h_{t-1} @ w_hh.T + b_hh``,
    ``c_t = f * c_{t-1} + i * g``, ``h_t = o * tanh(c_t)``, then ``h_t @ w_hr.T`` with
    ``proj_size``; see ``RecurrentLayer``.

    Shape:
        as ``RecurrentLayer``, ``G = 4 * H``.
    """

    op_name, backward_name = "lstm", "LstmLayerBackward0"
    gates, has_cell = 4, True

    def infer(self, x, h0, c0, w_hh, b_hh, w_hr):
        self.cell_width, self.projecting = x._data.shape[1] // 4, w_hr is not None
        return super().infer(x, h0, c0, w_hh, b_hh, w_hr)

    def _allocate(self, backend, rows, x, h0):
        super()._allocate(backend, rows, x, h0)
        if self.recording:
            size = self.cell_width
            self.activated = backend.empty(x.shape, self.out_dtype)  # i, f, g, o
            self.c_prev = backend.empty((rows, size), self.out_dtype)
            self.tanh_c = backend.empty((rows, size), self.out_dtype)
            if self.projecting:
                self.h_raw = backend.empty((rows, size), self.out_dtype)

    def _step(self, backend, x, state, block, w_hh_t, b_hh, w_hr):
        size = self.cell_width
        gates = backend.binary("add", x, _hidden_gates(backend, state[0], w_hh_t, b_hh))
        act = logistic(backend, gates)  # g's block is overwritten by its tanh below
        g_block = (slice(None), slice(2 * size, 3 * size))
        g = backend.unary("tanh", backend.getitem(gates, g_block))
        backend.setitem(act, g_block, g)
        i, f, o = (backend.getitem(act, (slice(None), slice(k * size, (k + 1) * size)))
                   for k in (0, 1, 3))
        c = backend.binary("add", backend.binary("mul", f, state[1]),
                           backend.binary("mul", i, g))
        tanh_c = backend.unary("tanh", c)
        h = backend.binary("mul", o, tanh_c)
        if self.recording:
            for buffer, value in ((self.activated, act), (self.c_prev, state[1]),
                                  (self.tanh_c, tanh_c)):
                backend.setitem(buffer, block, value)
            if w_hr is not None:
                backend.setitem(self.h_raw, block, h)
        if w_hr is not None:
            h = backend.matmul(h, backend.transpose(w_hr, (1, 0)))
        return [h, c]

    def _allocate_grads(self, backend, rows, d_x):
        if self.projecting:  # the gradient of each projected h, for w_hr's
            self.d_projected = backend.empty((rows, self.input_specs[1][0][1]),
                                             self.out_dtype)

    def _step_backward(self, backend, block, d_h, d_rest, d_x, w_hh, w_hr):
        size = self.cell_width
        if w_hr is not None:
            backend.setitem(self.d_projected, block, d_h)
            d_h = backend.matmul(d_h, w_hr)
        act = backend.getitem(self.activated, block)
        i, f, g, o = (backend.getitem(act, (slice(None), slice(k * size, (k + 1) * size)))
                      for k in range(4))
        tanh_c = backend.getitem(self.tanh_c, block)
        mul, add = _binary_function(backend, "mul"), _binary_function(backend, "add")
        d_c = add(d_rest[0], mul(mul(d_h, o), _tanh_slope(backend, tanh_c)))
        d_gates = backend.getitem(d_x, block)
        for k, (d_act, slope) in enumerate((
                (mul(d_c, g), _sigmoid_slope(backend, i)),
                (mul(d_c, backend.getitem(self.c_prev, block)), _sigmoid_slope(backend, f)),
                (mul(d_c, i), _tanh_slope(backend, g)),
                (mul(d_h, tanh_c), _sigmoid_slope(backend, o)))):
            backend.setitem(d_gates, (slice(None), slice(k * size, (k + 1) * size)),
                            mul(d_act, slope))
        return [backend.matmul(d_gates, w_hh), mul(d_c, f)]

    def _projection_grad(self, backend):  # sum over rows of d_projected.T @ h_raw
        return backend.matmul(backend.transpose(self.d_projected, (1, 0)), self.h_raw)


class GRULayer(RecurrentLayer):
    """GRU: ``r, z = sigmoid(x_rz + h @ w_hrz.T + b_hrz)``,
    ``n = tanh(x_n + r * (h @ w_hn.T + b_hn))``, ``h_t = (1 - z) * n + z * h_{t-1}``;
    see ``RecurrentLayer``.

    Shape:
        as ``RecurrentLayer``, ``G = 3 * H``.
    """

    op_name, backward_name = "gru", "GruLayerBackward0"
    gates = 3

    def _allocate(self, backend, rows, x, h0):
        super()._allocate(backend, rows, x, h0)
        if self.recording:
            size = h0.shape[1]
            self.reset_update = backend.empty((rows, 2 * size), self.out_dtype)
            self.candidate = backend.empty((rows, size), self.out_dtype)
            self.hidden_n = backend.empty((rows, size), self.out_dtype)

    def _step(self, backend, x, state, block, w_hh_t, b_hh, w_hr):
        size = state[0].shape[1]
        first, last = (slice(None), slice(0, 2 * size)), (slice(None), slice(2 * size, None))
        hidden = _hidden_gates(backend, state[0], w_hh_t, b_hh)
        reset_update = logistic(backend, backend.binary(
            "add", backend.getitem(x, first), backend.getitem(hidden, first)))
        r = backend.getitem(reset_update, (slice(None), slice(0, size)))
        z = backend.getitem(reset_update, (slice(None), slice(size, None)))
        hidden_n = backend.getitem(hidden, last)
        n = backend.unary("tanh", backend.binary("add", backend.getitem(x, last),
                                                 backend.binary("mul", r, hidden_n)))
        # (1 - z) * n + z * h with one product fewer
        h = backend.binary("add", n, backend.binary("mul", z, backend.binary(
            "sub", state[0], n)))
        if self.recording:
            for buffer, value in ((self.reset_update, reset_update), (self.candidate, n),
                                  (self.hidden_n, hidden_n)):
                backend.setitem(buffer, block, value)
        return [h]

    def _allocate_grads(self, backend, rows, d_x):
        self.d_hidden = backend.empty(d_x.shape, self.out_dtype)

    def _hidden_gate_grads(self, d_x):
        return self.d_hidden

    def _step_backward(self, backend, block, d_h, d_rest, d_x, w_hh, w_hr):
        mul, add = _binary_function(backend, "mul"), _binary_function(backend, "add")
        size = d_h.shape[1]
        reset_update = backend.getitem(self.reset_update, block)
        r = backend.getitem(reset_update, (slice(None), slice(0, size)))
        z = backend.getitem(reset_update, (slice(None), slice(size, None)))
        n = backend.getitem(self.candidate, block)
        h_prev = backend.getitem(self.h_prev, block)
        d_n = mul(mul(d_h, backend.binary("sub", z.dtype.type(1), z)), _tanh_slope(backend, n))
        d_r = mul(mul(d_n, backend.getitem(self.hidden_n, block)), _sigmoid_slope(backend, r))
        d_z = mul(mul(d_h, backend.binary("sub", h_prev, n)), _sigmoid_slope(backend, z))
        d_hidden = backend.getitem(self.d_hidden, block)
        columns = [(slice(None), slice(k * size, (k + 1) * size)) for k in range(3)]
        d_inputs = backend.getitem(d_x, block)
        for k, value in enumerate((d_r, d_z, d_n)):
            backend.setitem(d_inputs, columns[k], value)
        for k, value in enumerate((d_r, d_z, mul(d_n, r))):
            backend.setitem(d_hidden, columns[k], value)
        return [add(mul(d_h, z), backend.matmul(d_hidden, w_hh))]


def output_layout(rows: int, batch: int, width: int, cell_width: int | None = None) -> list:
    """Where each part of a recurrent op's flat output lies: ``(start, end, shape)`` of
    every step's hidden state ``(rows, width)``, the final hidden state ``(batch, width)``
    and, with a ``cell_width`` (LSTM), the final cell state ``(batch, cell_width)``."""
    shapes = [(rows, width), (batch, width)] + ([] if cell_width is None
                                                 else [(batch, cell_width)])
    parts, start = [], 0
    for shape in shapes:
        parts.append((start, start + shape[0] * shape[1], shape))
        start = parts[-1][1]
    return parts


def _part(backend, flat, part):
    """The view of ``flat`` that one ``output_layout`` entry describes."""
    start, end, shape = part
    return backend.reshape(backend.getitem(flat, slice(start, end)), shape)


def _shape_2d(op: str, name: str, tensor) -> tuple:
    shape = tuple(tensor._data.shape)
    if len(shape) != 2:
        raise ShapeError(op, f"expected the {name} to be 2-D, got shape {fmt(shape)}")
    return shape


def _hidden_gates(backend, h, w_hh_t, b_hh):
    """``h @ w_hh.T + b_hh``, the bias added in place into the fresh product."""
    gates = backend.matmul(h, w_hh_t)
    if b_hh is not None:
        gates += b_hh
    return gates


def _updated(backend, state: list, new: list, count: int, batch: int) -> list:
    """The state after a step that ran the first ``count`` rows: ``new`` itself when it
    ran them all, else ``state`` with those rows overwritten (the rest keep theirs)."""
    if count == batch:
        return new
    for whole, rows in zip(state, new):
        backend.setitem(whole, slice(0, count), rows)
    return state


def _tanh_slope(backend, t):
    """``1 - t²``: tanh's derivative from its value ``t``."""
    return backend.binary("sub", t.dtype.type(1), backend.binary("mul", t, t))


def _sigmoid_slope(backend, s):
    """``s (1 - s)``: the logistic function's derivative from its value ``s``."""
    return backend.binary("mul", s, backend.binary("sub", s.dtype.type(1), s))


def _binary_function(backend, name: str):
    """``backend.binary(name, a, b)`` as a two-argument function (for long formulas)."""
    return lambda a, b: backend.binary(name, a, b)

"""``einsum``: Einstein summation over any number of operands, one kernel call each way.

The shape rule (``einsum_equation.plan``) turns PyTorch's equation into an explicit one of
letters only, without broadcasting; forward runs it on the ``einsum`` kernel. The gradient
of each operand is itself an einsum: the output's gradient contracted with the other
operands onto the operand's subscripts. Two cases need more than that one call: a
subscript only that operand has (summed in forward, so its gradient is the same along it:
broadcast), and a repeated subscript (a diagonal, so the gradient is written back onto the
diagonal of zeros).
"""

from __future__ import annotations

from .. import dtypes
from . import einsum_equation
from .function import Function


class Einsum(Function):
    """``torch.einsum(equation, *operands)``.

    Shape:
        from the equation: the output subscripts' sizes, where a subscript's size is the
        one other than 1 among its dims (broadcasting); the dtype is the operands' (int64
        for some integer equations, see ``einsum_equation.result_dtype``).

    Raises:
        RuntimeError with PyTorch's messages for a malformed equation, operand counts or
        dims the equation does not describe, sizes that do not broadcast, and operands of
        different dtypes.
    """

    op_name, backward_name = "einsum", "EinsumBackward0"
    equation = ""

    def infer(self, *operands):
        shapes = [t._data.shape for t in operands]
        self.plan = einsum_equation.plan(self.equation, shapes)
        self.out_dtype = einsum_equation.result_dtype(self.plan, [t._dtype for t in operands])
        # Operand j is read by the gradient of every other operand (and only then).
        n = len(operands)
        self.saved_for_backward = tuple((j, k) for j in range(n) for k in range(n) if j != k)
        return self.plan.out_shape, self.out_dtype

    def forward(self, backend, *arrays):
        plan, dtype = self.plan, self.out_dtype
        operands = []
        for a, shape in zip(arrays, plan.shapes):
            if a.shape != shape:  # broadcast size-1 dims dropped
                a = backend.reshape(a, shape)
            operands.append(a if a.dtype == dtype.numpy else backend.astype(a, dtype))
        if self.recording:
            self.operands = operands
        return backend.einsum(plan.equation, *operands)

    def backward(self, backend, gy):
        return tuple(self._operand_gradient(backend, gy, k) if need else None
                     for k, need in enumerate(self.needs_input_grad))

    def _operand_gradient(self, backend, gy, k: int):
        plan = self.plan
        letters = plan.subscripts[k]
        distinct = "".join(dict.fromkeys(letters))  # in order, each once
        others = [j for j in range(len(plan.subscripts)) if j != k]
        elsewhere = set(plan.output).union(*(plan.subscripts[j] for j in others))
        reached = "".join(c for c in distinct if c in elsewhere)
        terms = ",".join([plan.output] + [plan.subscripts[j] for j in others])
        g = backend.einsum(f"{terms}->{reached}", gy, *(self.operands[j] for j in others))
        if len(reached) < len(distinct):
            g = _spread(backend, g, distinct, elsewhere, plan.sizes)
        if len(distinct) < len(letters):
            g = _onto_diagonal(backend, g, letters, distinct, plan.shapes[k])
        shape, dtype = self.input_specs[k]
        g = backend.reshape(g, tuple(shape))  # the dropped broadcast dims come back as 1
        return g if g.dtype == dtype.numpy else backend.astype(g, dtype)


    def backward_graph(self, grad):
        return tuple(self._operand_gradient_graph(grad, k) if need else None
                     for k, need in enumerate(self.needs_input_grad))

    def _operand_gradient_graph(self, grad, k: int):
        """``_operand_gradient`` with tensor ops: an einsum again, then a recorded
        broadcast and a recorded write onto the diagonal."""
        plan = self.plan
        letters = plan.subscripts[k]
        distinct = "".join(dict.fromkeys(letters))
        others = [j for j in range(len(plan.subscripts)) if j != k]
        elsewhere = set(plan.output).union(*(plan.subscripts[j] for j in others))
        reached = "".join(c for c in distinct if c in elsewhere)
        terms = ",".join([plan.output] + [plan.subscripts[j] for j in others])
        g = Einsum(equation=f"{terms}->{reached}")(grad, *(self._operand(j) for j in others))
        if len(reached) < len(distinct):
            with_ones = tuple(plan.sizes[c] if c in elsewhere else 1 for c in distinct)
            g = g.reshape(with_ones).expand(tuple(plan.sizes[c] for c in distinct))
        if len(distinct) < len(letters):
            g = self._onto_diagonal_graph(g, letters, distinct, plan.shapes[k])
        shape, dtype = self.input_specs[k]
        g = g.reshape(tuple(shape))
        return g if g._dtype is dtype else g.to(dtype)

    def _operand(self, j: int):
        """Operand ``j`` as forward used it (broadcast dims dropped), joined to input ``j``:
        the join needs the input's own shape, then the same reshape as forward's."""
        backend, shape = self.backend, tuple(self.input_specs[j][0])
        tensor = self.graph_input(j, backend.reshape(self.operands[j], shape))
        return tensor.reshape(self.plan.shapes[j])

    def _onto_diagonal_graph(self, g, letters: str, distinct: str, shape: tuple):
        """``_onto_diagonal`` as a recorded op: the indexed write whose gradient reads the
        diagonal back (``IndexedZeros``)."""
        from .layout import IndexedZeros

        backend = self.backend
        index = tuple(_diagonal_index(backend, letters, distinct, shape))
        shape_index = tuple(backend.to_numpy(i) for i in index)
        return IndexedZeros(index, shape_index, tuple(shape), g._dtype, self.name())(g)


def _diagonal_index(backend, letters: str, distinct: str, shape: tuple):
    """For each dim of ``shape`` (subscripts ``letters``), an index array that runs with
    the dim of ``distinct`` of its subscript: together they address the diagonal."""
    for c, size in zip(letters, shape):
        along = [1] * len(distinct)
        along[distinct.index(c)] = size
        yield backend.reshape(backend.arange(0, size, 1, dtypes.int64), tuple(along))


def _spread(backend, g, distinct: str, reached: set, sizes: dict):
    """``g`` broadcast over the subscripts of ``distinct`` it lacks (those not in
    ``reached``): forward summed them, so every element along them had the same weight."""
    with_ones = tuple(sizes[c] if c in reached else 1 for c in distinct)
    full = tuple(sizes[c] for c in distinct)
    zeros = backend.full(full, 0, dtypes.from_numpy(g.dtype))
    return backend.binary("add", zeros, backend.reshape(g, with_ones))


def _onto_diagonal(backend, g, letters: str, distinct: str, shape: tuple):
    """Zeros of ``shape`` (subscripts ``letters``, some repeated) with ``g`` (subscripts
    ``distinct``) written where the repeated subscripts' indices are equal."""
    out = backend.full(shape, 0, dtypes.from_numpy(g.dtype))
    backend.setitem(out, tuple(_diagonal_index(backend, letters, distinct, shape)), g)
    return out

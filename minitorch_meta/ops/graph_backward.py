"""Differentiable gradients (``create_graph=True``): what an op's ``backward_graph`` uses.

An op's ``backward`` runs on arrays, which is fast and enough for first-order gradients.
For gradients of gradients (a gradient penalty, a Hessian-vector product, MAML) the
engine instead calls each node's ``backward_graph(grad)``: the same formula written with
tensor ops, so that it is recorded like any forward computation. Its inputs are tensors
joined to the forward graph:

- ``graph_input(i, array)``: what forward saved of input ``i``, as a tensor whose gradient
  flows on to input ``i``'s node (a leaf is the leaf tensor itself);
- ``graph_output(array)``: the op's saved output, as a tensor whose gradient flows back
  through this very node (``exp``'s gradient ``grad * out`` depends on ``x`` through it);
- ``constant(array)``: a saved array with no gradient (a mask, indices).

An op without ``backward_graph`` still gives correct first-order gradients under
``create_graph=True``: ``once_differentiable`` runs its ``backward`` and hands the results
on behind a node that refuses to be differentiated, as PyTorch does for the ops whose
double backward it does not implement. So a second derivative is never silently wrong:
it is right or it raises, naming the op.
"""

from __future__ import annotations

import copy
import re

from ..autograd.engine import AccumulateGrad
from ..autograd.graph_node import GraphNode
from ..autograd.indexed_gradient import IndexedGradient


def input_tensor(node, position: int, array):
    """Input ``position`` of ``node`` as a tensor for a graph formula (see the module).
    ``array`` is what forward saved of it, possibly cast to the op's compute dtype: the
    tensor is then joined in the input's own dtype and cast by a recorded ``to``."""
    from ..tensor import Tensor

    edge = node._next_nodes[position]
    backend = node.backend
    if edge is None:  # no gradient wanted: a plain constant
        return Tensor._make(array, backend)
    _, dtype = node.input_specs[position]
    if isinstance(edge, AccumulateGrad):
        tensor = edge.variable  # the leaf itself: ``array`` is its data (or a cast of it)
    else:
        if array.dtype != dtype.numpy:
            array = backend.astype(array, dtype)
        return _cast_like(Tensor._make(array, backend, True, edge), array)
    return _cast_like(tensor, array)


def _cast_like(tensor, array):
    """``tensor`` in ``array``'s dtype (a recorded cast), or as it is when they agree."""
    if tensor._data.dtype == array.dtype:
        return tensor
    from ..dtypes import from_numpy

    return tensor.to(from_numpy(array.dtype))


def output_tensor(node, array):
    """The op's saved output as a tensor whose gradient flows back through ``node``."""
    from ..tensor import Tensor

    return Tensor._make(array, node.backend, True, node)


def constant_tensor(node, array):
    """A saved array as a tensor with no gradient (a mask, a count, indices)."""
    from ..tensor import Tensor

    return Tensor._make(array, node.backend)


def reduce_to_input(grad, spec):
    """A broadcast gradient tensor summed back to an input's ``(shape, dtype)``, recorded
    (the graph twin of ``elementwise._reduce``)."""
    shape, dtype = spec
    if tuple(grad.shape) != tuple(shape):
        grad = grad.sum_to_size(tuple(shape))
    if grad._dtype is not dtype:
        grad = grad.to(dtype)
    return grad


def once_differentiable(node, grad, retain_graph: bool) -> tuple:
    """``node``'s first-order gradients from its array ``backward``, as tensors behind a
    ``NotDifferentiableTwice`` node: right as values, refusing a second differentiation."""
    from ..tensor import Tensor

    backend = node.backend
    arrays = node._backward(grad._data, retain_graph)
    tensors = []
    for array in arrays:
        if isinstance(array, IndexedGradient):
            array = array.dense(backend)
        # one node per gradient: the engine sums what reaches a node, and these gradients
        # have the shapes of different inputs
        if array is not None:
            stop = NotDifferentiableTwice(node.name(), backend,
                                          (_edge_of(grad),) + tuple(node._next_nodes))
            array = Tensor._make(array, backend, True, stop)
        tensors.append(array)
    return tuple(tensors)


#: (graph formula, first-order formula) pairs of method names: a formula written for a
#: class does not hold for a subclass that changes the first-order one
_FORMULA_PAIRS = (("backward_graph", "backward"), ("backward_graph", "_backward"),
                  ("grads_graph", "grads"))


def formula_applies(op_class) -> bool:
    """Whether ``op_class``'s graph formula was written for its own first-order backward:
    the class that defines the graph formula must be ``op_class`` or a subclass of the one
    that defines the first-order formula. (``Fmax`` subclasses ``Maximum`` with another
    gradient; it must not inherit ``Maximum``'s graph formula.)"""
    for graph_name, first_name in _FORMULA_PAIRS:
        graph_owner = _owner(op_class, graph_name)
        first_owner = _owner(op_class, first_name)
        if graph_owner is not None and first_owner is not None and \
                not issubclass(graph_owner, first_owner):
            return False
    return True


def _owner(op_class, name: str):
    """The class in ``op_class``'s MRO whose own body sets ``name`` (to something not None)."""
    for klass in op_class.__mro__:
        if klass.__dict__.get(name) is not None:
            return klass
    return None


def meta_gradients(node, grad) -> tuple:
    """``node``'s gradients on a shape-only backend under ``create_graph``: meta tensors of
    the inputs' shapes, behind a ``MetaGradient`` node so that they can be differentiated
    again (to meta tensors of the right shapes, at any order)."""
    return MetaGradient(node.backend, grad, node._next_nodes, node.input_specs,
                        node.needs_input_grad).gradients()


class MetaGradient(GraphNode):
    """The ``grad_fn`` of a gradient computed on meta (see ``meta_gradients``): a node
    whose own gradients are meta arrays of the shapes of what it depends on."""

    _tensor_hooks = None

    def __init__(self, backend, grad, next_nodes, input_specs, needs_input_grad):
        self.backend = backend
        self.grad_spec = (grad._data.shape, grad._dtype)
        self._next_nodes = (_edge_of(grad),) + tuple(next_nodes)
        self.input_specs = (self.grad_spec,) + tuple(input_specs)
        self.needs = (self._next_nodes[0] is not None,) + tuple(needs_input_grad)
        self.outputs = tuple(input_specs)

    def gradients(self) -> tuple:
        """One meta tensor per input that needs a gradient, each with a node of its own
        (the engine sums what reaches a node, and these have different shapes)."""
        from ..tensor import Tensor

        return tuple(None if spec is None or not need else
                     Tensor._make(self.backend.empty(*spec), self.backend, True, copy.copy(self))
                     for spec, need in zip(self.outputs, self.needs[1:]))

    def name(self) -> str:
        return "MetaGradientBackward0"

    def __repr__(self) -> str:
        return f"<{self.name()} object>"

    def _backward(self, grad, retain_graph: bool) -> tuple:
        return tuple(self.backend.empty(*spec) if need and spec is not None else None
                     for spec, need in zip(self.input_specs, self.needs))

    def _backward_graph(self, grad, retain_graph: bool) -> tuple:
        return MetaGradient(self.backend, grad, self._next_nodes, self.input_specs,
                            self.needs).gradients()


def _edge_of(tensor):
    """The graph node a gradient for ``tensor`` flows into (None without one): the
    dispatcher's ``_edge``, bound on first use (``function.py`` imports this module)."""
    global _edge_of
    from .function import _edge as _edge_of

    return _edge_of(tensor)


_TRAILING_DIGITS = re.compile(r"\d+$")


def gradient_node_name(name: str) -> str:
    """PyTorch's name for the node of a gradient computed by the node ``name``:
    ``ConvolutionBackward0`` gives ``ConvolutionBackwardBackward0``."""
    return _TRAILING_DIGITS.sub("", name) + "Backward0"


class NotDifferentiableTwice(GraphNode):
    """The ``grad_fn`` of a gradient whose op has no ``backward_graph``: reaching it in a
    backward raises, naming the op (``op``: its node's name), or with ``message``. Its
    edges lead to the op's inputs and to the incoming gradient's node, so
    ``autograd.grad`` sees that the result depends on them (and raises, rather than
    calling them unused)."""

    _tensor_hooks = None

    def __init__(self, op: str, backend, next_nodes: tuple, message: str | None = None):
        self.op, self.backend, self.message = op, backend, message
        self._next_nodes = next_nodes

    def name(self) -> str:
        return gradient_node_name(self.op)

    def __repr__(self) -> str:
        return f"<{self.name()} object>"

    def _backward(self, grad, retain_graph: bool):
        if self.message is not None:
            raise RuntimeError(self.message)
        raise NotImplementedError(
            f"the derivative of {self.op} (a gradient of a gradient through it) is not "
            f"implemented in minitorch_meta: this op's backward has no recorded form yet. "
            f"Differentiate once (without create_graph=True), or avoid this op in the part "
            f"of the model that is differentiated twice")

    _backward_graph = _backward


class PyTorchRefusal(NotDifferentiableTwice):
    """A node that raises PyTorch's own error (``error(message)``) when a backward reaches
    it, shown under PyTorch's node name ``shown_as``: for the gradients that PyTorch
    computes but refuses to differentiate (``ctc_loss``'s, ``_standard_gamma_grad``)."""

    def __init__(self, shown_as: str, error: type, message: str, backend, next_nodes):
        super().__init__(shown_as, backend, next_nodes, message)
        self.shown_as, self.error = shown_as, error

    def name(self) -> str:
        return self.shown_as

    def __repr__(self) -> str:  # PyTorch shows its C++ nodes without their namespace
        return f"<{self.shown_as.rpartition('::')[2]} object>"

    def _backward(self, grad, retain_graph: bool):
        raise self.error(self.message)

    _backward_graph = _backward


def refused_tensor(array, backend, refusal: PyTorchRefusal):
    """``array`` as a tensor behind ``refusal``: its value is right, its gradient raises."""
    from ..tensor import Tensor

    return Tensor._make(array, backend, True, refusal)

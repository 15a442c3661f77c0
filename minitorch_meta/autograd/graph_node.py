"""What every node of the autograd graph shows users: PyTorch's ``next_functions``.

The engine walks ``_next_nodes``, one node (or ``None``) per input of the op, because that
loop is on the hot path of every backward. PyTorch's public ``grad_fn.next_functions`` is
a tuple of ``(node, input_nr)`` pairs instead, and graph walkers written for PyTorch
(``for fn, _ in node.next_functions``, torchviz) unpack them, so each node class inherits
that view from here.

PyTorch gives the outputs of a multi-output op (``split``, ``qr``, ``aminmax``, a custom
``Function``) ONE node, and numbers them (``Tensor.output_nr``); ``input_nr`` in an edge is
that number. Our engine sends one gradient per node, so each such output has a node of its
own here. ``number_outputs`` makes the public view PyTorch's anyway: each output's node
knows its number (``_output_nr``) and the node that stands for the whole op
(``_shared_node``), which the pairs show and whose edges each output's node shows. Both
are class defaults (0, None) that only multi-output ops override: nothing is set, nor
read, on the path of a single-output op or of the engine.

An op built from other ops (``var_mean``: a mean, a sub, a mul, a sum, a div) is one node
in PyTorch. ``show_as_op`` shows it so: its outputs' last nodes bear PyTorch's name, and
the node that stands for the op shows the op's inputs as its edges (``_shown_edges``)
where the engine's ``_next_nodes`` lead to the inner nodes. The inner nodes still run;
only the public walk passes over them.

PyTorch's ``Node`` API (``metadata``, ``register_hook``, ``register_prehook``) keeps its
state in one slot, ``_graph_extras``, set on first use (see ``node_hooks.py``).
"""

from __future__ import annotations

from . import gradient_edges, node_hooks


class GraphNode:
    """A node of the autograd graph (a ``grad_fn``, or a leaf's ``AccumulateGrad``)."""

    #: ``node_hooks.NodeExtras`` once ``metadata`` or a node hook is used (unset until then)
    __slots__ = ("_graph_extras",)
    #: The next node for each input (``None`` for an input that needs no gradient).
    _next_nodes: tuple = ()
    #: Which output of its op this node's tensor is (PyTorch's ``output_nr``).
    _output_nr = 0
    #: The node that stands for this node's multi-output op in ``next_functions``
    #: (``None``: this node itself).
    _shared_node = None
    #: The edges ``next_functions`` shows when they are not ``_next_nodes``: a composed
    #: op's inputs' nodes (``show_as_op``; ``None``: ``_next_nodes``).
    _shown_edges = None

    @property
    def next_functions(self) -> tuple:
        """PyTorch's edges: ``(node, input_nr)`` per input, ``(None, 0)`` where none leads
        on; ``input_nr`` is which output of ``node`` the input is (its ``output_nr``)."""
        shared = self._shared_node
        node = self if shared is None else shared
        edges = node._shown_edges
        if edges is None:
            edges = node._next_nodes
        for n in edges:
            if n is not None and n._shared_node is not None:
                gradient_edges.remember_output(n)  # so that a GradientEdge of the pair works
        return tuple((None, 0) if n is None
                     else (n if n._shared_node is None else n._shared_node, n._output_nr)
                     for n in edges)

    @property
    def metadata(self) -> dict:
        """A dict of this node's own, for users' annotations (PyTorch's ``Node.metadata``)."""
        return node_hooks.extras(self).metadata

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after this node computed the gradients of
        its inputs; it may return replacement ``grad_inputs``. Returns a removable handle."""
        return node_hooks.register(self, fn, pre=False)

    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` before this node runs; it may return replacement
        ``grad_outputs``. Returns a removable handle."""
        return node_hooks.register(self, fn, pre=True)


def number_outputs(outputs, shared: GraphNode | None = None) -> None:
    """Show the graph nodes of one op's ``outputs`` (tensors, or None) as PyTorch's one
    node: the outputs that have a node are numbered 0, 1, ... in order (PyTorch counts only
    the differentiable outputs of a built-in op), and ``shared`` (by default the first
    output's node) stands for them all in ``next_functions``.

    Only for nodes made by the op's own call: a node shared with other tensors would be
    renumbered for them too.
    """
    nodes = [t.grad_fn for t in outputs if t is not None and t.grad_fn is not None]
    if len(nodes) < 2 and shared is None:
        return  # one output with a node: PyTorch's numbering is the default 0
    if shared is None:
        shared = nodes[0]
    for index, node in enumerate(nodes):
        if index:
            node._output_nr = index
        if node is not shared:
            node._shared_node = shared


def show_as_op(outputs, backward_name: str, inputs) -> None:
    """Show ``outputs`` (a tensor, or a sequence of tensors or None) of an op composed of
    other ops as PyTorch's one node of that op: each output's last node is named
    ``backward_name``, the outputs are numbered (``number_outputs``), and the node that
    stands for them shows an edge to each of ``inputs`` (PyTorch's differentiable inputs
    of the op, in order; None or a tensor without gradient: no edge) in place of the inner
    nodes. Gradients are unchanged: the engine still runs the inner nodes.

    Only for nodes made by the op's own call: an output that IS one of the inputs (an op
    that returned its input unchanged) keeps its node as it is.
    """
    if not isinstance(outputs, (tuple, list)):
        outputs = (outputs,)
    reused = {id(t.grad_fn) for t in inputs if t is not None and t.grad_fn is not None}
    nodes = [t.grad_fn for t in outputs if t is not None and t.grad_fn is not None]
    if not nodes or any(id(node) in reused for node in nodes):
        return
    for node in nodes:
        node.show_as(backward_name)
    nodes[0]._shown_edges = tuple(_edge(t) for t in inputs)
    number_outputs(outputs)


def _edge(tensor):
    """The node a gradient for ``tensor`` flows into (None when it needs none): its
    ``grad_fn``, or a leaf's ``AccumulateGrad``."""
    if tensor is None or not tensor.requires_grad:
        return None
    return tensor.grad_fn if tensor.grad_fn is not None else tensor._accumulator()

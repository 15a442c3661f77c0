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

    @property
    def next_functions(self) -> tuple:
        """PyTorch's edges: ``(node, input_nr)`` per input, ``(None, 0)`` where none leads
        on; ``input_nr`` is which output of ``node`` the input is (its ``output_nr``)."""
        shared = self._shared_node
        node = self if shared is None else shared
        for n in node._next_nodes:
            if n is not None and n._shared_node is not None:
                gradient_edges.remember_output(n)  # so that a GradientEdge of the pair works
        return tuple((None, 0) if n is None
                     else (n if n._shared_node is None else n._shared_node, n._output_nr)
                     for n in node._next_nodes)

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

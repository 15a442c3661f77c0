"""``GradientEdge``: where a tensor's gradient arrives, usable where a tensor is
(``autograd.grad``'s ``outputs`` and ``inputs``, ``backward``'s ``tensors`` and ``inputs``).

An edge names a node and which of its outputs (``output_nr``), as ``next_functions`` shows
them. Two facts about that output are not on our nodes, and are kept here when
``get_gradient_edge`` makes an edge (on the node's ``NodeExtras``, so nothing is paid
elsewhere):

- the shape and dtype of the output, which PyTorch keeps on every node to check and make
  an output gradient; a leaf's ``AccumulateGrad`` knows them from its tensor;
- for output ``k`` of a multi-output op, its own node: ours has one node per output and
  shows the first output's for all (``graph_node.py``), so ``(shown node, k)`` must be
  led back to output ``k``'s node. ``next_functions`` remembers them too.
"""

from __future__ import annotations

from typing import NamedTuple

from . import node_hooks


class GradientEdge(NamedTuple):
    """Where a tensor's gradient arrives: a node and which of its outputs the tensor is."""

    node: object  # a ``graph.Node``
    output_nr: int
    #: PyTorch keeps a node alive through this when ``node`` alone cannot; ours always can
    ownership_token: object = None


GradientEdge.__module__ = "minitorch_meta.autograd.graph"


def edge_of(tensor) -> GradientEdge:
    """The ``GradientEdge`` of ``tensor``, its output's shape and dtype remembered."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that "
                           "does not require gradients")
    node = tensor.grad_fn if tensor.grad_fn is not None else tensor._accumulator()
    remember_output(node)
    if tensor.grad_fn is not None:
        node_hooks.extras(node).output_spec = (tuple(tensor._data.shape), tensor._dtype)
    shown = node if node._shared_node is None else node._shared_node
    return GradientEdge(shown, node._output_nr)


def remember_output(node) -> None:
    """Let ``(node's shown node, node's output_nr)`` lead back to ``node`` (for the outputs
    after the first of a multi-output op; nothing to remember otherwise)."""
    shown = node._shared_node
    if shown is not None:
        # A plain dict (some of these nodes have slots and no weak references): the shown
        # node and its siblings then form a cycle, which Python's collector frees
        extras = node_hooks.extras(shown)
        if extras.outputs is None:
            extras.outputs = {}
        extras.outputs[node._output_nr] = node


def node_of(edge: GradientEdge):
    """The node of ours where the gradient of ``edge``'s output arrives.

    Raises:
        RuntimeError for an output number the node does not have (or one we cannot
        lead back to: make the edge with ``get_gradient_edge``).
    """
    node, number = edge.node, edge.output_nr
    if getattr(node, "_output_nr", None) == number:
        return node
    extras = getattr(node, "_graph_extras", None)
    found = None if extras is None or extras.outputs is None else extras.outputs.get(number)
    if found is None:
        raise RuntimeError(f"GradientEdge(node={node!r}, output_nr={number}): the node has no "
                           f"output {number} known here; make the edge with "
                           "get_gradient_edge(tensor) or read it from next_functions")
    return found


def output_spec(edge: GradientEdge, node):
    """``(shape, dtype, backend)`` of the output ``edge`` names (``node``: ``node_of``).

    Raises:
        RuntimeError when the edge was not made by ``get_gradient_edge`` and the node is
        not a leaf's: its output's shape is not kept on our nodes.
    """
    variable = getattr(node, "variable", None)  # a leaf's AccumulateGrad
    if variable is not None:
        return tuple(variable._data.shape), variable._dtype, variable._backend
    extras = getattr(node, "_graph_extras", None)
    spec = None if extras is None else extras.output_spec
    if spec is None:
        raise RuntimeError(f"GradientEdge(node={edge.node!r}, output_nr={edge.output_nr}) as an "
                           "output: the shape of that output is not kept on the node in "
                           "minitorch_meta; make the edge with get_gradient_edge(tensor)")
    return spec[0], spec[1], node.backend

"""Gradients of gradients through ops that are linear maps of their one input, with
coefficients fixed by hyper-parameters and shapes alone (the average poolings).

Such an op's input gradient ``gx = A^T gy`` is linear in ``gy`` and depends on nothing
else, so its own gradient is ``A g``: the op's forward again. ``LinearGradient`` runs the
op's array backward as a recorded op; its backward runs the op's forward, and its graph
formula is the op itself (whose formula is ``LinearGradient`` again): any order works.
"""

from __future__ import annotations

import copy

from .function import Function
from .graph_backward import gradient_node_name


def linear_backward_graph(node, grad):
    """``backward_graph`` of an op linear in its input (assign it in the class body):
    the input's gradient as a recorded ``LinearGradient``."""
    return (LinearGradient(node)(grad),)


class LinearGradient(Function):
    """The input gradient of ``op`` (a linear op, see the module) as a recorded op.

    It keeps a copy of the op's node, so that it outlives the node's freeing of what
    forward saved (``retain_graph=False``): the op's ``backward`` reads that, and its
    ``forward`` (rerun on a further copy) the shape rule's geometry.

    Shape:
        ``grad`` the op's output shape -> the op's input shape and dtype.
    """

    op_name = "linear_backward"
    _hyper = ("op", "backward_name")

    def __init__(self, op: Function, backward_name: str | None = None):
        self.op = copy.copy(op)
        # unless the op's node is named otherwise: ``AvgPool2DBackwardBackward0``
        self.backward_name = backward_name or gradient_node_name(op.name())

    def infer(self, grad):
        return self.op.input_specs[0]

    def forward(self, backend, grad):
        return self.op.backward(backend, grad)[0]

    def backward(self, backend, g):
        # a fresh copy: forward may set what it saves for backward on the node
        return (copy.copy(self.op).forward(backend, g),)

    def backward_graph(self, grad):
        return (type(self.op)(**self.op._hyper)(grad),)

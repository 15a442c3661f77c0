"""What every node of the autograd graph shows users: PyTorch's ``next_functions``.

The engine walks ``_next_nodes``, one node (or ``None``) per input of the op, because that
loop is on the hot path of every backward. PyTorch's public ``grad_fn.next_functions`` is
a tuple of ``(node, input_nr)`` pairs instead, and graph walkers written for PyTorch
(``for fn, _ in node.next_functions``, torchviz) unpack them, so each node class inherits
that view from here.
"""

from __future__ import annotations


class GraphNode:
    """A node of the autograd graph (a ``grad_fn``, or a leaf's ``AccumulateGrad``)."""

    __slots__ = ()
    #: The next node for each input (``None`` for an input that needs no gradient).
    _next_nodes: tuple = ()

    @property
    def next_functions(self) -> tuple:
        """PyTorch's edges: ``(node, 0)`` per input, ``(None, 0)`` where none leads on.

        The second entry is which output of ``node`` the edge feeds. A multi-output op
        here gives each output its own node, so that index is always 0 (PyTorch shares
        one node among its outputs and counts them).
        """
        return tuple((node, 0) for node in self._next_nodes)

"""``torch.autograd.graph``: the autograd graph as users see it.

- ``Node``: the abstract class of every ``grad_fn`` (and of a leaf's ``AccumulateGrad``);
  our nodes are ``GraphNode`` subclasses, registered as its virtual subclasses;
- ``GradientEdge`` and ``get_gradient_edge``: where a tensor's gradient arrives;
- ``register_multi_grad_hook``: one hook over several tensors' gradients
  (``multi_grad_hooks.py``);
- ``increment_version``: tell autograd that a tensor was written in place behind its back;
- ``allow_mutation_on_saved_tensors``: in-place writes into saved tensors, which are
  cloned first (``saved_tensor_mutation.py``);
- ``saved_tensors_hooks``, ``save_on_cpu``, ``disable_saved_tensors_hooks``: what happens
  to the tensors kept for backward (``saved_tensors_hooks.py``).

The node hooks themselves live in ``node_hooks.py``, next to the engine that runs them.
"""

from __future__ import annotations

import abc

from .gradient_edges import GradientEdge, edge_of
from .graph_node import GraphNode
from .multi_grad_hooks import register_multi_grad_hook
from .saved_tensor_mutation import allow_mutation_on_saved_tensors
from .saved_tensors_hooks import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks


class Node(abc.ABC):
    """A node of the autograd graph: ``isinstance(t.grad_fn, Node)`` is True.

    Our nodes do not inherit from this class; they are registered with it (as PyTorch's
    C++ nodes are), so ``isinstance`` and ``issubclass`` answer as in PyTorch.
    """

    @abc.abstractmethod
    def name(self) -> str:
        """The node's name, e.g. ``"MulBackward0"``."""

    @property
    @abc.abstractmethod
    def next_functions(self) -> tuple:
        """``(node, input_nr)`` for each input of the node."""

    @property
    @abc.abstractmethod
    def metadata(self) -> dict:
        """A dict of the node's own, for users' annotations."""

    @abc.abstractmethod
    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after the node ran."""

    @abc.abstractmethod
    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` before the node runs."""


Node.register(GraphNode)


def get_gradient_edge(tensor) -> GradientEdge:
    """The ``GradientEdge`` of ``tensor``: its ``grad_fn`` (a leaf's ``AccumulateGrad``)
    and its ``output_nr``, as ``grad_fn.next_functions`` would show them. It can stand for
    the tensor in ``autograd.grad`` and ``backward`` (``gradient_edges.py``)."""
    return edge_of(tensor)


def increment_version(tensor) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor of an iterable), as an
    in-place write does: a backward that saved it then refuses to run, as in PyTorch."""
    from ..tensor import Tensor

    tensors = (tensor,) if isinstance(tensor, Tensor) else tensor
    try:
        tensors = list(tensors)
    except TypeError:
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
    if not all(isinstance(t, Tensor) for t in tensors):
        raise RuntimeError("increment_version expects each element of the iterable to be a "
                           "tensor")
    for t in tensors:
        t._counter().value += 1


__all__ = ["GradientEdge", "Node", "get_gradient_edge", "increment_version",
           "register_multi_grad_hook", "allow_mutation_on_saved_tensors",
           "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]

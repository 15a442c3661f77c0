"""Hooks on graph nodes (PyTorch's ``Node.register_hook`` and ``register_prehook``).

A pre-hook ``fn(grad_outputs)`` runs before a node's backward, after the hooks of the
node's tensor (``Tensor.register_hook``); a hook ``fn(grad_inputs, grad_outputs)`` runs
after it. Each gets tuples of tensors (``None`` where no gradient flows) and may return
replacements. A leaf's ``AccumulateGrad`` has no inputs: its hooks get ``()`` as
``grad_inputs``, after the gradient was added into ``.grad``.

The engine's fast loop never looks for these hooks: once any node hook has been
registered (``hooks_registered``), every later backward takes the engine's slower step,
which runs them. A node keeps its hooks and ``metadata`` in one ``NodeExtras``, made on
first use.
"""

from __future__ import annotations

from ..hooks import HookDict, add_hook
from .slots import Slots


class NodeExtras:
    """What a node holds only once the ``Node`` API was used on it."""

    __slots__ = ("metadata", "prehooks", "posthooks", "outputs", "output_spec")

    def __init__(self) -> None:
        self.metadata: dict = {}
        self.prehooks = HookDict()
        self.posthooks = HookDict()
        #: what a ``GradientEdge`` needs to know (``gradient_edges.py``): the nodes of a
        #: multi-output op's other outputs, by number, and this node's output's shape and dtype
        self.outputs = None
        self.output_spec = None


class _Registered:
    """Whether any node hook was ever registered (the engine then runs ``run_*``)."""

    value = False


hooks_registered = _Registered()


def extras(node) -> NodeExtras:
    """The node's ``NodeExtras``, made on first use."""
    found = getattr(node, "_graph_extras", None)
    if found is None:
        found = node._graph_extras = NodeExtras()
    return found


def register(node, fn, pre: bool):
    """Add ``fn`` to ``node``'s pre-hooks or hooks; returns its removable handle."""
    node_extras = extras(node)
    handle = add_hook(node_extras.prehooks if pre else node_extras.posthooks, fn)
    hooks_registered.value = True
    return handle


def run_prehooks(node, grad, as_tensor, as_gradient):
    """The node's gradient after its pre-hooks (``grad`` itself without any)."""
    node_extras = getattr(node, "_graph_extras", None)
    if node_extras is None or not node_extras.prehooks:
        return grad
    grad_outputs = (as_tensor(grad, node),)
    for hook in list(node_extras.prehooks.values()):
        result = hook(grad_outputs)
        if result is not None:
            grad_outputs = _checked(hook, result, grad_outputs)
    return as_gradient(grad_outputs[0])


def run_posthooks(node, grad, input_grads, as_tensor, as_gradient):
    """The node's input gradients after its hooks (``input_grads`` itself without any)."""
    node_extras = getattr(node, "_graph_extras", None)
    if node_extras is None or not node_extras.posthooks:
        return input_grads
    grad_outputs = (as_tensor(grad, node),)
    grad_inputs = tuple(_shown(g, n, node, as_tensor)
                        for g, n in zip(input_grads, node._next_nodes))
    changed = False
    for hook in list(node_extras.posthooks.values()):
        result = hook(grad_inputs, grad_outputs)
        if result is not None:
            grad_inputs, changed = _checked(hook, result, grad_inputs), True
    if not changed:
        return input_grads
    return tuple(_passed_on(new, old, as_gradient) for new, old in zip(grad_inputs, input_grads))


# The identity node in front of a module's backward hooks (``nn/backward_hooks.py``) sends
# its gradient tagged with its position (``Slots``); its hooks see the gradient itself,
# on the node's own backend, and what they return is tagged again.
def _shown(grad, next_node, node, as_tensor):
    if isinstance(grad, Slots):
        (array,) = grad.grads.values()
        return as_tensor(array, node)
    return as_tensor(grad, next_node)


def _passed_on(new, old, as_gradient):
    grad = as_gradient(new)
    if isinstance(old, Slots) and grad is not None:
        (slot,) = old.grads
        return Slots({slot: grad})
    return grad


def _checked(hook, result, before: tuple) -> tuple:
    """A hook's replacement for the gradients ``before``: a tuple of as many tensors (of
    the same shapes) or Nones, else PyTorch's errors."""
    from ..tensor import Tensor

    name = getattr(hook, "__name__", type(hook).__name__)
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(before):
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got "
                           f"{len(result)}, but expected {len(before)})")
    for new, old in zip(result, before):
        if new is None:
            continue
        if not isinstance(new, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
        if isinstance(old, Tensor) and tuple(new.shape) != tuple(old.shape):
            raise RuntimeError(f"hook '{name}' has changed the size of value")
    return result

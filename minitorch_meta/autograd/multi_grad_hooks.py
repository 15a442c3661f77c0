"""``torch.autograd.graph.register_multi_grad_hook``: one hook over several tensors' gradients.

Built, as PyTorch's, from one ``Tensor.register_hook`` per tensor and the running backward's
number and plan (``graph_task.py``):

- ``mode="all"``: the first of the hooks to run in a backward counts how many of the
  tensors' nodes that backward will execute; when that many gradients have arrived,
  ``fn`` gets a list of them, one per tensor in order, None for a tensor this backward does
  not reach (not in its graph, or not leading to its ``inputs``).
- ``mode="any"``: ``fn`` gets the first gradient of any of the tensors, once per backward.

Each backward (``backward()``, ``autograd.grad``, another ``backward(retain_graph=True)``)
counts afresh. ``fn``'s return value is ignored: it observes, it does not replace.
A node the backward reaches without a gradient for it calls its hook with None, as
PyTorch's engine does (``engine._tell_of_missing_grad``).
"""

from __future__ import annotations

import weakref

from ..hooks import RemovableHandle
from .graph_task import current_graph_task, will_engine_execute_node


class _MultiHandle(RemovableHandle):
    """The handle of a multi-grad hook: ``remove()`` takes off each tensor's hook."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __getstate__(self):
        return self.handles

    def __setstate__(self, state) -> None:
        self.handles = state


def register_multi_grad_hook(tensors, fn, *, mode: str = "all") -> RemovableHandle:
    """Call ``fn`` once per backward with the gradients of ``tensors``: all of those this
    backward computes (``mode="all"``, a list with None for the others), or the first one
    (``mode="any"``). Returns a handle whose ``remove()`` takes the hook off.

    Raises:
        ValueError for another ``mode``; RuntimeError (``"all"``: AssertionError, as
        PyTorch) for a tensor that does not require grad.
    """
    supported = ("all", "any")
    if mode not in supported:
        raise ValueError(f"Expects mode to be one of {supported} but got {mode}")
    tensors = tuple(tensors)
    if mode == "all":
        return _MultiHandle(_register_all(tensors, fn))
    return _MultiHandle(_register_any(tensors, fn))


def _register_all(tensors: tuple, fn) -> tuple:
    nodes = [_node_of(index, t) for index, t in enumerate(tensors)]
    # Keyed by the running backward (PyTorch keys by its number): an entry goes with it
    arrived = weakref.WeakKeyDictionary()  # the gradients so far, by tensor
    expected = weakref.WeakKeyDictionary()  # how many more calls until fn runs

    def hook_of(index: int):
        def hook(grad) -> None:
            task = _task()
            grads = arrived.get(task)
            if grads is None:  # the first of this backward: how many will come?
                grads = arrived[task] = [None] * len(tensors)
                expected[task] = sum(will_engine_execute_node(node) for node in nodes)
            grads[index] = grad
            # PyTorch counts calls, not tensors: a tensor whose hook runs twice in one
            # backward (a reentrant one) counts twice, as there
            count = expected[task] - 1
            expected[task] = count
            if count == 0:
                del arrived[task], expected[task]
                fn(grads)
        hook.takes_missing_grad = True  # the engine calls it with None then, as PyTorch
        return hook

    return tuple(t.register_hook(hook_of(index)) for index, t in enumerate(tensors))


def _register_any(tensors: tuple, fn) -> tuple:
    called = weakref.WeakSet()  # the backwards in which fn ran (gone with them)

    def hook(grad) -> None:
        task = _task()
        if task not in called:
            called.add(task)
            fn(grad)

    hook.takes_missing_grad = True  # PyTorch's hook gets None then, and passes it on
    return tuple(t.register_hook(hook) for t in tensors if t.requires_grad)


def _node_of(index: int, tensor):
    """The node where ``tensor``'s gradient arrives (a leaf's ``AccumulateGrad``)."""
    if tensor.grad_fn is not None:
        return tensor.grad_fn
    if not tensor.requires_grad:
        # PyTorch's words (an AssertionError there too), with which tensor it is
        raise AssertionError(f"Expected gradient function to be set: tensor {index} of "
                             "register_multi_grad_hook(mode='all') does not require grad")
    return tensor._accumulator()


def _task():
    task = current_graph_task()
    if task is None:
        raise RuntimeError("expected this hook to be called inside a backward call")
    return task

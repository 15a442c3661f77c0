"""The backward running now, as a tensor hook sees it (PyTorch's "graph task").

PyTorch's ``torch._C._current_graph_task_id()`` and ``_will_engine_execute_node(node)``:
a hook asks which backward calls it (a number, new for each ``backward()`` or
``autograd.grad``) and whether that backward will run a given node.
``register_multi_grad_hook`` (``multi_grad_hooks.py``) is built on these two.

The engine makes a ``GraphTask`` only when a tensor hook is about to run, and makes it the
current one only while hooks run: a backward without tensor hooks pays nothing.
"""

from __future__ import annotations

import itertools
import threading

_ids = itertools.count()


class _Current(threading.local):
    task = None  # the GraphTask whose hooks are running in this thread, if any


_current = _Current()


class GraphTask:
    """One run of the engine: its number, and the nodes it will execute."""

    __slots__ = ("id", "roots", "reached", "targets", "accumulate_grad", "__weakref__")

    def __init__(self, roots, reached, targets, accumulate_grad: bool) -> None:
        self.id = next(_ids)
        #: the root nodes, and every node an edge the run follows leads to (a dict's keys)
        self.roots, self.reached = roots, reached
        #: the nodes whose gradients the run is for (``None``: every leaf's)
        self.targets = targets
        #: ``backward(inputs=...)`` (leaves' ``.grad`` written) rather than ``autograd.grad``
        self.accumulate_grad = accumulate_grad

    def will_execute(self, node) -> bool:
        """Whether this run executes ``node`` (a leaf's ``AccumulateGrad`` included)."""
        # (with targets, both hold only the nodes leading to them)
        if node not in self.reached and node not in self.roots:
            return False
        if self.targets is None:
            return True
        from .engine import AccumulateGrad  # (the engine imports this module)

        if isinstance(node, AccumulateGrad) and not self.accumulate_grad \
                and node in self.targets:
            # PyTorch's words and limit: autograd.grad captures a leaf's gradient rather
            # than running its AccumulateGrad, so "will it run" has no answer there
            raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                               "currently running autograd.grad(). This is currently not "
                               "supported.")
        return True

    def run_hooks(self, run_hooks, node, grad):
        """``run_hooks(node, grad)`` (the node's tensor hooks) with this run current."""
        previous, _current.task = _current.task, self
        try:
            return run_hooks(node, grad)
        finally:
            _current.task = previous


def current_graph_task() -> GraphTask | None:
    """The ``GraphTask`` whose hooks are running in this thread (None outside one)."""
    return _current.task


def current_graph_task_id() -> int:
    """The number of the backward whose hooks are running in this thread; -1 outside one."""
    task = _current.task
    return -1 if task is None else task.id


def will_engine_execute_node(node) -> bool:
    """Whether the backward whose hooks are running will execute ``node``.

    Raises:
        RuntimeError outside a backward's hooks, or for a leaf's node during
        ``autograd.grad`` (PyTorch's limit).
    """
    from .graph_node import GraphNode

    task = _current.task
    if task is None:
        raise RuntimeError("_get_should_execute_nodes should only be called during the "
                           "backward pass")
    if not isinstance(node, GraphNode):
        raise TypeError(f"_will_engine_execute_node expects a grad_fn node, got "
                        f"{type(node).__name__}")
    return task.will_execute(node)

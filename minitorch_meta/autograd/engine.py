"""The engine that walks ``grad_fn`` graphs backward.

The walk is iterative (no recursion, so a 10,000-op chain is fine) and topologically
ordered: a node runs its backward once, after every gradient flowing into it has been
summed. Leaves receive their gradient through an ``AccumulateGrad`` node.

Gradients meeting at a node are summed in arrival order. The first is kept as it came (it
may be shared: an add hands one gradient to both its inputs); the second makes a buffer
the engine owns, and later ones are added into it in place. An ``IndexedGradient`` (from
``x[index]``) is added into that buffer at its index only, so the slices of an ``unbind``
cost their own size, not ``x``'s size each.

With ``create_graph=True`` the same walk runs with grad mode on and gradients that are
tensors, not arrays: each node's ``_backward_graph`` computes its input gradients with
recorded ops, so the gradients have a graph of their own and can be differentiated again
(see ``ops/graph_backward.py``). Gradients meeting at a node are then summed with a
recorded ``+``, never in place.
"""

from __future__ import annotations

import threading

from .anomaly_mode import _state as _anomaly_state
from .anomaly_mode import checked_backward
from .grad_mode import enable_grad, no_grad
from .graph_node import GraphNode
from .graph_task import GraphTask
from .indexed_gradient import IndexedGradient
from .node_hooks import hooks_registered, run_posthooks, run_prehooks
from .slots import SLOT_MERGER, Slots


class AccumulateGrad(GraphNode):
    """The graph node of a leaf tensor: adds incoming gradients into ``tensor.grad``."""

    __slots__ = ("variable", "_tensor_hooks", "_post_hooks")  # (and GraphNode's)

    def __init__(self, variable):
        self.variable = variable
        self._tensor_hooks = None
        #: ``Tensor.register_post_accumulate_grad_hook``'s hooks, run after ``.grad`` changed
        self._post_hooks = None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return "<AccumulateGrad object>"

    @property
    def backend(self):
        return self.variable._backend

    def accumulate(self, grad_array, owned: bool = False) -> None:
        accumulate_into(self.variable, grad_array, owned)

    def accumulate_graph(self, grad, owned: bool = False) -> None:
        accumulate_graph_into(self.variable, grad)


def accumulate_into(tensor, grad_array, owned: bool = False) -> None:
    """Add ``grad_array`` into ``tensor.grad`` (made on first use). ``owned``: nothing
    else holds ``grad_array``, so a new ``.grad`` may take it without a copy."""
    backend = tensor._backend
    if tensor._grad is None:
        # Otherwise the incoming array may be shared (an add hands the same gradient to
        # both inputs) or a view of a saved buffer: the tensor gets its own copy, so
        # in-place updates of one .grad never touch another.
        if not backend.is_contiguous(tensor._data):
            grad_array = _laid_out_as(tensor, grad_array)  # a copy, so owned
        elif not owned:
            grad_array = backend.copy(grad_array)
        tensor._grad = tensor._wrap(grad_array)
    else:
        grad = tensor._grad
        summed = backend.binary("add", grad._data, grad_array)
        # PyTorch adds in place, so a .grad keeps its layout (NumPy's add follows the
        # operands' common order, C when they differ)
        grad._data = summed if backend.is_contiguous(grad._data) else _laid_out_as(grad, summed)
    _run_post_accumulate_hooks(tensor)


def _laid_out_as(tensor, grad_array):
    """A copy of ``grad_array`` with ``tensor``'s strides when they are dense (a
    channels-last or transposed leaf, or its ``.grad``), else with its order of dims:
    PyTorch's layout contract for ``.grad``, so an optimizer's update walks both alike."""
    from ..memory_formats import copy_with_strides, preserve_format, strides_for

    strides = strides_for(preserve_format, tuple(tensor.shape), tensor.stride())
    return copy_with_strides(tensor._backend, grad_array, strides, tensor._dtype)


def accumulate_graph_into(tensor, grad) -> None:
    """Add the gradient tensor ``grad`` into ``tensor.grad`` with recorded ops
    (``create_graph=True``): the first is copied (the same gradient tensor may reach several
    leaves), later ones are added out of place, so ``.grad`` keeps its graph."""
    if tensor._grad is None:
        tensor._grad = grad.clone()
    else:
        tensor._grad = tensor._grad + grad
    _run_post_accumulate_hooks(tensor)


def _run_post_accumulate_hooks(tensor) -> None:
    """Call the tensor's post-accumulate-grad hooks in order, each with the tensor."""
    node = tensor._grad_accumulator
    if node is None or not node._post_hooks:
        return
    for hook in list(node._post_hooks.values()):
        if hook(tensor) is not None:
            raise TypeError("a post accumulate grad hook must return None (it may change "
                            "tensor.grad in place or assign it instead)")


class _RunState(threading.local):
    """Per thread: whether the innermost backward running is limited to targets, and the
    nodes that lead to them (``None``: every node's gradient is used)."""

    partial = False
    needed = None


_run_state = _RunState()


def is_partial_run() -> bool:
    """Whether the backward running in this thread is an ``autograd.grad`` (or a
    ``backward(inputs=...)``): the reentrant checkpoint refuses those, as in PyTorch."""
    return _run_state.partial


def input_gradient_is_used(node, position: int) -> bool:
    """Whether the backward running in this thread uses ``node``'s gradient for its input
    ``position`` (PyTorch's ``should_compute_output``). Only for nodes whose backward
    would otherwise refuse: ``autograd.grad(zeta(x, q), q)`` must not fail because the
    derivative in ``x``, which nobody asked for, does not exist."""
    needed = _run_state.needed
    if needed is None:
        return True
    next_node = node._next_nodes[position]
    return next_node is not None and next_node in needed


def run(roots, retain_graph: bool, targets=None, stop_at_targets: bool = False,
        create_graph: bool = False, accumulate_grad: bool = False) -> dict:
    """See ``_run``; records, for the nodes' backward, whether the run has targets.
    ``accumulate_grad``: the targets are ``backward(inputs=...)``'s, not ``autograd.grad``'s
    (only hooks asking ``will_engine_execute_node`` about a leaf see the difference)."""
    previous = _run_state.partial, _run_state.needed
    _run_state.partial = targets is not None
    try:
        return _run(roots, retain_graph, targets, stop_at_targets, create_graph,
                    accumulate_grad)
    finally:
        _run_state.partial, _run_state.needed = previous


def _run(roots, retain_graph: bool, targets=None, stop_at_targets: bool = False,
         create_graph: bool = False, accumulate_grad: bool = False) -> dict:
    """Send each root's gradient ``(node, array)`` back through the graph.

    Without ``targets`` every leaf reached gets its gradient added to ``.grad``
    (``backward()``). With ``targets`` (a set of nodes: tensors' ``grad_fn`` or leaves'
    ``AccumulateGrad``), only the part of the graph that leads to them runs, no
    ``.grad`` is touched (but by hooks, such as ``retain_grad``'s), and the gradient
    arriving at each target is returned by node (``autograd.grad``; a target no gradient
    reached is missing from the result). A target's own backward runs only when it leads
    to another target (a gradient with respect to it counts every path, as in PyTorch), and
    never with ``stop_at_targets`` (each target's gradient then counts only the paths that
    do not go through another target: ``utils.checkpoint``'s recomputed graph).

    With ``create_graph`` the roots' gradients, and all gradients, are tensors, computed
    with grad mode on by each node's ``_backward_graph`` (see the module).
    """
    step = _GRAPH_STEP if create_graph else _ARRAY_STEP
    add_grad, take_grad = step.add_grad, step.take_grad
    needed = None if targets is None else _nodes_leading_to([n for n, _ in roots], targets)
    _run_state.needed = needed
    if needed is not None:
        roots = [(node, grad) for node, grad in roots if node in needed]
    dependencies = _count_dependencies([node for node, _ in roots], needed)
    pending, captured = {}, {}
    owned = set()  # the nodes whose pending gradient is a buffer the engine made
    for node, grad in roots:
        add_grad(pending, owned, node, grad)
    ready = [node for node, _ in roots if dependencies.get(node, 0) == 0]
    # Every edge into a node decrements its count once, so a node reaches zero (and is
    # made ready) exactly once: no set of nodes already made ready is needed.
    anomaly = _anomaly_state.enabled  # read once per backward, not per node
    timers = _node_timers()  # () unless a profiler is recording
    # Node hooks (``Node.register_hook``) run in the slower step, not in the fast loop.
    hooked = hooks_registered.value
    task = None  # this run as tensor hooks see it (graph_task.py), made for the first hook
    with enable_grad() if create_graph else no_grad():
        while ready:
            node = ready.pop()
            grad, grad_owned = take_grad(pending, owned, node)
            if node._tensor_hooks:
                if task is None:
                    task = GraphTask({n for n, _ in roots}, dependencies, targets,
                                     accumulate_grad)
                if grad is None:  # reached, but no gradient came: only some hooks are told
                    task.run_hooks(_tell_of_missing_grad, node, None)
                else:
                    # A hook may keep the tensor it is given: the array is no longer ours.
                    grad, grad_owned = task.run_hooks(step.run_hooks, node, grad), False
            if targets is not None and node in targets:
                if grad is not None:
                    captured[node] = grad
                if isinstance(node, AccumulateGrad):
                    continue
                if stop_at_targets or not _leads_on(node, needed):
                    grad = None  # its backward is not run; its inputs still wait on it
            if grad is None:
                # Every edge into this node carried no gradient (an op returned None for
                # it): nothing to compute, but its inputs still wait on this edge.
                input_grads = (None,) * len(node._next_nodes)
            elif hooked:
                input_grads = _hooked_step(timers, step, node, grad, grad_owned, retain_graph,
                                           anomaly)
            elif timers or create_graph:
                input_grads = _timed_step(timers, step, node, grad, grad_owned, retain_graph,
                                          anomaly)
            elif isinstance(node, AccumulateGrad):
                node.accumulate(grad, grad_owned)
                continue
            elif anomaly:
                input_grads = checked_backward(node._backward, node, grad, retain_graph)
            else:
                input_grads = node._backward(grad, retain_graph)
            for next_node, g in zip(node._next_nodes, input_grads):
                if next_node is None or (needed is not None and next_node not in needed):
                    continue
                if g is not None:
                    add_grad(pending, owned, next_node, g)
                count = dependencies[next_node] - 1
                dependencies[next_node] = count
                if count == 0:
                    ready.append(next_node)
    return captured


def _step(step, node, grad, grad_owned: bool, retain_graph: bool, anomaly: bool) -> tuple:
    """One node's share of the walk: its input gradients (a leaf's node adds into ``.grad``
    and passes nothing on). The loop of ``_run`` inlines the array walk's; timed runs and
    ``create_graph`` runs call it."""
    if isinstance(node, AccumulateGrad):
        step.accumulate(node, grad, grad_owned)
        return ()
    backward = step.backward_of(node)
    if anomaly:
        return checked_backward(backward, node, grad, retain_graph)
    return backward(grad, retain_graph)


def _timed_step(timers, step, node, grad, grad_owned: bool, retain_graph: bool,
                anomaly: bool):
    """``_step`` with the profilers told when the node starts and ends (also on error)."""
    for timer in timers:
        timer.node_started(node)
    try:
        return _step(step, node, grad, grad_owned, retain_graph, anomaly)
    finally:
        for timer in reversed(timers):
            timer.node_ended(node)


def _hooked_step(timers, step, node, grad, grad_owned: bool, retain_graph: bool,
                 anomaly: bool):
    """``_timed_step`` between the node's pre-hooks and hooks (``node_hooks.py``)."""
    hooked_grad = run_prehooks(node, grad, step.as_tensor, step.as_gradient)
    if hooked_grad is not grad:
        grad, grad_owned = hooked_grad, False
    input_grads = _timed_step(timers, step, node, grad, grad_owned, retain_graph, anomaly)
    return run_posthooks(node, grad, input_grads, step.as_tensor, step.as_gradient)


def _array_as_tensor(grad, node):
    """A gradient of the array walk as the tensor a node hook sees (None stays None)."""
    if grad is None or node is None:
        return grad
    backend = node.backend
    if isinstance(grad, IndexedGradient):
        grad = grad.dense(backend)
    if not hasattr(grad, "shape"):  # slots of a module's backward hook: internal
        return grad
    from ..tensor import Tensor

    return Tensor._make(grad, backend)


def _tensor_as_array(grad):
    return grad if grad is None or not hasattr(grad, "_data") else grad._data


def _same(grad, node=None):
    return grad


_op_observers = None  # ``ops.function._observers``, bound on first use (import cycle)


def _node_timers() -> tuple:
    """The op observers that also time backward nodes (``node_started``): the profilers."""
    global _op_observers
    if _op_observers is None:
        from ..ops.function import _observers as _op_observers
    if not _op_observers:
        return ()
    return tuple(o for o in _op_observers if hasattr(o, "node_started"))


def _leads_on(node, needed: set) -> bool:
    """Whether a gradient leaving ``node`` can reach a node in ``needed``."""
    return any(n is not None and n in needed for n in node._next_nodes)


def _run_tensor_hooks(node, grad):
    """Call the hooks registered on the node's tensor (``Tensor.register_hook``) in order
    on the gradient tensor ``grad``; a hook may return a replacement gradient. The hook of
    ``retain_grad`` runs last whenever it was added, so ``.grad`` keeps the gradient the
    other hooks made (as PyTorch)."""
    from ..tensor import Tensor

    hooks = sorted(node._tensor_hooks.values(), key=lambda h: getattr(h, "retains_grad", False))
    for hook in hooks:
        result = hook(grad)
        if result is not None:
            if not isinstance(result, Tensor):
                raise TypeError(f"a tensor hook must return None or a Tensor (the replacement "
                                f"gradient), got {type(result).__name__}")
            if tuple(result.shape) != tuple(grad.shape):
                raise RuntimeError(f"a tensor hook returned a gradient of shape "
                                   f"{tuple(result.shape)}, but the tensor's gradient has shape "
                                   f"{tuple(grad.shape)}")
            grad = result
    return grad


def _tell_of_missing_grad(node, grad=None) -> None:
    """Call the node's tensor hooks that take a missing gradient (``takes_missing_grad``:
    ``register_multi_grad_hook``'s) with None, as PyTorch calls every tensor hook of a
    node that runs without a gradient for it. Other hooks are not called (they expect a
    tensor here: docs/differences.md)."""
    for hook in list(node._tensor_hooks.values()):
        if getattr(hook, "takes_missing_grad", False):
            hook(None)


def _run_tensor_hooks_on_array(node, grad):
    """``_run_tensor_hooks`` for the array walk: the array in a tensor, and back out."""
    from ..tensor import Tensor

    return _run_tensor_hooks(node, Tensor._make(grad, node.backend))._data


def _add_grad(pending: dict, owned: set, node, grad) -> None:
    """Add ``grad`` (an array or an ``IndexedGradient``) to the gradient waiting at
    ``node``, in place once the engine owns a buffer for it (see the module)."""
    waiting = pending.get(node)
    if waiting is None:
        pending[node] = grad
        return
    backend = node.backend
    if node not in owned:
        buffer = _first_sum(backend, waiting, grad)
        pending[node] = buffer
        # Only an array can be added into: not Slots (see slots.py), nor the scalar NumPy
        # gives for a 0-d sum.
        if getattr(buffer, "ndim", 0):
            owned.add(node)
        return
    if isinstance(grad, IndexedGradient):
        grad.add_into(backend, waiting)
    else:
        backend.accumulate(waiting, Ellipsis, grad)


def _first_sum(backend, waiting, grad):
    """``waiting + grad`` as a new array, the first two gradients to meet at a node."""
    if not isinstance(waiting, IndexedGradient) and not isinstance(grad, IndexedGradient):
        return backend.binary("add", waiting, grad)
    if isinstance(waiting, IndexedGradient) and not isinstance(grad, IndexedGradient):
        waiting, grad = grad, waiting  # a + b is b + a, bit for bit: start from the full one
    if isinstance(waiting, IndexedGradient):
        buffer = waiting.dense(backend)
    elif waiting.ndim == 0:  # a NumPy scalar, which cannot be added into
        return backend.binary("add", waiting, grad.dense(backend))
    else:
        buffer = backend.copy(waiting)
    grad.add_into(backend, buffer)
    return buffer


def _add_graph_grad(pending: dict, owned: set, node, grad) -> None:
    """``_add_grad`` for ``create_graph``: a recorded, out-of-place ``+`` of tensors (or
    the merge of ``Slots``, which hold tensors then)."""
    waiting = pending.get(node)
    if waiting is None:
        pending[node] = grad
    elif isinstance(waiting, Slots):
        pending[node] = SLOT_MERGER.binary("add", waiting, grad)
    else:
        pending[node] = waiting + grad


def _take_graph_grad(pending: dict, owned: set, node) -> tuple:
    """``_take_grad`` for ``create_graph``: the summed gradient tensor (never owned)."""
    return pending.pop(node, None), False


def _array_backward(node):
    return node._backward


def _graph_backward(node):
    """The node's ``_backward_graph``, or a clear error for a kind of node that has none."""
    # ``type(node)``: a custom Function's output node forwards unknown attributes to its ctx
    if getattr(type(node), "_backward_graph", None) is None:
        raise NotImplementedError(
            f"create_graph=True (a differentiable gradient) is not supported through "
            f"{node.name()} in minitorch_meta; compute this gradient without create_graph")
    return node._backward_graph


class _Step:
    """How one walk treats gradients: as arrays (``backward()``) or as recorded tensors
    (``create_graph=True``)."""

    def __init__(self, add_grad, take_grad, run_hooks, backward_of, accumulate, as_tensor,
                 as_gradient):
        self.add_grad, self.take_grad, self.run_hooks = add_grad, take_grad, run_hooks
        self.backward_of, self.accumulate = backward_of, accumulate
        #: a gradient as node hooks see it (a tensor), and back
        self.as_tensor, self.as_gradient = as_tensor, as_gradient


def _take_grad(pending: dict, owned: set, node) -> tuple:
    """The gradient summed at ``node``, as a full array (or None if none arrived), and
    whether the engine owns that array."""
    grad = pending.pop(node, None)
    if isinstance(grad, IndexedGradient):
        return grad.dense(node.backend), True
    return grad, node in owned


_ARRAY_STEP = _Step(_add_grad, _take_grad, _run_tensor_hooks_on_array, _array_backward,
                    AccumulateGrad.accumulate, _array_as_tensor, _tensor_as_array)
_GRAPH_STEP = _Step(_add_graph_grad, _take_graph_grad, _run_tensor_hooks, _graph_backward,
                    AccumulateGrad.accumulate_graph, _same, _same)


def _count_dependencies(start_nodes, needed=None) -> dict:
    """How many edges point at each node reachable from ``start_nodes`` (iterative DFS),
    counting only edges into ``needed`` nodes when it is given."""
    dependencies = {}
    stack = list(start_nodes)
    starts = set(stack)
    while stack:
        node = stack.pop()
        for next_node in node._next_nodes:
            if next_node is None or (needed is not None and next_node not in needed):
                continue
            count = dependencies.get(next_node)
            if count is None:  # the first edge into it: walk on from it (roots already are)
                dependencies[next_node] = 1
                if next_node not in starts:
                    stack.append(next_node)
            else:
                dependencies[next_node] = count + 1
    return dependencies


def _nodes_leading_to(start_nodes, targets) -> set:
    """The nodes reachable from ``start_nodes`` from which some node of ``targets`` can be
    reached (the targets included): the only part of the graph ``autograd.grad`` runs."""
    parents = {}  # node -> the nodes with an edge into it
    stack = list(start_nodes)
    seen = set(stack)
    while stack:
        node = stack.pop()
        for next_node in node._next_nodes:
            if next_node is None:
                continue
            parents.setdefault(next_node, []).append(node)
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    needed = {node for node in targets if node in seen}
    stack = list(needed)
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed

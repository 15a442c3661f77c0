"""Reverse-mode autograd: grad mode, and the engine that walks ``grad_fn`` graphs.

The walk is iterative (no recursion, so a 10,000-op chain is fine) and topologically
ordered: a node runs its backward once, after every gradient flowing into it has been
summed. Leaves receive their gradient through an ``AccumulateGrad`` node.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence


class _GradState(threading.local):
    """Per-thread grad mode; the class attributes are every new thread's defaults."""

    enabled = True
    inference = False


_state = _GradState()


def is_grad_enabled() -> bool:
    """Whether ops record graphs for autograd (False inside ``no_grad``)."""
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    """Whether the code runs inside ``inference_mode()``."""
    return _state.inference


def _set_grad_enabled(mode: bool) -> None:
    _state.enabled = mode


class _GradMode:
    """Base of the grad-mode context managers, which also work as decorators."""

    mode = True

    def __enter__(self):
        self._previous = is_grad_enabled()
        _set_grad_enabled(self.mode)
        return self

    def __exit__(self, *exc_info):
        _set_grad_enabled(self._previous)

    def clone(self):
        """A fresh manager of the same mode (each call of a decorated function needs one)."""
        return type(self)()

    def __call__(self, function):
        import functools

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with self.clone():
                return function(*args, **kwargs)

        return wrapper


class _ModeWithoutArguments(_GradMode):
    """A grad mode that takes no arguments, so it decorates with or without parentheses
    (``@no_grad`` and ``@no_grad()``, as in PyTorch)."""

    def __new__(cls, function=None):
        if function is not None:
            return cls()(function)  # ``@no_grad``: decorate at once
        return super().__new__(cls)

    def __init__(self, function=None):
        pass


class no_grad(_ModeWithoutArguments):  # noqa: N801 - PyTorch's name
    """Ops inside run without recording a graph (inference, parameter updates)."""

    mode = False


class enable_grad(_ModeWithoutArguments):  # noqa: N801 - PyTorch's name
    """Ops inside record graphs again, even within ``no_grad``."""

    mode = True


class set_grad_enabled(_GradMode):  # noqa: N801 - PyTorch's name
    """Set grad mode to ``mode``: at once when called (``set_grad_enabled(False)`` on its
    own line turns recording off until it is turned on again), and back to what it was at
    the end of a ``with`` block or of a decorated function, as in PyTorch."""

    def __init__(self, mode: bool):
        self._previous = is_grad_enabled()
        self.mode = bool(mode)
        _set_grad_enabled(self.mode)

    def __enter__(self):
        return self  # the mode was set when the object was made

    def clone(self):
        return set_grad_enabled(self.mode)

    def __call__(self, function):
        # Used as ``@set_grad_enabled(False)``: making the object set the mode, so undo that;
        # the mode applies inside the decorated function only.
        _set_grad_enabled(self._previous)
        return super().__call__(function)


class inference_mode(_GradMode):  # noqa: N801 - PyTorch's name
    """``inference_mode()`` (or ``inference_mode(True)``): ops inside record no graph, as in
    ``no_grad``; ``inference_mode(False)`` turns recording on, as in PyTorch.

    Unlike PyTorch, tensors made inside are ordinary tensors: PyTorch marks them "inference
    tensors" that autograd refuses later; here they may be used anywhere (docs/differences.md).
    """

    def __new__(cls, mode=True):
        if callable(mode):  # ``@inference_mode`` without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True):
        self.inference = bool(mode)
        self.mode = not self.inference

    def __enter__(self):
        self._previous_inference = _state.inference
        _state.inference = self.inference
        return super().__enter__()

    def __exit__(self, *exc_info):
        _state.inference = self._previous_inference
        super().__exit__(*exc_info)

    def clone(self):
        return inference_mode(self.inference)


class AccumulateGrad:
    """The graph node of a leaf tensor: adds incoming gradients into ``tensor.grad``."""

    __slots__ = ("variable", "_tensor_hooks")
    next_functions = ()

    def __init__(self, variable):
        self.variable = variable
        self._tensor_hooks = None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return "<AccumulateGrad object>"

    @property
    def backend(self):
        return self.variable._backend

    def accumulate(self, grad_array) -> None:
        tensor = self.variable
        backend = tensor._backend
        if tensor.grad is None:
            # The incoming array may be shared (an add hands the same gradient to both
            # inputs) or a view of a saved buffer: the leaf gets its own copy, so in-place
            # updates of one .grad never touch another.
            tensor.grad = tensor._wrap(backend.copy(grad_array))
        else:
            tensor.grad._data = backend.binary("add", tensor.grad._data, grad_array)


def backward(tensors: Sequence, grad_tensors: Sequence, retain_graph: bool = False) -> None:
    """Compute gradients of ``tensors`` (weighted by ``grad_tensors``) w.r.t. the leaves."""
    roots = []
    for tensor, grad in zip(tensors, grad_tensors):
        if tensor.grad_fn is None and not tensor.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                               "grad_fn: call backward() on a result computed from tensors "
                               "created with requires_grad=True (and not under no_grad())")
        node = tensor.grad_fn if tensor.grad_fn is not None else tensor._accumulator()
        roots.append((node, grad))
    _run(roots, retain_graph)


def _run(roots, retain_graph: bool) -> None:
    dependencies = _count_dependencies([node for node, _ in roots])
    pending = {}
    for node, grad in roots:
        _add_grad(pending, node, grad)
    ready = [node for node, _ in roots if dependencies.get(node, 0) == 0]
    # Every edge into a node decrements its count once, so a node reaches zero (and is
    # made ready) exactly once: no set of nodes already made ready is needed.
    with no_grad():
        while ready:
            node = ready.pop()
            grad = pending.pop(node, None)
            if grad is not None and node._tensor_hooks:
                grad = _run_tensor_hooks(node, grad)
            if grad is None:
                # Every edge into this node carried no gradient (an op returned None for
                # it): nothing to compute, but its inputs still wait on this edge.
                input_grads = (None,) * len(node.next_functions)
            elif isinstance(node, AccumulateGrad):
                node.accumulate(grad)
                continue
            else:
                input_grads = node._backward(grad, retain_graph)
            for next_node, g in zip(node.next_functions, input_grads):
                if next_node is None:
                    continue
                if g is not None:
                    _add_grad(pending, next_node, g)
                count = dependencies[next_node] - 1
                dependencies[next_node] = count
                if count == 0:
                    ready.append(next_node)


def _run_tensor_hooks(node, grad):
    """Call the hooks registered on the node's tensor (``Tensor.register_hook``) in order;
    a hook may return a replacement gradient."""
    from .tensor import Tensor

    for hook in list(node._tensor_hooks.values()):
        result = hook(Tensor._make(grad, node.backend))
        if result is not None:
            if not isinstance(result, Tensor):
                raise TypeError(f"a tensor hook must return None or a Tensor (the replacement "
                                f"gradient), got {type(result).__name__}")
            if tuple(result.shape) != tuple(grad.shape):
                raise RuntimeError(f"a tensor hook returned a gradient of shape "
                                   f"{tuple(result.shape)}, but the tensor's gradient has shape "
                                   f"{tuple(grad.shape)}")
            grad = result._data
    return grad


def _add_grad(pending: dict, node, grad) -> None:
    if node in pending:
        pending[node] = node.backend.binary("add", pending[node], grad)
    else:
        pending[node] = grad


def _count_dependencies(start_nodes) -> dict:
    """How many edges point at each node reachable from ``start_nodes`` (iterative DFS)."""
    dependencies = {}
    stack = list(start_nodes)
    starts = set(stack)
    while stack:
        node = stack.pop()
        for next_node in node.next_functions:
            if next_node is None:
                continue
            count = dependencies.get(next_node)
            if count is None:  # the first edge into it: walk on from it (roots already are)
                dependencies[next_node] = 1
                if next_node not in starts:
                    stack.append(next_node)
            else:
                dependencies[next_node] = count + 1
    return dependencies

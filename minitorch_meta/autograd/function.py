"""``torch.autograd.Function``: custom differentiable ops written with tensors.

A subclass gives two static methods, ``forward(ctx, *args)`` and
``backward(ctx, *grad_outputs)``, and is called as ``MyFn.apply(*args)``. ``forward`` runs
with grad mode off, on tensors; what ``backward`` needs is kept on ``ctx``
(``save_for_backward``, or plain attributes).

The engine works on backend arrays, so ``ctx`` is also an engine node (as in PyTorch, the
``ctx`` is the output's ``grad_fn``): one class per subclass, ``<ClassName>Backward``. Its
``_backward`` wraps the incoming arrays into tensors, runs the user's ``backward`` under
``no_grad``, checks each returned gradient against its input (count, type, shape, device;
a broadcast gradient is summed down and another dtype cast, as in PyTorch) and hands back
arrays. The engine sends one gradient per node, so with several differentiable outputs
each output gets its own identity node (``_OutputNode``) that passes its gradient to
``ctx`` tagged with the output's position (``Slots``).
"""

from __future__ import annotations

import functools
import inspect

from ..backends.base import broadcast_axes
from ..ops.shapes import broadcasts_to
from ..versions import modified_error
from . import saved_tensors_hooks
from .anomaly_mode import remember_trace
from .grad_mode import enable_grad, is_grad_enabled, no_grad
from .graph_node import GraphNode
from .slots import SLOT_MERGER, Slots


class FunctionCtx:
    """What ``forward`` gives ``backward``: saved tensors, output flags, any attribute."""

    _to_save = ()
    _non_differentiable = ()
    materialize_grads = True

    def save_for_backward(self, *tensors) -> None:
        """Keep ``tensors`` (or None) for ``backward``, which reads them as
        ``ctx.saved_tensors``; changing one in place before backward is an error there."""
        _check_tensors(TypeError, "save_for_backward can only save variables", tensors)
        self._to_save = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """Mark outputs that carry no gradient (indices, masks): they do not require grad,
        and ``backward`` receives zeros for them (None without materialized gradients)."""
        _check_tensors(RuntimeError, "mark_non_differentiable only accepts variable arguments",
                       tensors)
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether ``backward`` receives zeros (True, the default) or None for the gradient
        of an output that got none (unused, or not differentiable)."""
        self.materialize_grads = bool(value)


def _pack_saved(ctx) -> None:
    """Pack ``ctx``'s saved tensors with the open ``saved_tensors_hooks``, if any."""
    if ctx._to_save and (packed := saved_tensors_hooks.packed_for_backward(ctx._to_save)):
        ctx._packed_to_save = packed
        if not saved_tensors_hooks.innermost_checks_versions():
            ctx._versions = ()


def _check_tensors(error: type, what: str, values) -> None:
    from ..tensor import Tensor

    for index, value in enumerate(values):
        if value is not None and not isinstance(value, Tensor):
            raise error(f"{what}, but argument {index} is of type "
                            f"{type(value).__name__}: pass tensors (or None)")


class BackwardCFunction(FunctionCtx, GraphNode):
    """The ``ctx`` of one call, and the graph node of its outputs (``<ClassName>Backward``).

    Set when the call records: ``_next_nodes`` (one edge per tensor argument),
    ``backend`` (how the engine adds the gradients arriving here), the specs of the
    arguments and outputs, and the versions of the saved tensors.
    """

    _forward_cls = None  # the Function subclass; set on each generated subclass
    _tensor_hooks = None  # Tensor.register_hook on the output whose grad_fn this is
    _freed = False

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.name()} object>"

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward``, as they were when saved."""
        if self._freed:
            raise RuntimeError(
                f"Trying to backward through the graph a second time (or directly access "
                f"saved tensors after they have already been freed): {self.name()}'s saved "
                "tensors were freed by the first backward. Specify retain_graph=True on the "
                "first backward() call if you need to backward through the graph again or "
                "to read saved tensors after backward.")
        for index, (counter, version, tensor) in enumerate(self.__dict__.get("_versions", ())):
            if counter.value != version:
                what = (f"saved tensor {index} (a {tensor.dtype} tensor of shape "
                        f"{tuple(tensor.shape)})")
                raise modified_error(self.name(), what, counter.value, version)
        packed = self.__dict__.get("_packed_to_save")
        return tuple(self._to_save) if packed is None else saved_tensors_hooks.unpacked(packed)

    # -- the engine's side -----------------------------------------------------------
    def _backward(self, grad, retain_graph: bool) -> tuple:
        """Called by the engine: one gradient array (or None) per tensor argument."""
        return self._run_backward(grad, retain_graph, create_graph=False)

    def _backward_graph(self, grad, retain_graph: bool) -> tuple:
        """Called by the engine under ``create_graph=True``: the user's ``backward`` runs
        with grad mode on, as in PyTorch, so gradients written with differentiable tensor
        ops can be differentiated again; one tensor (or None) per tensor argument."""
        return self._run_backward(grad, retain_graph, create_graph=True)

    def _run_backward(self, grad, retain_graph: bool, create_graph: bool) -> tuple:
        grad_outputs = self._grad_outputs(grad)
        with enable_grad() if create_graph else no_grad():
            result = self._forward_cls.backward(self, *grad_outputs)
            grads = self._input_grads(result, as_tensors=create_graph)
        if not retain_graph:
            # Only the saved tensors are freed, as in PyTorch: other attributes stay, and a
            # function that saved nothing may run backward again.
            self._to_save, self._versions, self._freed = (), (), True
            self.__dict__.pop("_packed_to_save", None)
        return grads

    def _grad_outputs(self, grad) -> list:
        """The gradient of each output as a tensor (zeros or None where none arrived)."""
        from ..tensor import Tensor

        arrived = grad.grads if isinstance(grad, Slots) else {self._single: grad}
        grads = []
        for position, spec in enumerate(self._output_specs):
            array = arrived.get(position)
            if spec is None:  # not a tensor: no gradient
                grads.append(None)
                continue
            backend, shape, dtype = spec
            if array is None and self.materialize_grads:
                array = backend.full(shape, 0, dtype)
            if array is None or isinstance(array, Tensor):  # create_graph: already a tensor
                grads.append(array)
            else:
                grads.append(Tensor._make(array, backend))
        return grads

    def _input_grads(self, result, as_tensors: bool = False) -> tuple:
        """``backward``'s result checked against the arguments, as arrays (tensors with
        ``as_tensors``; None where no gradient is wanted), one per tensor argument."""
        name, specs = self.name(), self._input_specs
        result = result if isinstance(result, tuple) else (result,)
        if len(result) > len(specs) and all(g is None for g in result[len(specs):]):
            result = result[:len(specs)]  # trailing Nones are allowed, as in PyTorch
        if len(result) != len(specs):
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients (expected "
                f"{len(specs)}, got {len(result)}): backward must return one gradient per "
                "argument of forward (None for non-tensor arguments)")
        arrays = []
        for position, (gradient, spec) in enumerate(zip(result, specs)):
            if spec is None:
                if gradient is not None:
                    raise RuntimeError(
                        f"function {name} returned a gradient different than None at "
                        f"position {position + 1}, but the corresponding forward input was "
                        "not a Variable (a Tensor): return None for it")
                continue
            if gradient is not None and spec[3]:
                # PyTorch counts the tensor arguments only in this message
                checked = _checked_gradient(name, len(arrays), gradient, spec)
                arrays.append(checked if as_tensors else checked._data)
            else:
                _check_type(gradient)
                arrays.append(None)
        return tuple(arrays)


def _check_type(gradient) -> None:
    from ..tensor import Tensor

    if gradient is not None and not isinstance(gradient, Tensor):
        raise RuntimeError(f"expected Variable or None (got {type(gradient).__name__}): "
                           "backward must return a Tensor or None per argument of forward")


def _checked_gradient(name: str, index: int, gradient, spec):
    """Tensor argument ``index``'s gradient: summed down when it is a broadcast of the
    input's shape, cast to the input's dtype; another shape or device is an error."""
    _check_type(gradient)
    shape, dtype, device, _ = spec
    got = tuple(gradient.shape)
    if got != shape:
        if not broadcasts_to(shape, got):
            raise RuntimeError(
                f"Function {name} returned an invalid gradient at index {index} - got "
                f"{list(got)} but expected shape compatible with {list(shape)}")
        gradient = _sum_to(gradient, shape)
    if gradient.device != device:
        raise RuntimeError(
            f"Function {name} returned an invalid gradient at index {index} - expected "
            f"device {device} but got {gradient.device}")
    if gradient.dtype != dtype:
        gradient = gradient.to(dtype)
    return gradient


def _sum_to(gradient, shape: tuple):
    """``gradient`` (a broadcast of ``shape``) summed back down to ``shape``."""
    dims = broadcast_axes(shape, tuple(gradient.shape))
    return gradient.sum(dim=dims, keepdim=True).reshape(shape)


class _OutputNode(GraphNode):
    """The ``grad_fn`` of one of several differentiable outputs: passes its gradient to the
    shared ``ctx`` tagged with the output's position. Other attributes read the ``ctx``'s
    (``y.grad_fn.saved_tensors``)."""

    __slots__ = ("ctx", "position", "_next_nodes", "backend", "_tensor_hooks")

    def __init__(self, ctx: BackwardCFunction, position: int, backend):
        self.ctx, self.position, self.backend = ctx, position, backend
        self._next_nodes = (ctx,)
        self._tensor_hooks = None

    def _backward(self, grad, retain_graph: bool) -> tuple:
        return (Slots({self.position: grad}),)

    _backward_graph = _backward  # a gradient tensor is tagged the same way

    def name(self) -> str:
        return self.ctx.name()

    def __repr__(self) -> str:
        return f"<{self.name()} object>"

    # PyTorch's view (graph_node.py): the output's position, and the ``ctx`` as the one node
    @property
    def _output_nr(self) -> int:
        return self.position

    @property
    def _shared_node(self):
        return self.ctx

    def __getattr__(self, attribute):
        return getattr(self.ctx, attribute)


class Function:
    """Base class of custom differentiable ops (PyTorch's ``torch.autograd.Function``).

    Subclass it with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``
    (one gradient per output in, one per argument of ``forward`` out, None for
    non-tensors), and call ``MyFn.apply(*args)``; never instantiate it.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._backward_cls = _backward_class(cls)

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs: tuple, output) -> None:
        """Override it (with a ``forward`` that takes no ``ctx``) to fill ``ctx`` from the
        arguments and the result once ``forward`` has run: PyTorch's second style."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method: call MyFunction.apply(*args), not "
                           "MyFunction()(*args).")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` (grad mode off) and record a graph node for the outputs when an
        argument requires grad and grad mode is on. Keyword arguments reach ``forward``
        but are not inputs: they get no gradient."""
        from ..tensor import Tensor

        separate_setup = cls.setup_context is not Function.setup_context
        if separate_setup:  # defaults and keywords become inputs, as PyTorch binds them
            args, kwargs = _bound_arguments(cls.forward, args, kwargs)
        ctx = cls._backward_cls()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            if separate_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outputs = (outputs,) if single else outputs
        if any(ctx.needs_input_grad) and is_grad_enabled():
            outputs = _record(ctx, args, outputs)
        else:
            outputs = tuple(_attach(o, None) if isinstance(o, Tensor) else o for o in outputs)
        return outputs[0] if single else outputs


def _bound_arguments(forward, args: tuple, kwargs: dict) -> tuple:
    """``forward``'s arguments with defaults filled in, as positions where possible."""
    bound = inspect.signature(forward).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args, bound.kwargs


def _backward_class(function_cls) -> type:
    """The node class of ``function_cls``: ``<ClassName>Backward``, PyTorch's name."""
    return type(f"{function_cls.__name__}Backward", (BackwardCFunction,),
                {"_forward_cls": function_cls, "__module__": __name__})


Function._backward_cls = _backward_class(Function)


def _record(ctx: BackwardCFunction, args: tuple, outputs: tuple) -> tuple:
    """Make ``ctx`` the graph node of ``outputs``; returns the outputs attached to it."""
    from ..ops.function import _edge
    from ..tensor import Tensor

    ctx._next_nodes = tuple(_edge(a) for a in args if isinstance(a, Tensor))
    remember_trace(ctx)
    ctx._input_specs = tuple(
        (tuple(a.shape), a.dtype, a.device, a.requires_grad) if isinstance(a, Tensor)
        else None for a in args)
    ctx._output_specs = tuple((o._backend, o._data.shape, o._dtype)
                              if isinstance(o, Tensor) else None for o in outputs)
    # Versions now, after forward, as PyTorch saves: forward may fill what it saves.
    ctx._versions = tuple((t._counter(), t._counter().value, t)
                          for t in ctx._to_save if t is not None)
    _pack_saved(ctx)
    excluded = {id(t) for t in ctx._non_differentiable}
    differentiable = [i for i, o in enumerate(outputs) if isinstance(o, Tensor)
                      and o._dtype.is_floating_point and id(o) not in excluded]
    if len(differentiable) == 1:
        ctx._single = differentiable[0]
        ctx.backend = outputs[ctx._single]._backend
        if ctx._single:  # PyTorch numbers a custom Function's outputs by position
            ctx._output_nr = ctx._single
        nodes = {ctx._single: ctx}
    else:  # each output's gradient reaches ctx apart, through its own identity node
        ctx.backend = SLOT_MERGER
        nodes = {i: _OutputNode(ctx, i, outputs[i]._backend) for i in differentiable}
    return tuple(_attach(o, nodes.get(i)) if isinstance(o, Tensor) else o
                 for i, o in enumerate(outputs))


def _attach(tensor, node):
    """A new tensor on ``tensor``'s storage (and version counter) whose ``grad_fn`` is
    ``node`` (None: it does not require grad). ``forward`` may return an input itself,
    which must keep its own ``grad_fn``."""
    from ..tensor import Tensor

    result = Tensor._make(tensor._data, tensor._backend, node is not None, node)
    result._version_counter = tensor._shared_counter()
    return result


def once_differentiable(backward):
    """Decorate a custom ``Function``'s ``backward`` whose formula is not itself
    differentiable (PyTorch's ``torch.autograd.function.once_differentiable``): it runs
    under ``no_grad``. As in PyTorch, under ``create_graph=True`` its gradients have no
    graph, unless a gradient it was given requires grad: they then come back behind a
    node that raises if a second backward reaches it."""
    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        with no_grad():
            result = backward(ctx, *grad_outputs)
        if not is_grad_enabled() or not any(getattr(g, "requires_grad", False)
                                            for g in grad_outputs):
            return result
        return _guarded(ctx, grad_outputs, result)
    return wrapper


_TWICE = ("trying to differentiate twice a function that was marked with "
          "@once_differentiable")  # PyTorch's words


def _guarded(ctx, grad_outputs, result):
    """``result``'s tensors behind a node that refuses to be differentiated; its edges
    lead to the gradients it was given that require grad."""
    from ..ops.function import _edge
    from ..ops.graph_backward import NotDifferentiableTwice
    from ..tensor import Tensor

    single = not isinstance(result, tuple)
    guarded = []
    for gradient in ((result,) if single else result):
        if isinstance(gradient, Tensor):
            edges = tuple(_edge(g) for g in grad_outputs
                          if isinstance(g, Tensor) and g.requires_grad)
            node = NotDifferentiableTwice(ctx.name(), gradient._backend, edges, _TWICE)
            gradient = Tensor._make(gradient._data, gradient._backend, True, node)
        guarded.append(gradient)
    return guarded[0] if single else tuple(guarded)


__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "once_differentiable"]

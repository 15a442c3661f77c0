"""``Function``: one differentiable op — its shape rule, forward and backward together.

Dispatch lives here, once for every op: find the backend of the inputs (refusing mixed
devices), run the op's shape rule, then either run ``forward`` on a data backend or make
empty arrays of the rule's shapes on a shape-only backend (meta). An op never asks which
backend it is on. When autograd is recording, the ``Function`` instance itself becomes the
output's ``grad_fn`` node and keeps what ``backward`` needs.

An op subclass defines:

``op_name``         the op's name in error messages (``"conv2d"``)
``backward_name``   PyTorch's ``grad_fn`` name (``"ConvolutionBackward0"``)
``infer(*inputs)``  the shape rule: reads only shapes, dtypes and hyper-parameters of the
                    input tensors; returns ``(shape, dtype)`` of the output (or a list of
                    them for several outputs) and raises ``ShapeError``
``forward(backend, *arrays)``   returns an array (or a tuple for several outputs)
``backward(backend, grad)``     returns one gradient array (or None) per input
``backward_graph(grad)``        optional: the same gradients as tensors computed with
                                tensor ops, for ``create_graph=True`` (gradients of
                                gradients; see ``graph_backward.py``)

Hyper-parameters are keyword arguments of the constructor (``Conv2d(stride=2)``) and
become attributes. The hottest ops (indexing, view, binary arithmetic) take them as
explicit parameters of their own ``__init__`` instead, because packing keywords into a
dict costs ~0.3 µs per op; such an op names them in the class attribute ``_hyper``, so
that they outlive backward like the others.
"""

from __future__ import annotations

from types import MappingProxyType

from ..autograd import AccumulateGrad
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph_node import GraphNode
from ..dtypes import SHELL as _SHELL
from ..errors import DeviceError
from ..tensor_arguments import not_a_tensor_error
from ..versions import modified_error
from . import complex_support, graph_backward, unsigned_shell


class Function(GraphNode):
    op_name = "op"
    backward_name = "Backward0"
    #: hooks registered on the output tensor (``Tensor.register_hook``), run by the engine
    _tensor_hooks = None
    #: the ``grad_fn`` name of a composed op whose last node this is (see ``show_as``)
    shown_as = None
    #: outputs after the first are never differentiable (e.g. max_pool2d's indices)
    multiple_outputs = False
    #: False for ops whose output carries no gradient (comparisons, argmax): no graph node
    differentiable = True
    #: True for ops whose output looks into the input's storage (view, transpose, x[k]):
    #: the output shares the input's version counter, so writing to one bumps both
    is_view = False
    #: What backward reads of the op's tensors, as PyTorch saves them: input positions or
    #: ``"output"``, or ``(what, i)`` for what only input ``i``'s gradient reads (saved when
    #: input ``i`` requires grad). Their versions are checked before backward
    #: (see ``versions.py``).
    saved_for_backward = ()

    #: True while ``observed_call`` runs this op: its own dispatch then skips the observers
    _observed = False
    #: True for ops written for complex values (see ``complex_support.py``); the
    #: dispatcher refuses complex inputs to every other op
    complex_aware = False

    #: the hyper-parameters' names (the keywords given to the constructor, as a dict, or
    #: the parameters of an op's own ``__init__``); none by default
    _hyper = MappingProxyType({})

    def __init__(self, **hyper_parameters):
        if hyper_parameters:  # most ops have none
            # setattr, not ``self.__dict__.update``: touching ``__dict__`` turns the
            # instance's compact attribute storage into a dict, which makes every later
            # attribute read and write of the op slower (~0.15 µs per op in all).
            for name, value in hyper_parameters.items():
                setattr(self, name, value)
            # Hyper-parameters outlive backward (grad_fn names and reprs read them); only
            # what forward saved is freed.
            self._hyper = hyper_parameters

    # -- what a subclass implements -------------------------------------------------
    def infer(self, *inputs):
        raise NotImplementedError

    def forward(self, backend, *arrays):
        raise NotImplementedError

    def backward(self, backend, grad):
        raise NotImplementedError

    #: ``backward_graph(self, grad)``: one gradient tensor (or None) per input, from the
    #: gradient tensor ``grad``, computed with tensor ops so that it is recorded; an op
    #: without one is differentiable once only (see ``graph_backward.py``)
    backward_graph = None

    def graph_input(self, position: int, array):
        """Input ``position`` (forward saved ``array`` of it) as a tensor for
        ``backward_graph``, joined to the input's graph node."""
        return graph_backward.input_tensor(self, position, array)

    def graph_output(self, array):
        """The saved output as a tensor for ``backward_graph``, joined to this node."""
        return graph_backward.output_tensor(self, array)

    def constant(self, array):
        """A saved array as a tensor without gradient, for ``backward_graph``."""
        return graph_backward.constant_tensor(self, array)

    # -- dispatch --------------------------------------------------------------------
    @classmethod
    def apply(cls, *inputs, **hyper_parameters):
        """Run the op on ``inputs`` (Tensors or None) and return its output Tensor(s)."""
        return cls(**hyper_parameters)(*inputs)

    def __call__(self, *inputs):
        # The hot path of every op: plain loops and attribute reads, and no object built
        # per call beyond the output tensor (and, when recording, the node's edges).
        if _observers and not self._observed:  # one list test when nothing observes
            return observed_call(self, inputs)
        single = len(inputs) == 1  # most ops: then no loop over the inputs
        # Complex and uint16/32/64 inputs reach only the ops that take them. On the common
        # path this costs one read of each input's ``dtype.restricted`` (a slot) in the one-
        # and two-input cases, and a short loop in the general one.
        try:  # (free in Python 3.11 unless something raises)
            if single or (len(inputs) == 2 and inputs[0] is not None and inputs[1] is not None
                          and inputs[0]._backend is inputs[1]._backend):  # two on one device
                backend = inputs[0]._backend
                restricted = inputs[0]._dtype.restricted or (not single
                                                             and inputs[1]._dtype.restricted)
            else:
                backend, inputs = placed_inputs(self.op_name, inputs)
                restricted = any(t is not None and t._dtype.restricted for t in inputs)
            if restricted:
                self._check_restricted_inputs(inputs)
            specs = self.infer(*inputs)
        except AttributeError as error:
            # a string, a list or a None where a Tensor belongs: PyTorch's TypeError
            if (type_error := not_a_tensor_error(self.op_name, inputs, error)) is not None:
                raise type_error from None
            raise
        if restricted:  # (after the shape rule, which sets the dtype the op computes in)
            for t in inputs:  # uint16/32/64, float8: only the few ops PyTorch runs on them
                if t is not None and t._dtype in _SHELL:
                    unsigned_shell.check(self, inputs)
                    break
        # Known before forward, so that an op can skip saving what backward would need.
        # Grad mode (a thread-local read) is looked at only when an input requires grad.
        record = False
        if self.differentiable:
            for t in inputs:
                if t is not None and t.requires_grad:
                    record = _grad_state.enabled
                    break
        self.recording = record
        if backend.stores_data:
            if single:
                outputs = self.forward(backend, inputs[0]._data)
            else:
                outputs = self.forward(backend, *_arrays(inputs))
        elif self.multiple_outputs:
            outputs = tuple(backend.empty(shape, dtype) for shape, dtype in specs)
        else:
            outputs = backend.empty(*specs)
        first = outputs[0] if self.multiple_outputs else outputs
        if record:
            self._record(backend, inputs)
            result = _make_tensor(first, backend, True, self)
            if self.saved_for_backward:
                self._remember_versions(inputs, result)
        else:
            result = _make_tensor(first, backend)
        if self.is_view:
            result._version_counter = inputs[0]._shared_counter()
        if self.multiple_outputs:
            result = (result,) + tuple(_make_tensor(a, backend) for a in outputs[1:])
        return result

    def _check_restricted_inputs(self, inputs) -> None:
        """Refuse complex inputs unless this op is ``complex_aware`` (complex_support.py)."""
        if not self.complex_aware and (dtype := complex_support.complex_input(inputs)):
            complex_support.refuse(self, dtype)

    def _record(self, backend, inputs) -> None:
        """Make this function the graph node of its output: edges to the inputs' nodes, and
        what the engine needs to know about each input. One pass over the inputs."""
        if "_next_nodes" in self.__dict__:
            # a second recorded call would re-point the first output's node at the second
            # call's inputs: a silently wrong gradient (a bug in the op's caller)
            raise RuntimeError(f"{type(self).__name__} was called a second time while "
                               "recording a graph: a Function instance is one graph node; "
                               "make a new instance for each call")
        edges, needs, specs = [], [], []
        for t in inputs:
            edges.append(_edge(t))
            needs.append(t is not None and t.requires_grad)
            specs.append(None if t is None else (t._data.shape, t._dtype))
        self.backend = backend
        self._next_nodes = tuple(edges)
        self.needs_input_grad = tuple(needs)
        self.input_specs = tuple(specs)
        self._freed = False

    def _remember_versions(self, inputs, output) -> None:
        """The version of each tensor backward will read, and how to name it in errors."""
        versions = []
        needs = self.needs_input_grad
        for entry in self.saved_for_backward:
            position, needed_by = entry if isinstance(entry, tuple) else (entry, None)
            if needed_by is not None and not (needed_by < len(needs) and needs[needed_by]):
                continue  # only that input's gradient reads it, and none is wanted
            if position == "output":
                tensor = output
            else:  # ``x * 2`` has one input: the scalar is not a tensor
                tensor = inputs[position] if position < len(inputs) else None
            if tensor is None:
                continue
            counter = tensor._counter()
            label = "its output" if position == "output" else f"its input {position}"
            # Shape and dtype, not the tensor: the output keeping its own node alive through
            # this list would be a reference cycle holding the activations.
            versions.append((counter, counter.value, label, tensor._data.shape, tensor._dtype))
        self._saved_versions = versions

    def _check_versions(self) -> None:
        for counter, version, label, shape, dtype in self.__dict__.get("_saved_versions", ()):
            if counter.value != version:
                what = f"{label} (a {dtype} tensor of shape {tuple(shape)})"
                raise modified_error(self.name(), what, counter.value, version)

    def _check_not_freed(self) -> None:
        if self._freed:
            raise RuntimeError(
                f"Trying to backward through the graph a second time (through "
                f"{self.name()}): its saved tensors were freed after the first "
                "backward. Specify retain_graph=True on the first backward() call if you need "
                "to backward through the graph again.")

    def _backward(self, grad, retain_graph: bool):
        """Called by the engine: gradients for each input (meta: empty arrays of their shapes)."""
        self._check_not_freed()
        self._check_versions()
        backend = self.backend
        if backend.stores_data:
            grads = self.backward(backend, grad)
        else:
            grads = tuple(backend.empty(*spec) if need else None
                          for spec, need in zip(self.input_specs, self.needs_input_grad))
        if not retain_graph:
            self._free_saved()
        return grads

    def _backward_graph(self, grad, retain_graph: bool):
        """Called by the engine under ``create_graph=True``: a gradient tensor (or None)
        per input, recorded (``backward_graph``); without one, the gradients of
        ``backward`` behind a node that refuses a second differentiation."""
        if self.backward_graph is None or not graph_backward.formula_applies(type(self)):
            return graph_backward.once_differentiable(self, grad, retain_graph)
        self._check_not_freed()
        self._check_versions()
        if not self.backend.stores_data:  # meta: forward saved nothing; shapes suffice
            return graph_backward.meta_gradients(self, grad)
        grads = self.backward_graph(grad)
        if not retain_graph:
            self._free_saved()
        return grads

    def _free_saved(self) -> None:
        keep, hyper, fields = _NODE_FIELDS, self._hyper, self.__dict__
        saved = [k for k in fields if k not in keep and k not in hyper]
        if not self.saved_for_backward and not any(_holds_data(fields[k]) for k in saved):
            # Only shapes and dims (a view, a sum, an add): nothing worth freeing, and the
            # node can run again, as PyTorch's nodes that saved no tensors can.
            return
        for key in saved:
            del fields[key]
        self._freed = True

    # -- what ``grad_fn`` shows ------------------------------------------------------
    def name(self) -> str:
        """PyTorch's name of this graph node, e.g. ``"ConvolutionBackward0"``."""
        return self.shown_as or self.backward_name

    def show_as(self, backward_name: str) -> None:
        """Name this node as the composed op whose last step it is (``-max(-x)`` is ``min``:
        ``MinBackward1``, not ``NegBackward0``). Only the name changes, never the gradient."""
        self.shown_as = backward_name

    def __repr__(self) -> str:
        return f"<{self.name()} object>"


def _holds_data(value) -> bool:
    """Whether a node's attribute is (or directly holds) an array, as forward saves them."""
    if isinstance(value, (tuple, list)):
        return any(hasattr(item, "dtype") and hasattr(item, "shape") for item in value)
    return hasattr(value, "dtype") and hasattr(value, "shape")


def _make_tensor(array, backend, requires_grad=False, grad_fn=None):
    """``Tensor._make``, bound on first use: ``tensor.py`` imports this module, so the
    Tensor class cannot be imported here at load time."""
    global _make_tensor
    from ..tensor import Tensor

    _make_tensor = Tensor._make
    return _make_tensor(array, backend, requires_grad, grad_fn)


_NODE_FIELDS = frozenset({"recording", "_tensor_hooks", "backend",
                          "_next_nodes", "needs_input_grad", "input_specs", "_freed",
                          "_hyper", "ranks", "shown_as", "_anomaly_trace",
                          "_output_nr", "_shared_node", "_shown_edges"})


# Callbacks ``observer(function, inputs, outputs)`` run after every op inside ``observe``;
# the shape tools count products and memory with them. Empty (and free) otherwise.
# An open forward-mode dual level is one too, with ``run_op(function, inputs)``, which
# runs each op in its place (see ``observed_call``).
# An observer that times ops (the profiler) also has ``op_started(function, inputs)`` and
# ``op_failed(function)``, and ``node_started(node)``/``node_ended(node)``, which the
# autograd engine calls around each node's backward.
# An observer with ``before_write(tensor)`` hears of every in-place write into a tensor's
# memory just before it (``Tensor._store``): ``allow_mutation_on_saved_tensors`` clones
# what the write would change.
_observers: list = []


def observed_call(function, inputs):
    """Run ``function`` on ``inputs`` with the observers watching: ``op_started`` of those
    that time ops, the op's own dispatch, then every observer, or ``op_failed`` if the op
    raised (the time was spent all the same). Only called while some observer exists."""
    observers = tuple(_observers)  # an observer may leave the list while the op runs
    timers = [observer for observer in observers if hasattr(observer, "op_started")]
    # An open forward-mode dual level runs the op itself (``run_op``), to give its output
    # a tangent (autograd/forward_ad.py).
    runner = next((o.run_op for o in observers if hasattr(o, "run_op")), None)
    for timer in timers:
        timer.op_started(function, inputs)
    function._observed = True
    try:
        result = function(*inputs) if runner is None else runner(function, inputs)
    except BaseException:
        for timer in reversed(timers):
            timer.op_failed(function)
        raise
    finally:
        function._observed = False  # the same instance called again is observed again
    for observer in observers:
        observer(function, inputs, result)
    return result


class observe:  # noqa: N801 - used as a context manager, like no_grad
    """Call ``observer(function, inputs, outputs)`` after every op run inside the block."""

    def __init__(self, observer):
        self.observer = observer

    def __enter__(self):
        _observers.append(self.observer)
        return self

    def __exit__(self, *exc_info):
        _observers.remove(self.observer)


def _edge(tensor):
    """The graph node a gradient for ``tensor`` flows into, or None if it needs none."""
    if tensor is None or not tensor.requires_grad:
        return None
    if tensor.grad_fn is not None:
        return tensor.grad_fn
    return tensor._accumulator()


def _arrays(inputs) -> tuple:
    """The backend arrays of ``inputs`` (None stays None), for ``forward``."""
    if len(inputs) == 2 and inputs[0] is not None and inputs[1] is not None:
        return (inputs[0]._data, inputs[1]._data)  # two tensors, the next most common case
    return tuple(None if t is None else t._data for t in inputs)


def common_backend(op: str, inputs):
    """The backend shared by all tensor ``inputs``; mixing devices is an error."""
    if len(inputs) == 1:  # most ops have one input
        return inputs[0]._backend
    if len(inputs) == 2 and inputs[0] is not None and inputs[1] is not None \
            and inputs[0]._backend is inputs[1]._backend:  # then two on one device
        return inputs[0]._backend
    backend = None
    for t in inputs:
        if t is None:
            continue
        if backend is None:
            backend = t._backend
        elif t._backend is not backend:
            devices = ", ".join(f"'{x.device}'" for x in inputs if x is not None)
            raise DeviceError(
                f"{op}: expected all tensors on the same device, but got tensors on {devices}; "
                "move them first, e.g. with .to(device) or module.to(device)")
    return backend


def placed_inputs(op: str, inputs):
    """``(backend, inputs)`` of an op with several inputs: their shared backend, and the
    inputs on it.

    As in PyTorch, a 0-d tensor on the CPU may join tensors on another device (it counts as
    a scalar: ``x.cuda() * torch.tensor(2.0)``); it is copied there by a recorded ``to``, so
    its gradient comes back to the CPU. Any other mix of devices is an error.
    """
    try:
        return common_backend(op, inputs), inputs
    except DeviceError:
        others = {id(t._backend): t._backend for t in inputs
                  if t is not None and not _is_cpu_scalar(t)}
        if len(others) != 1:
            raise
        (backend,) = others.values()
    return backend, tuple(t if t is None or t._backend is backend else t.to(backend.device)
                          for t in inputs)


def _is_cpu_scalar(t) -> bool:
    return t.device.type == "cpu" and t._data.ndim == 0


__all__ = ["Function", "AccumulateGrad", "common_backend", "placed_inputs"]

"""The registry of user-defined operators and how one call runs (no dispatcher, eagerly).

An ``Operator`` holds what ``torch.library`` registered under one qualified name
(``"mylib::mysin"``): its schema, a kernel per device type (``"cpu"``, ``"cuda"``) and
perhaps one for every device, a fake implementation (it runs for ``meta`` inputs: meta
tensors are exactly fake tensors, shapes without data) and an autograd formula.

A call binds its arguments to the schema, picks the kernel of the tensors' device type,
and, when an input requires grad, records one graph node whose backward is the registered
formula (``GeneratedBackwardFor_<ns>_<name>_defaultBackward``, PyTorch's name). A kernel
registered through the older ``Library.impl`` for the ``CompositeImplicitAutograd`` key,
or any kernel of an op defined with ``Library.define`` and no formula, runs with grad on,
so gradients flow through the tensor ops inside it, as PyTorch's autograd fallback does.

``torch.ops.<ns>.<name>`` reaches an op through ``OpNamespace``/``OpOverloadPacket``/
``OpOverload`` (``.default`` is the only overload: one schema per name).
"""

from __future__ import annotations

import threading

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled, no_grad
from .schema import Schema

#: every operator by qualified name ("ns::name")
_OPERATORS: dict = {}
_LOCK = threading.Lock()


def split_qualname(qualname: str) -> tuple:
    """``"ns::name"`` -> ``("ns", "name")``.

    Raises:
        ValueError: not exactly one ``::`` with a non-empty identifier on each side.
    """
    if not isinstance(qualname, str):
        raise TypeError(f"expected an operator name like 'mylib::my_op' (a str), got "
                        f"{type(qualname).__name__}")
    pieces = qualname.split("::")
    if len(pieces) != 2 or not all(p.replace(".", "_").isidentifier() for p in pieces):
        raise ValueError(f"expected an operator name of the form 'namespace::name' with "
                         f"identifiers on both sides (e.g. 'mylib::my_op'), got {qualname!r}")
    return pieces[0], pieces[1]


def operator(qualname: str, create: bool = False) -> Operator:
    """The registry entry of ``qualname`` (made empty when ``create``).

    Raises:
        ValueError: no op of that name was defined (and ``create`` is false).
    """
    with _LOCK:
        entry = _OPERATORS.get(qualname)
        if entry is None and create:
            entry = _OPERATORS[qualname] = Operator(qualname)
    if entry is None:
        raise ValueError(f"no operator {qualname!r} is defined: define it first with "
                         "torch.library.custom_op or Library.define")
    return entry


class Operator:
    """What is registered under one name, and how a call of it runs."""

    def __init__(self, qualname: str):
        self.qualname = qualname
        self.namespace, self.name = split_qualname(qualname)
        self.schema: Schema | None = None
        self.kernels: dict = {}  # device type -> kernel
        self.default_kernel = None  # for every device type without its own kernel
        self.composite = False  # the default kernel is differentiated through its ops
        self.fake = None
        self.backward = None
        self.setup_context = None
        self.custom = False  # defined by custom_op (its calls are opaque to autograd)
        self.function_cls = None

    # -- choosing the implementation ---------------------------------------------------------

    def kernel_for(self, device_type: str):
        """The implementation that runs for inputs on ``device_type``.

        Raises:
            NotImplementedError: none is registered for that device type.
        """
        if device_type == "meta":
            if self.fake is not None:
                return self.fake
            if "meta" in self.kernels:
                return self.kernels["meta"]
            if self.composite and self.default_kernel is not None:
                return self.default_kernel  # made of tensor ops, which all run on meta
            if self.custom:
                raise RuntimeError(
                    f"There was no fake impl registered for <CustomOpDef({self.qualname})>. "
                    f"Please use `{self.name}.register_fake` to add one: for meta inputs, a "
                    "function of the same arguments that returns empty tensors of the "
                    "output shapes")
            raise NotImplementedError(
                f"{self.qualname}: attempted to run this operator with Meta tensors, but "
                f"there was no fake impl or Meta kernel registered: register one with "
                f"torch.library.register_fake({self.qualname!r}) (a function of the same "
                f"arguments that returns empty tensors of the output shapes)")
        kernel = self.kernels.get(device_type, self.default_kernel)
        if kernel is None:
            present = sorted(self.kernels) + (["meta"] if self.fake is not None else [])
            raise NotImplementedError(
                f"Could not run '{self.qualname}' with arguments from the "
                f"'{_backend_name(device_type)}' backend. '{self.qualname}' is only "
                f"available for these backends: "
                f"[{', '.join(_backend_name(d) for d in present)}].")
        return kernel

    # -- calling -----------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        if self.schema is None:
            raise RuntimeError(f"operator {self.qualname} has kernels but no schema: "
                               "define it with Library.define or custom_op")
        values = self.schema.bind(self.qualname, args, kwargs)
        tensors = _tensors_in(values)
        kernel = self.kernel_for(_device_type(self.qualname, tensors))
        if self.custom or self.backward is not None:
            if is_grad_enabled() and any(t.requires_grad for t in tensors):
                return self._differentiable_call(kernel, values)
            with no_grad():
                return self._checked(kernel(*values), values)
        return kernel(*values)

    def _checked(self, output, values: list):
        """PyTorch's checks of a custom op's result: its type, and no aliasing of inputs."""
        returns = self.schema.returns
        flat = _flatten_output(output, returns, self.qualname)
        inputs = {id(t) for t in _tensors_in(values)}
        for tensor in flat:
            if id(tensor) in inputs:
                raise RuntimeError(
                    f"{self.name} (with implementation in {self.qualname}): The output of "
                    "this custom operator (1) must not also be an input to this custom "
                    "operator and (2) may not alias any inputs to this custom operator or "
                    "other returns. Please instead return a clone of the offending output "
                    "tensor(s) (e.g. return x.clone()) or refactor the custom operator to "
                    "not return y.")
        return output

    def _differentiable_call(self, kernel, values: list):
        if self.function_cls is None:
            self.function_cls = _generated_function(self)
        flat_inputs, input_spec = _flatten_inputs(values)
        outputs = self.function_cls.apply(kernel, values, input_spec, *flat_inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        return _unflatten_output(list(outputs), self.schema.returns)


def _backend_name(device_type: str) -> str:
    return {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}.get(device_type, device_type)


def _tensors_in(values) -> list:
    from ..tensor import Tensor

    found = []
    for value in values:
        if isinstance(value, Tensor):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, Tensor))
    return found


def _device_type(qualname: str, tensors: list) -> str:
    """The device type of the call: its tensors', which must agree (none: the CPU)."""
    kinds = {t.device.type for t in tensors}
    if len(kinds) > 1:
        raise RuntimeError(f"{qualname}: expected all tensors to be on the same device "
                           f"type, but found {', '.join(sorted(kinds))}")
    return kinds.pop() if kinds else "cpu"


# -- flattening for the autograd node ---------------------------------------------------------

def _flatten_inputs(values: list) -> tuple:
    """The tensors among ``values`` (lists opened) and where each came from."""
    from ..tensor import Tensor

    flat, spec = [], []
    for index, value in enumerate(values):
        if isinstance(value, Tensor):
            flat.append(value)
            spec.append((index, None))
        elif isinstance(value, (list, tuple)):
            for position, item in enumerate(value):
                if isinstance(item, Tensor):
                    flat.append(item)
                    spec.append((index, position))
    return flat, spec


def _flatten_output(output, returns: tuple, qualname: str) -> list:
    """The output as a flat list of values (a ``Tensor[]`` return opened), type-checked."""
    from ..tensor import Tensor

    if len(returns) == 0:
        if output is not None:
            raise RuntimeError(f"{qualname}: the schema returns nothing (-> ()) but the "
                               f"implementation returned {type(output).__name__}")
        return []
    outputs = (output,) if len(returns) == 1 else output
    if not isinstance(outputs, (tuple, list)) or len(outputs) != len(returns):
        raise RuntimeError(f"{qualname}: expected the implementation to return "
                           f"{len(returns)} values ({', '.join(returns)}), got {output!r}")
    flat = []
    for kind, value in zip(returns, outputs, strict=True):
        if kind == "Tensor[]":
            items = list(value) if isinstance(value, (list, tuple)) else [value]
        else:
            items = [value]
        for item in items:
            if kind.startswith("Tensor") and not isinstance(item, Tensor):
                raise RuntimeError(f"Unable to cast {item!r} to Tensor")
        flat.extend(items)
    return flat


def _unflatten_output(flat: list, returns: tuple):
    if not returns:
        return None
    if len(returns) == 1:
        return list(flat) if returns[0] == "Tensor[]" else flat[0]
    return tuple(flat)


# -- the graph node of a differentiable call --------------------------------------------------

def _generated_function(op: Operator) -> type:
    """An ``autograd.Function`` whose forward runs the kernel and whose backward is the
    op's registered formula; its node is PyTorch's ``GeneratedBackwardFor_..Backward``."""

    def forward(ctx, kernel, values, input_spec, *flat_inputs):
        output = op._checked(kernel(*values), values)
        ctx._op_input_spec = input_spec
        ctx._op_output = output
        if op.setup_context is not None:
            op.setup_context(ctx, tuple(values), output)
        flat = _flatten_output(output, op.schema.returns, op.qualname)
        ctx._op_list_return = len(op.schema.returns) == 1 and \
            op.schema.returns[0] == "Tensor[]"
        return tuple(flat) if len(flat) != 1 or ctx._op_list_return else flat[0]

    def backward(ctx, *grad_outputs):
        if op.backward is None:
            raise RuntimeError(f"Trying to backward through {op.namespace}.{op.name}."
                               "default but no autograd formula was registered. Please "
                               "use register_autograd to add one.")
        grads = op.backward(ctx, list(grad_outputs)) if ctx._op_list_return else \
            op.backward(ctx, *grad_outputs)
        return (None, None, None) + _flat_gradients(op, ctx._op_input_spec, grads)

    name = f"GeneratedBackwardFor_{op.namespace}_{op.name}_default"
    return type(name, (Function,), {"forward": staticmethod(forward),
                                     "backward": staticmethod(backward),
                                     "__module__": "torch.autograd.function"})


def _flat_gradients(op: Operator, input_spec: list, grads) -> tuple:
    """One gradient per flattened tensor input, from the formula's one per argument."""
    arguments = op.schema.arguments
    grads = grads if isinstance(grads, (tuple, list)) and len(arguments) != 1 or \
        (len(arguments) == 1 and isinstance(grads, tuple)) else (grads,)
    if len(grads) != len(arguments):
        raise RuntimeError(f"{op.qualname}: the backward formula returned {len(grads)} "
                           f"gradients but the op has {len(arguments)} arguments "
                           f"({', '.join(a.name for a in arguments)}): return one per "
                           "argument, None for those without a gradient")
    flat = []
    for index, position in input_spec:
        grad = grads[index]
        if position is not None:
            grad = None if grad is None else grad[position]
        flat.append(grad)
    return tuple(flat)


# -- torch.ops.<ns>.<name> --------------------------------------------------------------------

class OpOverload:
    """``torch.ops.ns.name.default``: the one overload of an op."""

    def __init__(self, op: Operator):
        self._op = op

    @property
    def _schema(self) -> str:
        schema = self._op.schema
        return f"{self._op.qualname}{str(schema)[len(schema.name):]}"

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def name(self) -> str:
        return f"{self._op.qualname}"

    def __repr__(self) -> str:
        return f"{self._op.namespace}.{self._op.name}.default"


class OpOverloadPacket:
    """``torch.ops.ns.name``: callable, and ``.default`` is its overload."""

    def __init__(self, op: Operator):
        self._op = op
        self.default = OpOverload(op)

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def overloads(self) -> list:
        return ["default"]

    def __getattr__(self, name: str):
        raise AttributeError(f"The underlying op of '{self._op.namespace}.{self._op.name}' "
                             f"has no overload name '{name}'")

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._op.namespace}.{self._op.name}')>"

    def __str__(self) -> str:
        return f"{self._op.namespace}.{self._op.name}"


class OpNamespace:
    """``torch.ops.ns``: the ops defined in namespace ``ns``, as attributes."""

    def __init__(self, name: str):
        self.name = name

    def __getattr__(self, name: str) -> OpOverloadPacket:
        entry = _OPERATORS.get(f"{self.name}::{name}")
        if entry is None or entry.schema is None:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                 f"'{name}'")
        return OpOverloadPacket(entry)

    def __dir__(self):
        return sorted(o.name for o in _OPERATORS.values()
                      if o.namespace == self.name and o.schema is not None)

    def __repr__(self) -> str:
        return f"<module 'torch.ops.{self.name}' from 'torch.ops'>"


def namespaces() -> set:
    """The namespaces that hold at least one defined op."""
    return {o.namespace for o in _OPERATORS.values() if o.schema is not None}

"""``torch.library.custom_op``: a Python function made an operator, with its registrations.

``@custom_op("mylib::mysin", mutates_args=())`` turns a function into a ``CustomOpDef``,
callable like the function and as ``torch.ops.mylib.mysin``. The op is opaque to autograd,
as in PyTorch: its function runs with grad off, and gradients reach its inputs only through
the formula given to ``register_autograd``. ``register_fake`` gives the implementation
that runs for meta inputs (output shapes from input shapes); ``register_kernel`` one for a
device type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .operator import Operator, OpOverload, OpOverloadPacket, operator, split_qualname
from .schema import infer_schema, parse_schema


class CustomOpDef:
    """A custom operator (PyTorch's ``torch._library.custom_ops.CustomOpDef``)."""

    def __init__(self, op: Operator, init_fn: Callable):
        self._op = op
        self._namespace, self._name = op.namespace, op.name
        self._init_fn = init_fn
        self._opoverload = OpOverloadPacket(op).default

    @property
    def _qualname(self) -> str:
        return self._op.qualname

    @property
    def _schema(self) -> str:
        return str(self._op.schema)[len(self._op.schema.name):]

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._op.qualname})>"

    def register_kernel(self, device_types: str | Sequence[str] | None,
                        fn: Callable | None = None, /):
        """Use ``fn`` for inputs on ``device_types`` (None: every device type without a
        kernel of its own); a decorator when ``fn`` is omitted."""
        return _register_kernel(self._op, device_types, fn)

    def register_fake(self, fn: Callable, /) -> Callable:
        """Use ``fn`` for meta inputs: it returns empty tensors of the output shapes."""
        self._op.fake = fn
        return fn

    def register_autograd(self, backward: Callable, /, *,
                          setup_context: Callable | None = None) -> None:
        """Differentiate the op with ``backward(ctx, *grad_outputs)`` (one gradient per
        argument), after ``setup_context(ctx, inputs, output)`` saved what it needs."""
        _register_autograd(self._op, backward, setup_context)


def custom_op(name: str, fn: Callable | None = None, /, *, mutates_args,
              device_types: str | Sequence[str] | None = None, schema: str | None = None,
              tags=None):
    """Make ``fn`` the operator ``name`` (``"namespace::op_name"``); a decorator when
    ``fn`` is omitted. ``mutates_args`` names the arguments ``fn`` writes into
    (``()``: none, ``"unknown"``: maybe any); ``schema`` overrides the inferred one;
    ``device_types`` restricts ``fn`` to those device types.

    Raises:
        ValueError: a name that is not ``namespace::name``, a namespace that clashes with
            one of the package's op modules, or a function whose schema cannot be inferred.
    """
    def inner(fn: Callable) -> CustomOpDef:
        namespace, op_name = split_qualname(name)
        _check_namespace(namespace)
        text = schema if schema is not None else infer_schema(fn, mutates_args=mutates_args)
        parsed = parse_schema(text)
        _check_returns(name, parsed)
        op = Operator(name)
        op.schema = type(parsed)(op_name, parsed.arguments, parsed.returns)
        op.custom = True
        _register_kernel(op, device_types, fn)
        from .operator import _LOCK, _OPERATORS

        with _LOCK:  # defining a name again replaces the op, as PyTorch does
            _OPERATORS[name] = op
        return CustomOpDef(op, fn)

    return inner if fn is None else inner(fn)


def _check_namespace(namespace: str) -> None:
    """``torch.ops`` is also this package's module of built-in ops: a namespace named like
    one of its modules would be hidden behind it."""
    from importlib.util import find_spec

    if find_spec(f"minitorch_meta.ops.{namespace}") is not None:
        raise ValueError(f"the namespace {namespace!r} is the name of a module of "
                         "minitorch_meta.ops (torch.ops), so torch.ops."
                         f"{namespace} could not reach the custom op: choose another "
                         "namespace")


def _check_returns(name: str, schema) -> None:
    if "Tensor[]" in schema.returns and len(schema.returns) > 1:
        raise ValueError(f"{name}: a list of tensors (Tensor[]) can only be the only "
                         f"return here, got -> ({', '.join(schema.returns)})")


def _device_types(device_types) -> list:
    """``device_types`` as a list of validated device type names (None: ``[None]``)."""
    from ..device import device

    if device_types is None:
        return [None]
    names = [device_types] if isinstance(device_types, str) else list(device_types)
    return [device(n).type for n in names]


def _register_kernel(op: Operator, device_types, fn):
    def inner(fn: Callable) -> Callable:
        for kind in _device_types(device_types):
            if kind is None:
                op.default_kernel = fn
            else:
                op.kernels[kind] = fn
        return fn

    return inner if fn is None else inner(fn)


def _register_autograd(op: Operator, backward: Callable, setup_context) -> None:
    if not callable(backward):
        raise TypeError(f"register_autograd: expected backward to be a function "
                        f"backward(ctx, *grads), got {type(backward).__name__}")
    if setup_context is not None and not callable(setup_context):
        raise TypeError(f"register_autograd: expected setup_context to be a function "
                        f"setup_context(ctx, inputs, output), got "
                        f"{type(setup_context).__name__}")
    if any(a.is_mutable for a in op.schema.arguments):
        raise RuntimeError(f"register_autograd({op.qualname}): cannot register autograd "
                           "formula for non-functional operator (one that mutates "
                           "arguments). Please create a functional operator and register "
                           "an autograd formula for that.")
    op.backward, op.setup_context = backward, setup_context
    op.function_cls = None


def _operator_of(op, what: str) -> Operator:
    """The registry entry behind a name, a ``CustomOpDef`` or a ``torch.ops`` object."""
    if isinstance(op, CustomOpDef):
        return op._op
    if isinstance(op, (OpOverload, OpOverloadPacket)):
        return op._op
    if isinstance(op, str):
        split_qualname(op)
        return operator(op, create=True)
    raise TypeError(f"{what}(op): expected an operator name ('mylib::my_op'), a "
                    f"CustomOpDef or a torch.ops.<ns>.<name> object, got "
                    f"{type(op).__name__}")


def register_fake(op, func: Callable | None = None, /, *, lib=None, _stacklevel: int = 1,
                  allow_override: bool = True):
    """Register ``func`` as the implementation of ``op`` for meta inputs (PyTorch's
    "fake" implementation); a decorator when ``func`` is omitted."""
    entry = _operator_of(op, "register_fake")

    def inner(func: Callable) -> Callable:
        entry.fake = func
        return func

    return inner if func is None else inner(func)


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel: int = 1):
    """The old name of ``register_fake``."""
    return register_fake(qualname, func, lib=lib)


def register_autograd(op, backward: Callable, /, *, setup_context: Callable | None = None,
                      lib=None) -> None:
    """Give ``op`` the gradient formula ``backward`` (see ``CustomOpDef.register_autograd``).

    Raises:
        RuntimeError: ``op`` mutates its arguments (PyTorch refuses those too).
    """
    entry = _operator_of(op, "register_autograd")
    if entry.schema is None:
        raise ValueError(f"register_autograd: no operator {entry.qualname!r} is defined")
    _register_autograd(entry, backward, setup_context)


def register_kernel(op, device_types: str | Sequence[str] | None, func: Callable | None = None,
                    /, *, lib=None):
    """Use ``func`` for ``op``'s inputs on ``device_types``; a decorator when omitted."""
    return _register_kernel(_operator_of(op, "register_kernel"), device_types, func)

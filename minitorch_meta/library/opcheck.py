"""``torch.library.opcheck``: check a custom op's registrations against one call, eagerly.

PyTorch's checks, each run on copies of the given arguments:

- ``test_schema``: arguments not declared mutable keep their values, outputs alias no input;
- ``test_autograd_registration``: an op that takes inputs requiring grad has a way to
  differentiate them (a ``custom_op``, a ``register_autograd`` formula, or a composite
  kernel), not a device kernel that autograd would silently not see through;
- ``test_faketensor``: the fake (meta) implementation gives the real outputs' shapes and
  dtypes;
- ``test_aot_dispatch_static``/``_dynamic``: PyTorch traces the op with its backward; with
  no compiler, both run the backward here, on the real inputs and on meta copies, and
  compare the gradients' shapes with the inputs'.
"""

from __future__ import annotations

from .custom_op import CustomOpDef
from .operator import OpOverload, OpOverloadPacket

_ALL = ("test_schema", "test_autograd_registration", "test_faketensor",
        "test_aot_dispatch_static", "test_aot_dispatch_dynamic")
DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor",
                      "test_aot_dispatch_dynamic")


class OpCheckError(Exception):
    """One of ``opcheck``'s checks failed (``__cause__`` is the failure)."""


class MetadataMismatchError(Exception):
    """The fake implementation's outputs differ in shape or dtype from the real ones."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason

    def __repr__(self) -> str:
        return f"MetadataMismatchError(reason={self.reason!r})"


def opcheck(op, args: tuple, kwargs: dict | None = None, *, test_utils=DEFAULT_TEST_UTILS,
            raise_exception: bool = True, atol=None, rtol=None) -> dict:
    """Run ``test_utils`` on ``op(*args, **kwargs)``; returns ``{test: "SUCCESS" or the
    exception}``.

    Raises:
        ValueError: ``op`` is not a custom op, or an unknown test name.
        OpCheckError: a check failed and ``raise_exception`` is true.
    """
    if not isinstance(op, (CustomOpDef, OpOverload, OpOverloadPacket)):
        raise ValueError("opcheck(op, ...): op must be instance of torch._ops.OpOverload, "
                         f"e.g. torch.ops.aten.sin.default, got {type(op)}")
    tests = (test_utils,) if isinstance(test_utils, str) else tuple(test_utils)
    if not set(tests) <= set(_ALL):
        raise ValueError(f"opcheck(op, ..., test_utils={tests}), expected test_utils to be "
                         f"subset of {_ALL} but it was not")
    entry, kwargs = op._op, kwargs or {}
    results = {}
    for name in tests:
        try:
            _CHECKS[name](entry, args, kwargs)
            results[name] = "SUCCESS"
        except Exception as error:  # noqa: BLE001 - every failure is a result to report
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {error} (scroll "
                                   "up for stack trace)") from error
            results[name] = error
    return results


def _copies(values, device=None, requires_grad: bool = True):
    """Copies of ``values``' tensors (to ``device`` if given), keeping requires_grad."""
    from ..tensor import Tensor

    def copy(value):
        if isinstance(value, Tensor):
            result = value.detach().clone() if device is None else value.detach().to(device)
            return result.requires_grad_(value.requires_grad and requires_grad)
        if isinstance(value, (list, tuple)):
            return type(value)(copy(v) for v in value)
        return value

    return [copy(v) for v in values] if isinstance(values, (list, tuple)) else \
        {k: copy(v) for k, v in values.items()}


def _check_schema(entry, args, kwargs) -> None:
    from ..tensor import Tensor

    values = entry.schema.bind(entry.qualname, _copies(args, requires_grad=False),
                               _copies(kwargs, requires_grad=False))
    before = _copies(values, requires_grad=False)
    entry(*values)
    for argument, old, new in zip(entry.schema.arguments, before, values, strict=True):
        if argument.is_mutable:
            continue
        pairs = zip(old, new, strict=True) if isinstance(old, (list, tuple)) else [(old, new)]
        for a, b in pairs:
            if isinstance(a, Tensor) and not a.is_meta and not _same(a, b):
                raise RuntimeError(f"Argument {argument.name} is not defined as mutable but "
                                   "was mutated")


def _same(a, b) -> bool:
    if a.shape != b.shape:
        return False
    if a.is_floating_point() or a.is_complex():  # a NaN that stays NaN is unchanged
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return bool((a == b).all())


def _check_autograd_registration(entry, args, kwargs) -> None:
    values = entry.schema.bind(entry.qualname, args, kwargs)
    from .operator import _tensors_in

    if not any(t.requires_grad for t in _tensors_in(values)):
        return
    if entry.custom or entry.backward is not None or entry.composite:
        return
    raise AssertionError(
        f"{entry.qualname}: at least one input requires grad, but the op has only device "
        "kernels, which autograd does not see through as an op: register a formula with "
        "torch.library.register_autograd, or register the kernel as "
        "CompositeImplicitAutograd if it is made of differentiable tensor ops")


def _check_faketensor(entry, args, kwargs) -> None:
    from .operator import _flatten_output

    fake = entry(*_copies(args, "meta", False), **_copies(kwargs, "meta", False))
    real = entry(*_copies(args, requires_grad=False), **_copies(kwargs, requires_grad=False))
    returns = entry.schema.returns
    for f, r in zip(_flatten_output(fake, returns, entry.qualname),
                    _flatten_output(real, returns, entry.qualname), strict=True):
        what = None
        if not hasattr(r, "shape"):
            continue
        if f.shape != r.shape:
            what = f"Shapes {r.shape} and {f.shape} are not equal!"
        elif f.dtype != r.dtype:
            what = f"Dtypes {r.dtype} and {f.dtype} are not equal!"
        if what:
            raise MetadataMismatchError(
                f"When comparing the output of {entry.namespace}.{entry.name}.default on "
                f"FakeTensor and concrete Tensors, found mismatched tensor metadata: {what}")


def _check_backward(entry, args, kwargs) -> None:
    from ..autograd import grad
    from .operator import _flatten_output, _tensors_in

    for device in ("meta", None):  # meta first: PyTorch traces with the fake implementation
        call_args, call_kwargs = _copies(args, device), _copies(kwargs, device)
        values = entry.schema.bind(entry.qualname, call_args, call_kwargs)
        inputs = [t for t in _tensors_in(values) if t.requires_grad]
        output = entry(*call_args, **call_kwargs)
        outputs = [o for o in _flatten_output(output, entry.schema.returns, entry.qualname)
                   if getattr(o, "requires_grad", False)]
        if not inputs or not outputs:
            continue
        gradients = grad(outputs, inputs, [o.detach().clone().fill_(1) for o in outputs],
                         allow_unused=True)
        for tensor, gradient in zip(inputs, gradients, strict=True):
            if gradient is not None and gradient.shape != tensor.shape:
                raise RuntimeError(f"{entry.qualname}: the gradient of an input of shape "
                                   f"{tuple(tensor.shape)} has shape "
                                   f"{tuple(gradient.shape)}")


_CHECKS = {"test_schema": _check_schema,
           "test_autograd_registration": _check_autograd_registration,
           "test_faketensor": _check_faketensor,
           "test_aot_dispatch_static": _check_backward,
           "test_aot_dispatch_dynamic": _check_backward}

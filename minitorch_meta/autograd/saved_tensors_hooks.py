"""``saved_tensors_hooks``, ``save_on_cpu`` and ``disable_saved_tensors_hooks``
(``torch.autograd.graph``): what happens to the tensors an op keeps for backward.

Inside ``saved_tensors_hooks(pack, unpack)``, each tensor kept for backward is replaced by
``pack(tensor)``, and backward reads ``unpack(packed)`` in its place, every time it runs.
Our ops keep backend arrays, not tensors (``ops/function.py``): the arrays a recorded op
left on its node are what is saved, each shown to ``pack`` as a tensor without a graph. So
the hooks see what each of our ops keeps, which is not always what PyTorch's op keeps (an
op may keep an intermediate array PyTorch recomputes, or the reverse). A custom
``autograd.Function``'s ``ctx.save_for_backward`` tensors are packed as themselves.

The hooks watch ops as an op observer (``ops.function._observers``): no cost when no hooks
are open. They are per thread, as PyTorch's; the innermost open hooks apply.
"""

from __future__ import annotations

import importlib
import threading


def _ops():
    # ``ops.function`` imports this package's ``function.py``, which imports this module
    return importlib.import_module("..ops.function", __package__)


class _HookState(threading.local):
    def __init__(self) -> None:
        self.stack: list = []  # the open hooks, innermost last
        self.disabled: str | None = None  # ``disable_saved_tensors_hooks``'s message


_state = _HookState()


class saved_tensors_hooks:  # noqa: N801 - a context manager, as PyTorch's
    """Pack each tensor saved for backward with ``pack_hook(tensor)`` and give backward
    ``unpack_hook(packed)`` (a tensor) in its place."""

    #: whether a node whose saved tensors these hooks packed still refuses to run after an
    #: in-place write into them (PyTorch skips that check for packed tensors; we keep it,
    #: but for ``allow_mutation_on_saved_tensors``, whose clones make it moot)
    checks_versions = True

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _state.disabled is not None:
            raise RuntimeError(_state.disabled)
        _state.stack.append(self)
        _ops()._observers.append(self)
        return self

    def __exit__(self, *exc_info) -> None:
        _ops()._observers.remove(self)
        _state.stack.remove(self)

    def __call__(self, function, inputs, result) -> None:
        """The op observer: pack what a recorded op kept (only for the innermost hooks)."""
        if _state.stack and _state.stack[-1] is self and function.recording \
                and "_packed_saved" not in function.__dict__:
            _pack_node(function, self)


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - a context manager, as PyTorch's
    """Keep the tensors saved for backward on the CPU, and move them back to their device
    when backward reads them (CPU tensors stay as they are). ``pin_memory`` is accepted:
    the host copies are ordinary NumPy arrays."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        self.pin_memory, self.device_type = pin_memory, device_type
        super().__init__(_to_host, _to_device)


def _to_host(tensor):
    return (tensor.device, tensor if tensor.device.type == "cpu" else tensor.to("cpu"))


def _to_device(packed):
    device, tensor = packed
    return tensor if tensor.device == device else tensor.to(device)


class disable_saved_tensors_hooks:  # noqa: N801 - a context manager, as PyTorch's
    """Refuse saved-tensor hooks inside the block: opening one raises
    ``RuntimeError(error_message)``, as does entering while hooks are open."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self):
        if _state.stack:
            raise RuntimeError(self.error_message)
        self.previous, _state.disabled = _state.disabled, self.error_message
        return self

    def __exit__(self, *exc_info) -> None:
        _state.disabled = self.previous

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def disabled(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)
        return disabled


def packed_for_backward(tensors):
    """A custom Function's saved ``tensors`` packed by the innermost open hooks, or None
    when none are open."""
    if not _state.stack:
        return None
    hooks = _state.stack[-1]
    return tuple(None if t is None else (hooks.unpack_hook, hooks.pack_hook(t))
                 for t in tensors)


def innermost_checks_versions() -> bool:
    """Whether the innermost open hooks keep the version check (``checks_versions``)."""
    return not _state.stack or _state.stack[-1].checks_versions


def unpacked(packed) -> tuple:
    """The tensors of ``packed_for_backward``, each unpacked again."""
    return tuple(None if p is None else _unpack(*p) for p in packed)


def _unpack(unpack_hook, packed):
    from ..tensor import Tensor

    tensor = unpack_hook(packed)
    if not isinstance(tensor, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(tensor).__name__}")
    return tensor


# -- ops' nodes ------------------------------------------------------------------------
def _pack_node(node, hooks) -> None:
    """Replace each array ``node`` keeps for backward by its packed form, and make the
    node's backward unpack them first."""
    from ..tensor import Tensor

    ops = _ops()
    fields, keep, hyper = node.__dict__, ops._NODE_FIELDS, node._hyper
    backend = node.backend
    packed = {}
    for key in [k for k in fields if k not in keep and k not in hyper]:
        value = fields[key]
        if ops._holds_data(value):
            if isinstance(value, (tuple, list)):
                packed[key] = (type(value), [_pack_array(v, backend, hooks, Tensor)
                                             for v in value])
            else:
                packed[key] = (None, _pack_array(value, backend, hooks, Tensor))
            del fields[key]
    if not packed:
        return
    node._packed_saved = packed
    if not hooks.checks_versions:
        fields.pop("_saved_versions", None)
    for name in ("_backward", "_backward_graph"):
        setattr(node, name, _unpacking(node, getattr(type(node), name), packed))


def _pack_array(value, backend, hooks, tensor_class):
    if not (hasattr(value, "dtype") and hasattr(value, "shape")):
        return (False, value)  # not an array: kept as it is
    return (True, (hooks.unpack_hook, hooks.pack_hook(tensor_class._make(value, backend))))


def _unpack_array(entry):
    is_array, value = entry
    return _unpack(*value)._data if is_array else value


def _unpacking(node, method, packed):
    """``method`` of ``node`` run with the packed arrays unpacked (again at each run)."""

    def run(grad, retain_graph: bool):
        fields = node.__dict__
        for key, (kind, value) in packed.items():
            fields[key] = (_unpack_array(value) if kind is None
                           else kind(_unpack_array(v) for v in value))
        try:
            return method(node, grad, retain_graph)
        finally:
            if not node._freed:  # kept for another backward: packed only, again
                for key in packed:
                    fields.pop(key, None)
    return run

"""``torch.utils.checkpoint``: trade compute for memory by recomputing a function in backward.

``checkpoint(function, *args)`` runs ``function`` without recording a graph, so none of its
intermediate results is kept; the output gets one graph node, whose backward runs
``function`` again with grad enabled (on the same RNG state, so dropout draws the same
masks) and backpropagates through that rerun. The gradients equal those of calling
``function`` directly.

The two variants of PyTorch:

- ``use_reentrant=True`` (what an unset ``use_reentrant`` means, with PyTorch's warning):
  the node's inputs are the tensor arguments; in backward, ``autograd.backward`` through
  the rerun adds the gradients of the other leaves used (a module's parameters) into their
  ``.grad``. As in PyTorch, it refuses ``autograd.grad`` and ``backward(inputs=...)``, and
  an output only requires grad when an argument does.
- ``use_reentrant=False``: the forward run also notes every tensor requiring grad that the
  function's ops read (parameters, tensors from outside), and the node takes them as inputs
  too; backward sends gradients to each through the engine. So ``autograd.grad`` works, and
  parameters get gradients even when no argument requires grad.
"""

from __future__ import annotations

import contextlib
import threading

from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad
from ..caller_warnings import warn_at_caller

_NO_USE_REENTRANT = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
    "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
    "exception. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")
_NO_USE_REENTRANT_SEQUENTIAL = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
    "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
    "passed. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")


class CheckpointError(RuntimeError):
    """The recomputation in backward did not match the forward run."""


def noop_context_fn():
    """The default ``context_fn``: no context around the forward run nor the rerun."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(function, *args, use_reentrant: bool | None = None,
               context_fn=noop_context_fn, determinism_check: str = "default",
               debug: bool = False, early_stop: bool = True, **kwargs):
    """``function(*args)``, keeping no intermediate result: backward recomputes them.

    ``preserve_rng_state`` (a keyword, True by default) reruns on the RNG state of the
    forward run. With ``use_reentrant=False``: ``context_fn`` gives two context managers,
    entered around the forward run and the rerun; ``determinism_check="default"`` compares
    the rerun's outputs (shapes, dtypes, devices) with the forward's ("none": no check);
    other keyword arguments go to ``function``. ``debug`` and ``early_stop`` are accepted:
    they tune only how PyTorch reports and stops its rerun.
    """
    if use_reentrant is None:
        warn_at_caller(_NO_USE_REENTRANT)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if not any(_is_tensor(a) and a.requires_grad for a in args):
            warn_at_caller("None of the inputs have requires_grad=True. Gradients will be None")
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                         args, kwargs)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None,
                          **kwargs):
    """Run ``functions`` (a list of modules/functions, or an ``nn.Sequential``) one after
    the other on ``input``, in ``segments`` chunks: every chunk but the last is
    checkpointed (the last one's graph is needed at once by backward)."""
    if use_reentrant is None:
        warn_at_caller(_NO_USE_REENTRANT_SEQUENTIAL)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    if not 1 <= segments <= len(functions):
        raise ValueError(f"checkpoint_sequential: segments must be between 1 and the number "
                         f"of functions ({len(functions)}), but got {segments}")
    size = len(functions) // segments
    for start in range(0, size * (segments - 1), size):
        input = checkpoint(_run_chunk(functions[start:start + size]), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return _run_chunk(functions[size * (segments - 1):])(input)


def _run_chunk(functions):
    def run(input):
        for f in functions:
            input = f(input)
        return input

    return run


def _is_tensor(value) -> bool:
    from ..tensor import Tensor

    return isinstance(value, Tensor)


# -- the RNG state of the forward run ------------------------------------------------------
class _RngState:
    """The default generators' state at the forward run (cpu, and each device of the
    tensor arguments), to rerun on.

    A generator whose state can be read (cpu) is saved as is; one that cannot (CuPy's
    keeps it in device memory) is replaced by a fresh generator seeded from itself, whose
    seed is then its state.
    """

    def __init__(self, tensors):
        from ..backends import registry
        from ..device import to_device

        backends = {id(b): b for b in [registry.get_backend(to_device("cpu"))] +
                    [t._backend for t in tensors] if b.stores_data}
        self.saved = [self._capture(b) for b in backends.values()]

    @staticmethod
    def _capture(backend):
        try:
            return backend, "state", backend.generator_state(backend.generator)
        except NotImplementedError:
            seed = _seed_from(backend)
            backend.generator = backend.new_generator(seed)
            return backend, "seed", seed

    @contextlib.contextmanager
    def restored(self):
        """The forward's generator states inside the block, the current ones after it."""
        current = [(b, b.generator_state(b.generator) if kind == "state" else b.generator)
                   for b, kind, _ in self.saved]
        for backend, kind, value in self.saved:
            if kind == "state":
                backend.set_generator_state(backend.generator, value)
            else:
                backend.generator = backend.new_generator(value)
        try:
            yield
        finally:
            for (backend, now), (_, kind, _) in zip(current, self.saved):
                if kind == "state":
                    backend.set_generator_state(backend.generator, now)
                else:
                    backend.generator = now


def _seed_from(backend) -> int:
    from .. import dtypes

    drawn = backend.integers((1,), 0, 2 ** 62, dtypes.int64, backend.generator)
    return int(backend.to_numpy(drawn)[0])


def _forked(rng):
    return rng.restored() if rng is not None else contextlib.nullcontext()


# -- use_reentrant=True --------------------------------------------------------------------
class CheckpointFunction(Function):
    """The reentrant checkpoint's node: ``CheckpointFunctionBackward``, as in PyTorch."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng = _RngState([a for a in args if _is_tensor(a)]) if preserve_rng_state else None
        ctx.arguments = [None if _is_tensor(a) else a for a in args]
        ctx.save_for_backward(*[a if _is_tensor(a) else None for a in args])
        return run_function(*args)  # Function.forward runs without recording a graph

    @staticmethod
    def backward(ctx, *grads):
        from ..autograd.engine import is_partial_run
        from ..autograd.gradients import backward

        if is_partial_run():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = [a if t is None else t.detach().requires_grad_(t.requires_grad)
                  for a, t in zip(ctx.arguments, ctx.saved_tensors)]
        with _forked(ctx.rng), enable_grad():
            outputs = ctx.run_function(*inputs)
        pairs = _differentiable(outputs, grads)
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x._grad if _is_tensor(x) else None for x in inputs)


def _differentiable(outputs, grads) -> list:
    """``(output, gradient)`` for each output that requires grad and got a gradient."""
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    return [(o, g) for o, g in zip(outputs, grads)
            if _is_tensor(o) and o.requires_grad and g is not None]


# -- use_reentrant=False -------------------------------------------------------------------
class _Plan:
    """What the non-reentrant checkpoint's backward needs to rerun ``function``."""

    def __init__(self, function, args, kwargs, rng, recompute_context, outputs, check):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng, self.recompute_context, self.check = rng, recompute_context, check
        self.outputs = outputs
        self.metadata = _metadata(outputs)


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                  args, kwargs):
    tensors = [a for a in args if _is_tensor(a)]
    rng = _RngState(tensors) if preserve else None
    forward_context, recompute_context = context_fn()
    seen = _TensorsRead()
    from ..ops.function import observe

    with no_grad(), forward_context, observe(seen):
        outputs = function(*args, **kwargs)
    if not isinstance(outputs, tuple) and not _is_tensor(outputs):
        raise TypeError(f"checkpoint(use_reentrant=False): the function must return a Tensor "
                        f"or a tuple, but returned {type(outputs).__name__}")
    explicit = {id(t) for t in tensors}
    external = [t for t in seen.tensors if id(t) not in explicit]
    plan = _Plan(function, args, kwargs, rng, recompute_context, outputs,
                 determinism_check == "default")
    return _Recompute.apply(plan, len(tensors), *tensors, *external)


class _TensorsRead:
    """An op observer: the tensors requiring grad that ops read in this thread, in order
    (under no_grad only tensors from outside the function still require grad)."""

    def __init__(self):
        self.thread = threading.get_ident()
        self.tensors, self._ids = [], set()

    def __call__(self, function, inputs, outputs):
        if threading.get_ident() != self.thread:
            return
        for t in inputs:
            if t is not None and t.requires_grad and id(t) not in self._ids:
                self._ids.add(id(t))
                self.tensors.append(t)


def _metadata(outputs) -> list:
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    return [(tuple(o.shape), o.dtype, o.device) if _is_tensor(o) else None for o in outputs]


class _Recompute(Function):
    """The non-reentrant checkpoint's node; its inputs are the tensor arguments, then the
    outside tensors the function read."""

    @staticmethod
    def forward(ctx, plan, explicit_count, *tensors):
        ctx.plan, ctx.explicit_count = plan, explicit_count
        ctx.tensors = tensors
        outputs, plan.outputs = plan.outputs, None  # the node must not keep them alive
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        from ..autograd.engine import run
        from ..autograd.gradients import _input_nodes
        from ..ops.function import _edge

        plan, count = ctx.plan, ctx.explicit_count
        explicit = [t.detach().requires_grad_(t.requires_grad) for t in ctx.tensors[:count]]
        replaced = iter(explicit)
        args = [next(replaced) if _is_tensor(a) else a for a in plan.args]
        with _forked(plan.rng), enable_grad(), plan.recompute_context:
            outputs = plan.function(*args, **plan.kwargs)
        if plan.check:
            _check_same_metadata(plan.metadata, _metadata(outputs))
        wanted = [t for t in explicit + list(ctx.tensors[count:]) if t.requires_grad]
        pairs = _differentiable(outputs, grads)
        captured = {}
        if pairs and wanted:
            roots = [(_edge(o), g._data) for o, g in pairs]
            nodes = _input_nodes(wanted)
            # Each input's own paths only: an outside tensor's graph beyond it is the outer
            # backward's, which gets this node's gradient for it.
            captured = run(roots, False, targets=set(nodes), stop_at_targets=True)
            captured = {id(t): captured[n] for t, n in zip(wanted, nodes) if n in captured}
        return (None, None) + tuple(
            t._wrap(captured[id(t)]) if id(t) in captured else None
            for t in explicit + list(ctx.tensors[count:]))


def _check_same_metadata(saved: list, recomputed: list) -> None:
    if saved == recomputed:
        return
    lines = [f"output {k}:\nsaved metadata: {a}\nrecomputed metadata: {b}"
             for k, (a, b) in enumerate(zip(saved, recomputed)) if a != b]
    if len(saved) != len(recomputed):
        lines.append(f"the forward gave {len(saved)} outputs, the recomputation "
                     f"{len(recomputed)}")
    raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following "
                          "tensors have different metadata than during the forward pass.\n"
                          + "\n".join(lines))


__all__ = ["CheckpointError", "CheckpointFunction", "checkpoint", "checkpoint_sequential",
           "noop_context_fn"]

"""``summary(model, input_size=...)``: every layer's shapes, parameters, products and memory,
computed on the meta device.

The model is run on meta whatever device it lives on: for the duration of the call each
parameter and buffer is swapped for a meta tensor of the same shape (through ``.data``),
and restored afterwards together with its ``.grad``. No activation data is allocated, so
inputs that would need terabytes take milliseconds. Hooks added for the run are removed;
the training mode is not touched.

Counting happens per op (``ops.function.observe``), so functional calls inside ``forward``
(``F.relu``, ``x.view``, ``torch.flatten``) are counted and, when called directly by a
module that has children, get a row of their own.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .. import dtypes
from ..factories import empty
from ..ops.function import observe
from ..tensor import Tensor
from . import op_costs
from .summary_table import ModelSummary

OPTIMIZER_STATE_COPIES = {"sgd": 0, "sgd-momentum": 1, "adam": 2}


@dataclass
class _Frame:
    """One module call (or one functional op) in progress: becomes one row."""

    name: str
    layer: str
    depth: int
    input_shapes: list
    parameters: int = 0
    trainable: int = 0
    products: int = 0
    flops: int = 0
    output_shape: object = None
    output_bytes: int = 0
    has_children: bool = False


def summary(model, input_size=None, input_data=None, depth: int = 3, dtype=None,
            batch_dim: int = 0, optimizer: str = "sgd-momentum", **kwargs) -> ModelSummary:
    """Shapes, parameters, products and memory of ``model`` on the given inputs, on meta.

    Args:
        model: any ``nn.Module``, on any device; it is unchanged afterwards.
        input_size: one shape, or a list of shapes for several inputs (float32 unless
            ``dtype`` says otherwise).
        input_data: a tensor, a list/tuple of tensors (positional inputs) or a dict
            (keyword inputs); only their shapes and dtypes are used.
        depth: how deep nested rows are shown in the table (all are counted).
        batch_dim: the dimension of the inputs that holds samples (for per-sample figures).
        optimizer: ``"sgd"``, ``"sgd-momentum"`` or ``"adam"``, for the optimizer-state part
            of the training-step memory estimate.
        **kwargs: extra keyword inputs passed to ``model.forward``.

    Raises:
        ShapeError: a layer's shape rule failed; the message names the layer.
        ValueError: neither or both of ``input_size`` and ``input_data`` were given.
    """
    if optimizer not in OPTIMIZER_STATE_COPIES:
        raise ValueError(f"summary: optimizer must be one of {sorted(OPTIMIZER_STATE_COPIES)}, "
                         f"got {optimizer!r}")
    args, call_kwargs = _meta_inputs(input_size, input_data, dtype)
    call_kwargs.update({k: _to_meta(v) for k, v in kwargs.items()})
    start = time.perf_counter()
    if _has_uninitialized_parameters(model):
        # Lazy modules would materialise during the run: work on a meta copy instead, so
        # that the user's lazy modules stay lazy.
        model, on_meta = _meta_copy(model), contextlib.nullcontext()
    else:
        on_meta = _on_meta(model)
    with on_meta:
        recorder = _Recorder(model)
        with recorder.hooks(), observe(recorder.on_op):
            output = model(*args, **call_kwargs)
        forward_seconds = time.perf_counter() - start
        _backward_on_meta(output)
    batch = _batch_size(args, call_kwargs, batch_dim)
    return ModelSummary(rows=recorder.rows, totals=_totals(model, recorder, optimizer),
                        batch_size=batch, depth=depth, seconds=forward_seconds)


# -- inputs ------------------------------------------------------------------------------
def _meta_inputs(input_size, input_data, dtype):
    if (input_size is None) == (input_data is None):
        raise ValueError("summary: give exactly one of input_size (shapes) or input_data "
                         "(tensors)")
    dtype = dtypes.to_dtype(dtype) if dtype is not None else dtypes.float32
    if input_size is not None:
        sizes = [input_size] if _is_shape(input_size) else list(input_size)
        for size in sizes:
            if not _is_shape(size):
                raise ValueError(f"summary: input_size must be a shape like (1, 3, 32, 32) or a "
                                 f"list of shapes, got {input_size!r}")
        return [empty(tuple(s), dtype=dtype, device="meta") for s in sizes], {}
    if isinstance(input_data, Mapping):
        return [], {k: _to_meta(v) for k, v in input_data.items()}
    if isinstance(input_data, Sequence) and not isinstance(input_data, Tensor):
        return [_to_meta(v) for v in input_data], {}
    return [_to_meta(input_data)], {}


def _is_shape(value) -> bool:
    return isinstance(value, (tuple, list)) and all(isinstance(d, int) for d in value)


def _to_meta(value):
    if isinstance(value, Tensor):
        return empty(tuple(value.shape), dtype=value.dtype, device="meta")
    return value


def _batch_size(args, kwargs, batch_dim: int) -> int:
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, Tensor) and value.dim() > batch_dim:
            return value.shape[batch_dim]
    return 1


# -- running the model on meta, then putting it back -------------------------------------
class _on_meta:  # noqa: N801 - a context manager
    """Swap every parameter and buffer of ``model`` for a meta twin; restore on exit."""

    def __init__(self, model):
        self.model = model

    def __enter__(self):
        self.saved = []
        tensors = list(self.model.parameters()) + [b for b in self.model.buffers()]
        for t in {id(t): t for t in tensors}.values():
            self.saved.append((t, t.data, t._grad))
            t.data = empty(tuple(t.shape), dtype=t.dtype, device="meta")
            t._grad = None
        return self

    def __exit__(self, *exc_info):
        for t, data, grad in self.saved:
            t.data = data
            t._grad = grad


def _has_uninitialized_parameters(model) -> bool:
    from ..nn.parameter import is_lazy

    return any(is_lazy(t) for t in list(model.parameters()) + list(model.buffers()))


def _meta_copy(model):
    """A deep copy of ``model`` whose initialised tensors are meta twins (no data copied)."""
    from ..nn.parameter import is_lazy

    memo = {}
    tensors = list(model.parameters()) + list(model.buffers())
    for t in tensors:
        if id(t) not in memo:
            twin = copy.copy(t)
            # A lazy parameter materialises on its placeholder's device: make that meta too.
            shape = (0,) if is_lazy(t) else tuple(t.shape)
            twin.data = empty(shape, dtype=t.dtype, device="meta")
            twin._grad = None
            memo[id(t)] = twin
    return copy.deepcopy(model, memo)


def _backward_on_meta(output) -> None:
    """Check the backward pass's shapes too (gradients are meta; they are discarded)."""
    first = output[0] if isinstance(output, (tuple, list)) else output
    if isinstance(first, Tensor) and first.requires_grad:
        (first.sum() if first.numel() != 1 else first).backward()


class _Recorder:
    """Forward hooks and an op observer that turn one forward pass into rows."""

    def __init__(self, model):
        self.model = model
        self.names = {}
        for name, module in model.named_modules():
            self.names.setdefault(id(module), name)
        self.stack: list[_Frame] = []
        self.rows: list[_Frame] = []
        self.all_op_bytes = 0
        self.largest_op_bytes = 0
        self.total_products = 0
        self.total_flops = 0

    @contextlib.contextmanager
    def hooks(self):
        """A pre- and a post-hook on every module for the duration of the block."""
        handles = []
        try:
            for module in self.model.modules():
                handles.append(module.register_forward_pre_hook(self.pre_hook))
                handles.append(module.register_forward_hook(self.post_hook))
            yield
        finally:
            for handle in handles:
                handle.remove()

    def pre_hook(self, module, inputs):
        has_children = next(iter(module.children()), None) is not None
        frame = _Frame(name=self.names.get(id(module), "?"), layer=type(module).__name__,
                       depth=len(self.stack), input_shapes=_shapes(inputs),
                       has_children=has_children)
        self.rows.append(frame)
        self.stack.append(frame)

    def post_hook(self, module, inputs, output):
        frame = self.stack.pop()
        # Counted after the call: a lazy module has its parameters only from now on.
        params = list(module.parameters())
        frame.parameters = sum(p.numel() for p in params)
        frame.trainable = sum(p.numel() for p in params if p.requires_grad)
        if not frame.has_children:
            frame.layer = repr(module)
        first = output[0] if isinstance(output, (tuple, list)) else output
        frame.output_shape = tuple(first.shape) if isinstance(first, Tensor) else None
        frame.output_bytes = op_costs.output_bytes(first) if isinstance(first, Tensor) else 0
        if self.stack:  # a parent's counts include its children's, level by level
            self.stack[-1].products += frame.products
            self.stack[-1].flops += frame.flops

    def on_op(self, function, inputs, outputs):
        products = op_costs.products(function, inputs, outputs)
        flops = 2 * products + op_costs.bias_additions(function, inputs, outputs)
        size = op_costs.output_bytes(outputs)
        self.all_op_bytes += size
        self.largest_op_bytes = max(self.largest_op_bytes, size)
        self.total_products += products
        self.total_flops += flops
        if not self.stack:
            return
        owner = self.stack[-1]
        owner.products += products
        owner.flops += flops
        if owner.has_children:  # a functional call in a composite forward: its own row
            first = outputs[0] if isinstance(outputs, tuple) else outputs
            self.rows.append(_Frame(
                name=f"{owner.name + '.' if owner.name else ''}{function.op_name}",
                layer=f"{function.op_name} (function)", depth=owner.depth + 1,
                input_shapes=_shapes([t for t in inputs if t is not None]), products=products,
                flops=flops, output_shape=tuple(first.shape),
                output_bytes=op_costs.output_bytes(first)))


def _shapes(values) -> list:
    return [tuple(v.shape) for v in values if isinstance(v, Tensor)]


def _totals(model, recorder: _Recorder, optimizer: str) -> dict:
    params = list({id(p): p for p in model.parameters()}.values())
    buffers = list({id(b): b for b in model.buffers()}.values())
    param_bytes = sum(p.numel() * p.dtype.itemsize for p in params)
    trainable_bytes = sum(p.numel() * p.dtype.itemsize for p in params if p.requires_grad)
    buffer_bytes = sum(b.numel() * b.dtype.itemsize for b in buffers)
    optimizer_bytes = OPTIMIZER_STATE_COPIES[optimizer] * trainable_bytes
    activation_bytes = recorder.all_op_bytes
    return {
        "parameters": sum(p.numel() for p in params),
        "trainable_parameters": sum(p.numel() for p in params if p.requires_grad),
        "products": recorder.total_products,
        "flops": recorder.total_flops,
        "parameter_bytes": param_bytes + buffer_bytes,
        "activation_bytes": activation_bytes,
        "gradient_bytes": trainable_bytes,
        "optimizer_state_bytes": optimizer_bytes,
        "optimizer": optimizer,
        # parameters + forward activations kept for backward + parameter gradients +
        # optimizer state + the largest activation gradient alive during backward.
        "training_step_peak_bytes": (param_bytes + buffer_bytes + activation_bytes
                                     + trainable_bytes + optimizer_bytes
                                     + recorder.largest_op_bytes),
    }

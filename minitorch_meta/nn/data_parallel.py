"""``nn.DataParallel``: one process running a module on several GPUs, each on its share of
the batch (PyTorch's class).

Without CUDA it only wraps the module (``device_ids`` empty, ``forward`` calls the module),
as PyTorch does without an accelerator. With CUDA, ``forward`` splits every tensor argument
into chunks along ``dim`` (``Tensor.chunk``), one per device of ``device_ids``, runs the
module on each chunk with the module's parameters and buffers copied to that device (by
``func.functional_call`` with recorded ``to`` copies, so the gradients of every replica
flow back into the module's own parameters), and concatenates the outputs on
``output_device``. The replicas run one after another from this thread: CuPy launches
each device's kernels asynchronously, so the devices still compute at the same time.
"""

from __future__ import annotations

from itertools import chain

from ..caller_warnings import warn_at_caller
from ..device import device as Device
from ..int_arguments import is_int
from ..tensor import Tensor
from .module import Module


class DataParallel(Module):
    """``module`` run on every device of ``device_ids`` (all GPUs by default), each on its
    chunk of the batch along ``dim``; the outputs are gathered on ``output_device``
    (``device_ids[0]`` by default). Its state_dict keys are the module's with the prefix
    ``module.``.

    Shape:
        the module's: inputs ``(N, *)`` are split into ``(N / len(device_ids), *)`` chunks
        along ``dim`` and the outputs concatenated back along it.

    Raises:
        RuntimeError: in ``forward``, a parameter or buffer of the module is not on
            ``device_ids[0]``.
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        from .. import cuda

        if not cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = Device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device "
                                   f"{self.src_device_obj} (device_ids[0]) but found one of "
                                   f"them on device: {t.device}; move the module there first "
                                   f"(module.to('{self.src_device_obj}'))")
        inputs, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
        if not inputs and not module_kwargs:  # a module without arguments runs once
            inputs, module_kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **module_kwargs[0])
        replicas = self.replicate(self.module, self.device_ids[:len(inputs)])
        outputs = self.parallel_apply(replicas, inputs, module_kwargs)
        return self.gather(outputs, self.output_device)

    def replicate(self, module: Module, device_ids) -> list:
        """One callable per device: ``module`` itself on ``device_ids[0]``, where its tensors
        are, and elsewhere ``module`` run with its parameters and buffers copied there."""
        return [module if Device("cuda", index) == self.src_device_obj
                else _Replica(module, Device("cuda", index)) for index in device_ids]

    def scatter(self, inputs: tuple, kwargs: dict | None, device_ids) -> tuple:
        """``(inputs, kwargs)`` as one tuple of each per device chunk (see ``scatter``)."""
        return scatter_kwargs(inputs, kwargs, device_ids, self.dim)

    def gather(self, outputs: list, output_device):
        return gather(outputs, output_device, self.dim)

    def parallel_apply(self, replicas: list, inputs, kwargs) -> list:
        return [replica(*args, **kw) for replica, args, kw in zip(replicas, inputs, kwargs)]


class _Replica:
    """``module`` run on ``device`` with its parameters and buffers copied there by
    recorded ``to`` (gradients reach the module's own parameters)."""

    def __init__(self, module: Module, device: Device):
        self.module, self.device = module, device

    def __call__(self, *args, **kwargs):
        from ..func import functional_call

        moved = {name: t.to(self.device) for name, t in
                 chain(self.module.named_parameters(remove_duplicate=False),
                       self.module.named_buffers(remove_duplicate=False))}
        return functional_call(self.module, moved, args, kwargs)


def _device_index(device) -> int:
    """The CUDA index of ``device`` (an int, ``"cuda:1"`` or a ``device``; ``"cuda"`` is
    the current device)."""
    if is_int(device):
        return device
    device = Device(device)
    if device.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {device}")
    if device.index is None:
        from .. import cuda

        return cuda.current_device()
    return device.index


def scatter(value, device_ids, dim: int = 0) -> list:
    """``value`` split for each device: a tensor into ``chunk(len(device_ids), dim)`` moved
    to its device (fewer parts for a short batch), lists, tuples and dicts part by part,
    anything else repeated."""
    if isinstance(value, Tensor):
        return [chunk.to(Device("cuda", index))
                for chunk, index in zip(value.chunk(len(device_ids), dim), device_ids)]
    if isinstance(value, tuple) and value:
        return [type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
                for parts in zip(*(scatter(item, device_ids, dim) for item in value))]
    if isinstance(value, list) and value:
        return [list(parts) for parts in zip(*(scatter(item, device_ids, dim)
                                               for item in value))]
    if isinstance(value, dict) and value:
        keys = list(value)
        return [type(value)(zip(keys, parts)) for parts in
                zip(*(scatter(value[key], device_ids, dim) for key in keys))]
    return [value] * len(device_ids)


def scatter_kwargs(inputs: tuple, kwargs: dict | None, device_ids, dim: int = 0) -> tuple:
    """The scattered positional and keyword arguments, padded to the same count (PyTorch's
    ``scatter_kwargs``)."""
    scattered = scatter(inputs, device_ids, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, device_ids, dim) if kwargs else []
    if len(scattered) < len(scattered_kwargs):
        scattered.extend(() for _ in range(len(scattered_kwargs) - len(scattered)))
    elif len(scattered_kwargs) < len(scattered):
        scattered_kwargs.extend({} for _ in range(len(scattered) - len(scattered_kwargs)))
    return tuple(scattered), tuple(scattered_kwargs)


def gather(outputs: list, target_device, dim: int = 0):
    """The outputs of the replicas joined on ``target_device``: tensors concatenated along
    ``dim`` (0-d ones stacked into a vector, with PyTorch's warning), tuples, lists and
    dicts item by item; None stays None."""
    first = outputs[0]
    if isinstance(first, Tensor):
        target = Device("cuda", _device_index(target_device)) \
            if target_device != "cpu" and target_device != Device("cpu") else Device("cpu")
        moved = [out.to(target) for out in outputs]
        if all(out.dim() == 0 for out in moved):
            warn_at_caller("Was asked to gather along dimension 0, but all input tensors were "
                           "scalars; will instead unsqueeze and return a vector.", UserWarning)
            moved = [out.view(1) for out in moved]
        from ..functions import cat

        return cat(moved, dim)
    if first is None:
        return None
    if isinstance(first, dict):
        return type(first)((key, gather([out[key] for out in outputs], target_device, dim))
                           for key in first)
    if isinstance(first, (tuple, list)):
        parts = [gather(list(items), target_device, dim) for items in zip(*outputs)]
        if hasattr(first, "_fields"):
            return type(first)(*parts)
        return type(first)(parts)
    raise TypeError(f"DataParallel cannot gather outputs of type {type(first).__name__}; "
                    "return tensors (or tuples, lists or dicts of them) from the module")


__all__ = ["DataParallel"]

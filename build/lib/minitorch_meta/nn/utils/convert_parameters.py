"""``parameters_to_vector`` and ``vector_to_parameters``: all parameters as one flat vector,
and back, in PyTorch's order and with its device check.
"""

from __future__ import annotations

from collections.abc import Iterable

from ... import functions
from ...tensor import Tensor

_NOT_A_GPU = -1  # PyTorch's device number for every device that is not a GPU


def _device_number(param: Tensor) -> int:
    """The GPU number of ``param``, or -1 elsewhere (cpu and meta share -1, as in PyTorch)."""
    return param.get_device() if param.device.type == "cuda" else _NOT_A_GPU


def _check_param_device(param: Tensor, old_device: int | None) -> int:
    """The device number of the parameters so far; raise when ``param`` is on another.

    Raises:
        TypeError: two parameters on different GPUs, or one on a GPU and one not.
    """
    device = _device_number(param)
    if old_device is not None and device != old_device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated into one vector (a differentiable ``cat``).

    Shape:
        ``(sum of numel,)``.

    Raises:
        TypeError: parameters on different GPUs (or on a GPU and elsewhere).
    """
    device = None
    flat = []
    for param in parameters:
        device = _check_param_device(param, device)
        flat.append(param.view(-1))
    return functions.cat(flat)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Make each parameter's data the next ``numel`` values of ``vec``, in order.

    As in PyTorch, the parameters then share ``vec``'s memory (views of it) and extra
    values at the end of ``vec`` are ignored.

    Raises:
        TypeError: ``vec`` is not a tensor, or parameters on different GPUs.
        RuntimeError: ``vec`` holds too few values for a parameter's shape.
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        count = param.numel()
        param.data = vec[pointer:pointer + count].view_as(param).data
        pointer += count

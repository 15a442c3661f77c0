"""``get_device_module``: the module of a device type (``torch.cuda`` for ``"cuda"``), as
``torch.get_device_module``."""

from __future__ import annotations

import importlib

#: the device types that have a module here
_MODULES = ("cpu", "cuda")


def get_device_module(device=None):
    """``minitorch_meta.cpu`` or ``minitorch_meta.cuda`` for ``device`` (a device, a
    string, or None: the current accelerator if one is usable, else cpu).

    Raises:
        RuntimeError: a device type without a module (``"meta"``), or a value that is not
            a device, a string or None (PyTorch's messages).
    """
    from .device import device as device_type

    if device is None:
        from .accelerator import current_accelerator

        accelerator = current_accelerator(check_available=True)
        kind = "cpu" if accelerator is None else accelerator.type
    elif isinstance(device, (str, device_type)):
        kind = device_type(device).type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, "
                           "or None")
    if kind not in _MODULES:
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered "
                           f"as 'torch.{kind}'.")
    return importlib.import_module(f".{kind}", __package__)

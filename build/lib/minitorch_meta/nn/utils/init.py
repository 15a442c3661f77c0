"""``nn.utils.skip_init``: build a module without running its initialisation (built on
meta, then given uninitialised storage on the target device), PyTorch's recipe."""

from __future__ import annotations

import inspect

from ..module import Module


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialised parameters and buffers on
    ``kwargs['device']`` (default cpu): for modules about to be loaded from a checkpoint.

    Raises:
        RuntimeError: ``module_cls`` is not a Module class, or takes no ``device`` argument.
    """
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)

"""Utilities: ``utils.data`` (PyTorch's import path for the data package), atomic writes,
``utils.benchmark`` (timing statements: ``Timer``, ``Compare``), ``utils.checkpoint``
(recomputing a function in backward instead of keeping its intermediate results),
``utils.dlpack`` (sharing tensors with other libraries), ``utils.hooks``
(``RemovableHandle``) and ``utils.tensorboard`` (``SummaryWriter``, writing TensorBoard
event files).

``minitorch_meta.utils.data`` is the same package as ``minitorch_meta.data``; it is loaded on
first use so that importing ``utils.atomic`` (used by every file writer) stays light.
"""

from __future__ import annotations


def __getattr__(name):
    if name in ("data", "benchmark", "checkpoint", "dlpack", "hooks", "tensorboard"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'minitorch_meta.utils' has no attribute {name!r}")

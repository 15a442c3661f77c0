"""Utilities: ``utils.data`` (PyTorch's import path for the data package) and atomic writes.

``minitorch_meta.utils.data`` is the same package as ``minitorch_meta.data``; it is loaded on
first use so that importing ``utils.atomic`` (used by every file writer) stays light.
"""

from __future__ import annotations


def __getattr__(name):
    if name == "data":
        import importlib

        return importlib.import_module(".data", __name__)
    raise AttributeError(f"module 'minitorch_meta.utils' has no attribute {name!r}")

"""Warnings that point at the user's line, however deep in the library they are raised.

PyTorch's Python warnings name the line that called into torch. A fixed ``stacklevel``
counts frames, so it breaks when a call goes through one more layer (the ``out=`` wrapper
of ``out_argument.py``, a method that forwards to a function); ``warn_at_caller`` instead
skips every frame inside this package.
"""

from __future__ import annotations

import os
import sys
import warnings

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_at_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the first frame outside
    minitorch_meta (the user's code that called in)."""
    # stacklevel 1 is this function's frame; the package's frames follow it
    warnings.warn(message, category, stacklevel=_frames_inside_package() + 2)


def _frames_inside_package() -> int:
    """How many frames, from the caller of ``warn_at_caller`` outwards, lie in this
    package (at least 1: the caller itself)."""
    frame, depth = sys._getframe(2), 1
    while frame.f_back is not None and frame.f_back.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, depth = frame.f_back, depth + 1
    return depth

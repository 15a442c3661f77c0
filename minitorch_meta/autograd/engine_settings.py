"""The autograd engine's switches PyTorch exposes: ``set_multithreading_enabled`` (with
``is_multithreading_enabled``) and ``is_view_replay_enabled``.

Our engine runs every backward on the calling thread, and a view's gradient never replays
the view op, so these only answer PyTorch's questions: the multithreading switch is kept
per thread (as PyTorch keeps it) and read back; it changes nothing else.
"""

from __future__ import annotations

import functools
import threading


class _Switch(threading.local):
    multithreading = True


_switch = _Switch()


def is_multithreading_enabled() -> bool:
    """Whether multithreaded backward is enabled on this thread (default True)."""
    return _switch.multithreading


def is_view_replay_enabled() -> bool:
    """False: views are never replayed in backward (PyTorch's default too)."""
    return False


class set_multithreading_enabled:  # noqa: N801 - PyTorch's name, a context manager class
    """Enable or disable multithreaded backward on this thread: at once when called, and
    back to the previous value at the end of a ``with`` block or of a decorated function."""

    def __init__(self, mode: bool) -> None:
        self.previous = _switch.multithreading
        self.mode = bool(mode)
        _switch.multithreading = self.mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info) -> None:
        _switch.multithreading = self.previous

    def clone(self) -> set_multithreading_enabled:
        """A new switch to the same mode (each call of a decorated function needs one)."""
        return type(self)(self.mode)

    def __call__(self, function):
        # As a decorator the mode applies inside the function only: undo making the object.
        _switch.multithreading = self.previous

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with self.clone():
                return function(*args, **kwargs)

        return wrapper

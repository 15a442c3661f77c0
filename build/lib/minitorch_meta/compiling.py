"""``torch.compile``: accepted, and a no-op.

PyTorch's ``compile`` only makes a model faster; what it computes is unchanged. There is
no graph compiler here, so ``compile`` checks its arguments as PyTorch does and returns
the model itself: scripts written for PyTorch 2 run unchanged, at eager speed.
"""

from __future__ import annotations

from collections.abc import Callable

#: PyTorch's accepted ``mode`` names
_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(model: Callable | None = None, *, fullgraph: bool = False,  # noqa: A001 - PyTorch's name
            dynamic: bool | None = None, backend: str | Callable | None = None,
            mode: str | None = None, options: dict | None = None, name: str | None = None,
            disable: bool = False, **kwargs) -> Callable:
    """Return ``model`` unchanged (a module, or a function); with no model, a decorator
    that does the same, for ``@compile(mode=...)``. ``fullgraph``, ``dynamic``,
    ``backend``, ``options``, ``name`` and ``disable`` are accepted and ignored.

    Raises:
        RuntimeError: an unknown ``mode``, or both ``mode`` and ``options`` (PyTorch's).
        AssertionError: ``model`` is not callable (PyTorch's type, raised explicitly).
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if model is None:
        return _return_unchanged
    return _return_unchanged(model)


def _return_unchanged(model: Callable) -> Callable:
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model

"""Process-wide switches PyTorch code sets before training, kept with PyTorch's values:
``set_float32_matmul_precision``/``get_float32_matmul_precision`` and
``use_deterministic_algorithms``/``are_deterministic_algorithms_enabled``/
``is_deterministic_algorithms_warn_only_enabled`` (and their other spelling,
``set_deterministic_debug_mode``/``get_deterministic_debug_mode``).

Neither changes what our kernels compute: float32 matmuls run in full float32 whatever the
precision asked (no TF32 or bfloat16 passes, on the CPU or with CuPy), and every kernel
here is deterministic already (the same inputs give the same bits on the same device), so
there is no nondeterministic kernel to refuse or warn about. The settings are stored so that
code which reads them back sees what it set, as under PyTorch.
"""

from __future__ import annotations

from .caller_warnings import warn_at_caller

_PRECISIONS = ("highest", "high", "medium")
# PyTorch's switches are process-wide too; these are read only by the getters below.
_settings = {"matmul_precision": "highest", "deterministic": False, "warn_only": False}


def set_float32_matmul_precision(precision: str) -> None:
    """Record ``"highest"``, ``"high"`` or ``"medium"`` (another value warns and changes
    nothing, as in PyTorch). Our float32 matmuls are always computed in full float32."""
    if precision not in _PRECISIONS:
        warn_at_caller(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                       "set_float32_matmul_precision call has no effect.", UserWarning)
        return
    _settings["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """The precision last set (``"highest"`` at start)."""
    return _settings["matmul_precision"]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record whether deterministic algorithms are asked for. Every kernel here is
    deterministic, so nothing is ever refused or warned about.

    Raises:
        TypeError: ``mode`` or ``warn_only`` is not a bool.
    """
    for name, value in (("mode", mode), ("warn_only", warn_only)):
        if not isinstance(value, bool):
            raise TypeError(f"use_deterministic_algorithms(): argument '{name}' must be bool, "
                            f"not {type(value).__name__}")
    _settings["deterministic"], _settings["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return _settings["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _settings["warn_only"]


#: ``set_deterministic_debug_mode``'s names of its levels
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """PyTorch's other spelling of ``use_deterministic_algorithms``: ``"default"`` or 0
    (off), ``"warn"`` or 1 (on, warn only), ``"error"`` or 2 (on). It sets the same state.

    Raises:
        TypeError: ``debug_mode`` is neither a str nor an int.
        RuntimeError: it names no level.
    """
    if not isinstance(debug_mode, (int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    _settings["deterministic"], _settings["warn_only"] = debug_mode != 0, debug_mode == 1


def get_deterministic_debug_mode() -> int:
    """0 when deterministic algorithms are off, 1 when on with ``warn_only``, else 2."""
    if not _settings["deterministic"]:
        return 0
    return 1 if _settings["warn_only"] else 2

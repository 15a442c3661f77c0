"""The stand-in's ``cupy`` and ``cupyx`` modules: CuPy's names, NumPy's computations.

Each name is looked up in the installed CuPy first: what CuPy lacks raises
``AttributeError`` even where NumPy has it. Functions check their keyword arguments against
CuPy's signature, refuse host arrays (``conversion.unwrap``), and give device arrays.
"""

from __future__ import annotations

import inspect
import types

import numpy as np

from .array import DeviceArray
from .conversion import unwrap, wrap
from .memory import POOL
from .runtime import build_cuda
from .ufunc import StandInUfunc

# CuPy functions that take host data and copy it to the device.
HOST_DATA_FUNCTIONS = frozenset({"array", "asarray", "asanyarray"})
# dtype kinds CuPy cannot hold: objects, strings, void.
UNSUPPORTED_KINDS = frozenset("OSUV")


class StandInNamespace(types.ModuleType):
    """A module of the stand-in (``cupy``, ``cupy.linalg``, ...): ``real`` gives its names,
    ``host`` (the matching NumPy module) computes."""

    IS_STAND_IN = True

    def __init__(self, name: str, real, host, overrides: dict | None = None):
        super().__init__(name, f"CuPy stand-in for {name} (NumPy underneath)")
        self._real, self._host = real, host
        self._overrides = overrides or {}

    def has(self, name: str) -> bool:
        """Whether the real CuPy module has ``name``."""
        return hasattr(self._real, name)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._overrides:
            value = self._overrides[name]
        elif not self.has(name):
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}' (CuPy "
                                 "lacks it, so the CUDA path cannot use it)")
        else:
            value = self._resolve(name)
        setattr(self, name, value)  # looked up once
        return value

    def _resolve(self, name):
        real = getattr(self._real, name)
        host = getattr(self._host, name, None)
        if isinstance(real, types.ModuleType):
            return StandInNamespace(f"{self.__name__}.{name}", real, host)
        if host is None:
            raise AttributeError(f"the CuPy stand-in has no NumPy counterpart of "
                                 f"{self.__name__}.{name}; add one to tests/cuda_stand_in")
        if isinstance(host, np.ufunc):
            return StandInUfunc(host, real, self)
        if isinstance(host, type) or not callable(host):
            return host  # dtypes, scalar types, constants: CuPy uses NumPy's
        return StandInFunction(f"{self.__name__}.{name}", host, real)


class StandInFunction:
    """One CuPy function: CuPy's keyword arguments, NumPy's computation, device results."""

    def __init__(self, name: str, host, real):
        self.__name__ = name.rsplit(".", 1)[-1]
        self._name, self._host = name, host
        self._keywords = _keywords(real)
        self._allow_host = self.__name__ in HOST_DATA_FUNCTIONS

    def __call__(self, *args, **kwargs):
        if self._keywords is not None:
            unknown = sorted(set(kwargs) - self._keywords)
            if unknown:
                raise TypeError(f"{self._name}() got unexpected keyword argument(s) {unknown}: "
                                "CuPy's function does not take them (the CuPy stand-in)")
        if self._allow_host:
            _check_dtype(self._name, args, kwargs)
        host_args = unwrap(args, self._allow_host, self._name)
        host_kwargs = unwrap(kwargs, self._allow_host, self._name)
        out = kwargs.get("out")
        with np.errstate(all="ignore"):  # CuPy never warns about inf or nan
            result = self._host(*host_args, **host_kwargs)
        if isinstance(out, DeviceArray) and result is out._host:
            return out
        return wrap(result)

    def __repr__(self):
        return f"<CuPy stand-in function {self._name}>"


def _keywords(real) -> frozenset | None:
    """The keyword arguments ``real`` accepts, or None when any are (or cannot be known)."""
    try:
        parameters = inspect.signature(real).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(p.name for p in parameters if p.kind is not p.POSITIONAL_ONLY)


def _check_dtype(name: str, args, kwargs) -> None:
    dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
    kind = np.dtype(dtype).kind if dtype is not None else None
    data = args[0] if args else kwargs.get("a", kwargs.get("obj"))
    if kind is None and isinstance(data, np.ndarray):
        kind = data.dtype.kind
    if kind in UNSUPPORTED_KINDS:
        raise ValueError(f"Unsupported dtype (kind {kind!r}) in {name}: CuPy holds numbers "
                         "and booleans only (the CuPy stand-in)")


def _as_strided(x, shape=None, strides=None):
    host = unwrap(x, False, "cupy.lib.stride_tricks.as_strided")
    return wrap(np.lib.stride_tricks.as_strided(host, shape, strides))


def _asnumpy(a, stream=None, order="C", out=None, blocking=True):
    if isinstance(a, DeviceArray):
        return a.get()
    return np.asarray(a, order=order)


def build_cupy(real_cupy) -> StandInNamespace:
    """The stand-in ``cupy`` module, its names taken from ``real_cupy``."""
    cupy = StandInNamespace("cupy", real_cupy, np, {
        "ndarray": DeviceArray,
        "asnumpy": _asnumpy,
        "get_default_memory_pool": lambda: POOL,
        "__version__": real_cupy.__version__,
    })
    cupy._overrides["cuda"] = build_cuda(real_cupy)
    cupy._overrides["lib"] = StandInNamespace("cupy.lib", real_cupy.lib, np.lib, {
        "stride_tricks": StandInNamespace(
            "cupy.lib.stride_tricks", real_cupy.lib.stride_tricks, np.lib.stride_tricks,
            {"as_strided": _as_strided}),
    })
    from .random import build_random

    cupy._overrides["random"] = build_random(real_cupy.random)
    DeviceArray.module = cupy
    DeviceArray.ALLOWED_ATTRIBUTES = frozenset(
        name for name in dir(real_cupy.ndarray) if not name.startswith("_"))
    return cupy


def build_cupyx(real_cupyx, cupy) -> StandInNamespace:
    """The stand-in ``cupyx``: ``scatter_add`` and ``scipy.special`` (what the backend uses)."""
    from minitorch_meta.backends.numpy_erf import erf  # float64-accurate, NumPy only

    special = StandInNamespace("cupyx.scipy.special", real_cupyx.scipy.special, None, {
        "erf": StandInFunction("cupyx.scipy.special.erf", erf, real_cupyx.scipy.special.erf),
    })
    scipy = StandInNamespace("cupyx.scipy", real_cupyx.scipy, None, {"special": special})
    return StandInNamespace("cupyx", real_cupyx, None, {
        "scatter_add": _scatter_add,
        "scipy": scipy,
    })


def _scatter_add(a, slices, value):
    """``cupyx.scatter_add``: ``a[slices] += value`` with repeated indices accumulated."""
    if not isinstance(a, DeviceArray):
        raise TypeError(f"cupyx.scatter_add needs a device array to add into, got {type(a)}")
    np.add.at(a._host, unwrap(slices, True, "cupyx.scatter_add"),
              unwrap(value, False, "cupyx.scatter_add"))

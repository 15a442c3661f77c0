"""The stand-in's ``ndarray``: NumPy memory behind CuPy's rules.

A ``DeviceArray`` wraps a NumPy array (its "device memory") and is not a NumPy array, so
NumPy refuses it where CuPy's arrays are refused: ``numpy.asarray`` raises, and NumPy
functions reach it only through ``__array_function__`` and ``__array_ufunc__``, which
forward to the stand-in's CuPy functions (CuPy does the same).
"""

from __future__ import annotations

import weakref

import numpy as np

from .conversion import unwrap, wrap
from .memory import POOL

# The operators CuPy's ndarray defines (each checked against cupy.ndarray by the stand-in's
# tests), as (method, ufunc name, reflected).
_BINARY_OPERATORS = {
    "__add__": "add", "__sub__": "subtract", "__mul__": "multiply", "__truediv__": "true_divide",
    "__floordiv__": "floor_divide", "__mod__": "remainder", "__pow__": "power",
    "__and__": "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor",
    "__lshift__": "left_shift", "__rshift__": "right_shift", "__eq__": "equal",
    "__ne__": "not_equal", "__lt__": "less", "__le__": "less_equal", "__gt__": "greater",
    "__ge__": "greater_equal",
}
_UNARY_OPERATORS = {"__neg__": "negative", "__pos__": "positive", "__abs__": "absolute",
                    "__invert__": "invert"}
_COMPARISONS = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}
# Methods whose index arguments CuPy converts from host data (lists, NumPy arrays).
_INDEX_METHODS = {"take", "put", "compress", "choose"}

# The live device array around each host array (by the host's id), so that ``a.base`` is
# the very array object a view was taken of, as CuPy's (code compares bases by identity).
_WRAPPERS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

IMPLICIT_CONVERSION = ("Implicit conversion to a NumPy array is not allowed. Please use "
                       "`.get()` to construct a NumPy array explicitly.")


class DeviceArray:
    """An array "on the GPU" of the stand-in. ``_host`` is the NumPy array holding the data.

    Only the attributes the real ``cupy.ndarray`` has exist (``namespace`` sets
    ``ALLOWED_ATTRIBUTES`` from the installed CuPy).
    """

    __slots__ = ("_host", "__weakref__")
    __array_priority__ = 100.0
    __hash__ = None
    ALLOWED_ATTRIBUTES: frozenset = frozenset()
    module = None  # the stand-in cupy namespace (set by ``namespace``)

    def __init__(self, host: np.ndarray):
        self._host = host
        _WRAPPERS[id(host)] = self
        POOL._track(_owner(host))  # the memory pool counts what live arrays occupy

    # -- what CuPy refuses ------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError(IMPLICIT_CONVERSION)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        stand_in = getattr(self.module, ufunc.__name__, None)
        if stand_in is None:
            return NotImplemented
        return getattr(stand_in, method)(*inputs, **kwargs) if method != "__call__" else \
            stand_in(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        # CuPy implements NumPy's functions it has itself; the others raise TypeError.
        if not self.module.has(func.__name__):
            return NotImplemented
        return getattr(self.module, func.__name__)(*args, **kwargs)

    # -- attributes: CuPy's only -------------------------------------------------------
    def __getattr__(self, name):
        if name not in self.ALLOWED_ATTRIBUTES:
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}' (the "
                                 "CuPy stand-in refuses what CuPy's arrays lack)")
        value = getattr(self._host, name)
        if not callable(value):
            return wrap(value)
        allow_host = name in _INDEX_METHODS

        def method(*args, **kwargs):
            host_args = unwrap(args, allow_host, f"ndarray.{name}")
            host_kwargs = unwrap(kwargs, allow_host, f"ndarray.{name}")
            with np.errstate(all="ignore"):  # CuPy never warns about inf or nan
                return wrap(value(*host_args, **host_kwargs))
        return method

    @property
    def data(self):
        return _MemoryPointer(self._host)

    @property
    def device(self):
        return self.module.cuda.Device(0)

    @property
    def base(self):
        base = self._host.base
        if not isinstance(base, np.ndarray):
            return None
        known = _WRAPPERS.get(id(base))
        return known if known is not None and known._host is base else DeviceArray(base)

    def get(self):
        """The data as a NumPy array on the host (CuPy's explicit copy)."""
        return self._host.copy()

    # -- indexing ------------------------------------------------------------------------
    def __getitem__(self, index):
        host_index = unwrap(index, True, "indexing")
        out = self._host[host_index]
        if not isinstance(out, np.ndarray):  # CuPy gives a 0-d view, never a scalar
            items = host_index if isinstance(host_index, tuple) else (host_index,)
            out = self._host[tuple(items) + (Ellipsis,)]
        return DeviceArray(out)

    def __setitem__(self, index, value):
        if isinstance(value, np.ndarray) and value.ndim > 0:
            # CuPy fills a slice from a scalar or a device array; a host array is refused.
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill (the CuPy "
                             "stand-in: assign a device array, cupy.asarray(...) first)")
        self._host[unwrap(index, True, "indexing")] = unwrap(value, False, "assignment")

    def __len__(self):
        return len(self._host)

    def __iter__(self):
        if self._host.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self._host)))

    # -- conversions that synchronise in CuPy (allowed there too) -------------------------
    def __bool__(self):
        return bool(self._host)

    def __float__(self):
        return float(self._host)

    def __int__(self):
        return int(self._host)

    def __complex__(self):
        return complex(self._host)

    def __repr__(self):
        return repr(self._host)

    def __str__(self):
        return str(self._host)

    def __format__(self, spec):
        return format(self._host, spec)

    def __copy__(self):
        return DeviceArray(self._host.copy())

    def __deepcopy__(self, memo):
        return DeviceArray(self._host.copy())

    def __reduce__(self):
        return (DeviceArray, (self._host.copy(),))

    def __matmul__(self, other):
        return self.module.matmul(self, other)

    def __rmatmul__(self, other):
        return self.module.matmul(other, self)


def _binary(ufunc_name: str, reflected: bool, in_place: bool):
    def operator(self, other):
        ufunc = getattr(self.module, ufunc_name)
        if in_place:
            return ufunc(self, other, out=self)
        return ufunc(other, self) if reflected else ufunc(self, other)
    return operator


def _unary(ufunc_name: str):
    def operator(self):
        return getattr(self.module, ufunc_name)(self)
    return operator


for _method, _ufunc in _BINARY_OPERATORS.items():
    setattr(DeviceArray, _method, _binary(_ufunc, False, False))
    if _method not in _COMPARISONS:
        _stem = _method[2:]
        setattr(DeviceArray, "__r" + _stem, _binary(_ufunc, True, False))
        setattr(DeviceArray, "__i" + _stem, _binary(_ufunc, False, True))
for _method, _ufunc in _UNARY_OPERATORS.items():
    setattr(DeviceArray, _method, _unary(_ufunc))
del _method, _ufunc, _stem

OPERATOR_NAMES = sorted(
    {*_BINARY_OPERATORS, *_UNARY_OPERATORS, "__matmul__", "__rmatmul__"}
    | {"__r" + m[2:] for m in _BINARY_OPERATORS if m not in _COMPARISONS}
    | {"__i" + m[2:] for m in _BINARY_OPERATORS if m not in _COMPARISONS})


class _MemoryPointer:
    """``a.data``: CuPy's ``MemoryPointer``, with ``ptr`` (where ``a`` starts) and ``mem.ptr``
    (where the allocation it lies in starts)."""

    def __init__(self, host: np.ndarray):
        self.ptr = host.__array_interface__["data"][0]
        owner = _owner(host)
        self.mem = _Memory(owner.__array_interface__["data"][0], owner.nbytes)


class _Memory:
    """CuPy's ``BaseMemory``: where the allocation starts and its size in bytes."""

    def __init__(self, ptr: int, size: int):
        self.ptr = ptr
        self.size = size


def _owner(host: np.ndarray) -> np.ndarray:
    """The array owning the memory ``host`` views (through ``as_strided``'s stand-in bases)."""
    while True:
        base = host.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)
        if not isinstance(base, np.ndarray):
            return host
        host = base

"""The stand-in's ufuncs: NumPy's loops under CuPy's rules for operands and methods.

CuPy's ufuncs take device arrays and scalars only (a NumPy array or a list raises
``TypeError: Unsupported type``), and their methods exist for a few ufuncs only (in CuPy's
``_kernel.pyx``: ``reduce`` and ``accumulate`` for ``add`` and ``multiply``, ``reduceat``
for ``add``, ``at`` where the ufunc has a scatter operation).
"""

from __future__ import annotations

import numpy as np

from .array import DeviceArray
from .conversion import unwrap, wrap

REDUCING = frozenset({"add", "multiply"})     # reduce, accumulate
REDUCING_AT = frozenset({"add"})              # reduceat
# ``reduce``'s keyword arguments in CuPy (no ``initial``, no ``where``).
REDUCE_KEYWORDS = frozenset({"axis", "dtype", "out", "keepdims"})


class StandInUfunc:
    """One CuPy ufunc; ``host`` is NumPy's, ``real`` CuPy's (for what it supports)."""

    def __init__(self, host: np.ufunc, real, module):
        self.__name__ = host.__name__
        self._host, self._real, self._module = host, real, module
        self.nin, self.nout, self.nargs = host.nin, host.nout, host.nargs

    def __call__(self, *inputs, **kwargs):
        for operand in inputs:
            _check_operand(self.__name__, operand)
        host_kwargs = unwrap(kwargs, False, f"cupy.{self.__name__}")
        with np.errstate(all="ignore"):  # CuPy never warns about inf or nan
            result = self._host(*unwrap(inputs, False, f"cupy.{self.__name__}"), **host_kwargs)
        out = kwargs.get("out")
        if isinstance(out, tuple) and len(out) == 1:
            out = out[0]
        if isinstance(out, DeviceArray) and result is out._host:
            return out
        return wrap(result)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, **kwargs):
        self._supported("reduce", REDUCING)
        _refuse_keywords(f"{self.__name__}.reduce", kwargs)
        return self._method("reduce", array, axis=axis, dtype=dtype, out=out,
                            keepdims=keepdims)

    def accumulate(self, array, axis=0, dtype=None, out=None):
        self._supported("accumulate", REDUCING)
        return self._method("accumulate", array, axis=axis, dtype=dtype, out=out)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        self._supported("reduceat", REDUCING_AT)
        return self._method("reduceat", array, unwrap(indices, True, "reduceat"), axis=axis,
                            dtype=dtype, out=out)

    def at(self, a, indices, b=None):
        if not self._real._scatter_op:
            raise NotImplementedError(f"`cupy_{self.__name__}.at` is not supported yet "
                                      "(CuPy; the stand-in)")
        if not isinstance(a, DeviceArray):
            raise TypeError(f"{self.__name__}.at needs a device array, got {type(a)}")
        self._host.at(a._host, unwrap(indices, True, "ufunc.at"), unwrap(b, False, "ufunc.at"))

    def outer(self, a, b, **kwargs):
        _check_operand(self.__name__, a)
        _check_operand(self.__name__, b)
        return wrap(self._host.outer(unwrap(a, False, "outer"), unwrap(b, False, "outer"),
                                     **unwrap(kwargs, False, "outer")))

    def _supported(self, method: str, ufuncs: frozenset) -> None:
        if self.__name__ not in ufuncs:
            raise NotImplementedError(f"`cupy_{self.__name__}.{method}` is not supported yet "
                                      "(CuPy supports it for "
                                      f"{', '.join(sorted(ufuncs))} only; the stand-in)")

    def _method(self, method: str, array, *args, **kwargs):
        if not isinstance(array, DeviceArray):
            raise TypeError(f"{self.__name__}.{method} needs a device array, got "
                            f"{type(array)} (the CuPy stand-in)")
        out = kwargs.get("out")
        with np.errstate(all="ignore"):
            result = getattr(self._host, method)(array._host, *args,
                                                 **unwrap(kwargs, False, method))
        if isinstance(out, DeviceArray) and result is out._host:
            return out
        return wrap(result)

    def __repr__(self):
        return f"<CuPy stand-in ufunc {self.__name__}>"


def _check_operand(name: str, operand) -> None:
    if isinstance(operand, (list, tuple)):
        raise TypeError(f"Unsupported type {type(operand)}: cupy.{name} takes device arrays "
                        "and scalars, not lists (the CuPy stand-in)")
    # NumPy arrays are refused by ``unwrap``; scalars (Python's and NumPy's) are fine.


def _refuse_keywords(name: str, kwargs: dict) -> None:
    if kwargs:
        raise TypeError(f"{name}() got unexpected keyword argument(s) {sorted(kwargs)}: CuPy "
                        f"takes {sorted(REDUCE_KEYWORDS)} only (the CuPy stand-in)")

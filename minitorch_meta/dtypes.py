"""Data types: ``float32`` (the default floating-point dtype), ``float64``, ``float16``,
``bfloat16`` (a NumPy dtype of the ``ml_dtypes`` package), ``int64``, ``int32``, ``int16``,
``int8``, ``uint8``, ``bool``, the complex
``complex64`` (``cfloat``) and ``complex128`` (``cdouble``), and PyTorch's "shell" dtypes
``uint16``, ``uint32``, ``uint64`` (few ops, no promotion with other integer types: see
``ops/unsigned_shell.py``), and the 8-bit floats ``float8_e4m3fn``, ``float8_e5m2``,
``float8_e4m3fnuz``, ``float8_e5m2fnuz`` and ``float8_e8m0fnu`` (``ml_dtypes``' NumPy dtypes;
storage, conversions and a few ops, no promotion at all: ``float8_casts.py``,
``ops/float8_shell.py``).

A ``dtype`` is a small value object that names its NumPy equivalent; every backend stores
arrays of the NumPy dtype (CuPy uses the same dtype objects, meta arrays carry it).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np


class dtype:  # noqa: N801 - the name PyTorch users write (torch.dtype)
    """A tensor element type. Prints as PyTorch's (``torch.float32``)."""

    __slots__ = ("name", "numpy", "itemsize", "is_floating_point", "is_complex", "restricted",
                 "_rank")

    def __init__(self, name: str, numpy_dtype, rank: int):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.itemsize = self.numpy.itemsize
        # As in PyTorch, a complex dtype is not a floating-point one. ml_dtypes' bfloat16
        # is a NumPy "void"-kind dtype (kind "V"), so it is named here.
        # So are its 8-bit floats (float8_*).
        self.is_floating_point = (self.numpy.kind == "f" or name == "bfloat16"
                                  or name.startswith("float8"))
        self.is_complex = self.numpy.kind == "c"
        #: Only some ops take it (complex ones, and the uint16/32/64 and float8 "shells"):
        #: the op dispatcher reads this one flag per input and checks the op only when set.
        self.restricted = (self.is_complex or name in ("uint16", "uint32", "uint64")
                           or name.startswith("float8"))
        # Promotion rank: bool < integers < floats, and wider beats narrower; uint8 and
        # int8 share a rank (neither holds the other: together they make int16).
        self._rank = rank

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    @property
    def is_signed(self) -> bool:
        """Whether values may be negative: False for bool, the unsigned integers and
        float8_e8m0fnu (powers of two only)."""
        return self.numpy.kind not in ("b", "u") and self.name != "float8_e8m0fnu"

    def __reduce__(self):
        return (from_name, (self.name,))

    def to_real(self) -> dtype:
        """The dtype of this one's real and imaginary parts (``complex64`` -> ``float32``);
        a real dtype is its own."""
        return _REAL_OF.get(self, self)

    def to_complex(self) -> dtype:
        """The complex dtype whose parts are of this one (``float64`` -> ``complex128``);
        a complex dtype is its own.

        Raises:
            TypeError: for float16 (PyTorch's complex32 does not exist here).
            RuntimeError: for an integer or bool dtype (PyTorch's error).
        """
        if self.is_complex:
            return self
        if self is float16:  # bfloat16's complex is complex64, as PyTorch's
            raise TypeError(COMPLEX32_UNSUPPORTED)
        if not self.is_floating_point or self in FLOAT8:
            raise RuntimeError(f"Unknown Complex ScalarType for {SCALAR_TYPE_NAMES[self]}")
        return _COMPLEX_OF[self]


bool_ = dtype("bool", np.bool_, 0)
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 2)
int32 = dtype("int32", np.int32, 3)
int64 = dtype("int64", np.int64, 4)
float16 = dtype("float16", np.float16, 9)
# float16's rank: neither holds the other, so together they make float32 (promote()).
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, 9)
float32 = dtype("float32", np.float32, 10)
float64 = dtype("float64", np.float64, 11)
# Above every real dtype: a complex operand makes the result complex (promote() widens
# complex64 to complex128 next to a float64).
complex64 = dtype("complex64", np.complex64, 12)
complex128 = dtype("complex128", np.complex128, 13)
# Ranked above every signed integer and below the floats: with a float they give the
# float, and with any other integer or bool ``promote`` refuses them, as PyTorch does.
uint16 = dtype("uint16", np.uint16, 5)
uint32 = dtype("uint32", np.uint32, 6)
uint64 = dtype("uint64", np.uint64, 7)
#: PyTorch's "shell" dtypes: storage, copies, views and a few ops only (ops/unsigned_shell.py)
UNSIGNED_SHELL = frozenset({uint16, uint32, uint64})
#: The rank of every float8 dtype: ``promote`` refuses to mix one with any other dtype.
_FLOAT8_RANK = 8
float8_e4m3fn = dtype("float8_e4m3fn", ml_dtypes.float8_e4m3fn, _FLOAT8_RANK)
float8_e5m2 = dtype("float8_e5m2", ml_dtypes.float8_e5m2, _FLOAT8_RANK)
float8_e4m3fnuz = dtype("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, _FLOAT8_RANK)
float8_e5m2fnuz = dtype("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, _FLOAT8_RANK)
float8_e8m0fnu = dtype("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu, _FLOAT8_RANK)
#: The 8-bit floats: storage, conversions (float8_casts.py) and a few ops (ops/float8_shell.py)
FLOAT8 = frozenset({float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz,
                    float8_e8m0fnu})
#: PyTorch's limits of each float8 dtype (its ``finfo``): (eps, max, min, smallest normal).
#: float8_e5m2fnuz's eps is PyTorch's 2 ** -3, not the 2 ** -2 its 2 fraction bits give;
#: float8_e8m0fnu's min is positive (it holds powers of two only).
FLOAT8_LIMITS = {
    float8_e4m3fn: (2.0 ** -3, 448.0, -448.0, 2.0 ** -6),
    float8_e5m2: (2.0 ** -2, 57344.0, -57344.0, 2.0 ** -14),
    float8_e4m3fnuz: (2.0 ** -3, 240.0, -240.0, 2.0 ** -7),
    float8_e5m2fnuz: (2.0 ** -3, 57344.0, -57344.0, 2.0 ** -15),
    float8_e8m0fnu: (1.0, 2.0 ** 127, 2.0 ** -127, 2.0 ** -127),
}
#: Every dtype that runs only the ops its shell module lists (``Function.__call__``)
SHELL = UNSIGNED_SHELL | FLOAT8

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64,
       complex128, uint16, uint32, uint64, bfloat16, float8_e4m3fn, float8_e5m2,
       float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)
#: The 16-bit floats: PyTorch's CPU kernels sum, multiply-accumulate and normalise them in
#: float32 (their "opmath" type) and round the result once; so do ours (``half_floats.py``).
HALF_FLOATS = frozenset({float16, bfloat16})
#: NumPy dtype -> our dtype (read on every tensor creation, so kept a plain dict).
BY_NUMPY = {d.numpy: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update({"float": float32, "double": float64, "half": float16, "long": int64,
                 "int": int32, "short": int16, "cfloat": complex64, "cdouble": complex128})
#: PyTorch's name of each dtype's scalar type, as its messages ("not implemented for
#: 'Char'") and its legacy type names ('torch.CharTensor') say it.
SCALAR_TYPE_NAMES = {bool_: "Bool", uint8: "Byte", int8: "Char", int16: "Short", int32: "Int",
                     int64: "Long", float16: "Half", float32: "Float", float64: "Double",
                     complex64: "ComplexFloat", complex128: "ComplexDouble",
                     uint16: "UInt16", uint32: "UInt32", uint64: "UInt64",
                     bfloat16: "BFloat16", float8_e4m3fn: "Float8_e4m3fn",
                     float8_e5m2: "Float8_e5m2", float8_e4m3fnuz: "Float8_e4m3fnuz",
                     float8_e5m2fnuz: "Float8_e5m2fnuz", float8_e8m0fnu: "Float8_e8m0fnu"}
_REAL_OF = {complex64: float32, complex128: float64}
#: The complex dtype of each float's parts; float16 has none here (complex32 is missing),
#: so a float16 tensor meeting a complex scalar becomes complex64 (docs/differences.md).
_COMPLEX_OF = {float16: complex64, float32: complex64, float64: complex128,
               bfloat16: complex64}

#: The default floating-point dtype. Process-wide, as PyTorch's (``torch.set_default_dtype``
#: changes it for every thread): this one cell is the only place it lives, and everything
#: that needs it calls ``get_default_dtype()`` at the time of use.
_DEFAULT_FLOAT = [float32]
#: What ``set_default_dtype`` accepts (PyTorch's choices).
DEFAULT_CANDIDATES = (float32, float64, float16, bfloat16)


def get_default_dtype() -> dtype:
    """The dtype of floating-point tensors made without one (``float32`` until
    ``set_default_dtype`` changes it)."""
    return _DEFAULT_FLOAT[0]


def set_default_dtype(d: dtype) -> None:
    """Make ``d`` (float32, float64, float16 or bfloat16) the dtype of floating-point tensors made
    without one: factories, Python floats in ``tensor()``, and integer tensors promoted by
    a Python float or a floating-point-only op. Process-wide, as in PyTorch.

    Raises:
        TypeError: ``d`` is not a dtype, or not a floating-point one we support.
    """
    if not isinstance(d, dtype):
        raise TypeError(f"invalid dtype object: only floating-point types are supported as the "
                        f"default type; expected one of {_candidate_names()}, got "
                        f"{d!r} ({type(d).__name__})")
    if d not in DEFAULT_CANDIDATES:
        raise TypeError(f"only floating-point types are supported as the default type; "
                        f"expected one of {_candidate_names()}, got {d}")
    _DEFAULT_FLOAT[0] = d


def _candidate_names() -> str:
    return ", ".join(str(d) for d in DEFAULT_CANDIDATES)


#: Why a CUDA tensor cannot be bfloat16 (docs/cuda.md), for every place that would make one.
BFLOAT16_ON_CUDA = ("bfloat16 is not supported on CUDA by minitorch_meta (CuPy has no "
                    "bfloat16 dtype); use float16 or float32")
#: The dtypes CuPy has no equivalent of: CPU and meta tensors only.
CPU_ONLY = frozenset({bfloat16}) | FLOAT8


def refuse_on_device(d: dtype, device) -> None:
    """Refuse a tensor of dtype ``d`` on ``device`` (a ``Device``) that cannot hold it:
    bfloat16 or a float8 on CUDA. Called where tensors are made (factories) or converted
    (``to``).

    Raises:
        DtypeNotImplementedError: bfloat16 or a float8 dtype on a CUDA device.
    """
    if d in CPU_ONLY and device.type == "cuda":
        from .errors import DtypeNotImplementedError

        if d is bfloat16:
            raise DtypeNotImplementedError(BFLOAT16_ON_CUDA)
        raise DtypeNotImplementedError(
            f"{d} is not supported on CUDA by minitorch_meta (CuPy has no 8-bit float "
            "dtypes); keep float8 tensors on the CPU, or use float16 on CUDA")


#: Why there is no ``complex32`` (``chalf``), for every place that is asked for it.
COMPLEX32_UNSUPPORTED = ("complex32 (chalf) is not supported by minitorch_meta: only "
                         "complex64 (cfloat) and complex128 (cdouble) exist; use "
                         "torch.complex64 instead")


def default_complex_dtype() -> dtype:
    """The dtype a Python complex number gets: complex128 when the default float dtype is
    float64, else complex64 (as PyTorch; its complex32 for a float16 default is missing)."""
    return complex128 if _DEFAULT_FLOAT[0] is float64 else complex64


def complex_of(d: dtype) -> dtype:
    """The complex dtype an operand of dtype ``d`` meets a complex one in: its own for a
    float or complex ``d`` (float16: complex64), else the default complex dtype.

    Raises:
        RuntimeError: for a float8 ``d``, which has no complex (PyTorch's error).
    """
    if d.is_complex:
        return d
    if d in FLOAT8:
        return d.to_complex()  # (raises)
    return _COMPLEX_OF.get(d) or default_complex_dtype()


def array_kind(array_dtype) -> str:
    """NumPy's kind letter of an array's dtype (``"f"``, ``"i"``, ``"u"``, ``"b"``, ``"c"``),
    bfloat16 counted a float: ml_dtypes' bfloat16 is of NumPy's "void" kind (``"V"``),
    which no other array here has. Kernels and ops that branch on floats read this."""
    kind = array_dtype.kind
    return "f" if kind == "V" else kind


def from_name(name: str) -> dtype:
    """The dtype called ``name`` (``"float32"``, ``"float"``, ``"int64"``, ...)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        if name in ("complex32", "chalf"):
            raise TypeError(COMPLEX32_UNSUPPORTED) from None
        raise TypeError(f"unknown dtype name {name!r}; expected one of "
                        f"{sorted(_BY_NAME)}") from None


def from_numpy(np_dtype) -> dtype:
    """Our dtype for a NumPy dtype; raises ``TypeError`` for unsupported ones."""
    try:
        return BY_NUMPY[np_dtype]
    except KeyError:
        pass
    try:
        return BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        supported = ", ".join(str(d.numpy) for d in ALL)
        raise TypeError(f"unsupported array dtype {np_dtype}; supported: {supported}") from None


def to_dtype(value) -> dtype:
    """Normalise what a user passes as ``dtype=`` (our dtype, NumPy dtype, Python type, name)."""
    if isinstance(value, dtype):
        return value
    if value is float:  # as in PyTorch, Python's float means double precision
        return float64
    if value is int:
        return int64
    if value is bool:
        return bool_
    if value is complex:  # Python's complex is double precision too
        return complex128
    if isinstance(value, str):
        return from_name(value)
    return from_numpy(value)


def wrap_int(value: int, to: dtype) -> int:
    """The Python int ``value`` converted to the integer dtype ``to`` as PyTorch converts a
    scalar operand of integer arithmetic: modulo ``2 ** bits``, into the dtype's range
    (``-1`` as uint8 is 255, ``300`` as int8 is 44, ``2 ** 63`` as int64 is ``-2 ** 63``).

    Raises:
        OverflowError: ``value`` is outside ``[-2 ** 63, 2 ** 64)``, the ints PyTorch takes
            as a scalar at all.
    """
    value = int(value)
    if not -2 ** 63 <= value < 2 ** 64:
        raise OverflowError(int_scalar_overflow(value))
    bits = 8 * to.itemsize
    value %= 1 << bits
    if to.numpy.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def int_scalar_overflow(value: int) -> str:
    """PyTorch's words for a Python int it cannot take as a scalar, and what to do."""
    words = "can't convert negative int to unsigned" if value < 0 else "int too big to convert"
    return (f"{words}: the integer {value} is outside [-2**63, 2**64), the ints taken as a "
            "scalar operand; pass it as a float (float(value)) instead")


def promote(a: dtype, b: dtype) -> dtype:
    """The dtype of a binary op between tensors of dtypes ``a`` and ``b``."""
    a_rank, b_rank = a._rank, b._rank
    if a_rank != b_rank:
        if a_rank == _FLOAT8_RANK or b_rank == _FLOAT8_RANK:
            raise RuntimeError(float8_promotion_error(a, b))
        wider = a if a_rank > b_rank else b
        if wider in UNSIGNED_SHELL or (wider.is_complex and (a in UNSIGNED_SHELL
                                                              or b in UNSIGNED_SHELL)):
            # only a real float wins over them without an error, as in PyTorch
            raise RuntimeError(shell_promotion_error(a, b))
        if wider is complex64 and (a is float64 or b is float64):
            return complex128  # the parts keep float64's precision
        return wider
    if a is b:
        return a
    if a_rank == _FLOAT8_RANK:  # two different float8 dtypes
        raise RuntimeError(float8_promotion_error(a, b))
    # uint8 with int8, float16 with bfloat16: the smallest type holding both
    return float32 if a.is_floating_point else int16


def float8_promotion_error(a: dtype, b: dtype) -> str:
    """PyTorch's refusal to promote a float8 dtype with any other dtype."""
    return (f"Promotion for Float8 Types is not supported, attempted to promote "
            f"{SCALAR_TYPE_NAMES[a]} and {SCALAR_TYPE_NAMES[b]}; convert the float8 operand "
            "first, e.g. with .float()")


def shell_promotion_error(a: dtype, b: dtype) -> str:
    """PyTorch's refusal to promote uint16/uint32/uint64 with another integer or bool dtype."""
    return (f"Promotion for uint16, uint32, uint64 types is not supported, attempted to "
            f"promote {SCALAR_TYPE_NAMES[a]} and {SCALAR_TYPE_NAMES[b]}; convert one operand "
            "first, e.g. with .to(torch.int64) or .double()")


def promote_tensors(a: dtype, a_is_0d: bool, b: dtype, b_is_0d: bool) -> dtype:
    """The dtype of a binary op between two tensors, 0-d ones counted as PyTorch does.

    A 0-d tensor (``torch.tensor(2.0, dtype=torch.float64)``) acts like a scalar next to a
    tensor with dimensions: it widens it only when it is of a higher kind (bool < integer <
    float < complex). So ``float32 * 0-d float64`` stays float32, but ``int64 * 0-d
    float64`` is float64 and ``bool + 0-d int64`` is int64. A 0-d complex makes a float
    tensor the complex of its own precision (``float32 * 0-d complex128`` is complex64) and
    an integer or bool one the 0-d tensor's dtype.
    """
    if a_is_0d == b_is_0d:
        return promote(a, b)
    dimensioned, zero_dim = (b, a) if a_is_0d else (a, b)
    if dimensioned.is_complex:
        return dimensioned
    if zero_dim.is_complex:
        return complex_of(dimensioned) if dimensioned.is_floating_point else zero_dim
    if dimensioned.is_floating_point:
        return dimensioned
    if dimensioned is bool_ or zero_dim.is_floating_point:
        return promote(dimensioned, zero_dim)
    return dimensioned  # integers: a 0-d integer never widens an integer tensor


def scalar_result(tensor_dtype: dtype, scalar) -> dtype:
    """The dtype of a binary op between a tensor and a Python scalar (PyTorch's rule).

    A scalar never widens a tensor of its own kind: ``float32 * 2.5`` stays float32, but an
    integer tensor times a float becomes the default float dtype. A complex scalar makes a
    float tensor the complex of its precision (``float64 * 1j`` is complex128) and an
    integer or bool one the default complex dtype.

    Raises:
        OverflowError for a Python int outside ``[-2 ** 63, 2 ** 64)``, whatever the tensor's
            dtype: PyTorch takes no wider int as a scalar (``float_tensor + 2 ** 70``).
        RuntimeError for a bool tensor with an int in ``[2 ** 63, 2 ** 64)`` (uint64 to
            PyTorch, which it does not promote).
    """
    if isinstance(scalar, bool):
        return tensor_dtype
    if isinstance(scalar, int) and not -2 ** 63 <= scalar < 2 ** 64:
        raise OverflowError(int_scalar_overflow(scalar))
    if isinstance(scalar, float) and not tensor_dtype.is_floating_point:
        return tensor_dtype if tensor_dtype.is_complex else get_default_dtype()
    if isinstance(scalar, int) and tensor_dtype is bool_:
        if scalar >= 2 ** 63:  # PyTorch would need uint64 for it, which it cannot promote
            raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                               f"attempted to promote Bool and UInt64 (the scalar {scalar} "
                               "does not fit int64); convert the bool tensor first, e.g. "
                               ".double()")
        return int64
    if isinstance(scalar, complex):  # after the real kinds: they stay as fast as before
        return complex_of(tensor_dtype)
    return tensor_dtype

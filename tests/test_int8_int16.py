"""The int8 (``torch.CharTensor``) and int16 (``torch.short``, ``torch.ShortTensor``)
dtypes against PyTorch: promotion with every other dtype, conversions, names, limits,
printing, saving, overflow rules of ``tensor()``, reductions, arithmetic, and Python ints
beyond an integer dtype in arithmetic (wrapped, as PyTorch does)."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import dtypes
from tests.devices import tensor_device

torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                            "test extra")

# every dtype we have but the uint16/32/64 shells, which refuse promotion (their own tests
# compare errors too: tests/test_unsigned_shell_dtypes.py)
NAMES = [d.name for d in dtypes.ALL if d not in dtypes.UNSIGNED_SHELL]
NEW = ["int8", "int16"]


def _pair(values, dtype: str, device="cpu"):
    """The same tensor in both frameworks."""
    return (mt.tensor(values, dtype=getattr(mt, dtype), device=device),
            torch.tensor(values, dtype=getattr(torch, dtype)))


def _same(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.cpu().tolist() == theirs.tolist()


# -- the dtype objects -----------------------------------------------------------------------
def test_the_dtypes_and_their_aliases():
    assert mt.int8 is dtypes.int8 and repr(mt.int8) == "torch.int8"
    assert mt.int16 is mt.short is dtypes.int16 and repr(mt.short) == "torch.int16"
    assert (mt.int8.itemsize, mt.int16.itemsize) == (1, 2)
    assert not mt.int8.is_floating_point and not mt.int16.is_floating_point
    assert dtypes.from_name("short") is mt.int16 and dtypes.to_dtype(np.int8) is mt.int8
    assert "int8" in mt.__all__ and "short" in mt.__all__ and "ShortTensor" in mt.__all__


@pytest.mark.parametrize("dtype", NEW)
def test_numpy_arrays_keep_the_new_dtypes(dtype, device):
    array = np.array([-3, 7], dtype=dtype)
    assert mt.tensor(array, device=device).dtype is getattr(mt, dtype)
    assert mt.from_numpy(array).dtype is getattr(mt, dtype)
    assert mt.tensor(array, device=device).is_signed()
    assert mt.tensor(array, device=device).device == tensor_device(device)


# -- promotion: every pair of our dtypes, exhaustively ----------------------------------------
def _promoted(module, a: str, b: str) -> str:
    """The promoted dtype, or the error's PyTorch part (a float8 with another dtype)."""
    try:
        return str(module.promote_types(getattr(module, a), getattr(module, b)))
    except RuntimeError as error:
        return str(error).split(";")[0]


def test_promote_types_equals_pytorchs_for_every_pair():
    wrong = [f"{a} {b}: {_promoted(mt, a, b)}" for a, b in itertools.product(NAMES, NAMES)
             if _promoted(mt, a, b) != _promoted(torch, a, b)]
    assert not wrong


def test_can_cast_equals_pytorchs_for_every_pair():
    wrong = [f"{a} -> {b}" for a, b in itertools.product(NAMES, NAMES)
             if mt.can_cast(getattr(mt, a), getattr(mt, b))
             != torch.can_cast(getattr(torch, a), getattr(torch, b))]
    assert not wrong


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((3,), ()), ((), (3,)), ((), ())],
                         ids=["1d-1d", "1d-0d", "0d-1d", "0d-0d"])
def test_binary_ops_promote_as_pytorch_with_0d_operands(shapes):
    """``a + b`` and ``result_type`` for every pair of dtypes, 0-d operands included."""
    wrong = []
    for a, b in itertools.product(NAMES, NAMES):
        if "float8" in a + b:
            continue  # no promotion and few kernels: tests/test_float8.py
        ours = [mt.ones(s, dtype=getattr(mt, d)) for d, s in zip((a, b), shapes)]
        theirs = [torch.ones(s, dtype=getattr(torch, d)) for d, s in zip((a, b), shapes)]
        expected = str(torch.result_type(*theirs))
        if expected == "torch.complex32":
            continue  # float16 with complex: complex64 here (docs/differences.md)
        got = (str(mt.result_type(*ours)), str((ours[0] * ours[1]).dtype))
        if got != (expected, expected):
            wrong.append(f"{a}{shapes[0]} {b}{shapes[1]}: {got} != {expected}")
    assert not wrong


@pytest.mark.parametrize("dtype", NEW)
@pytest.mark.parametrize("scalar", [3, -2.5, True])
def test_python_scalars_promote_as_pytorch(dtype, scalar):
    ours, theirs = _pair([1, -2], dtype)
    assert str(mt.result_type(ours, scalar)) == str(torch.result_type(theirs, scalar))
    _same(ours * scalar, theirs * scalar)


def test_int8_and_uint8_meet_in_int16_on_meta():
    a = mt.empty(2, 3, dtype=mt.int8, device="meta")
    assert (a + mt.empty(3, dtype=mt.uint8, device="meta")).dtype is mt.int16
    assert (a.short() * 2).dtype is mt.int16 and a.char().dtype is mt.int8


# -- conversions and names ---------------------------------------------------------------------
@pytest.mark.parametrize("method, dtype", [("char", "int8"), ("short", "int16")])
def test_char_and_short_convert_as_pytorch(method, dtype, device):
    for values, source in (([-1.75, 2.5, 100.0], "float32"), ([300, -200, 7], "int64"),
                           ([True, False], "bool")):
        ours, theirs = _pair(values, source, device)
        converted = getattr(ours, method)()
        _same(converted, getattr(theirs, method)())
        assert converted.device == tensor_device(device)


@pytest.mark.parametrize("dtype, name", [("int8", "Char"), ("int16", "Short")])
def test_type_names_and_legacy_constructors(dtype, name):
    t = mt.tensor([1, 2]).to(getattr(mt, dtype))
    assert t.type() == f"torch.{name}Tensor" == torch.tensor([1, 2]).to(
        getattr(torch, dtype)).type()
    assert mt.tensor([1.5]).type(f"torch.{name}Tensor").dtype is getattr(mt, dtype)
    legacy = getattr(mt, f"{name}Tensor")
    _same(legacy([1, -2]), getattr(torch, f"{name}Tensor")([1, -2]))
    assert legacy(2, 3).shape == (2, 3) and legacy(2, 3).dtype is getattr(mt, dtype)
    alias = legacy(t)
    alias[0] = 9  # the same storage
    assert t.tolist() == [9, 2]
    with pytest.raises(TypeError, match=f"expected a tensor of dtype torch.{dtype}"):
        legacy(mt.tensor([1.0]))


def test_type_name_on_meta():
    assert mt.empty(1, dtype=mt.int8, device="meta").type() == "torch.meta.CharTensor"


@pytest.mark.parametrize("dtype", NEW)
def test_iinfo_equals_pytorchs(dtype):
    ours, theirs = mt.iinfo(getattr(mt, dtype)), torch.iinfo(getattr(torch, dtype))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (theirs.bits, theirs.min, theirs.max,
                                                           theirs.dtype)
    assert repr(ours) == repr(theirs)
    with pytest.raises(TypeError, match="requires a floating point input type, got torch."):
        mt.finfo(getattr(mt, dtype))


@pytest.mark.parametrize("dtype", NEW)
@pytest.mark.parametrize("values", [[1, 2], [], 5, [[-128, 127], [0, -1]]],
                         ids=["vector", "empty", "0d", "matrix"])
def test_repr_equals_pytorchs(dtype, values):
    ours, theirs = _pair(values, dtype)
    assert repr(ours) == repr(theirs)


def test_repr_on_meta_names_the_dtype():
    assert repr(mt.empty(2, dtype=mt.int16, device="meta")) == (
        "tensor(..., device='meta', size=(2,), dtype=torch.int16)")


@pytest.mark.parametrize("dtype", NEW)
def test_save_and_load_round_trip(dtype, tmp_path):
    values = [[-128, 127], [0, -1]]
    mt.save({"t": mt.tensor(values, dtype=getattr(mt, dtype))}, tmp_path / "x.pt")
    loaded = mt.load(tmp_path / "x.pt")
    assert pickle.loads(pickle.dumps(getattr(mt, dtype))) is getattr(mt, dtype)
    assert loaded["t"].dtype is getattr(mt, dtype) and loaded["t"].tolist() == values


# -- tensor(): values out of range -------------------------------------------------------------
@pytest.mark.parametrize("values, dtype", [([300], "int8"), ([-129], "int8"), (128, "int8"),
                                           ([40000], "int16"), ([-32769], "int16"),
                                           ([127.9], "int8"), ([-32768.5], "int16"),
                                           ([1.7e10], "int8")])
def test_tensor_refuses_values_out_of_range_as_pytorch(values, dtype, device):
    with pytest.raises(RuntimeError, match=f"cannot be converted to type {dtype} without "
                                           "overflow"):
        torch.tensor(values, dtype=getattr(torch, dtype))
    with pytest.raises(RuntimeError, match=f"cannot be converted to type {dtype} without "
                                           "overflow: .* is outside"):
        mt.tensor(values, dtype=getattr(mt, dtype), device=device)


@pytest.mark.parametrize("values, dtype", [([-128, 127], "int8"), ([-32768, 32767], "int16"),
                                           ([-1.5, 126.9], "int8")])
def test_tensor_takes_the_limits(values, dtype, device):
    _same(*_pair(values, dtype, device))


def test_numpy_arrays_wrap_as_in_pytorch():
    _same(mt.tensor(np.array([300, -129]), dtype=mt.int8),
          torch.tensor(np.array([300, -129]), dtype=torch.int8))


# -- reductions and arithmetic -----------------------------------------------------------------
@pytest.mark.parametrize("dtype", NEW)
@pytest.mark.parametrize("reduce", ["sum", "prod", "cumsum", "max", "argmax", "amin"])
def test_reductions_as_pytorch(dtype, reduce, device):
    ours, theirs = _pair([[100, 120, -7], [127, 3, -100]], dtype, device)
    kwargs = {"dim": 0} if reduce == "cumsum" else {}
    _same(getattr(ours, reduce)(**kwargs), getattr(theirs, reduce)(**kwargs))
    if reduce in ("sum", "prod"):  # sum and prod of small integers are int64, as PyTorch
        assert getattr(ours, reduce)(dim=1).dtype is mt.int64


@pytest.mark.parametrize("dtype", NEW)
def test_mean_of_an_integer_dtype_is_refused(dtype):
    with pytest.raises(RuntimeError):
        torch.ones(2, dtype=getattr(torch, dtype)).mean()
    with pytest.raises(RuntimeError, match=f"got dtype torch.{dtype}; convert it with"):
        mt.ones(2, dtype=getattr(mt, dtype)).mean()


BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "floor_divide": lambda a, b: a // b, "remainder": lambda a, b: a % b,
    "fmod": lambda a, b: a.fmod(b), "div": lambda a, b: a / b, "lt": lambda a, b: a < b,
    "eq": lambda a, b: a == b, "maximum": lambda a, b: a.maximum(b),
    "bitwise_and": lambda a, b: a & b, "bitwise_xor": lambda a, b: a ^ b,
}


#: left operands (at the ends of each range) and divisors (no zero) of each dtype
LEFT = {"int8": [100, -7, 127, -128, 0], "int16": [32767, -7, 300, -32768, 0],
        "uint8": [100, 7, 255, 128, 0], "bool": [True, False, True, False, False]}
RIGHT = {"int8": [3, 2, -1, 5, -128], "int16": [3, -2, 300, 5, 7], "uint8": [3, 2, 1, 255, 7],
         "int32": [3, -2, 1, 5, 7], "float16": [3.0, -2.0, 0.5, 5.0, 7.0], "bool": [True] * 5}


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("a_dtype, b_dtype", [("int8", "int8"), ("int16", "int16"),
                                              ("int8", "uint8"), ("uint8", "int8"),
                                              ("int16", "int8"), ("int8", "int32"),
                                              ("int16", "float16"), ("bool", "int8"),
                                              ("int16", "bool")])
def test_binary_ops_as_pytorch(op, a_dtype, b_dtype, device):
    """Values and dtypes, wrapping on overflow (100 * 3 in int8 is 44); where PyTorch
    refuses (bitwise ops of floats, bool - int8), a RuntimeError too."""
    a, b = _pair(LEFT[a_dtype], a_dtype, device), _pair(RIGHT[b_dtype], b_dtype, device)
    try:
        expected = BINARY[op](a[1], b[1])
    except RuntimeError:
        with pytest.raises(RuntimeError):
            BINARY[op](a[0], b[0])
        return
    _same(BINARY[op](a[0], b[0]), expected)


@pytest.mark.parametrize("dtype", NEW)
@pytest.mark.parametrize("op", ["neg", "abs", "sign", "bitwise_not", "float", "exp"])
def test_unary_ops_as_pytorch(dtype, op, device):
    ours, theirs = _pair([-128, -3, 0, 5, 127], dtype, device)
    result_ours, result_theirs = getattr(ours, op)(), getattr(theirs, op)()
    assert str(result_ours.dtype) == str(result_theirs.dtype)
    np.testing.assert_allclose(result_ours.cpu().numpy(), result_theirs.numpy(), rtol=1e-6)


# -- Python ints beyond an integer dtype: wrapped, as PyTorch --------------------------------
SCALAR_CALLS = {
    "uint8_add__minus_1": ("uint8", lambda t: t.add_(-1)),
    "uint8_sub__257": ("uint8", lambda t: t.sub_(257)),
    "uint8_mul_300": ("uint8", lambda t: t * 300),
    "uint8_rsub_300": ("uint8", lambda t: 300 - t),
    "uint8_lt_300": ("uint8", lambda t: t < 300),
    "uint8_eq_356": ("uint8", lambda t: t == 356),
    "uint8_and_257": ("uint8", lambda t: t & 257),
    "uint8_remainder_minus_3": ("uint8", lambda t: t % -3),
    "int8_add_300": ("int8", lambda t: t + 300),
    "int8_iadd_minus_200": ("int8", lambda t: t.__iadd__(-200)),
    "int8_add_alpha_minus_128": ("int8", lambda t: t.add(1, alpha=-128)),
    "int8_add__300_alpha_2": ("int8", lambda t: t.add_(300, alpha=2)),
    "int16_mul_70000": ("int16", lambda t: t * 70000),
    "int32_add_2_40": ("int32", lambda t: t + 2 ** 40 + 1),
    "int64_add_2_63": ("int64", lambda t: t + 2 ** 63),
    "int8_floor_divide_minus_255": ("int8", lambda t: t // -255),
    "uint8_add_alpha_minus_255": ("uint8", lambda t: t.add(t, alpha=-255)),
}


@pytest.mark.parametrize("label", list(SCALAR_CALLS))
def test_python_ints_beyond_the_dtype_wrap_as_pytorch(label, device):
    dtype, call = SCALAR_CALLS[label]
    ours, theirs = _pair([1, 100, 0, 2], dtype, device)
    _same(call(ours), call(theirs))


@pytest.mark.parametrize("dtype, divisor", [("uint8", 256), ("int8", -256), ("int16", 65536)])
@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod"])
def test_a_divisor_that_wraps_to_zero_is_a_division_by_zero(dtype, divisor, op, device):
    ours, theirs = _pair([1, 2], dtype, device)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(theirs, op)(divisor)
    with pytest.raises(RuntimeError, match="ZeroDivisionError: .*integer division by zero"):
        getattr(ours, op)(divisor)


@pytest.mark.parametrize("value", [2 ** 64, -2 ** 63 - 1, 2 ** 100])
def test_ints_pytorch_cannot_take_raise_overflow_error(value, device):
    ours, theirs = _pair([1, 2], "int8", device)
    with pytest.raises(OverflowError):
        theirs + value
    with pytest.raises(OverflowError, match=r"outside \[-2\*\*63, 2\*\*64\)"):
        ours + value


@pytest.mark.parametrize("dtype, alpha", [("uint8", 256), ("uint8", -256), ("int8", 128),
                                          ("int16", -32769)])
def test_an_alpha_the_dtype_cannot_hold_is_refused(dtype, alpha, device):
    ours, theirs = _pair([1, 2], dtype, device)
    with pytest.raises(RuntimeError, match="without overflow"):
        theirs.add(theirs, alpha=alpha)
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type torch.{dtype} "
                                           f"without overflow \\(alpha={alpha}"):
        ours.add(ours, alpha=alpha)
    with pytest.raises(RuntimeError, match="without overflow"):
        ours.sub_(1, alpha=alpha)


def test_the_float_path_is_unchanged(device):
    ours, theirs = _pair([1.5, -2.0], "float32", device)
    _same(ours.add_(2 ** 40), theirs.add_(2 ** 40))
    _same(ours.add_(1.0), theirs.add_(1.0))


@pytest.mark.parametrize("dtype", NEW)
def test_index_tensors_of_the_new_dtypes_as_pytorch(dtype, device):
    """Refused with dims (IndexError, as PyTorch); a 0-d one is an int."""
    x = mt.arange(6.0, device=device)
    with pytest.raises(IndexError):
        torch.arange(6.0)[torch.tensor([0, 1], dtype=getattr(torch, dtype))]
    with pytest.raises(IndexError, match=f"must be long, int or bool tensors, got torch.{dtype}"):
        x[mt.tensor([0, 1], dtype=getattr(mt, dtype), device=device)]
    with pytest.raises(IndexError, match=f"got torch.{dtype}"):
        x[mt.tensor([0, 1], dtype=getattr(mt, dtype), device=device)] = 2.0
    assert x[mt.tensor(4, dtype=getattr(mt, dtype), device=device)].item() == 4.0

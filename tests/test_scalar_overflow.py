"""A Python int PyTorch cannot take as a scalar operand is refused on every dtype.

PyTorch's argument parser converts an int scalar through a 64-bit integer, so any int
outside ``[-2 ** 63, 2 ** 64)`` raises ``OverflowError`` whatever the tensor's dtype (a
float tensor too, where NumPy would happily compute), with one of two messages by sign.
"""

from __future__ import annotations

import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]
CALLS = {
    "add": lambda x, v: x + v,
    "reflected add": lambda x, v: v + x,
    "mul": lambda x, v: x * v,
    "eq": lambda x, v: x == v,
    "masked_fill": lambda x, v: x.masked_fill(x.bool(), v),
}


@pytest.mark.parametrize("value, words", [(2 ** 70, "int too big to convert"),
                                          (2 ** 64, "int too big to convert"),
                                          (-2 ** 63 - 1, "can't convert negative int to unsigned"),
                                          (-2 ** 70, "can't convert negative int to unsigned")])
@pytest.mark.parametrize("call", list(CALLS), ids=list(CALLS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_an_int_beyond_64_bits_raises_pytorchs_overflow_error(dtype, call, value, words,
                                                              device):
    fn = CALLS[call]
    with pytest.raises(OverflowError, match=words):
        fn(torch.ones(3, dtype=getattr(torch, dtype)), value)
    with pytest.raises(OverflowError, match=words) as info:
        fn(mt.ones(3, dtype=getattr(mt, dtype), device=device), value)
    assert f"the integer {value} is outside [-2**63, 2**64)" in str(info.value)


def test_the_check_runs_on_meta_too():
    with pytest.raises(OverflowError, match="int too big to convert"):
        mt.ones(3, device="meta") + 2 ** 70


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
@pytest.mark.parametrize("value", [2 ** 63, 2 ** 64 - 1, -2 ** 63])
def test_the_ints_at_the_edges_are_taken(dtype, value, device):
    ours = mt.ones(3, dtype=getattr(mt, dtype), device=device) + value
    theirs = torch.ones(3, dtype=getattr(torch, dtype)) + value
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.cpu().tolist() == theirs.tolist()


def test_a_bool_tensor_refuses_an_int_only_uint64_holds(device):
    message = "Promotion for uint16, uint32, uint64 types is not supported"
    with pytest.raises(RuntimeError, match=message):
        torch.ones(2, dtype=torch.bool) + 2 ** 63
    with pytest.raises(RuntimeError, match=message):
        mt.ones(2, dtype=mt.bool, device=device) + 2 ** 63
    assert (mt.ones(2, dtype=mt.bool, device=device) + (2 ** 63 - 1)).dtype is mt.int64


def test_a_float_still_works_for_a_big_number(device):
    assert (mt.ones(2, device=device) + float(2 ** 70)).cpu().tolist() == \
        (torch.ones(2) + float(2 ** 70)).tolist()

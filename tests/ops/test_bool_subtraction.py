"""Subtraction refuses bool operands as PyTorch does (tensors, and a Python bool next to a
bool tensor), with PyTorch's message, on every device; other dtypes subtract as before."""

from __future__ import annotations

import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch", reason="PyTorch is the reference: pip install torch")

CASES = {  # each builds ``a - b`` in one library, on a device (ours) or PyTorch's CPU
    "bool - bool": lambda T, d: T.ones(2, dtype=T.bool, device=d) - T.ones(2, dtype=T.bool,
                                                                          device=d),
    "float - bool": lambda T, d: T.ones(2, device=d) - T.ones(2, dtype=T.bool, device=d),
    "bool - int64": lambda T, d: T.ones(2, dtype=T.bool, device=d) - T.ones(2, dtype=T.int64,
                                                                           device=d),
    "bool - 1": lambda T, d: T.ones(2, dtype=T.bool, device=d) - 1,
    "1 - bool": lambda T, d: 1 - T.ones(2, dtype=T.bool, device=d),
    "bool - True": lambda T, d: T.ones(2, dtype=T.bool, device=d) - True,
    "float - True": lambda T, d: T.sub(T.ones(2, device=d), True),
    "rsub(bool, 1)": lambda T, d: T.rsub(T.ones(2, dtype=T.bool, device=d), 1),
    "float.sub_(bool)": lambda T, d: T.ones(2, device=d).sub_(T.ones(2, dtype=T.bool,
                                                                     device=d)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bool_operands_are_refused_with_pytorchs_message(name, any_device):
    with pytest.raises(RuntimeError) as theirs:
        CASES[name](torch, "cpu")
    with pytest.raises(RuntimeError) as ours:
        CASES[name](mt, any_device)
    assert str(ours.value) == str(theirs.value)


def test_other_dtypes_still_subtract(device):
    assert (mt.ones(2, dtype=mt.int64, device=device) - 1).tolist() == [0, 0]
    assert (3 - mt.ones(2, device=device)).tolist() == [2.0, 2.0]
    assert mt.sub(mt.ones(2, dtype=mt.uint8, device=device), 1).tolist() == [0, 0]

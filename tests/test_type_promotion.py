"""Type promotion between two tensors, 0-d ones included, equals PyTorch's ``result_type``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")

DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64"]
SHAPES = {"0-d": (), "1-d": (3,)}
OPS = {
    "add": lambda T, a, b: a + b,
    "mul": lambda T, a, b: a * b,
    "maximum": lambda T, a, b: T.maximum(a, b),
    "lt": lambda T, a, b: a < b,  # bool out, but the comparison runs in the promoted dtype
    "where": lambda T, a, b: T.where(T.ones(3, dtype=T.bool), a, b),
}


def _make(lib, dtype: str, shape):
    return lib.tensor(np.ones(shape, dtype=dtype if dtype != "bool" else np.bool_) * 1,
                      dtype=getattr(lib, dtype))


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("a_shape, b_shape", [("1-d", "0-d"), ("0-d", "1-d"), ("0-d", "0-d"),
                                              ("1-d", "1-d")])
def test_binary_result_dtype_equals_pytorchs(op, a_shape, b_shape):
    failures = []
    for a_dtype, b_dtype in itertools.product(DTYPES, DTYPES):
        args = [(a_dtype, SHAPES[a_shape]), (b_dtype, SHAPES[b_shape])]
        try:
            expected = str(OPS[op](torch, *(_make(torch, d, s) for d, s in args)).dtype)
        except RuntimeError:
            continue  # PyTorch has no kernel for it (e.g. bool - bool): not compared
        got = str(OPS[op](mt, *(_make(mt, d, s) for d, s in args)).dtype)
        if got != expected:
            failures.append(f"{a_dtype} {a_shape} {op} {b_dtype} {b_shape}: {got} != {expected}")
    assert not failures, "\n".join(failures)


def test_a_0d_float64_does_not_widen_a_float32_batch_but_its_value_is_used():
    x = mt.tensor([1.0, 2.0])
    y = x * mt.tensor(0.5, dtype=mt.float64)
    assert y.dtype is mt.float32
    np.testing.assert_array_equal(y.numpy(), [0.5, 1.0])

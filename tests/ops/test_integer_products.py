"""Matrix products of integer and bool tensors, against PyTorch: integers multiply (and
wrap as PyTorch's do), bool operands raise PyTorch's error naming its kernel
(except `einsum`, which computes bool contractions: docs/differences.md)."""

import numpy as np
import pytest

import minitorch_meta as mt

# (name, call(lib, matrix, vector)) for every product PyTorch refuses for bool operands
BOOL_REFUSED = [
    ("mm", lambda lib, m, v: lib.mm(m, m)),
    ("mv", lambda lib, m, v: lib.mv(m, v)),
    ("dot", lambda lib, m, v: lib.dot(v, v)),
    ("vdot", lambda lib, m, v: lib.vdot(v, v)),
    ("bmm", lambda lib, m, v: lib.bmm(m[None], m[None])),
    ("addmm", lambda lib, m, v: lib.addmm(m, m, m)),
    ("addmv", lambda lib, m, v: lib.addmv(v, m, v)),
    ("baddbmm", lambda lib, m, v: lib.baddbmm(m[None], m[None], m[None])),
    ("addbmm", lambda lib, m, v: lib.addbmm(m, m[None], m[None])),
    ("matmul 1-D", lambda lib, m, v: lib.matmul(v, v)),
    ("matmul 2-D @ 1-D", lambda lib, m, v: lib.matmul(m, v)),
    ("matmul 1-D @ 2-D", lambda lib, m, v: lib.matmul(v, m)),
    ("matmul 3-D @ 2-D", lambda lib, m, v: lib.matmul(m[None], m)),
    ("matmul 2-D @ 3-D", lambda lib, m, v: lib.matmul(m, m[None])),
    ("@", lambda lib, m, v: m @ m),
    ("inner", lambda lib, m, v: lib.inner(m, m)),
    ("tensordot", lambda lib, m, v: lib.tensordot(m, m, 1)),
    ("multi_dot", lambda lib, m, v: lib.linalg.multi_dot([m, m])),
    ("matrix_power", lambda lib, m, v: lib.linalg.matrix_power(m, 3)),
]


def _operands(lib, device=None):
    kwargs = {} if device is None else {"device": device}
    matrix = lib.tensor([[True, False], [True, True]], **kwargs)
    return matrix, matrix[0].clone()


@pytest.mark.parametrize("name,call", BOOL_REFUSED, ids=[n for n, _ in BOOL_REFUSED])
def test_bool_products_raise_pytorchs_error(name, call, device, torch_ref):
    with pytest.raises(NotImplementedError) as theirs:
        call(torch_ref, *_operands(torch_ref))
    with pytest.raises(NotImplementedError) as ours:
        call(mt, *_operands(mt, device))
    kernel = str(theirs.value).split(" not implemented")[0]  # '"addmm_impl_cpu_"'
    assert str(ours.value).startswith(f"{kernel} not implemented for 'Bool'")
    assert "convert the operands" in str(ours.value)


@pytest.mark.parametrize("name,call", [
    ("outer", lambda lib, m, v: lib.outer(v, v)),
    ("addr", lambda lib, m, v: lib.addr(m, v, v)),
    ("einsum of one operand", lambda lib, m, v: lib.einsum("ij->", m)),
    ("matrix_power 0", lambda lib, m, v: lib.linalg.matrix_power(m, 0)),
    ("matrix_power 1", lambda lib, m, v: lib.linalg.matrix_power(m, 1)),
], ids=lambda x: x if isinstance(x, str) else "")
def test_bool_ops_pytorch_computes_still_compute(name, call, device, torch_ref):
    expected = call(torch_ref, *_operands(torch_ref))
    got = call(mt, *_operands(mt, device))
    assert got.dtype.name == str(expected.dtype).removeprefix("torch.")
    assert got.cpu().tolist() == expected.tolist()


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6])
def test_matrix_power_of_integers_matches_pytorch(dtype, n, device, torch_ref):
    values = [[1, 2], [3, 4]]  # n = 5 overflows the 8-bit types: both wrap alike
    expected = torch_ref.linalg.matrix_power(
        torch_ref.tensor(values, dtype=getattr(torch_ref, dtype)), n)
    got = mt.linalg.matrix_power(mt.tensor(values, dtype=getattr(mt, dtype), device=device), n)
    assert got.dtype is getattr(mt, dtype)
    np.testing.assert_array_equal(got.cpu().numpy(), expected.numpy())


def test_matrix_power_of_integers_refuses_negative_powers(device):
    with pytest.raises(RuntimeError, match="linalg.inv: Expected a floating point"):
        mt.linalg.matrix_power(mt.tensor([[1, 2], [3, 4]], device=device), -1)


def test_bool_refusal_is_a_shape_rule_so_meta_raises_too():
    matrix = mt.ones(2, 2, dtype=mt.bool, device="meta")
    with pytest.raises(NotImplementedError, match='"addmm_impl_cpu_" not implemented'):
        matrix.mm(matrix)

"""einsum: equations (explicit, implicit, ellipsis, diagonals, broadcasting), the three call
forms, gradients, integer dtypes, and PyTorch's error messages."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests


def _einsum(equation, *shapes, kind="normal"):
    """A case calling ``T.einsum(equation, *operands)`` on operands of ``shapes``."""
    return Case(f"einsum[{equation}]", lambda T, F, *xs: T.einsum(equation, *xs),
                [Arg(s, kind) for s in shapes])


CASES = [
    _einsum("ij,jk->ik", (2, 3), (3, 4)),
    _einsum("ij,jk", (2, 3), (3, 4)),                    # implicit output
    _einsum("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
    _einsum("...ij,...jk", (2, 1, 3, 4), (5, 4, 6)),     # ellipsis dims broadcast
    _einsum("...ij,...jk->ik", (2, 1, 3, 4), (5, 4, 6)),  # ... summed out
    _einsum("...ij,jk->...ik", (2, 3, 4), (4, 6)),
    _einsum("i...j->j...i", (2, 3, 4, 5)),               # ellipsis in the middle
    _einsum("...i->i", (2, 1, 3)),
    _einsum("...,...", (2, 3), (1, 3)),
    _einsum("ii", (3, 3)),                               # trace
    _einsum("ii->i", (3, 3)),                            # diagonal
    _einsum("iij->ij", (3, 3, 2)),
    _einsum("iji->j", (3, 2, 3)),
    _einsum("ii,i->i", (3, 3), (3,)),
    _einsum("iij,k->ik", (3, 3, 2), (4,)),               # a diagonal and a summed dim
    _einsum("ij->ji", (2, 3)),
    _einsum("ij->", (2, 3)),
    _einsum("ij->j", (2, 3)),
    _einsum("i,j->ij", (3,), (4,)),                      # outer product
    _einsum("i,i", (5,), (5,)),                          # dot product
    _einsum("bn,anm,bm->ba", (2, 3), (4, 3, 5), (2, 5)),  # bilinear, three operands
    _einsum("ij,ij->ij", (2, 1), (2, 3)),                # a labelled dim broadcasts
    _einsum("ij,ij->i", (2, 1), (2, 3)),
    _einsum("ii,ij->j", (1, 1), (3, 2)),                 # a broadcast diagonal
    _einsum("ij,->ij", (2, 3), ()),                      # a 0-d operand
    _einsum("", ()),
    _einsum("...", ()),
    _einsum("Ab,bA", (2, 3), (3, 2)),                    # upper case sorts first
    _einsum("bA,c", (2, 3), (4,)),
    _einsum(" i j , j k -> k i ", (2, 3), (3, 4)),      # spaces are ignored
    _einsum("ij,jk->ik", (2, 0), (0, 4)),                # an empty contraction: zeros
    _einsum("ij,jk->ik", (0, 3), (3, 4)),
    Case("einsum_operand_list", lambda T, F, a, b: T.einsum("ij,jk->ik", [a, b]),
         [Arg((2, 3)), Arg((3, 4))]),
    Case("einsum_operand_tuple", lambda T, F, a: T.einsum("ij->j", (a,)), [Arg((2, 3))]),
    Case("einsum_sublists", lambda T, F, a, b: T.einsum(a, [0, 1], b, [1, 27], [27, 0]),
         [Arg((2, 3)), Arg((3, 4))]),
    Case("einsum_sublists_implicit_ellipsis",
         lambda T, F, a, b: T.einsum(a, [..., 0], b, [0, 1]), [Arg((2, 5, 3)), Arg((3, 4))]),
    Case("einsum_same_operand_twice", lambda T, F, a: T.einsum("ij,ij->i", a, a),
         [Arg((3, 4))]),
    Case("einsum_constant_operand", lambda T, F, a, b: T.einsum("ij,jk->ik", a, b),
         [Arg((2, 3)), Arg((3, 4), grad=False)]),
    Case("einsum_then_sum", lambda T, F, a, b: T.einsum("bi,bi->b", a, b).sum(),
         [Arg((4, 3)), Arg((4, 3))]),
    _einsum("ij,jk->ik", (2, 3), (3, 4), kind="int:4"),
    _einsum("ij->", (2, 3), kind="int:4"),
]

# PyTorch composes einsum of other ops (its grad_fn is a Bmm, a View, a Sum...); ours is
# one op, EinsumBackward0 (docs/differences.md). Values and gradients are compared.
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs={c.id for c in CASES})


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def test_grad_fn_name_and_repr():
    a = mt.ones(2, 3, requires_grad=True)
    assert mt.einsum("ij->j", a).grad_fn.name() == "EinsumBackward0"


# (equation, shapes) -> int dtypes as PyTorch gives them: a summed subscript that only one
# operand has is summed with ``sum``, which widens to int64
INTEGER_CASES = [
    ("ij->", [(2, 3)]), ("ij->i", [(2, 3)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]),
    ("ij", [(2, 3)]), ("ij->ji", [(2, 3)]), ("i,i", [(3,), (3,)]), ("ij,jk", [(2, 3), (3, 4)]),
    ("ij,k", [(2, 3), (4,)]), ("ij,j", [(2, 3), (3,)]), ("ij,k->i", [(2, 3), (4,)]),
    ("ij,k->ik", [(2, 3), (4,)]), ("i,j,k", [(2,), (3,), (4,)]),
    ("ij,jk,kl", [(2, 3), (3, 4), (4, 5)]), ("ij,ij->ij", [(2, 1), (2, 3)]),
    ("ij,ij->i", [(2, 1), (2, 3)]), ("ij->i", [(2, 1)]), ("i->", [(1,)]),
    ("i,i->", [(1,), (1,)]), ("ij,jk", [(2, 0), (0, 4)]), ("ij->", [(0, 3)]),
    # a size-1 subscript of several operands is squeezed, not summed: no widening
    ("ij,i->i", [(2, 1), (2,)]), ("ij,k->i", [(2, 3), (1,)]), ("ij,ik->i", [(2, 1), (2, 1)]),
]


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
@pytest.mark.parametrize("equation, shapes", INTEGER_CASES,
                         ids=[f"{e}-{s}" for e, s in INTEGER_CASES])
def test_integer_dtypes_and_values_as_torch(equation, shapes, dtype, device):
    torch = _torch()
    rng = np.random.default_rng(0)
    arrays = [rng.integers(0, 4, s).astype(dtype) for s in shapes]
    ours = mt.einsum(equation, *[mt.tensor(a, device=device) for a in arrays])
    theirs = torch.einsum(equation, *[torch.tensor(a) for a in arrays])
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


@pytest.mark.parametrize("equation, shapes, dtype", [
    ("ij,jk->i", [(2, 3), (3, 4)], mt.int64),  # PyTorch fails (int64 meets int32 in bmm)
    ("ij,j->", [(2, 3), (3,)], mt.int64),
    ("ij,jk", [(2, 3), (3, 4)], mt.bool),      # PyTorch's bmm has no bool kernel
])
def test_integer_equations_torch_cannot_run(equation, shapes, dtype):
    operands = [mt.ones(*s, dtype=mt.int32 if dtype is mt.int64 else mt.bool) for s in shapes]
    assert mt.einsum(equation, *operands).dtype is dtype


def test_the_result_is_never_a_view_of_an_operand(device):
    x = mt.arange(9.0, device=device).reshape(3, 3)
    for equation in ("ij->ji", "ii->i", "ij->ij", "ij"):
        with mt.no_grad():
            mt.einsum(equation, x).add_(100.0)
    assert x.tolist() == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]


def test_no_floating_point_warning_from_the_new_ops():
    script = """
import minitorch_meta as mt
inf = float("inf")
x = mt.tensor([[inf, 0.0, -inf], [0.0, 0.0, 2.0]], requires_grad=True)
(x.prod() + x.prod(1).sum() + x.cumsum(1).sum() + x.logsumexp(1).sum()
 + mt.einsum("ij,ij->", x, x) + mt.einsum("ij->", x)).backward()
assert str(mt.einsum("i,i", mt.tensor([inf, 1.0]), mt.tensor([0.0, 1.0])).item()) == "nan"
"""
    done = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", script],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_huge_meta_einsum_runs_without_data():
    a = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    b = mt.empty(2**10, 2**30, device="meta", requires_grad=True)
    mt.einsum("ijk,kl->il", a, b)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        out = mt.einsum("...jk,kl->...l", a, b)
        diagonal = mt.einsum("iik->ik", a)
        (out.sum() + diagonal.sum()).backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.shape == (2**20, 2**30) and diagonal.shape == (2**20, 2**10)
    assert a.grad.shape == a.shape and b.grad.shape == b.shape and b.grad.is_meta
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


# (equation, operand shapes, message): the same message on cpu and meta, and PyTorch's
ERRORS = [
    ("ij,jk->ik", [(2, 3)],
     "einsum(): fewer operands were provided than specified in the equation"),
    ("ij,jk->ik", [(2, 3), (3, 4), (3,)],
     "einsum(): more operands were provided than specified in the equation"),
    ("ij->ik", [(2, 3)],
     "einsum(): output subscript k does not appear in the equation for any input operand"),
    ("ij,jk->iik", [(2, 3), (3, 4)],
     "einsum(): output subscript i appears more than once in the output"),
    ("i1,jk->ik", [(2, 3), (3, 4)], "einsum(): invalid subscript given at index 1 in the "
     "equation string, subscripts must be in [a-zA-Z]"),
    ("ij->i->j", [(2, 3)], "einsum(): invalid subscript given at index 5 in the equation "
     "string, subscripts must be in [a-zA-Z]"),
    ("ijk,jk->ik", [(2, 3), (3, 4)], "einsum(): the number of subscripts in the equation (3) "
     "does not match the number of dimensions (2) for operand 0 and no ellipsis was given"),
    ("ijk...,k", [(2, 3), (3,)], "einsum(): the number of subscripts in the equation (3) is "
     "more than the number of dimensions (2) for operand 0"),
    ("ij,jk->ik", [(2, 3), (2, 4)], "einsum(): subscript j has size 2 for operand 1 which "
     "does not broadcast with previously seen size 3"),
    ("ij,ij->ij", [(2, 0), (2, 3)], "einsum(): subscript j has size 3 for operand 1 which "
     "does not broadcast with previously seen size 0"),
    ("ii->i", [(3, 2)], "einsum(): subscript i is repeated for operand 0 but the sizes "
     "don't match, 2 != 3"),
    ("i..j,jk", [(2, 3), (3, 4)],
     "einsum(): found '.' for operand 0 that is not part of any ellipsis"),
    ("i...j...,jk", [(2, 3), (3, 4)],
     "einsum(): found '.' for operand 0 for which an ellipsis was already found"),
    ("ij->i.", [(2, 3)],
     "einsum(): found '.' for output that is not part of any ellipsis (...)"),
    ("...ij->......", [(2, 3)],
     "einsum(): found '.' for output but an ellipsis (...) was already found"),
    ("ij,,->ij", [(2, 3), ()],
     "einsum(): fewer operands were provided than specified in the equation"),
]
# PyTorch's message misses a space ("operand 1has"); ours has it
ELLIPSIS_ERRORS = [
    ("...ij,...jk", [(2, 3, 3, 4), (5, 4, 6)], "einsum(): dimension 0 covered by ellipsis in "
     "operand 1 has size 5 which does not broadcast with previously seen ellipsis with size "
     "3 for the respective dimension"),
    ("...,...", [(2, 3), (2, 4)], "einsum(): dimension 1 covered by ellipsis in operand 1 has "
     "size 4 which does not broadcast with previously seen ellipsis with size 3 for the "
     "respective dimension"),
]


@pytest.mark.parametrize("equation, shapes, message", ERRORS + ELLIPSIS_ERRORS)
def test_errors_same_on_cpu_and_meta(equation, shapes, message):
    for device in ("cpu", "meta"):
        operands = [mt.ones(*s, device=device) for s in shapes]
        with pytest.raises(RuntimeError) as info:
            mt.einsum(equation, *operands)
        assert str(info.value) == message, device


@pytest.mark.parametrize("equation, shapes, message", ERRORS + ELLIPSIS_ERRORS)
def test_errors_are_torchs(equation, shapes, message):
    torch = _torch()
    with pytest.raises(RuntimeError) as info:
        torch.einsum(equation, *[torch.ones(s) for s in shapes])
    assert str(info.value).split("\n")[0] == message.replace("operand 1 has", "operand 1has")


@pytest.mark.parametrize("call, error, message", [
    (lambda a: mt.einsum("ij"), ValueError, "einsum(): must specify the equation string and "
     "at least one operand, or at least one operand and its subscripts list"),
    (lambda a: mt.einsum(), ValueError, "einsum(): must specify the equation string"),
    (lambda a: mt.einsum("ij", []), ValueError, "einsum(): must specify the equation string"),
    (lambda a: mt.einsum(3, a), TypeError,
     "einsum(): argument 'equation' (position 1) must be str, not int"),
    (lambda a: mt.einsum("ij,jk", a, 3), TypeError,
     "einsum(): expected Tensor as element 1 in argument 1 (the operands), but got int"),
    (lambda a: mt.einsum("ij,jk", [a], a), TypeError,
     "einsum(): expected Tensor as element 0 in argument 1 (the operands), but got list"),
    (lambda a: mt.einsum(a, [0, 52]), ValueError, "einsum(): subscript in subscript list is "
     "not within the valid range [0, 52), got 52"),
    (lambda a: mt.einsum("ij,jk", a, a.long()), RuntimeError,
     "einsum(): expected all operands to have the same dtype, but operand 0 is torch.float32 "
     "and operand 1 is torch.int64; convert them with .to(torch.float32) or "
     ".to(torch.int64)"),
    (lambda a: mt.einsum("ij,jk", a, a.to("meta")), mt.DeviceError,
     "einsum: expected all tensors on the same device"),
])
def test_argument_errors(call, error, message):
    with pytest.raises(error) as info:
        call(mt.ones(3, 3))
    assert str(info.value).startswith(message)


def test_too_many_ellipsis_dims_for_the_letters_left():
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY"  # 51 of 52 used
    x = mt.empty(*([1] * 53), device="meta")
    with pytest.raises(RuntimeError, match="einsum\\(\\): the ellipsis covers 2 dims but only "
                                           "1 letters are left unused by the equation"):
        mt.einsum(letters + "...", x)

"""Bit shifts (and ``<<``/``>>``), ``gcd``/``lcm``, ``nextafter``, ``frexp``, ``ldexp``,
``dist`` and ``Tensor.sum_to_size``, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")

CASES = [
    Case("ldexp", lambda T, F, x, e: T.ldexp(x, e), [Arg((3, 4)), Arg((3, 4), "int:5")]),
    Case("ldexp_float_exponent", lambda T, F, x, e: x.ldexp(e), [Arg((3, 4)), Arg((4,))]),
    Case("frexp", lambda T, F, x: T.frexp(x)[0], [Arg((3, 4), "away0")]),
    Case("frexp_method", lambda T, F, x: x.frexp().mantissa * 2, [Arg((5,), "away0")]),
    Case("nextafter", lambda T, F, x, y: T.nextafter(x, y), [Arg((3, 4)), Arg((4,))]),
    Case("dist_2", lambda T, F, x, y: T.dist(x, y), [Arg((3, 4)), Arg((4,))]),
    Case("dist_1", lambda T, F, x, y: T.dist(x, y, 1), [Arg((3, 4), "away0"),
                                                         Arg((3, 4), "away0", grad=False)]),
    Case("dist_3", lambda T, F, x, y: x.dist(y, p=3), [Arg((2, 3)), Arg((2, 3))]),
    Case("dist_inf", lambda T, F, x, y: T.dist(x, y, float("inf")),
         [Arg((6,), "distinct"), Arg((6,), grad=False)]),
    Case("sum_to_size_keep", lambda T, F, x: x.sum_to_size(1, 4), [Arg((3, 4))]),
    Case("sum_to_size_lead", lambda T, F, x: x.sum_to_size((3, 1)), [Arg((2, 3, 4))]),
    Case("sum_to_size_drop", lambda T, F, x: x.sum_to_size(4), [Arg((2, 3, 4))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _ints(lib, values, dtype, device=None):
    kwargs = {"device": device} if lib is mt else {}
    return lib.tensor(values, dtype=getattr(lib, dtype), **kwargs)


SHIFTED = [1, -8, 3, 5, 0, -1, 7, 100]
COUNTS = [1, 2, 64, 70, 0, 9, -1, 7]


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_shifts_equal_torch_in_and_out_of_range(dtype, device):
    values = [v % 256 for v in SHIFTED] if dtype == "uint8" else SHIFTED
    counts = [c % 256 for c in COUNTS] if dtype == "uint8" else COUNTS
    x, s = _ints(mt, values, dtype, device), _ints(mt, counts, dtype, device)
    tx, ts = _ints(torch, values, dtype), _ints(torch, counts, dtype)
    for ours, theirs in ((x << s, tx << ts), (x >> s, tx >> ts),
                         (mt.bitwise_left_shift(x, s), torch.bitwise_left_shift(tx, ts)),
                         (x.bitwise_right_shift(s), tx.bitwise_right_shift(ts)),
                         (x << 3, tx << 3), (x >> 2, tx >> 2), (x << 70, tx << 70),
                         (x >> -1, tx >> -1), (3 << s, 3 << ts), (-64 >> s, -64 >> ts)):
        assert str(ours.dtype) == str(theirs.dtype)
        assert ours.device == tensor_device(device)
        assert ours.cpu().numpy().tolist() == theirs.tolist()


def test_shifts_promote_and_run_in_place(device):
    small, big = mt.tensor([1, 2], dtype=mt.int32, device=device), mt.tensor([3, 1],
                                                                              device=device)
    assert (small << big).dtype is mt.int64 and (small << 2).dtype is mt.int32
    assert (mt.tensor([True], device=device) << 1).tolist() == [2]
    x = mt.tensor([1, 2], device=device)
    alias = x
    x <<= 2
    assert alias is x and x.tolist() == [4, 8]
    x >>= mt.tensor([1, 3], device=device)
    assert x.tolist() == [2, 1]
    x.bitwise_left_shift_(1)
    assert x.tolist() == [4, 2]
    x.bitwise_right_shift_(mt.tensor([2, 1], device=device))
    assert x.tolist() == [1, 1]


@pytest.mark.parametrize("call", [
    lambda lib: lib.ones(2) << 1,
    lambda lib: lib.bitwise_right_shift(lib.ones(2, dtype=lib.int64), lib.ones(2)),
    lambda lib: lib.tensor([True]) >> lib.tensor([True]),
    lambda lib: lib.gcd(lib.ones(2), lib.ones(2)),
    lambda lib: lib.lcm(lib.tensor([True]), lib.tensor([True])),
    lambda lib: lib.nextafter(lib.tensor([1]), lib.tensor([2])),
])
def test_integer_and_float_only_ops_refuse_other_dtypes_as_torch(call):
    with pytest.raises(NotImplementedError) as theirs:
        call(torch)
    for device in ("cpu", "meta"):
        with mt.device(device):
            with pytest.raises(NotImplementedError) as ours:
                call(mt)
        assert str(ours.value).startswith(str(theirs.value)), str(ours.value)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8"])
def test_gcd_lcm_equal_torch(dtype, device):
    a, b = [12, -18, 0, 7, 0, 9], [8, 12, 0, -3, 5, -6]
    x, y = _ints(mt, a, dtype, device), _ints(mt, b, dtype, device)
    tx, ty = _ints(torch, a, dtype), _ints(torch, b, dtype)
    for ours, theirs in ((mt.gcd(x, y), torch.gcd(tx, ty)), (x.lcm(y), tx.lcm(ty)),
                         (mt.gcd(x, y[:1]), torch.gcd(tx, ty[:1]))):
        assert str(ours.dtype) == str(theirs.dtype)
        assert ours.cpu().numpy().tolist() == theirs.tolist()
    assert mt.gcd(x, y.to(mt.int16)).dtype is getattr(mt, dtype if dtype != "int8" else "int16")
    x.gcd_(y)
    assert x.tolist() == torch.gcd(tx, ty).tolist()
    mt.lcm_(x, y)
    assert x.tolist() == torch.lcm(torch.gcd(tx, ty), ty).tolist()


def test_nextafter_steps_one_ulp_and_promotes(device):
    values = [1.0, 2.0, 0.0, -1.0, float("inf")]
    towards = [2.0, 0.0, 1.0, -1.0, 0.0]
    for dtype in ("float32", "float64", "float16"):
        ours = mt.nextafter(mt.tensor(values, dtype=getattr(mt, dtype), device=device),
                            mt.tensor(towards, dtype=getattr(mt, dtype), device=device))
        theirs = torch.nextafter(torch.tensor(values, dtype=getattr(torch, dtype)),
                                 torch.tensor(towards, dtype=getattr(torch, dtype)))
        assert ours.dtype is getattr(mt, dtype)
        assert ours.cpu().numpy().tolist() == theirs.tolist()
    mixed = mt.nextafter(mt.ones(2, device=device), mt.zeros(2, dtype=mt.float64,
                                                             device=device))
    assert mixed.dtype is mt.float64
    x = mt.ones(2, device=device)
    x.nextafter_(mt.zeros(2, device=device))
    assert x.tolist() == [np.nextafter(np.float32(1), np.float32(0))] * 2


def test_frexp_special_values_dtypes_and_result_type(device):
    values = [8.0, 0.0, -3.0, float("inf"), float("nan"), 1e-40, -0.75]
    for dtype in ("float32", "float64", "float16"):
        ours = mt.tensor(values, dtype=getattr(mt, dtype), device=device).frexp()
        theirs = torch.tensor(values, dtype=getattr(torch, dtype)).frexp()
        assert type(ours).__name__ == "frexp" and ours._fields == ("mantissa", "exponent")
        assert ours.mantissa.dtype is getattr(mt, dtype) and ours.exponent.dtype is mt.int32
        np.testing.assert_array_equal(ours.mantissa.cpu().numpy(), theirs.mantissa.numpy())
        assert ours.exponent.cpu().numpy().tolist() == theirs.exponent.tolist()
    meta = mt.frexp(mt.empty(2, 3, device="meta", dtype=mt.float64))
    assert meta.mantissa.shape == (2, 3) and meta.exponent.dtype is mt.int32
    assert not meta.exponent.requires_grad


def test_ldexp_dtypes_and_in_place(device):
    ints = mt.ldexp(mt.tensor([1, 2], device=device), mt.tensor([1, 2], device=device))
    assert ints.dtype is mt.float32 and ints.tolist() == [2.0, 8.0]
    for a in ("float16", "float64", "int32"):
        for b in ("int64", "int8", "float16", "float32"):
            ours = mt.ldexp(mt.ones(2, dtype=getattr(mt, a), device=device),
                            mt.ones(2, dtype=getattr(mt, b), device=device))
            theirs = torch.ldexp(torch.ones(2, dtype=getattr(torch, a)),
                                 torch.ones(2, dtype=getattr(torch, b)))
            assert str(ours.dtype) == str(theirs.dtype), (a, b)
    x = mt.ones(2, device=device)
    mt.ldexp_(x, mt.tensor([3, -1], device=device))
    assert x.tolist() == [8.0, 0.5]


def test_dist_broadcasts_and_refuses_as_torch(device):
    x, y = mt.ones(2, 3, device=device), mt.zeros(3, dtype=mt.float64, device=device)
    assert mt.dist(x, y).dtype is mt.float64 and mt.dist(x, y, 0).item() == 6.0
    with pytest.raises(RuntimeError, match="norm\\(\\): input dtype should be either "
                                           "floating point or complex. Got Long instead"):
        mt.dist(mt.ones(2, dtype=mt.int64), mt.ones(2, dtype=mt.int64))
    with pytest.raises(RuntimeError, match="cannot be broadcast together"):
        mt.dist(mt.ones(2), mt.ones(3))


@pytest.mark.parametrize("name, call", [
    ("gcd", lambda lib: lib.gcd(lib.tensor([4]), 2)),
    ("nextafter", lambda lib: lib.nextafter(lib.ones(1), 2.0)),
    ("dist", lambda lib: lib.dist(lib.ones(1), 1.0)),
    ("ldexp", lambda lib: lib.ldexp(lib.ones(1), 2)),
])
def test_numbers_refused_where_torch_wants_tensors(name, call):
    for lib in (mt, torch):
        with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'other' \\(position 2\\) "
                                            "must be Tensor"):
            call(lib)
    with pytest.raises(TypeError, match="frexp\\(\\): argument 'input' \\(position 1\\) must "
                                        "be Tensor, not float"):
        mt.frexp(1.0)


@pytest.mark.parametrize("size", [(3, 3), (1, 2, 3), (2,)])
def test_sum_to_size_refuses_sizes_it_cannot_expand_from(size):
    message = f"size {{{list(size)}}} is not expandable to size {{[2, 3]}}."
    with pytest.raises(RuntimeError) as theirs:
        torch.ones(2, 3).sum_to_size(size)
    assert str(theirs.value) == message
    for device in ("cpu", "meta"):
        with pytest.raises(RuntimeError) as ours:
            mt.ones(2, 3, device=device).sum_to_size(*size)
        assert str(ours.value).startswith(message)


def test_sum_to_size_of_its_own_shape_is_the_tensor_itself(device):
    x = mt.ones(2, 3, device=device)
    assert x.sum_to_size(2, 3) is x and x.sum_to_size(mt.Size([2, 3])) is x
    assert torch.ones(2, 3).sum_to_size(2, 3).shape == (2, 3)
    assert x.sum_to_size(()).shape == () and x.sum_to_size(()).item() == 6.0
    assert mt.ones(0, 3, device=device).sum_to_size(1, 3).tolist() == [[0.0, 0.0, 0.0]]

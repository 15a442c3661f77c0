"""Tensor.resize / Tensor.resize_as: PyTorch's deprecated out-of-place resizes (a warning,
then a contiguous reshape recorded as ``ResizeBackward``), and their errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

RESIZE_WARNING = "^non-inplace resize is deprecated$"
RESIZE_AS_WARNING = "^non-inplace resize_as is deprecated$"


def _quietly(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return call()



@pytest.fixture
def torch_ref():
    """PyTorch, the reference (the comparisons skip where it is not installed)."""
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")

CASES = [
    Case("resize", lambda T, F, a: _quietly(lambda: a.resize(4, 6)), [Arg((2, 3, 4))]),
    Case("resize_transposed", lambda T, F, a: _quietly(lambda: a.t().resize(12)),
         [Arg((3, 4))]),
    Case("resize_as", lambda T, F, a, b: _quietly(lambda: a.resize_as(b)) * 2,
         [Arg((6,)), Arg((3, 2), grad=False)]),
    Case("resize_0d", lambda T, F, a: _quietly(lambda: a.resize(1, 1)), [Arg(())]),
    Case("resize_empty", lambda T, F, a: _quietly(lambda: a.resize(0, 3)), [Arg((3, 0))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_resize_warns_at_the_callers_line_as_torch(device, torch_ref):
    with pytest.warns(UserWarning, match=RESIZE_WARNING) as record:
        mt.arange(6.0, device=device).resize(2, 3)
    assert record[0].filename == __file__
    with pytest.warns(UserWarning, match=RESIZE_WARNING):
        torch_ref.arange(6.0).resize(2, 3)
    with pytest.warns(UserWarning, match=RESIZE_AS_WARNING) as record:
        mt.arange(6.0, device=device).resize_as(mt.empty(3, 2, device=device))
    assert record[0].filename == __file__
    with pytest.warns(UserWarning, match=RESIZE_AS_WARNING):
        torch_ref.arange(6.0).resize_as(torch_ref.empty(3, 2))


def test_resize_of_a_contiguous_tensor_shares_its_memory(device):
    t = mt.arange(6.0, device=device)
    with pytest.warns(UserWarning):
        r = t.resize(2, 3)
    r[0, 0] = 100.0
    assert t[0].item() == 100.0
    assert r.is_contiguous()


def test_resize_records_resize_backward(device, torch_ref):
    x = mt.arange(6.0, requires_grad=True, device=device)
    with pytest.warns(UserWarning):
        r = x.resize(3, 2)
    expected = _quietly(lambda: torch_ref.arange(6.0, requires_grad=True).resize(3, 2))
    assert type(r.grad_fn).__name__ == type(expected.grad_fn).__name__ == "ResizeBackward"
    (r * mt.tensor([[1.0, 2.0]], device=device)).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0] * 3


@pytest.mark.parametrize("sizes", [(2, 2), (7,), (-1, 6), (0,)], ids=str)
def test_another_element_count_raises_as_torch(torch_ref, sizes):
    message = _torch_error(torch_ref, lambda t: t.resize(*sizes))
    with pytest.warns(UserWarning, match=RESIZE_WARNING), \
            pytest.raises(RuntimeError) as raised:
        mt.arange(6.0).view(2, 3).resize(*sizes)
    assert str(raised.value) == message


def test_resize_as_with_another_element_count_raises_as_torch(torch_ref):
    message = _torch_error(torch_ref, lambda t: t.resize_as(torch_ref.empty(4)))
    with pytest.warns(UserWarning, match=RESIZE_AS_WARNING), \
            pytest.raises(RuntimeError) as raised:
        mt.arange(6.0).view(2, 3).resize_as(mt.empty(4))
    assert str(raised.value) == message


def _torch_error(torch_ref, call) -> str:
    with pytest.warns(UserWarning), pytest.raises(RuntimeError) as raised:
        call(torch_ref.arange(6.0).view(2, 3))
    return str(raised.value)


@pytest.mark.parametrize("sizes", [((2, 3),), ([2, 3],)], ids=str)
def test_one_sequence_of_sizes_raises_runtime_error_as_torch(torch_ref, sizes):
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="separate ints"):
        mt.arange(6.0).resize(*sizes)
    with pytest.warns(UserWarning), pytest.raises(RuntimeError):
        torch_ref.arange(6.0).resize(*sizes)


def test_non_int_sizes_and_template(torch_ref):
    for lib in (mt, torch_ref):  # PyTorch's view() refuses no sizes
        with pytest.warns(UserWarning), pytest.raises(TypeError):
            lib.ones(1).resize()
    with pytest.warns(UserWarning), pytest.raises(TypeError, match="must be an int.*float"):
        mt.arange(6.0).resize(2.0, 3)
    with pytest.warns(UserWarning), pytest.raises(TypeError, match="must be Tensor, not int"):
        mt.arange(6.0).resize_as(6)


def test_on_meta():
    with pytest.warns(UserWarning):
        r = mt.empty(2, 3, device="meta").resize(6)
    assert r.is_meta and r.shape == (6,)
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="requested resize"):
        mt.empty(2, 3, device="meta").resize(5)


def test_resize_keeps_dtype(device):
    with pytest.warns(UserWarning):
        r = mt.arange(6, device=device).resize(3, 2)
    assert r.dtype == mt.int64
    np.testing.assert_array_equal(r.cpu().numpy(), np.arange(6).reshape(3, 2))

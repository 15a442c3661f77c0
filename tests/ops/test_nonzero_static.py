"""torch.nonzero_static / Tensor.nonzero_static: coordinates of the first ``size`` nonzero
elements, padded with ``fill_value``; shapes known on meta; PyTorch's errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests


@pytest.fixture
def torch_ref():
    """PyTorch, the reference (the comparisons skip where it is not installed)."""
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")

CASES = [
    Case("padded", lambda T, F, a: T.nonzero_static(a, size=30), [Arg((3, 5), "int:3")]),
    Case("truncated", lambda T, F, a: T.nonzero_static(a, size=2), [Arg((3, 5), "int:3")]),
    Case("method_fill", lambda T, F, a: a.nonzero_static(size=10, fill_value=-7),
         [Arg((2, 3, 4), "int:2")]),
    Case("bool", lambda T, F, a: T.nonzero_static(a, size=5), [Arg((4, 3), "bool")]),
    Case("float", lambda T, F, a: T.nonzero_static(a > 0.5, size=6), [Arg((6,))]),
    Case("float_values", lambda T, F, a: T.nonzero_static(a, size=7), [Arg((2, 3))]),
    Case("size_zero", lambda T, F, a: T.nonzero_static(a, size=0), [Arg((3, 2), "int:2")]),
    Case("zero_d", lambda T, F, a: T.nonzero_static(a, size=3), [Arg((), "int:2")]),
    Case("empty_input", lambda T, F, a: T.nonzero_static(a, size=2, fill_value=4),
         [Arg((2, 0, 3), "int:2")]),
    Case("1d_exact", lambda T, F, a: T.nonzero_static(a, size=8), [Arg((8,), "int:2")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


@pytest.mark.parametrize("values", [
    [0.0, float("nan"), -0.0, 1.0, float("inf")], [0, 0, 0], [1, 1, 1], [True, False, True],
], ids=str)
@pytest.mark.parametrize("size", [0, 2, 3, 6])
def test_values_and_nan_as_torch(device, torch_ref, values, size):
    ours = mt.nonzero_static(mt.tensor(values, device=device), size=size, fill_value=9)
    expected = torch_ref.nonzero_static(torch_ref.tensor(values), size=size, fill_value=9)
    assert ours.dtype == mt.int64 and ours.device == tensor_device(device)
    np.testing.assert_array_equal(ours.cpu().numpy(), expected.numpy())


def test_non_contiguous_input_in_c_order_of_its_shape(device, torch_ref):
    values = np.array([[0, 1, 2], [3, 0, 5]])
    ours = mt.tensor(values, device=device).t().nonzero_static(size=5)
    expected = torch_ref.tensor(values).t().nonzero_static(size=5)
    np.testing.assert_array_equal(ours.cpu().numpy(), expected.numpy())


def test_large_fill_value(device):
    result = mt.nonzero_static(mt.tensor([0, 3], device=device), size=2, fill_value=2 ** 40)
    assert result.tolist() == [[1], [2 ** 40]]


def test_no_gradient(device):
    x = mt.tensor([1.0, 0.0, 2.0], requires_grad=True, device=device)
    result = mt.nonzero_static(x, size=2)
    assert not result.requires_grad and result.grad_fn is None


def test_meta_shape_without_values():
    result = mt.nonzero_static(mt.empty(4, 5, device="meta"), size=7, fill_value=0)
    assert result.is_meta and result.shape == (7, 2) and result.dtype == mt.int64


def test_out_argument(device, torch_ref):
    out = mt.empty(0, dtype=mt.int64, device=device)
    assert mt.nonzero_static(mt.tensor([0, 5], device=device), size=3, out=out) is out
    assert out.tolist() == [[1], [-1], [-1]]
    with pytest.raises(RuntimeError):
        mt.nonzero_static(mt.tensor([0, 5], device=device), size=3,
                          out=mt.empty(0, device=device))
    with pytest.raises(RuntimeError):
        torch_ref.nonzero_static(torch_ref.tensor([0, 5]), size=3, out=torch_ref.empty(0))


@pytest.mark.parametrize("kwargs, error, message", [
    ({"size": -1}, RuntimeError,
     "nonzero_static: 'size' must be an non-negative integer, but got size=-1"),
    ({"size": 2.0}, TypeError, "nonzero_static(): argument 'size' must be int, not float"),
    ({"size": True}, TypeError, "nonzero_static(): argument 'size' must be int, not bool"),
    ({"size": 2, "fill_value": 1.5}, TypeError,
     "nonzero_static(): argument 'fill_value' must be int, not float"),
    ({"size": 2, "fill_value": True}, TypeError,
     "nonzero_static(): argument 'fill_value' must be int, not bool"),
], ids=str)
def test_argument_errors_as_torch(torch_ref, kwargs, error, message):
    check_same_error_on_cpu_and_meta(lambda x: mt.nonzero_static(x, **kwargs), error, message)
    with pytest.raises(error, match=re.escape(message.split(", but got")[0])):
        torch_ref.nonzero_static(torch_ref.tensor([1, 0]), **kwargs)


def test_input_and_keyword_errors(torch_ref):
    for lib in (mt, torch_ref):
        with pytest.raises(TypeError, match="argument 'input' .*must be Tensor, not list"):
            lib.nonzero_static([1, 0], size=2)
        with pytest.raises(TypeError):
            lib.nonzero_static(lib.tensor([1, 0]), 2)  # size is keyword-only
        with pytest.raises(TypeError):
            lib.nonzero_static(lib.tensor([1, 0]))  # size is required

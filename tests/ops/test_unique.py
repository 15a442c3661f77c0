"""unique, unique_consecutive and bincount: values, inverse and counts against PyTorch,
dims, NaN, empty and 0-d inputs, errors, and the refusal on meta."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.errors import DataDependentShapeError


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _data(shape, high=3, seed=0):
    return np.random.default_rng(seed).integers(0, high, shape)


INPUTS = [
    ("float", np.array([3.0, 1.0, np.nan, 1.0, np.nan, 2.0, 3.0, -0.0, 0.0])),
    ("int_2d", _data((4, 5))),
    ("int32_3d", _data((2, 3, 4)).astype(np.int32)),
    ("uint8", _data((6,), 5).astype(np.uint8)),
    ("bool", _data((7,), 2).astype(bool)),
    ("0d", np.array(5.0)),
    ("empty", np.zeros((0,), np.float32)),
]


@pytest.mark.parametrize("name, data", INPUTS, ids=[n for n, _ in INPUTS])
@pytest.mark.parametrize("op", ["unique", "unique_consecutive"])
def test_flattened_matches_torch(name, data, op, device):
    torch = _torch()
    data = data.astype(np.float32) if data.dtype == np.float64 else data
    ours = getattr(mt, op)(mt.tensor(data, device=device), return_inverse=True,
                           return_counts=True)
    theirs = getattr(torch, op)(torch.tensor(data), return_inverse=True, return_counts=True)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype) == str(t.dtype)
        np.testing.assert_array_equal(o.cpu().numpy(), t.numpy())


DIM_INPUTS = [
    ("rows", _data((6, 3), 2), 0), ("columns", _data((3, 6), 2), 1),
    ("middle_3d", _data((2, 5, 2), 2), 1), ("negative", _data((2, 3, 5), 2), -1),
    ("float_rows", np.array([[1.0, 2.0], [1.0, 2.0], [0.5, 9.0], [1.0, 1.0]]), 0),
    ("empty_selected", np.zeros((0, 3)), 0),
]


@pytest.mark.parametrize("name, data, dim", DIM_INPUTS, ids=[n for n, _, _ in DIM_INPUTS])
@pytest.mark.parametrize("op", ["unique", "unique_consecutive"])
def test_along_a_dim_matches_torch(name, data, dim, op, device):
    torch = _torch()
    data = data.astype(np.float32) if data.dtype == np.float64 else data
    ours = getattr(mt, op)(mt.tensor(data, device=device), dim=dim, return_inverse=True,
                           return_counts=True)
    theirs = getattr(torch, op)(torch.tensor(data), dim=dim, return_inverse=True,
                                return_counts=True)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype) == str(t.dtype)
        np.testing.assert_array_equal(o.cpu().numpy(), t.numpy())


def test_spellings_and_what_is_returned():
    x = mt.tensor([2, 1, 2, 2])
    assert x.unique().tolist() == [1, 2] and mt.unique(x, sorted=False).tolist() == [1, 2]
    values, inverse = x.unique(True, True)
    assert inverse.tolist() == [1, 0, 1, 1]
    values, counts = mt.unique(x, return_counts=True)
    assert counts.tolist() == [1, 3]
    assert x.unique_consecutive().tolist() == [2, 1, 2]
    assert x.unique_consecutive(return_counts=True)[1].tolist() == [1, 1, 2]
    assert isinstance(mt.unique(x, return_inverse=True), tuple)


def _graph_and_refusal(lib, call) -> tuple:
    """The node names of ``call``'s tensor outputs (None: no node), the names on the first
    output's edges, and the error of a backward through the first output."""
    x = lib.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True)
    outputs = call(lib, x)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    names = [(t.grad_fn.name() if t.grad_fn is not None else None, t.requires_grad,
              t.output_nr) for t in outputs]
    edges = [n.name() if n is not None else None
             for n, _ in outputs[0].grad_fn.next_functions]
    with pytest.raises((RuntimeError, NotImplementedError)) as info:
        outputs[0].sum().backward()
    return names, edges, type(info.value).__name__, str(info.value)


@pytest.mark.parametrize("call", [
    lambda lib, x: x.unique(),
    lambda lib, x: lib.unique(x, sorted=False, return_inverse=True, return_counts=True),
    lambda lib, x: lib.unique(x, dim=1, return_counts=True),
    lambda lib, x: lib.unique_consecutive(x, return_inverse=True),
    lambda lib, x: lib.unique_consecutive(x, dim=0),
    lambda lib, x: lib.bincount(lib.tensor([0, 1, 1]), x[0].repeat(2)[:3]),
], ids=["unique", "unique_all", "unique_dim", "consecutive", "consecutive_dim", "bincount"])
def test_graph_node_refuses_backward_as_torch(call):
    """PyTorch's values (not the inverse or counts) have a node whose backward raises."""
    assert _graph_and_refusal(mt, call) == _graph_and_refusal(_torch(), call)


def test_no_gradient_without_grad_inputs():
    x = mt.tensor([1.0, 2.0, 1.0], requires_grad=True)
    with mt.no_grad():
        assert x.unique().grad_fn is None
    assert not mt.bincount(mt.tensor([0, 1])).requires_grad


@pytest.mark.parametrize("data, weights, minlength", [
    ([1, 3, 3, 0], None, 0), ([1, 3], None, 6), ([], None, 3), ([], None, 0),
    ([2, 0, 2], [0.5, 1.0, 2.0], 0), ([2, 0, 2], [1, 2, 3], 4), ([4], [True], 0),
])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_bincount_matches_torch(data, weights, minlength, dtype, device):
    torch = _torch()
    ours = mt.tensor(np.array(data, dtype=dtype), device=device)
    theirs = torch.tensor(np.array(data, dtype=dtype))
    w_ours = None if weights is None else mt.tensor(weights, device=device)
    w_theirs = None if weights is None else torch.tensor(weights)
    out = ours.bincount(w_ours, minlength=minlength)
    ref = torch.bincount(theirs, w_theirs, minlength)
    assert str(out.dtype) == str(ref.dtype)
    np.testing.assert_array_equal(out.cpu().numpy(), ref.numpy())


def test_bincount_keeps_float32_and_float64_weights():
    x = mt.tensor([0, 2])
    assert mt.bincount(x, mt.tensor([1.0, 2.0])).dtype is mt.float32
    assert mt.bincount(x, mt.tensor([1.0, 2.0], dtype=mt.float64)).dtype is mt.float64


@pytest.mark.parametrize("call", [
    lambda x: mt.unique(x), lambda x: x.unique(dim=0, return_counts=True),
    lambda x: mt.unique_consecutive(x), lambda x: x.long().bincount(minlength=9),
])
def test_meta_refuses_as_torch_meta_does(call):
    x = mt.empty(5, device="meta")
    with pytest.raises(DataDependentShapeError, match="unknown, so the output's size is too"):
        call(x)
    with pytest.raises(NotImplementedError):  # PyTorch's meta raises NotImplementedError
        call(x)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.sum().unique(dim=0), IndexError,
     "unique(): Dimension specified as 0 but tensor has no dimensions"),
    (lambda x: x.unique(dim=3), IndexError,
     "unique: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x[:, :0].unique_consecutive(dim=0), RuntimeError,
     "unique_consecutive(): There are 0 sized dimensions, and they aren't selected, so unique "
     "cannot be applied (input of shape (2, 0, 4), dim 0)"),
    (lambda x: x.bincount(), NotImplementedError,
     "bincount: not implemented for torch.float32 input"),
    (lambda x: x.long().bincount(), RuntimeError,
     "bincount only supports 1-d non-negative integral inputs, but got an input of shape "
     "(2, 3, 4)"),
    (lambda x: x[0, 0].long().bincount(x[0, 0, :2]), RuntimeError,
     "bincount: weights should be 1-d and have the same length as input, but got weights of "
     "shape (2,) for an input of shape (4,)"),
    (lambda x: x[0, 0].long().bincount(minlength=-1), RuntimeError,
     "bincount: minlength should be >= 0, but got -1"),
    (lambda x: x[0, 0].bool().bincount(), NotImplementedError,
     "bincount: not implemented for torch.bool input"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt.ones(2, 3, 4, device=device))
        assert str(info.value).startswith(message), (device, str(info.value))


def test_bincount_refuses_negative_values(device):
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral "
                                           "inputs, but the input holds -2"):
        mt.tensor([1, -2, 0], device=device).bincount()

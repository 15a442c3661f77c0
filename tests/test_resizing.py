"""``Tensor.resize_``, ``Tensor.resize_as_`` and ``torch.resize_as_`` against PyTorch: the
memory read as C-ordered, shrinking as a view, growing keeping the first elements, the
version counter, and the refusals (a tensor that requires grad, negative or non-int sizes,
non-contiguous tensors, ours only: docs/differences.md)."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from tests.devices import tensor_device


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("sizes", [(3, 2), ((2, 2),), ([1, 4],), (6,), (0,), ((),), (2, 3)])
def test_resize_within_the_memory_as_torch(sizes, device):
    torch = _torch()
    x, tx = mt.arange(6.0, device=device).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    assert x.resize_(*sizes) is x
    tx.resize_(*sizes)
    assert tuple(x.shape) == tuple(tx.shape) and x.stride() == tx.stride()
    assert x.tolist() == tx.tolist() and x._version == tx._version
    assert x.device == tensor_device(device)


def test_shrinking_is_a_view_of_the_same_memory(device):
    x = mt.arange(6.0, device=device)
    view = x[:]
    x.resize_(2, 2)
    x[0, 0] = 10.0
    assert view[0].item() == 10.0


def test_growing_keeps_the_elements_in_c_order(device):
    torch = _torch()
    x, tx = mt.arange(6, device=device).reshape(2, 3), torch.arange(6).reshape(2, 3)
    x.resize_(3, 4)
    tx.resize_(3, 4)
    assert x.shape == (3, 4) and x.dtype is mt.int64 and x._version == tx._version == 1
    assert x.flatten()[:6].tolist() == tx.flatten()[:6].tolist() == list(range(6))
    x.resize_(6)
    assert x.tolist()[:6] == list(range(6))


def test_resize_as_takes_the_template_shape_and_keeps_the_dtype(device):
    x = mt.arange(4, device=device)
    assert x.resize_as_(mt.ones(2, 2, device=device)) is x
    assert x.tolist() == [[0, 1], [2, 3]] and x.dtype is mt.int64
    assert mt.resize_as_(x, mt.ones(4)).shape == (4,)


def test_meta_tensors_are_resized_too():
    x = mt.ones(2, 3, device="meta")
    assert x.resize_(5, 5).shape == (5, 5) and x.is_meta
    assert x.resize_as_(mt.ones(1, device="meta")).shape == (1,)


def test_the_same_shape_is_no_write():
    x = mt.ones(2, 3)
    x.resize_(2, 3)
    assert x._version == 0


@pytest.mark.parametrize("call, error, message", [
    (lambda: mt.ones(2, requires_grad=True).resize_(3), RuntimeError,
     "cannot resize variables that require grad"),
    (lambda: mt.ones(2, requires_grad=True).resize_(2), RuntimeError,
     "cannot resize variables that require grad"),
    (lambda: (mt.ones(2, requires_grad=True) * 2).resize_(4), RuntimeError,
     "cannot resize variables that require grad"),
    (lambda: mt.ones(2, requires_grad=True).resize_as_(mt.ones(3)), RuntimeError,
     "cannot resize variables that require grad"),
    (lambda: mt.ones(2).resize_(2, -1), RuntimeError, "negative dimension -1"),
    (lambda: mt.ones(2).resize_(2.5), TypeError,
     r"resize_\(\): argument 'size' \(position 1\) must be tuple of ints, not float"),
    (lambda: mt.ones(2).resize_(True), TypeError, "must be tuple of ints, not bool"),
    (lambda: mt.ones(2).resize_(2, (3,)), TypeError, "must be tuple of ints, not tuple"),
    (lambda: mt.ones(2).resize_as_([1, 2]), TypeError,
     r"resize_as_\(\): argument 'the_template' \(position 1\) must be Tensor, not list"),
    (lambda: mt.resize_as_([1, 2], mt.ones(2)), TypeError,
     r"argument 'input' \(position 1\) must be Tensor, not list"),
    (lambda: mt.ones(2, 3).t().resize_(6), RuntimeError, "not contiguous"),
])
def test_refusals(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_requires_grad_is_refused_under_no_grad_too_as_torch():
    torch = _torch()
    for T in (mt, torch):
        with T.no_grad(), pytest.raises(RuntimeError, match="cannot resize variables"):
            T.ones(2, requires_grad=True).resize_(3)

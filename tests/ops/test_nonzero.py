"""nonzero (both forms) against PyTorch, its meta refusal; nbytes and itemsize."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.errors import DataDependentShapeError, MetaDataError


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


DATA = [
    np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]], np.float32),
    np.array([float("nan"), -0.0, 0.0, np.inf], np.float64),
    np.arange(24).reshape(2, 3, 4) % 3,
    np.array([True, False, True]),
    np.zeros((2, 0), np.float32),
    np.zeros((3, 2), np.uint8),
    np.array(5.0, np.float32),
    np.array(0, np.int32),
]


@pytest.mark.parametrize("data", DATA, ids=lambda a: f"{a.dtype}{a.shape}")
@pytest.mark.parametrize("as_tuple", [False, True])
def test_matches_torch(data, as_tuple, device):
    torch = _torch()
    ours = mt.nonzero(mt.tensor(data, device=device), as_tuple=as_tuple)
    theirs = torch.nonzero(torch.tensor(data), as_tuple=as_tuple)
    if as_tuple:
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
    for o, t in zip(ours if as_tuple else [ours], theirs if as_tuple else [theirs]):
        assert tuple(o.shape) == tuple(t.shape) and o.dtype is mt.int64
        np.testing.assert_array_equal(o.cpu().numpy(), t.numpy())


def test_method_and_no_gradient(device):
    x = mt.tensor([[0.0, 1.0], [2.0, 0.0]], device=device, requires_grad=True)
    out = x.nonzero()
    assert out.tolist() == [[0, 1], [1, 0]] and out.grad_fn is None and not out.requires_grad
    rows, cols = x.nonzero(as_tuple=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    # the usual idiom: pick the nonzero values through the coordinates
    assert x[rows, cols].tolist() == [1.0, 2.0]


def test_meta_refuses_as_pytorch_meta_does():
    x = mt.empty(2**30, 2**20, device="meta")
    for call in (lambda: x.nonzero(), lambda: mt.nonzero(x, as_tuple=True)):
        with pytest.raises(NotImplementedError, match=r"nonzero: the number of nonzero elements "
                                                      r"of a meta tensor \(shape \(1073741824, "
                                                      r"1048576\)\) is unknown"):
            call()
    with pytest.raises(MetaDataError):
        x.nonzero()
    assert issubclass(DataDependentShapeError, NotImplementedError)


@pytest.mark.parametrize("dtype, itemsize", [(mt.float32, 4), (mt.float64, 8), (mt.int64, 8),
                                             (mt.int32, 4), (mt.uint8, 1), (mt.bool, 1)])
def test_nbytes_and_itemsize_as_torch(dtype, itemsize, any_device):
    x = mt.empty(2, 3, 5, dtype=dtype, device=any_device)
    assert x.itemsize == itemsize == x.element_size()
    assert x.nbytes == 30 * itemsize and mt.empty(0, dtype=dtype).nbytes == 0
    assert mt.zeros((), dtype=dtype).nbytes == itemsize
    # on meta, what the tensor would take: nothing is allocated
    assert mt.empty(2**30, 2**20, dtype=dtype, device="meta").nbytes == 2**50 * itemsize


def test_nbytes_of_a_view_counts_its_own_elements():
    torch = _torch()
    assert mt.zeros(4, 6)[:, :2].nbytes == torch.zeros(4, 6)[:, :2].nbytes == 32

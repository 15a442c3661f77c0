"""``unsafe_chunk``, ``unsafe_split``, ``unsafe_split_with_sizes``: split's pieces, not
tracked as views (unsafe_splits.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

S = (4, 6)

CASES = [
    Case("unsafe_chunk_dim1", lambda T, F, x: T.unsafe_chunk(x, 3, 1)[1], [Arg(S)]),
    Case("unsafe_chunk_uneven", lambda T, F, x: T.unsafe_chunk(x, 4, -1)[-1], [Arg(S)]),
    Case("unsafe_split_method", lambda T, F, x: x.unsafe_split(3)[1] * 2, [Arg(S)]),
    Case("unsafe_split_last_smaller", lambda T, F, x: T.unsafe_split(x, 4, 1)[1], [Arg(S)]),
    Case("unsafe_split_with_sizes", lambda T, F, x: T.unsafe_split_with_sizes(x, [1, 5], 1)[1],
         [Arg(S)]),
    Case("unsafe_split_with_sizes_method",
         lambda T, F, x: x.unsafe_split_with_sizes([3, 1], 0)[0], [Arg(S)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("call", [
    lambda T, x: T.unsafe_chunk(x, 4, 1),
    lambda T, x: T.unsafe_chunk(x, 2),
    lambda T, x: T.unsafe_split(x, 5, 1),
    lambda T, x: T.unsafe_split(x, 10, 0),
    lambda T, x: T.unsafe_split_with_sizes(x, [0, 6, 0], 1),
    lambda T, x: x.unsafe_chunk(3, -1),
    lambda T, x: T.unsafe_chunk(x[:0], 3),
])
def test_every_piece_and_its_grad_fn_match_torch(call, device):
    torch = _torch()
    data = np.arange(24.0, dtype=np.float32).reshape(S)
    ours = call(mt, mt.tensor(data, device=device, requires_grad=True) * 1)
    theirs = call(torch, torch.tensor(data, requires_grad=True) * 1)
    assert isinstance(ours, tuple) and len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o.detach().cpu().numpy(), t.detach().numpy())
        assert o.grad_fn.name() == t.grad_fn.name()


def test_pieces_share_memory_but_not_the_version_counter(device):
    x = mt.arange(12.0, device=device).reshape(3, 4)
    first, second = mt.unsafe_chunk(x, 2, 1)
    first.add_(100.0)
    assert x.tolist()[0] == [100.0, 101.0, 2.0, 3.0]  # the write reached the input
    assert (x._version, first._version, second._version) == (0, 1, 0)
    safe = mt.chunk(x, 2, 1)[0]
    safe.add_(1.0)
    assert x._version == 1  # while a true view bumps its base


def test_unsafe_pieces_of_a_huge_meta_tensor():
    x = mt.empty(2**20, 2**30, device="meta", requires_grad=True)
    pieces = mt.unsafe_split(x, 2**29, 1)
    assert [p.shape for p in pieces] == [mt.Size([2**20, 2**29])] * 2
    pieces[1].sum().backward()
    assert x.grad.shape == x.shape and x.grad.is_meta


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mt.unsafe_chunk(x, 0), RuntimeError,
     "chunk expects `chunks` to be greater than 0, got: 0"),
    (lambda x: mt.unsafe_split(x, -1), RuntimeError,
     "split expects split_size be non-negative, but got split_size=-1"),
    (lambda x: mt.unsafe_split_with_sizes(x, [1, 2]), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 2 (input tensor's size at "
     "dimension 0), but got split_sizes=[1, 2]"),
    (lambda x: mt.unsafe_split_with_sizes(x, [-1, 3]), RuntimeError,
     "split_with_sizes expects split_sizes have only non-negative entries, but got "
     "split_sizes=[-1, 3]"),
    (lambda x: mt.unsafe_chunk(x.sum(), 1), RuntimeError,
     "chunk expects at least a 1-dimensional tensor"),
    (lambda x: mt.unsafe_split(x, 1, 3), IndexError,
     "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: mt.unsafe_split(x, 2.0), TypeError,
     "unsafe_split(): argument 'split_size' must be int, not float"),
    (lambda x: mt.unsafe_chunk(x, 2.0), TypeError,
     "unsafe_chunk(): argument 'chunks' must be int, not float"),
    (lambda x: mt.unsafe_split_with_sizes(x, 3), TypeError,
     "unsafe_split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, "
     "not int"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt.ones(2, 3, 4, device=device))
        assert message in str(info.value), (device, str(info.value))


def test_the_same_errors_types_as_torch():
    torch = _torch()
    for T in (mt, torch):
        with pytest.raises(RuntimeError):
            T.unsafe_chunk(T.ones(3), 0)
        with pytest.raises(TypeError):
            T.unsafe_split(T.ones(3), 1.5)
        with pytest.raises(IndexError):
            T.unsafe_split(T.ones(3), 1, 1)

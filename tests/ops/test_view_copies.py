"""The ``*_copy`` functions: each view op's result as a fresh contiguous tensor, with
PyTorch's values, gradients and ``grad_fn`` names (``ViewBackward0_copy``)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests

torch = pytest.importorskip("torch")

CASES = [
    Case("view_copy", lambda T, F, x: T.view_copy(x, (3, 4)), [Arg((2, 6))]),
    Case("view_copy_minus_one", lambda T, F, x: T.view_copy(x, [-1]), [Arg((2, 3))]),
    Case("permute_copy", lambda T, F, x: T.permute_copy(x, (2, 0, 1)), [Arg((2, 3, 4))]),
    Case("t_copy", lambda T, F, x: T.t_copy(x), [Arg((2, 3))]),
    Case("transpose_copy", lambda T, F, x: T.transpose_copy(x, 0, -1), [Arg((2, 3, 4))]),
    Case("expand_copy", lambda T, F, x: T.expand_copy(x, (2, 3, 4)), [Arg((3, 1))]),
    Case("squeeze_copy", lambda T, F, x: T.squeeze_copy(x), [Arg((2, 1, 3, 1))]),
    Case("squeeze_copy_dim", lambda T, F, x: T.squeeze_copy(x, 1), [Arg((2, 1, 3, 1))]),
    Case("unsqueeze_copy", lambda T, F, x: T.unsqueeze_copy(x, -1), [Arg((2, 3))]),
    Case("select_copy", lambda T, F, x: T.select_copy(x, 1, -1), [Arg((2, 3, 4))]),
    Case("slice_copy", lambda T, F, x: T.slice_copy(x, 1, 1, 4, 2), [Arg((2, 5))]),
    Case("slice_copy_defaults", lambda T, F, x: T.slice_copy(x), [Arg((3, 2))]),
    Case("diagonal_copy", lambda T, F, x: T.diagonal_copy(x, 1, 0, 2), [Arg((3, 2, 4))]),
    Case("unfold_copy", lambda T, F, x: T.unfold_copy(x, 1, 3, 2), [Arg((2, 7))]),
    Case("narrow_copy", lambda T, F, x: T.narrow_copy(x, -1, 1, 2), [Arg((2, 4))]),
    Case("narrow_copy_method", lambda T, F, x: x.narrow_copy(0, 1, 2), [Arg((3, 4))]),
    Case("alias_copy", lambda T, F, x: T.alias_copy(x), [Arg((2, 3))]),
    Case("unbind_copy", lambda T, F, x: T.unbind_copy(x, 1)[1], [Arg((2, 3))]),
    Case("split_copy", lambda T, F, x: T.split_copy(x, 2, 1)[-1], [Arg((2, 5))]),
    Case("split_with_sizes_copy", lambda T, F, x: T.split_with_sizes_copy(x, [1, 3])[1],
         [Arg((4, 2))]),
    Case("empty_dim", lambda T, F, x: T.permute_copy(x, (1, 0)), [Arg((0, 3))]),
    Case("zero_d", lambda T, F, x: T.unsqueeze_copy(x, 0), [Arg(())]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)

COPIES = ["view_copy", "permute_copy", "t_copy", "transpose_copy", "expand_copy",
          "squeeze_copy", "unsqueeze_copy", "select_copy", "slice_copy", "diagonal_copy",
          "unfold_copy", "narrow_copy", "alias_copy", "detach_copy"]
ARGS = {"view_copy": ((6, 2),), "permute_copy": ((1, 0),), "transpose_copy": (0, 1),
        "expand_copy": ((2, 4, 3),), "unsqueeze_copy": (0,), "select_copy": (0, 1),
        "slice_copy": (1, 0, 2), "unfold_copy": (0, 2, 1), "narrow_copy": (1, 0, 2)}


@pytest.mark.parametrize("name", COPIES)
def test_a_copy_is_contiguous_and_shares_no_memory(name, device):
    x = mt.arange(12.0, device=device).reshape(4, 3)
    out = getattr(mt, name)(x, *ARGS.get(name, ()))
    reference = getattr(torch, name)(torch.arange(12.0).reshape(4, 3), *ARGS.get(name, ()))
    assert out.is_contiguous() and out.stride() == reference.stride()
    assert out.device == tensor_device(device)
    np.testing.assert_array_equal(out.cpu().numpy(), reference.numpy())
    out.fill_(-1.0)  # (an expand_copy is writable too: it is no expand view)
    assert x.cpu().tolist() == np.arange(12.0).reshape(4, 3).tolist()


@pytest.mark.parametrize("name, args", [("unbind_copy", (0,)), ("split_copy", (2,)),
                                        ("split_with_sizes_copy", ([1, 3],))])
def test_the_splitting_copies_give_a_tuple_of_fresh_tensors(name, args, device):
    x = mt.arange(8.0, device=device).reshape(4, 2)
    parts = getattr(mt, name)(x, *args)
    reference = getattr(torch, name)(torch.arange(8.0).reshape(4, 2), *args)
    assert isinstance(parts, tuple) and len(parts) == len(reference)
    for part, expected in zip(parts, reference):
        assert part.is_contiguous()
        np.testing.assert_array_equal(part.cpu().numpy(), expected.numpy())
        part.zero_()
    assert x.cpu().tolist() == np.arange(8.0).reshape(4, 2).tolist()


def test_detach_copy_is_a_fresh_tensor_outside_the_graph(device):
    x = mt.ones(2, 3, device=device, requires_grad=True)
    out = mt.detach_copy(x)
    assert out.grad_fn is None and not out.requires_grad
    out.fill_(5.0)
    assert x.detach().cpu().tolist() == [[1.0] * 3] * 2


def test_out_takes_the_copy(device):
    out = mt.empty(0, device=device)
    assert mt.transpose_copy(mt.arange(6.0, device=device).reshape(2, 3), 0, 1, out=out) is out
    assert out.tolist() == torch.transpose_copy(torch.arange(6.0).reshape(2, 3), 0, 1).tolist()
    parts = (mt.empty(0, device=device), mt.empty(0, device=device))
    mt.split_copy(mt.arange(4.0, device=device), 2, out=parts)
    assert [p.tolist() for p in parts] == [[0.0, 1.0], [2.0, 3.0]]


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mt.view_copy(x, (5,)), RuntimeError, "invalid for input of size 6"),
    (lambda x: mt.select_copy(x, 0, 5), IndexError, "out of range"),
    (lambda x: mt.permute_copy(x, (0,)), RuntimeError, "not a permutation"),
    (lambda x: mt.t_copy([1, 2]), TypeError, "must be Tensor, not list"),
])
def test_errors_are_the_views(call, error, message):
    with pytest.raises(error, match=message):
        call(mt.ones(2, 3))

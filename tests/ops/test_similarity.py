"""normalize and cosine_similarity (``F.``, ``torch.cosine_similarity``,
``nn.CosineSimilarity``): the three-way checks, then the clamped norms (zero and tiny
vectors, where PyTorch's gradient still flows through the unclamped norm), broadcasting,
dtypes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from tests.ops.harness import Arg, Case, three_way_tests

CASES = [
    Case("normalize", lambda T, F, a: F.normalize(a), [Arg((3, 4))]),
    Case("normalize_dim_p", lambda T, F, a: F.normalize(a, p=1.5, dim=-1), [Arg((2, 3, 4))]),
    Case("normalize_p1_dim0", lambda T, F, a: F.normalize(a, 1, 0), [Arg((4, 3), "away0")]),
    Case("normalize_inf", lambda T, F, a: F.normalize(a, float("inf"), 1),
         [Arg((3, 5), "distinct")]),
    Case("normalize_1d", lambda T, F, a: F.normalize(a, dim=0), [Arg((5,))]),
    Case("cosine_similarity", lambda T, F, a, b: F.cosine_similarity(a, b),
         [Arg((3, 4)), Arg((3, 4))]),
    Case("cosine_similarity_dim", lambda T, F, a, b: F.cosine_similarity(a, b, dim=-1, eps=1e-6),
         [Arg((2, 3, 4)), Arg((2, 3, 4))]),
    Case("cosine_similarity_dim0", lambda T, F, a, b: T.cosine_similarity(a, b, 0),
         [Arg((5, 2)), Arg((5, 2))]),
    Case("cosine_similarity_broadcast", lambda T, F, a, b: F.cosine_similarity(a, b, dim=2),
         [Arg((2, 1, 4)), Arg((3, 4))]),
    Case("cosine_similarity_broadcast_along_dim", lambda T, F, a, b: F.cosine_similarity(a, b),
         [Arg((3, 1)), Arg((3, 4))]),
    Case("cosine_similarity_1d", lambda T, F, a, b: F.cosine_similarity(a, b, dim=0),
         [Arg((6,)), Arg((6,))]),
    Case("cosine_similarity_constant", lambda T, F, a, b: F.cosine_similarity(a, b),
         [Arg((3, 4)), Arg((3, 4), grad=False)]),
    Case("cosine_similarity_module", lambda T, F, a, b: T.nn.CosineSimilarity(dim=0)(a, b),
         [Arg((4, 3)), Arg((4, 3))]),
    Case("cosine_similarity_empty_rows", lambda T, F, a, b: F.cosine_similarity(a, b),
         [Arg((0, 3)), Arg((0, 3))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


# rows: ordinary, zero, tiny (norm below both eps), one zero and one ordinary
ROWS1 = [[1.0, 2.0, -3.0], [0.0, 0.0, 0.0], [1e-10, -2e-10, 0.0], [0.0, 0.0, 0.0]]
ROWS2 = [[-2.0, 0.5, 1.0], [1.0, 1.0, 1.0], [3e-10, 1e-10, 0.0], [4.0, -1.0, 2.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clamped_norms_give_pytorchs_values_and_gradients(dtype, device):
    torch = _torch()
    mt_dtype, torch_dtype = getattr(mt, dtype), getattr(torch, dtype)
    x1 = mt.tensor(ROWS1, dtype=mt_dtype, device=device, requires_grad=True)
    x2 = mt.tensor(ROWS2, dtype=mt_dtype, device=device, requires_grad=True)
    t1 = torch.tensor(ROWS1, dtype=torch_dtype, requires_grad=True)
    t2 = torch.tensor(ROWS2, dtype=torch_dtype, requires_grad=True)
    out = F.cosine_similarity(x1, x2)
    ref = torch.nn.functional.cosine_similarity(t1, t2)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-6)
    out.backward(mt.tensor([1.0, 2.0, 3.0, 4.0], dtype=mt_dtype, device=device))
    ref.backward(torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch_dtype))
    # the tiny row's gradient is of order 1 / eps: compare relative to it
    for ours, theirs in ((x1, t1), (x2, t2)):
        np.testing.assert_allclose(ours.grad.cpu().numpy(), theirs.grad.numpy(), rtol=1e-5,
                                   atol=1e-6)
    assert np.isfinite(x1.grad.cpu().numpy()).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normalize_of_zero_and_tiny_rows_equals_pytorch(dtype):
    torch = _torch()
    x = mt.tensor(ROWS1, dtype=getattr(mt, dtype), requires_grad=True)
    tx = torch.tensor(ROWS1, dtype=getattr(torch, dtype), requires_grad=True)
    out, ref = F.normalize(x, eps=1e-12), torch.nn.functional.normalize(tx, eps=1e-12)
    assert out.grad_fn.name() == ref.grad_fn.name() == "DivBackward0"
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    weights = np.arange(12.0).reshape(4, 3)
    out.backward(mt.tensor(weights, dtype=x.dtype))
    ref.backward(torch.tensor(weights, dtype=tx.dtype))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5)


def test_values_are_cosines():
    a = mt.tensor([[1.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    b = mt.tensor([[0.0, 3.0], [2.0, 2.0], [-1.0, 0.0]])
    assert F.cosine_similarity(a, b).tolist() == pytest.approx([0.0, 1.0, -1.0])
    assert F.normalize(mt.tensor([[3.0, 4.0]])).tolist() == [[pytest.approx(0.6),
                                                             pytest.approx(0.8)]]


def test_dtypes_follow_pytorch():
    torch = _torch()
    pairs = [("int64", "float32"), ("float32", "float64"), ("bool", "float32"),
             ("float64", "float64")]
    for d1, d2 in pairs:
        a, b = [[1, 0, 2], [0, 1, 1]], [[1, 1, 0], [1, 0, 1]]
        ours = F.cosine_similarity(mt.tensor(a, dtype=getattr(mt, d1)),
                                   mt.tensor(b, dtype=getattr(mt, d2)))
        theirs = torch.nn.functional.cosine_similarity(torch.tensor(a, dtype=getattr(torch, d1)),
                                                       torch.tensor(b, dtype=getattr(torch, d2)))
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_errors_on_cpu_and_meta():
    for device in ("cpu", "meta"):
        with pytest.raises(RuntimeError, match="^expected common dtype to be floating point, yet "
                                               "common dtype is torch.int64$"):
            F.cosine_similarity(mt.ones(2, 3, dtype=mt.int64, device=device),
                                mt.ones(2, 3, dtype=mt.int64, device=device))
        with pytest.raises(mt.ShapeError, match="cosine_similarity"):
            F.cosine_similarity(mt.ones(2, 3, device=device), mt.ones(2, 4, device=device))
        with pytest.raises(IndexError, match=r"cosine_similarity: Dimension out of range "
                                             r"\(expected to be in range of \[-2, 1\], but got "
                                             r"2\)"):
            F.cosine_similarity(mt.ones(2, 3, device=device), mt.ones(2, 3, device=device), 2)


def test_module_repr_and_meta():
    assert repr(mt.nn.CosineSimilarity(0, 1e-6)) == "CosineSimilarity()"
    out = mt.nn.CosineSimilarity()(mt.empty(2**20, 64, 2**10, device="meta"),
                                   mt.empty(64, 1, device="meta"))
    assert out.is_meta and out.shape == (2**20, 2**10)

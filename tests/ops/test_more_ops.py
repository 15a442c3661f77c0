"""tanh, sigmoid, cat/stack, min/argmin and all/any: gradients, PyTorch values, meta shapes."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_against_torch, check_gradients, check_meta, params

S = (3, 4)
CASES = [
    Case("tanh", lambda T, F, a: T.tanh(a), [Arg(S)]),
    Case("sigmoid", lambda T, F, a: a.sigmoid(), [Arg(S)]),
    Case("F_tanh_sigmoid", lambda T, F, a: F.tanh(a) * F.sigmoid(a), [Arg(S)]),
    Case("cat_dim0", lambda T, F, a, b: T.cat([a, b]), [Arg((2, 4)), Arg((3, 4))]),
    Case("cat_dim1_three", lambda T, F, a, b: T.cat([a, b, a], dim=1),
         [Arg((2, 3)), Arg((2, 1))]),
    Case("cat_neg_dim", lambda T, F, a, b: T.cat((a, b), -1), [Arg((2, 2, 3)), Arg((2, 2, 1))]),
    Case("cat_one_constant", lambda T, F, a, b: T.cat([a, b]), [Arg(S), Arg(S, grad=False)]),
]
# Cases whose grad_fn differs from PyTorch's by construction (min is -max(-x); stack is a
# cat of unsqueezed inputs); values and gradients are still compared.
UNNAMED = [
    Case("stack_dim0", lambda T, F, a, b: T.stack([a, b]), [Arg(S), Arg(S)]),
    Case("stack_dim_last", lambda T, F, a, b: T.stack([a, b], dim=-1), [Arg(S), Arg(S)]),
    Case("min_all", lambda T, F, a: a.min(), [Arg(S, "distinct")]),
    Case("min_dim", lambda T, F, a: T.min(a, 1).values, [Arg(S, "distinct")]),
    Case("min_dim_keepdim", lambda T, F, a: a.min(0, keepdim=True)[0], [Arg(S, "distinct")]),
    # var/std are compositions of mean, sub, mul and div; softmax is exp(log_softmax).
    Case("var_all", lambda T, F, a: a.var(), [Arg(S)]),
    Case("var_dim_keepdim", lambda T, F, a: T.var(a, 1, keepdim=True), [Arg(S)]),
    Case("std_dim_population", lambda T, F, a: a.std(0, correction=0), [Arg(S)]),
    Case("softmax", lambda T, F, a: T.softmax(a, 1), [Arg(S)]),
    Case("log_softmax_method", lambda T, F, a: a.log_softmax(0), [Arg(S)]),
]
NO_GRAD = [
    Case("argmin", lambda T, F, a: a.argmin(), [Arg(S, "distinct")]),
    Case("argmin_dim", lambda T, F, a: a.argmin(dim=1), [Arg(S, "distinct")]),
    Case("all", lambda T, F, a: (a > -1).all(), [Arg(S)]),
    Case("any_dim", lambda T, F, a: (a > 1).any(dim=0), [Arg(S)]),
    Case("all_dim_keepdim", lambda T, F, a: (a > 0).all(1, keepdim=True), [Arg(S)]),
]


@pytest.mark.parametrize("case", params(CASES + UNNAMED))
def test_gradcheck(case, device):
    check_gradients(case, device)


@pytest.mark.parametrize("case", params(CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_against_torch(case, seed, device):
    check_against_torch(case, device, seed)


@pytest.mark.parametrize("case", params(UNNAMED + NO_GRAD))
def test_against_torch_values_and_gradients(case, device):
    check_against_torch(case, device, check_name=False)


@pytest.mark.parametrize("case", params(CASES + UNNAMED + NO_GRAD))
def test_meta_shapes(case):
    check_meta(case)


def test_cat_promotes_dtypes_and_refuses_mismatched_shapes():
    mixed = mt.cat([mt.zeros(2, dtype=mt.float32), mt.ones(1, dtype=mt.float64)])
    assert mixed.dtype is mt.float64 and mixed.tolist() == [0.0, 0.0, 1.0]
    for device in ("cpu", "meta"):
        with pytest.raises(mt.ShapeError, match="Expected size 3 but got size 4 for tensor "
                                                "number 1"):
            mt.cat([mt.zeros(2, 3, device=device), mt.zeros(2, 4, device=device)])
        with pytest.raises(mt.ShapeError, match="same number of dimensions"):
            mt.cat([mt.zeros(2, 3, device=device), mt.zeros(3, device=device)])
    with pytest.raises(ValueError, match="non-empty list"):
        mt.cat([])
    with pytest.raises(ValueError, match="non-empty list"):
        mt.stack([])


def test_all_any_return_bool_and_need_no_grad():
    x = mt.tensor([[1.0, 0.0], [2.0, 3.0]], requires_grad=True)
    assert x.all().dtype is mt.bool and not x.all().item() and x.any().item()
    assert x.all(dim=1).tolist() == [False, True]
    assert x.any(dim=1).grad_fn is None
    np.testing.assert_array_equal(mt.tensor([0, 2]).all(0).numpy(), np.array(False))


def test_linspace_equals_pytorchs():
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    for start, end, steps in ((0, 1, 5), (-2.5, 3, 7), (1, 1, 1), (0, 1, 0)):
        ours = mt.linspace(start, end, steps)
        assert ours.dtype is mt.float32
        np.testing.assert_allclose(ours.numpy(), torch.linspace(start, end, steps).numpy(),
                                   rtol=1e-6, atol=1e-7)
    assert mt.linspace(0, 1, 1000, device="meta").shape == (1000,)
    with pytest.raises(ValueError, match="steps must be a non-negative integer"):
        mt.linspace(0, 1, -1)

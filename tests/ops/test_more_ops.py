"""tanh, sigmoid, cat/stack, min/argmin and all/any: gradients, PyTorch values, meta shapes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import (
    Arg,
    Case,
    check_against_torch,
    check_gradients,
    check_meta,
    check_same_error_on_cpu_and_meta,
    params,
)

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
    # var/std: PyTorch's unbiased overloads
    Case("var_unbiased_positional", lambda T, F, a: T.var(a, False), [Arg(S)]),
    Case("std_unbiased_positional", lambda T, F, a: a.std(True), [Arg(S)]),
    Case("var_dim_unbiased_keepdim", lambda T, F, a: a.var(1, False, True), [Arg(S)]),
    Case("std_unbiased_keyword", lambda T, F, a: T.std(a, 0, unbiased=False, keepdim=True),
         [Arg(S)]),
    Case("var_dims_correction", lambda T, F, a: a.var((0, -1), correction=2), [Arg((3, 2, 4))]),
    Case("var_fractional_correction", lambda T, F, a: a.var(1, correction=1.5), [Arg(S)]),
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
# var/std over dim () or []: every dim, in value and gradient. PyTorch's values agree, but
# its backward divides by N - correction with N = 1 (giving inf): compared with
# PyTorch's dim=None gradient instead (test_var_over_empty_dims_reduces_every_dim).
EMPTY_DIMS = [
    Case("var_dim_empty_tuple", lambda T, F, a: T.var(a, dim=()), [Arg(S)]),
    Case("var_dim_empty_list_keepdim", lambda T, F, a: a.var(dim=[], keepdim=True), [Arg(S)]),
    Case("std_dim_empty", lambda T, F, a: a.std(()), [Arg(S)]),
]
NO_GRAD = [
    Case("argmin", lambda T, F, a: a.argmin(), [Arg(S, "distinct")]),
    Case("argmin_dim", lambda T, F, a: a.argmin(dim=1), [Arg(S, "distinct")]),
    Case("all", lambda T, F, a: (a > -1).all(), [Arg(S)]),
    Case("any_dim", lambda T, F, a: (a > 1).any(dim=0), [Arg(S)]),
    Case("all_dim_keepdim", lambda T, F, a: (a > 0).all(1, keepdim=True), [Arg(S)]),
]


@pytest.mark.parametrize("case", params(CASES + UNNAMED + EMPTY_DIMS))
def test_gradcheck(case, device):
    check_gradients(case, device)


@pytest.mark.parametrize("case", params(CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_against_torch(case, seed, device):
    check_against_torch(case, device, seed)


@pytest.mark.parametrize("case", params(UNNAMED + NO_GRAD))
def test_against_torch_values_and_gradients(case, device):
    check_against_torch(case, device, check_name=False)


@pytest.mark.parametrize("case", params(CASES + UNNAMED + NO_GRAD + EMPTY_DIMS))
def test_meta_shapes(case):
    check_meta(case)


def test_cat_promotes_dtypes_and_refuses_mismatched_shapes():
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    mixed = mt.cat([mt.zeros(2, dtype=mt.float32), mt.ones(1, dtype=mt.float64)])
    assert mixed.dtype is mt.float64 and mixed.tolist() == [0.0, 0.0, 1.0]
    for device in ("cpu", "meta"):
        with pytest.raises(mt.ShapeError, match="Expected size 3 but got size 4 for tensor "
                                                "number 1"):
            mt.cat([mt.zeros(2, 3, device=device), mt.zeros(2, 4, device=device)])
        with pytest.raises(mt.ShapeError, match="same number of dimensions"):
            mt.cat([mt.zeros(2, 3, device=device), mt.zeros(3, device=device)])
    # PyTorch's types differ between the two: ValueError for cat, RuntimeError for stack
    for lib in (mt, torch):
        with pytest.raises(ValueError) as info:
            lib.cat([])
        assert type(info.value) is ValueError
        assert str(info.value) == "torch.cat(): expected a non-empty list of Tensors"
        with pytest.raises(RuntimeError) as info:
            lib.stack([])
        assert type(info.value) is RuntimeError
        assert str(info.value) == "stack expects a non-empty TensorList"


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
    with pytest.raises(ValueError, match="number of steps must be non-negative"):
        mt.linspace(0, 1, -1)


@pytest.mark.parametrize("call, op", [
    (lambda T, x: T.var(x, 0, correction=3), "var"), (lambda T, x: x.std(1, correction=5), "std"),
    (lambda T, x: x[:1].var(0), "var"), (lambda T, x: T.var_mean(x, 0, correction=4), "var_mean"),
    (lambda T, x: T.std_mean(x, (0, 1), correction=12), "std_mean"),
    (lambda T, x: T.ones(0).var(), "var"), (lambda T, x: T.ones(0, 3).std(1), "std")])
def test_no_degrees_of_freedom_warns_as_pytorch(call, op, any_device):
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    message = (rf"{op}\(\): degrees of freedom is <= 0. Correction should be strictly less than "
               r"the reduction factor \(input numel divided by output numel\).")
    with pytest.warns(UserWarning, match=message):
        theirs = call(torch, torch.arange(12.0).reshape(3, 4))
    with pytest.warns(UserWarning, match=message) as record:
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's 0/0 (pytest.warns shows all)
        ours = call(mt, mt.arange(12.0, device=any_device).reshape(3, 4))
    assert [w.filename for w in record] == [__file__]  # one warning, at the caller's line
    first = ours[0] if isinstance(ours, tuple) else ours
    theirs = theirs[0] if isinstance(theirs, tuple) else theirs
    assert first.shape == theirs.shape
    if any_device != "meta":
        np.testing.assert_array_equal(first.cpu().numpy(), theirs.numpy())


def test_enough_degrees_of_freedom_do_not_warn():
    x = mt.arange(12.0).reshape(3, 4)
    # pytest turns warnings into errors: none of these may warn
    x.var(0, correction=2.5), x.var(correction=11), x.std(1, unbiased=False), x[:1].var(0, False)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.var(0, True, correction=0), TypeError,
     "var(): pass either unbiased or correction, not both (unbiased=False is correction=0)"),
    (lambda x: mt.std(x, unbiased=True, correction=1), TypeError,
     "std(): pass either unbiased or correction, not both (unbiased=False is correction=0)"),
    (lambda x: x.long().var(), RuntimeError,
     "std and var only support floating point and complex dtypes, but got torch.int64; "
     "convert the input with .float()"),
    (lambda x: x.var(3), IndexError,
     "mean: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
])
def test_var_std_errors(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


@pytest.mark.parametrize("name, keyword", [("var", {}), ("std", {"keepdim": True}),
                                           ("var", {"correction": 0})])
@pytest.mark.parametrize("dim", [(), []])
def test_var_over_empty_dims_reduces_every_dim(name, keyword, dim, device):
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    x = mt.tensor(data, device=device, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    ours = getattr(x, name)(dim, **keyword)
    theirs = getattr(t, name)(dim, **keyword)  # PyTorch's value: every dim
    assert ours.shape == theirs.shape and ours.grad_fn.name() == theirs.grad_fn.name()
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(), rtol=1e-5)
    ours.sum().backward()
    getattr(t, name)(None, **keyword).sum().backward()  # its gradient for every dim
    np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-6)
    assert mt.var_mean(x, dim)[0].item() == pytest.approx(mt.var(x).item())

"""cov and corrcoef (torch.<name> and Tensor methods): values and gradients (input and
aweights) against PyTorch, correction and frequency weights, dtypes, warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

V = (3, 6)  # three variables, six observations
CASES = [
    Case("cov", lambda T, F, a: T.cov(a), [Arg(V)]),
    Case("cov_method_population", lambda T, F, a: a.cov(correction=0), [Arg(V)]),
    Case("cov_one_variable", lambda T, F, a: T.cov(a), [Arg((6,))]),
    Case("cov_one_row", lambda T, F, a: T.cov(a, correction=2), [Arg((1, 6))]),
    Case("cov_fweights", lambda T, F, a, f: T.cov(a, fweights=f + 1), [Arg(V), Arg((6,), "int:3")]),
    Case("cov_aweights", lambda T, F, a, w: T.cov(a, aweights=w), [Arg(V), Arg((6,), "positive")]),
    Case("cov_both_weights", lambda T, F, a, f, w: T.cov(a, correction=2, fweights=f + 1,
                                                          aweights=w),
         [Arg(V), Arg((6,), "int:3"), Arg((6,), "positive")]),
    Case("corrcoef", lambda T, F, a: T.corrcoef(a), [Arg(V)]),
    Case("corrcoef_method", lambda T, F, a: a.corrcoef(), [Arg((4, 5))]),
    Case("corrcoef_one_variable", lambda T, F, a: T.corrcoef(a), [Arg((5,))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


@pytest.mark.parametrize("name", ["cov", "corrcoef"])
def test_integer_input_gives_the_default_float_dtype(name, device):
    torch = _torch()
    data = np.array([[1, 4, 2, 8], [3, 3, 5, 1]])
    ours = getattr(mt, name)(mt.tensor(data, device=device))
    ref = getattr(torch, name)(torch.tensor(data))
    assert str(ours.dtype) == str(ref.dtype)
    np.testing.assert_allclose(ours.cpu().numpy(), ref.numpy(), rtol=1e-6)
    with mt.device("cpu"):
        mt.set_default_dtype(mt.float64)
        try:
            assert mt.cov(mt.tensor(data)).dtype is mt.float64
        finally:
            mt.set_default_dtype(mt.float32)


def test_too_few_observations_warn_and_give_infinities_as_torch():
    torch = _torch()
    data = np.array([[1.0, 2.0], [3.0, 5.0]], dtype=np.float32)
    message = "degrees of freedom is <= 0"
    with pytest.warns(UserWarning, match=message):
        ref = torch.cov(torch.tensor(data), correction=2)
    with pytest.warns(UserWarning, match=message) as caught:
        ours = mt.cov(mt.tensor(data), correction=2)
    assert caught[0].filename == __file__  # attributed to the caller
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())
    with pytest.warns(UserWarning, match=message):
        ours = mt.cov(mt.tensor(data), aweights=mt.tensor([1.0, 1.0]), correction=2)
    with pytest.warns(UserWarning, match=message):
        ref = torch.cov(torch.tensor(data), aweights=torch.tensor([1.0, 1.0]), correction=2)
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())


def test_no_observations_give_nan_as_torch():
    torch = _torch()
    with pytest.warns(UserWarning):
        ours = mt.cov(mt.zeros(2, 0))
    with pytest.warns(UserWarning):
        ref = torch.cov(torch.zeros(2, 0))
    assert ours.shape == ref.shape and np.isnan(ours.numpy()).all() == np.isnan(ref.numpy()).all()


def test_meta_checks_shapes_without_values():
    x = mt.empty(4, 2**20, device="meta", requires_grad=True)
    weights = mt.empty(2**20, device="meta")
    out = mt.cov(x, aweights=weights)
    assert out.shape == (4, 4) and out.is_meta and out.grad_fn.name() == "SqueezeBackward0"
    assert mt.corrcoef(x).grad_fn.name() == "ClampBackward1"


X = np.arange(10.0, dtype=np.float32).reshape(2, 5)


@pytest.mark.parametrize("call, error, message", [
    (lambda T: T.cov(T.ones(2, 2, 2)), RuntimeError,
     "cov(): expected input to have two or fewer dimensions but got an input with 3 dimensions"),
    (lambda T: T.corrcoef(T.ones(2, 2, 2)), RuntimeError,
     "corrcoef(): expected input to have two or fewer dimensions but got an input with 3 "
     "dimensions"),
    (lambda T: T.cov(T.tensor(X), fweights=T.ones(5)), RuntimeError,
     "cov(): expected fweights to have integral dtype but got fweights with Float dtype"),
    (lambda T: T.cov(T.tensor(X), fweights=T.tensor([1, 2])), RuntimeError,
     "cov(): expected fweights to have the same numel as there are observations in the input "
     "but got 2 != 5"),
    (lambda T: T.cov(T.tensor(X), fweights=T.ones(1, 5, dtype=T.int64)), RuntimeError,
     "cov(): expected fweights to have one or fewer dimensions but got fweights with 2 "
     "dimensions"),
    (lambda T: T.cov(T.tensor(X), fweights=T.tensor([1, -2, 1, 3, 1])), RuntimeError,
     "cov(): fweights cannot be negative"),
    (lambda T: T.cov(T.tensor(X), aweights=T.tensor([1, -2, 1, 3, 1.0])), RuntimeError,
     "cov(): aweights cannot be negative"),
    (lambda T: T.cov(T.tensor(X), aweights=T.tensor([1, 2, 1, 3, 1])), RuntimeError,
     "cov(): expected aweights to have floating point dtype but got aweights with Long dtype"),
    (lambda T: T.cov(T.tensor(X), aweights=T.ones(4)), RuntimeError,
     "cov(): expected aweights to have the same numel as there are observations in the input "
     "but got 4 != 5"),
    (lambda T: T.cov(T.tensor(X), fweights=T.zeros(5, dtype=T.int64)), RuntimeError,
     "cov(): weights sum to zero, can't be normalized"),
    (lambda T: T.cov(T.tensor(X), correction=1.5), TypeError,
     "cov(): argument 'correction' must be int, not float"),
])
def test_errors_match_torch(call, error, message):
    torch = _torch()
    with pytest.raises(error) as ref:
        call(torch)
    assert str(ref.value).startswith(message)
    with pytest.raises(error) as info:
        call(mt)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("make", [lambda T: T.tensor([1.0]), lambda T: T.tensor([[1.0], [2.0]]),
                                  lambda T: T.zeros(2, 0)])
@pytest.mark.parametrize("name", ["cov", "corrcoef"])
def test_a_single_observation_gives_nan_and_only_torchs_warning(make, name):
    """PyTorch's one UserWarning and NaN, with no NumPy RuntimeWarning from our kernels."""
    torch = _torch()
    caught, values = {}, {}
    for T in (mt, torch):
        with warnings.catch_warnings(record=True) as record:
            # recorded instead of raised; every other filter (pytest's) stays as it is
            warnings.filterwarnings("always", category=UserWarning)
            values[T] = getattr(T, name)(make(T)).numpy()
        caught[T] = [(w.category, str(w.message).split(" (Triggered")[0]) for w in record]
    assert caught[mt] == caught[torch] and len(caught[mt]) == 1
    np.testing.assert_array_equal(values[mt], values[torch])

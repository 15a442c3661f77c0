"""testing.assert_close: PyTorch's tolerances, rules and messages, word for word."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.testing import assert_close


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _pair(make):
    """The same inputs for us and for PyTorch: ``make(T)`` builds them with library T."""
    return make(mt), make(_torch())


CALLS = [
    (lambda T: (T.tensor([1.0, 2.0, 3.0]), T.tensor([1.0, 2.0, 3.0]) + 1e-6), {}),
    (lambda T: (T.tensor([1.0, 2.0, 3.0]), T.tensor([1.0, 2.5, 3.0])), {}),
    (lambda T: (T.tensor([1.0, 2.0, 3.0]), T.tensor([1.0, 2.5, 3.5])), {"rtol": 0, "atol": 0.1}),
    (lambda T: (T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0], dtype=T.float64)), {}),
    (lambda T: (T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0], dtype=T.float64)),
     {"check_dtype": False}),
    (lambda T: (T.tensor([1.0, 2.0, 3.0]), T.tensor([1.0, 2.0])), {}),
    (lambda T: (T.tensor([1, 2]), T.tensor([1, 3])), {}),
    (lambda T: (T.tensor([[1]]), T.tensor([[2]])), {}),
    (lambda T: (T.tensor([1, 2], dtype=T.uint8), T.tensor([1, 250], dtype=T.uint8)), {}),
    (lambda T: (T.tensor([True, False]), T.tensor([True, True])), {}),
    (lambda T: (T.tensor(True), T.tensor(False)), {}),
    (lambda T: (T.tensor([float("nan")]), T.tensor([float("nan")])), {}),
    (lambda T: (T.tensor([float("nan")]), T.tensor([float("nan")])), {"equal_nan": True}),
    (lambda T: (T.tensor([0.0, 1.0]), T.tensor([float("inf"), 1.0])), {}),
    (lambda T: (T.tensor([float("inf"), 1.0]), T.tensor([float("inf"), 1.0])), {}),
    (lambda T: (T.zeros(2, 2), T.eye(2)), {}),
    (lambda T: (T.tensor(1.0), T.tensor(2.0)), {}),
    (lambda T: (T.tensor([1e-8, 2.0], dtype=T.float64), T.tensor([0.0, 2.0], dtype=T.float64)),
     {}),
    (lambda T: (T.tensor([1.0, 2.0], dtype=T.float64), T.tensor([1.0, 2.0000001],
                                                               dtype=T.float64)), {}),
    # the greatest differences are those of the mismatched elements only
    (lambda T: (T.tensor([1000.0, 0.0], dtype=T.float64),
                T.tensor([1000.00005, 1e-6], dtype=T.float64)), {}),
    (lambda T: (T.tensor([2, 3]), T.tensor([2.0, 3.0])), {}),
    (lambda T: (T.tensor([2, 3]), T.tensor([2.0, 3.0])), {"check_dtype": False}),
    (lambda T: (T.zeros(0), T.zeros(0)), {}),
    (lambda T: (T.zeros(2, device="meta"), T.zeros(2, device="meta")), {}),
    (lambda T: (T.zeros(2), T.zeros(2, device="meta")), {}),
    (lambda T: (T.zeros(2), T.zeros(2, device="meta")), {"check_device": False}),
    (lambda T: (1.0, 1.0 + 1e-9), {}),
    (lambda T: (1.0, 2.0), {}),
    (lambda T: (1, 2), {}),
    (lambda T: (1, 1.0), {}),
    (lambda T: (True, False), {}),
    (lambda T: ([T.ones(2), T.ones(2)], [T.ones(2), T.ones(2) + 1]), {}),
    (lambda T: ((T.zeros(1),), [T.ones(1)]), {}),
    (lambda T: ([1, 2], [1, 2, 3]), {}),
    (lambda T: ({"a": T.ones(3)}, {"a": T.ones(3) * 2}), {}),
    (lambda T: ({"a": 1}, {"b": 1}), {}),
    (lambda T: (T.tensor([1.0, 2.0]), T.tensor([2.0, 2.0])), {"msg": "custom"}),
    (lambda T: (T.ones(2, requires_grad=True), T.ones(2)), {}),
    (lambda T: (T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0]) * 1.001), {"rtol": 1e-2,
                                                                      "atol": 0.0}),
]


@pytest.mark.parametrize("make, options", CALLS)
def test_same_outcome_and_message_as_torch(make, options):
    torch = _torch()
    ours, theirs = _pair(make)
    outcomes = []
    for (actual, expected), check in ((ours, assert_close),
                                      (theirs, torch.testing.assert_close)):
        try:
            check(actual, expected, **options)
            outcomes.append(None)
        except AssertionError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("make", [lambda T: (T.ones(3), [1.0, 1.0, 1.0]),
                                  lambda T: (T.ones(3), 1)])
def test_incomparable_inputs_are_a_type_error(make):
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        assert_close(*make(mt))


@pytest.mark.parametrize("given, missing", [({"rtol": 1e-3}, "atol"), ({"atol": 1e-3}, "rtol")])
def test_rtol_and_atol_go_together(given, missing):
    with pytest.raises(ValueError, match=f"Both 'rtol' and 'atol' must be either specified or "
                                         f"omitted, but got no {missing}."):
        assert_close(mt.ones(1), mt.ones(1), **given)


def test_msg_may_be_a_callable_and_numpy_arrays_compare(device):
    with pytest.raises(AssertionError, match="^wrapped: Tensor-likes are not close!"):
        assert_close(mt.ones(2, device=device), mt.zeros(2, device=device),
                     msg=lambda message: f"wrapped: {message}")
    assert_close(np.arange(3.0), np.arange(3.0))
    assert_close(mt.ones(2, 2, device=device), mt.ones(2, 2, device=device) + 1e-7)


def test_reachable_as_torch_testing():
    assert mt.testing.assert_close is assert_close

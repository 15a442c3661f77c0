"""``torch.func.vmap``: values, gradients, structures of in_dims/out_dims, randomness modes
and the errors, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.func.trees import as_numpy, assert_trees_close

A = np.arange(12, dtype=np.float64).reshape(3, 4) / 7 - 0.5
V = np.array([0.5, -1.0, 2.0, 0.25], dtype=np.float64)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")






CASES = {
    "sum": lambda T, t: T.func.vmap(T.sum)(t(A)),
    "in_dims 1": lambda T, t: T.func.vmap(T.sum, in_dims=1)(t(A)),
    "in_dims -1": lambda T, t: T.func.vmap(lambda r: r * r.max(), in_dims=-1)(t(A)),
    "dot with None": lambda T, t: T.func.vmap(T.dot, in_dims=(0, None))(t(A), t(V)),
    "number unmapped": lambda T, t: T.func.vmap(lambda r, s: r * s, in_dims=(0, None))(
        t(A), 2.5),
    "out_dims 1": lambda T, t: T.func.vmap(lambda r: r.exp(), out_dims=1)(t(A)),
    "out_dims -1": lambda T, t: T.func.vmap(lambda r: T.outer(r, r), out_dims=-1)(t(A)),
    "tuple out": lambda T, t: T.func.vmap(lambda r: (r.cumsum(0), r.sum()), out_dims=(0, 0))(
        t(A)),
    "list out": lambda T, t: T.func.vmap(lambda r: [r, r * 2], out_dims=[0, 1])(t(A)),
    "dict in": lambda T, t: T.func.vmap(lambda d: d["a"] + d["b"],
                                        in_dims=({"a": 0, "b": None},))({"a": t(A), "b": t(V)}),
    "nested in_dims": lambda T, t: T.func.vmap(lambda p: p[0] + p[1], in_dims=((0, 1),))(
        (t(A), t(A.T.copy()))),
    "kwargs unmapped": lambda T, t: T.func.vmap(lambda r, b=None: r - b)(t(A), b=t(V)),
    "unbatched output": lambda T, t: T.func.vmap(lambda r: T.ones(2, dtype=T.float64))(t(A)),
    "out_dims None": lambda T, t: T.func.vmap(lambda r, v: (r, v * 2), in_dims=(0, None),
                                              out_dims=(0, None))(t(A), t(V)),
    "nested vmap": lambda T, t: T.func.vmap(T.func.vmap(lambda a, b: a * b))(t(A), t(A)),
    "empty batch": lambda T, t: T.func.vmap(lambda r: r * 2, out_dims=1)(t(np.ones((0, 3)))),
    "one out_dims for one output": lambda T, t: T.func.vmap(lambda r: r, out_dims=(0,))(t(A)),
    "per-sample grad": lambda T, t: T.func.vmap(
        T.func.grad(lambda w, x: (w * x).sin().sum()), in_dims=(None, 0))(t(V), t(A)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_values_match_torch(case):
    torch = _torch()
    ours = CASES[case](mt, lambda a: mt.tensor(a, dtype=mt.float64))
    ref = CASES[case](torch, lambda a: torch.tensor(a, dtype=torch.float64))
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-12)


def test_gradients_flow_through_vmap_as_torch(device):
    torch = _torch()
    x = mt.tensor(A, device=device, requires_grad=True)
    v = mt.tensor(V, device=device, requires_grad=True)
    tx = torch.tensor(A, requires_grad=True)
    tv = torch.tensor(V, requires_grad=True)
    out = mt.func.vmap(lambda r, w: (r * w).tanh(), in_dims=(1, None), out_dims=1)(x.t(), v)
    ref = torch.func.vmap(lambda r, w: (r * w).tanh(), in_dims=(1, None), out_dims=1)(tx.t(), tv)
    assert out.device == tensor_device(device)
    (out * out).sum().backward()
    (ref * ref).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(v.grad.cpu().numpy(), tv.grad.numpy(), rtol=1e-12)


def test_meta_inputs_give_meta_shapes():
    out = mt.func.vmap(lambda r: r.unsqueeze(0) * 2, out_dims=2)(mt.ones(5, 3, device="meta"))
    assert tuple(out.shape) == (1, 3, 5) and out.device.type == "meta"


def _errors(T):
    x = T.ones(3, 4)
    return {
        "in_dim out of range": (lambda: T.func.vmap(T.sum, in_dims=2)(x), ValueError,
                                "vmap(sum, in_dims=2, ...)(<inputs>): Got in_dim=2 for some "
                                "input, but that input is a Tensor of dimensionality 2 so "
                                "expected in_dim to satisfy -2 <= in_dim < 2."),
        "0-d input": (lambda: T.func.vmap(T.sum)(T.ones(())), ValueError,
                      "expected in_dim to satisfy -0 <= in_dim < 0."),
        "sizes differ": (lambda: T.func.vmap(T.add)(x, T.ones(4, 3)), ValueError,
                         "vmap: Expected all tensors to have the same size in the mapped "
                         "dimension, got sizes [3, 4] for the mapped dimension"),
        "nothing mapped": (lambda: T.func.vmap(T.add, in_dims=(None, None))(x, x), ValueError,
                           "vmap: Expected at least one Tensor to vmap over"),
        "no inputs": (lambda: T.func.vmap(lambda: T.ones(2))(), ValueError,
                      "got no inputs. Maybe you forgot to add inputs"),
        "in_dims list": (lambda: T.func.vmap(T.add, in_dims=[0, 0])(x, x), ValueError,
                         "expected `in_dims` to be int or a (potentially nested) tuple "
                         "matching the structure of inputs, got: <class 'list'>."),
        "in_dims length": (lambda: T.func.vmap(T.add, in_dims=(0,))(x, x), ValueError,
                           "in_dims is not compatible with the structure of `inputs`."),
        "in_dims keys": (lambda: T.func.vmap(lambda d: d["a"], in_dims=({"a": 0},))(
            {"a": x, "b": x}), ValueError, "in_dims is not compatible with the structure"),
        "in_dim float": (lambda: T.func.vmap(T.add, in_dims=(0.5, 0))(x, x), ValueError,
                         "Got in_dim=0.5 for an input but in_dim must be either an integer "
                         "dimension or None."),
        "number mapped": (lambda: T.func.vmap(lambda a, b: a * b)(x, 2.0), ValueError,
                          "Got in_dim=0 for an input but the input is of type <class 'float'>. "
                          "We cannot vmap over non-Tensor arguments"),
        "out not tensor": (lambda: T.func.vmap(lambda a: 3)(x), ValueError,
                           "must only return Tensors, got type <class 'int'>. Did you mean to "
                           "set out_dims= to None for output?"),
        "out_dims None batched": (lambda: T.func.vmap(lambda a: a * 2, out_dims=None)(
            T.arange(12.0).reshape(3, 4)),
                                  ValueError, "can not return a BatchedTensor when out_dim is "
                                              "None"),
        "out_dims structure": (lambda: T.func.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(x),
                               ValueError, "out_dims is not compatible with the structure of "
                                           "`outputs`."),
        "out_dims type": (lambda: T.func.vmap(lambda a: a, out_dims="a")(x), ValueError,
                          "`out_dims` must be an int, None or a python collection of ints"),
        "out_dim out of range": (lambda: T.func.vmap(lambda a: a * 2, out_dims=2)(x),
                                 IndexError, "Dimension out of range (expected to be in range "
                                             "of [-2, 1], but got 2)"),
        "randomness value": (lambda: T.func.vmap(lambda a: a, randomness="foo"), RuntimeError,
                             "Only allowed values for randomness are 'error', 'different', or "
                             "'same'. Got foo"),
        "chunk_size": (lambda: T.func.vmap(lambda a: a, chunk_size=0), ValueError,
                       "vmap: chunk_size should be None or greater than 0. (got 0)"),
        "random draw": (lambda: T.func.vmap(lambda a: a + T.rand(4))(x), RuntimeError,
                        "vmap: called random operation while in randomness error mode."),
        "dropout draw": (lambda: T.func.vmap(lambda a: T.nn.functional.dropout(a, 0.5))(x),
                         RuntimeError, "called random operation while in randomness error"),
    }


@pytest.mark.parametrize("case", list(_errors(mt)))
def test_errors_as_torch(case):
    torch = _torch()
    for T in (mt, torch):
        call, error, message = _errors(T)[case]
        with pytest.raises(error) as info:
            call()
        assert message in str(info.value), (T.__name__, str(info.value))


def test_randomness_error_consumes_nothing_and_restores_the_generator():
    mt.manual_seed(3)
    expected = mt.rand(4).tolist()
    mt.manual_seed(3)
    with pytest.raises(RuntimeError):
        mt.func.vmap(lambda a: a + mt.rand(4))(mt.ones(3, 4))
    assert mt.rand(4).tolist() == expected


def test_randomness_same_repeats_draws_and_different_does_not(device):
    x = mt.ones(3, 4, device=device)
    same = mt.func.vmap(lambda a: a * mt.rand(4, device=device), randomness="same")(x)
    different = mt.func.vmap(lambda a: a * mt.rand(4, device=device),
                             randomness="different")(x)
    rows = same.cpu().numpy()
    assert (rows == rows[0]).all()
    rows = different.cpu().numpy()
    assert not (rows == rows[0]).all()
    mt.manual_seed(5)
    first = mt.func.vmap(lambda a: mt.rand(2, device=device), randomness="same")(x)
    mt.manual_seed(5)
    again = mt.func.vmap(lambda a: mt.rand(2, device=device), randomness="same")(x)
    assert first.tolist() == again.tolist()


def test_functional_call_inside_vmap_ensembles_models():
    torch = _torch()
    weights = np.stack([np.eye(3) * k for k in (1.0, 2.0)])

    def ensemble(T):
        model = T.nn.Linear(3, 3, bias=False).double()
        return T.func.vmap(lambda w, x: T.func.functional_call(model, {"weight": w}, (x,)),
                           in_dims=(0, None))(T.tensor(weights), T.tensor(A[:, :3].copy()))

    assert_trees_close(as_numpy(ensemble(mt)), as_numpy(ensemble(torch)), rtol=1e-12)

"""Class weights in the classification losses (``nll_loss``, ``cross_entropy`` with class
indices, label smoothing or probability targets), their K-dimensional and unbatched inputs,
element weights in ``mse_loss``/``l1_loss``, and the loss layers' ``weight`` buffer and
``NLLLoss2d``: values and gradients against PyTorch (float32 and float64), gradcheck, meta
shapes, second order, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch_meta as mt
import minitorch_meta.nn as nn
import minitorch_meta.nn.functional as mF
from tests.autograd.second_order import assert_second_order_equal_pytorchs, seeded_arrays
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests

REDUCTIONS = ("mean", "sum", "none")
#: (input shape, target shape): batched, unbatched, and K-dimensional for K = 1, 2, 3
LAYOUTS = {"2d": ((5, 4), (5,)), "unbatched": ((4,), ()), "k1": ((2, 4, 3), (2, 3)),
           "k2": ((2, 4, 3, 2), (2, 3, 2)), "k3": ((2, 4, 2, 1, 2), (2, 2, 1, 2))}
WEIGHT = Arg((4,), "positive", grad=False)


def _classes(layout):
    shape, target = LAYOUTS[layout]
    return [Arg(shape), Arg(target, "int:4"), WEIGHT]


def _nll(r, **kwargs):
    def call(T, F, x, t, w):
        return F.nll_loss(F.log_softmax(x, 0 if x.dim() == 1 else 1), t, w, reduction=r,
                          **kwargs)
    return call


def _ce(r, **kwargs):
    return lambda T, F, x, t, w: F.cross_entropy(x, t, w, reduction=r, **kwargs)


CASES = (
    [Case(f"nll_weight_{layout}_{r}", _nll(r), _classes(layout))
     for layout in LAYOUTS for r in REDUCTIONS]
    # ignore_index=1: some targets are ignored (their weight leaves the mean's divisor)
    + [Case(f"nll_weight_ignore_{layout}_{r}", _nll(r, ignore_index=1), _classes(layout))
       for layout in ("2d", "k2") for r in REDUCTIONS]
    + [Case(f"nll_no_weight_{layout}_{r}",
            lambda T, F, x, t, r=r: F.nll_loss(x, t, reduction=r),
            _classes(layout)[:2]) for layout in ("unbatched", "k1", "k2") for r in REDUCTIONS]
    + [Case(f"ce_weight_{layout}_{r}", _ce(r), _classes(layout))
       for layout in LAYOUTS for r in REDUCTIONS]
    + [Case(f"ce_weight_smoothing_{layout}_{r}", _ce(r, label_smoothing=0.2, ignore_index=1),
            _classes(layout)) for layout in ("2d", "unbatched", "k2") for r in REDUCTIONS]
    + [Case(f"ce_weight_probabilities_{layout}_{r}", _ce(r),
            [Arg(LAYOUTS[layout][0]), Arg(LAYOUTS[layout][0], "prob", grad=False), WEIGHT])
       for layout in ("2d", "k1") for r in REDUCTIONS]
    + [Case(f"ce_weight_probabilities_smoothing_{r}", _ce(r, label_smoothing=0.3),
            [Arg((3, 4, 2)), Arg((3, 4, 2), "prob", grad=False), WEIGHT]) for r in REDUCTIONS]
    # PyTorch differentiates the element weights of mse_loss/l1_loss
    + [Case(f"{name}_weight_{r}",
            lambda T, F, x, t, w, name=name, r=r: getattr(F, name)(x, t, weight=w,
                                                                   reduction=r),
            [Arg((3, 4)), Arg((3, 4), "away0"), Arg((3, 4), "positive")])
       for name in ("mse_loss", "l1_loss") for r in REDUCTIONS]
)

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_float64_values_and_gradients_equal_pytorchs(case, device):
    """float64 to 1e-12: the same formulas as PyTorch's, not only close ones."""
    arrays = case.arrays(seed=5)
    results = []
    for lib in (mt, torch):
        kwargs = {"device": device} if lib is mt else {}
        inputs = [lib.tensor(a, requires_grad=arg.differentiable, **kwargs)
                  for a, arg in zip(arrays, case.args)]
        out = case.fn(lib, lib.nn.functional, *inputs)
        assert str(out.dtype) == "torch.float64"
        out.sum().backward()
        grads = [i.grad.cpu().numpy() for i in inputs if i.requires_grad]
        results.append((out.detach().cpu().numpy(), grads))
    (ours, our_grads), (theirs, their_grads) = results
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)
    for a, b in zip(our_grads, their_grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def _weight_of(lib, device):
    kwargs = {"device": device} if lib is mt else {}
    return lib.tensor([0.5, 2.0, 1.0, 3.0], dtype=lib.float64, **kwargs)


def _target_of(lib, device, values):
    kwargs = {"device": device} if lib is mt else {}
    return lib.tensor(values, **kwargs)


SECOND_ORDER = {
    "nll_weighted_mean": (
        lambda L, d, x: L.nn.functional.nll_loss(x.tanh(), _target_of(L, d, [0, 3, 1]),
                                                 _weight_of(L, d)),
        [(3, 4)]),
    "cross_entropy_weighted_k2_sum": (
        lambda L, d, x: L.nn.functional.cross_entropy(
            x, _target_of(L, d, [[[0, 3], [1, 2]], [[2, 2], [3, 0]]]), _weight_of(L, d),
            reduction="sum"),
        [(2, 4, 2, 2)]),
    "cross_entropy_weighted_smoothing": (
        lambda L, d, x: L.nn.functional.cross_entropy(
            x, _target_of(L, d, [0, 3, 1]), _weight_of(L, d), label_smoothing=0.25),
        [(3, 4)]),
    "nll_unbatched_none": (
        lambda L, d, x: (L.nn.functional.nll_loss(x.sin(), _target_of(L, d, 2),
                                                  _weight_of(L, d), reduction="none") ** 2),
        [(4,)]),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_second_order_gradients_equal_pytorchs(name, device):
    fn, shapes = SECOND_ORDER[name]
    assert_second_order_equal_pytorchs(fn, seeded_arrays(name, shapes), device)


def test_weighted_mean_divides_by_the_weights_of_the_targets_not_ignored(device):
    x = mt.tensor([[0.0, -1.0, -2.0], [-3.0, 0.0, -1.0], [-2.0, -2.0, 0.0]], device=device)
    t = mt.tensor([1, 0, 2], device=device)
    w = mt.tensor([1.0, 2.0, 4.0], device=device)
    # (2 * 1 + 1 * 3 + 4 * 0) / (2 + 1 + 4); ignoring class 2 leaves (2 + 3) / 3
    assert mF.nll_loss(x, t, w).item() == pytest.approx(5 / 7)
    assert mF.nll_loss(x, t, w, ignore_index=2).item() == pytest.approx(5 / 3)
    loss = mF.nll_loss(x, t, w, reduction="none")
    assert loss.device == tensor_device(device)
    np.testing.assert_allclose(loss.cpu().numpy(), [2.0, 3.0, 0.0])


@pytest.mark.parametrize("weight", [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]], ids=["zero", "ones"])
def test_all_zero_weight_or_all_ignored_mean_is_nan_as_pytorch(weight):
    x, t, weight = np.zeros((2, 3)), np.array([1, 1]), np.array(weight)
    for ignore_index in (-100, 1):
        ours = mF.nll_loss(mt.tensor(x), mt.tensor(t), mt.tensor(weight),
                           ignore_index=ignore_index)
        theirs = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(t),
                                              torch.tensor(weight), ignore_index=ignore_index)
        assert np.isnan(ours.item()) == np.isnan(theirs.item())


def test_empty_batch_as_pytorch():
    for r in REDUCTIONS:
        ours = mF.cross_entropy(mt.zeros(0, 3, 2), mt.zeros(0, 2, dtype=mt.int64), mt.ones(3),
                                reduction=r)
        theirs = torch.nn.functional.cross_entropy(
            torch.zeros(0, 3, 2), torch.zeros(0, 2, dtype=torch.int64), torch.ones(3),
            reduction=r)
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_unbatched_target_of_one_element_as_pytorch():
    x, w = np.log([0.1, 0.2, 0.3, 0.4]), np.array([1.0, 2.0, 3.0, 4.0])
    ours = mF.nll_loss(mt.tensor(x), mt.tensor([2]), mt.tensor(w), reduction="sum")
    theirs = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor([2]), torch.tensor(w),
                                          reduction="sum")
    assert ours.shape == () and ours.item() == pytest.approx(theirs.item())


# (call(F, lib), the error type both frameworks raise, our message)
ERRORS = {
    "weight_of_other_size": (
        lambda F, L: F.nll_loss(L.zeros(3, 4), L.tensor([0, 1, 2]), L.ones(3)), RuntimeError,
        r"nll_loss: weight tensor should be defined either for all 4 classes or no classes: "
        r"expected weight of shape \(4,\), got \(3,\)"),
    "weight_not_1d": (
        lambda F, L: F.cross_entropy(L.zeros(3, 4), L.tensor([0, 1, 2]), L.ones(2, 2)),
        RuntimeError, r"expected weight of shape \(4,\), got \(2, 2\)"),
    "weight_of_other_dtype": (
        lambda F, L: F.nll_loss(L.zeros(3, 4), L.tensor([0, 1, 2]),
                                L.ones(4, dtype=L.float64)), RuntimeError,
        r"nll_loss: expected weight of the input's dtype torch.float32, got torch.float64"),
    "integer_weight": (
        lambda F, L: F.nll_loss(L.zeros(3, 4), L.tensor([0, 1, 2]), L.ones(4, dtype=L.int64)),
        RuntimeError, "expected weight of the input's dtype"),
    "weight_requires_grad": (
        lambda F, L: F.nll_loss(L.zeros(3, 4), L.tensor([0, 1, 2]),
                                L.ones(4, requires_grad=True)), RuntimeError,
        "The function 'nll_loss' is not differentiable with respect to argument 'weight'"),
    "smoothing_weight_of_other_size": (
        lambda F, L: F.cross_entropy(L.zeros(3, 4), L.tensor([0, 1, 2]), L.ones(5),
                                     label_smoothing=0.1), RuntimeError,
        "weight tensor should be defined either for all 4 classes"),
    "probabilities_weight_of_other_size": (
        lambda F, L: F.cross_entropy(L.zeros(3, 4), L.ones(3, 4) / 4, L.ones(3)), RuntimeError,
        r"cross_entropy: weight tensor should be defined either for all 4 classes or no "
        r"classes: expected weight of shape \(4,\), got \(3,\)"),
    "batch_mismatch": (
        lambda F, L: F.nll_loss(L.zeros(2, 4, 3), L.zeros(3, 3, dtype=L.int64), L.ones(4)),
        ValueError, r"expected input batch_size \(2\) to match target batch_size \(3\)"),
    "k_dims_mismatch": (
        lambda F, L: F.nll_loss(L.zeros(2, 4, 3, 5), L.zeros(2, 2, 5, dtype=L.int64)),
        RuntimeError, r"expected target of shape \(2, 3, 5\) \(one class index per position "
                      r"of the input \(2, 4, 3, 5\) without its class dimension\), got "
                      r"\(2, 2, 5\)"),
    "unbatched_target_of_many": (
        lambda F, L: F.nll_loss(L.zeros(4), L.tensor([0, 1, 2])), ValueError,
        r"for an unbatched input \(4,\), expected a 0-d target"),
    "zero_dim_input": (
        lambda F, L: F.nll_loss(L.zeros(()), L.tensor(0)), ValueError,
        "expected input of 1 or more dimensions"),
    "mse_weight_of_other_shape": (
        lambda F, L: F.mse_loss(L.zeros(3, 4), L.zeros(3, 4), weight=L.ones(4)), ValueError,
        r"mse_loss: weights and input must have the same size: expected weight of the "
        r"input's shape \(3, 4\), got weight of shape \(4,\)"),
    "l1_weight_of_other_shape": (
        lambda F, L: F.l1_loss(L.zeros(3, 4), L.zeros(3, 4), weight=L.ones(1, 4)), ValueError,
        "l1_loss: weights and input must have the same size"),
    "mse_weight_bad_reduction": (
        lambda F, L: F.mse_loss(L.zeros(3), L.zeros(3), weight=L.ones(3), reduction="avg"),
        ValueError, "mse_loss: reduction must be one of"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_pytorch(name):
    call, error, message = ERRORS[name]
    with pytest.raises(error):
        call(torch.nn.functional, torch)
    with pytest.raises(error, match=message):
        call(mF, mt)


@pytest.mark.parametrize("name", ["weight_of_other_size", "weight_not_1d", "batch_mismatch",
                                  "k_dims_mismatch", "unbatched_target_of_many",
                                  "probabilities_weight_of_other_size"])
def test_shape_errors_are_the_same_on_meta(name):
    """The shape rule runs first: meta raises what the CPU raises."""
    call, error, _ = ERRORS[name]
    messages = []
    for device in ("cpu", "meta"):
        lib = _OnDevice(device)
        with pytest.raises(error) as info:
            call(mF, lib)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


class _OnDevice:
    """``minitorch_meta``'s factories used by ``ERRORS``, making tensors on one device."""

    float64, int64 = mt.float64, mt.int64

    def __init__(self, device):
        self.device = device

    def zeros(self, *shape, **kwargs):
        return mt.zeros(*shape, device=self.device, **kwargs)

    def ones(self, *shape, **kwargs):
        return mt.ones(*shape, device=self.device, **kwargs)

    def tensor(self, data, **kwargs):
        return mt.tensor(data, device=self.device, **kwargs)


def test_weight_on_another_device_is_refused():
    with pytest.raises(RuntimeError, match="expected all tensors on the same device"):
        mF.nll_loss(mt.zeros(3, 4), mt.tensor([0, 1, 2]), mt.ones(4, device="meta"))


def test_weight_that_requires_grad_is_accepted_under_no_grad():
    w = mt.ones(4, requires_grad=True)
    with mt.no_grad():
        loss = mF.nll_loss(mt.zeros(3, 4), mt.tensor([0, 1, 2]), w)
    assert loss.item() == 0.0


def test_probability_targets_take_a_weight_that_requires_grad_as_pytorch():
    """There PyTorch composes the loss from tensor ops, so the weight gets a gradient."""
    rng = np.random.default_rng(2)
    x, p, w = rng.standard_normal((3, 4)), rng.random((3, 4)), rng.random(4)
    grads = []
    for lib in (mt, torch):
        weight = lib.tensor(w, requires_grad=True)
        lib.nn.functional.cross_entropy(lib.tensor(x), lib.tensor(p), weight).backward()
        grads.append(weight.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_grad_fn_names_follow_pytorchs_kernels():
    names = {}
    for lib in (mt, torch):
        w = lib.ones(4)
        for layout, (shape, target_shape) in LAYOUTS.items():
            x = lib.zeros(*shape, requires_grad=True)
            t = lib.zeros(target_shape, dtype=lib.int64)
            for r in REDUCTIONS:
                out = lib.nn.functional.nll_loss(x, t, w, reduction=r)
                names.setdefault((layout, r), []).append(out.grad_fn.name())
    for key, (ours, theirs) in names.items():
        assert ours == theirs, key


# -- the layers ------------------------------------------------------------------------


@pytest.mark.parametrize("name, kwargs", [
    ("NLLLoss", {}), ("NLLLoss", {"ignore_index": 2, "reduction": "sum"}),
    ("CrossEntropyLoss", {}), ("CrossEntropyLoss", {"label_smoothing": 0.1}),
    ("CrossEntropyLoss", {"reduction": "none"}),
])
def test_layers_with_weight_equal_pytorchs(name, kwargs, device):
    rng = np.random.default_rng(4)
    x, t, w = rng.standard_normal((3, 4, 2)), rng.integers(0, 4, (3, 2)), rng.random(4)
    results = []
    for lib in (mt, torch):
        on = {"device": device} if lib is mt else {}
        layer = getattr(lib.nn, name)(weight=lib.tensor(w, **on), **kwargs)
        inputs = lib.tensor(x, requires_grad=True, **on)
        if name == "NLLLoss":
            out = layer(inputs.log_softmax(1), lib.tensor(t, **on))
        else:
            out = layer(inputs, lib.tensor(t, **on))
        out.sum().backward()
        results.append((out.detach().cpu().numpy(), inputs.grad.cpu().numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["NLLLoss", "CrossEntropyLoss"])
def test_layer_weight_is_a_buffer_as_pytorchs(name):
    weight = [1.0, 2.0, 3.0]
    ours = getattr(nn, name)(weight=mt.tensor(weight))
    theirs = getattr(torch.nn, name)(weight=torch.tensor(weight))
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    np.testing.assert_array_equal(ours.state_dict()["weight"].numpy(), weight)
    assert list(getattr(nn, name)().state_dict()) == list(getattr(torch.nn, name)()
                                                          .state_dict()) == []
    assert ours.double().weight.dtype is mt.float64
    fresh = getattr(nn, name)(weight=mt.zeros(3))
    fresh.load_state_dict(ours.state_dict())
    np.testing.assert_array_equal(fresh.weight.numpy(), weight)


def test_nllloss2d_is_a_deprecated_nllloss_as_pytorchs():
    w = np.array([1.0, 2.0, 3.0], np.float32)
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated") as theirs:
        reference = torch.nn.NLLLoss2d(weight=torch.tensor(w), reduction="sum")
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated") as ours:
        layer = nn.NLLLoss2d(weight=mt.tensor(w), reduction="sum")
    assert str(ours[0].message) == str(theirs[0].message)
    assert ours[0].filename == __file__  # the warning names the caller's line
    assert isinstance(layer, nn.NLLLoss) and issubclass(nn.NLLLoss2d, nn.NLLLoss)
    rng = np.random.default_rng(0)
    x, t = rng.standard_normal((2, 3, 2, 2)).astype(np.float32), rng.integers(0, 3, (2, 2, 2))
    np.testing.assert_allclose(layer(mt.tensor(x), mt.tensor(t)).item(),
                               reference(torch.tensor(x), torch.tensor(t)).item(), rtol=1e-6)

"""binary_cross_entropy (and _with_logits), smooth_l1_loss, huber_loss, kl_div and
cross_entropy's label smoothing: gradcheck, float32 and float64 values and gradients against
PyTorch, meta shapes, extreme inputs, and errors."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, first, params, three_way_tests

REDUCTIONS = ("mean", "sum", "none")
S = (4, 3)


@dataclass
class Unit(Arg):
    """Probabilities in [0.05, 0.95]: inside (0, 1), where finite differences of the logs
    stay accurate."""

    kind: str = "unit"

    def make(self, rng):
        return rng.uniform(0.05, 0.95, self.shape)


def _quiet(fn):
    """``fn`` without kl_div's warning for ``reduction='mean'`` (tested on its own below)."""

    def call(*args):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "reduction: 'mean' divides", UserWarning)
            return fn(*args)

    return call


CASES = (
    [Case(f"bce_{r}", lambda T, F, x, t, r=r: F.binary_cross_entropy(x, t, reduction=r),
          [Unit(S), Unit(S)]) for r in REDUCTIONS]
    + [Case(f"bce_weight_{r}",
            lambda T, F, x, t, w, r=r: F.binary_cross_entropy(x, t, w, reduction=r),
            [Unit(S), Unit(S), Arg((3,), "positive", grad=False)]) for r in REDUCTIONS]
    + [Case("bce_weight_per_row", lambda T, F, x, t, w: F.binary_cross_entropy(x, t, w),
            [Unit(S), Unit(S, grad=False), Arg((4, 1), "positive", grad=False)])]
    + [Case(f"bce_logits_{r}",
            lambda T, F, x, t, r=r: F.binary_cross_entropy_with_logits(x, t, reduction=r),
            [Arg(S), Unit(S)]) for r in REDUCTIONS]
    + [Case(f"bce_logits_weights_{r}",
            lambda T, F, x, t, w, p, r=r: F.binary_cross_entropy_with_logits(
                x, t, w, reduction=r, pos_weight=p),
            [Arg(S), Unit(S), Arg(S, "positive", grad=False), Arg((3,), "positive", grad=False)])
       for r in REDUCTIONS]
    + [Case(f"bce_logits_pos_weight_{name}",
            lambda T, F, x, t, p: F.binary_cross_entropy_with_logits(x, t, pos_weight=p,
                                                                     reduction="none"),
            [Arg((2, 4, 3)), Unit((2, 4, 3)), Arg(shape, "positive", grad=False)])
       for name, shape in (("per_class", (3,)), ("scalar", (1,)), ("per_row", (4, 1)),
                           ("full", (2, 4, 3)), ("0d", ()))]
    + [Case(f"bce_logits_large_{r}",
            lambda T, F, x, t, r=r: F.binary_cross_entropy_with_logits(x * 40, t, reduction=r),
            [Arg(S), Unit(S)], atol=1e-4) for r in REDUCTIONS]
    + [Case(f"smooth_l1_{r}_beta{b}",
            lambda T, F, x, t, r=r, b=b: F.smooth_l1_loss(x, t, reduction=r, beta=b),
            [Arg(S), Arg(S)]) for r in REDUCTIONS for b in (1.0, 0.5)]
    + [Case("smooth_l1_beta0_is_l1",
            lambda T, F, x, t: F.smooth_l1_loss(x, t, beta=0.0, reduction="sum"),
            [Arg(S), Arg(S, "away0")])]
    + [Case(f"huber_{r}_delta{d}",
            lambda T, F, x, t, r=r, d=d: F.huber_loss(x, t, reduction=r, delta=d),
            [Arg(S), Arg(S)]) for r in REDUCTIONS for d in (1.0, 0.4)]
    + [Case(f"huber_weight_{r}",
            lambda T, F, x, t, w, r=r: F.huber_loss(x, t, reduction=r, delta=0.5, weight=w),
            [Arg(S), Arg(S), Arg(S, "positive")]) for r in REDUCTIONS]
    + [Case(f"kl_div_{r}{'_log_target' if log else ''}",
            _quiet(lambda T, F, x, t, r=r, log=log: F.kl_div(x, t, reduction=r,
                                                             log_target=log)),
            [Arg(S), Arg(S) if log else Arg(S, "prob")])
       for r in REDUCTIONS + ("batchmean",) for log in (False, True)]
    + [Case("kl_div_broadcast_target", lambda T, F, x, t: F.kl_div(x, t, reduction="sum"),
            [Arg(S), Arg((3,), "positive")])]
    + [Case("kl_div_broadcast_input",
            lambda T, F, x, t: F.kl_div(x, t, reduction="batchmean", log_target=True),
            [Arg((3,)), Arg(S)])]
    + [Case(f"cross_entropy_label_smoothing_{r}",
            lambda T, F, x, t, r=r: F.cross_entropy(x, t, reduction=r, label_smoothing=0.2),
            [Arg((5, 4)), Arg((5,), "int:4")]) for r in REDUCTIONS]
    + [Case(f"cross_entropy_label_smoothing_ignore_index_{r}",
            lambda T, F, x, t, r=r: F.cross_entropy(x, t, ignore_index=1, reduction=r,
                                                    label_smoothing=0.3),
            [Arg((6, 3)), Arg((6,), "int:3")]) for r in REDUCTIONS]
    + [Case(f"cross_entropy_probs_label_smoothing_{r}",
            lambda T, F, x, t, r=r: F.cross_entropy(x, t, reduction=r, label_smoothing=0.1),
            [Arg((5, 4)), Arg((5, 4), "prob")]) for r in REDUCTIONS]
    + [Case(f"cross_entropy_probs_nd_{r}",
            lambda T, F, x, t, r=r: F.cross_entropy(x, t, reduction=r, label_smoothing=0.1),
            [Arg((2, 3, 4)), Arg((2, 3, 4), "prob")]) for r in REDUCTIONS]
    + [Case("cross_entropy_probs_unbatched",
            lambda T, F, x, t: F.cross_entropy(x, t.softmax(0), label_smoothing=0.5),
            [Arg((4,)), Arg((4,), grad=False)])]
    + [Case("cross_entropy_full_smoothing",
            lambda T, F, x, t: F.cross_entropy(x, t, label_smoothing=1.0),
            [Arg((5, 4)), Arg((5,), "int:4")])]
)

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _compare(fn, arrays, grads, device, dtype, rtol, atol, upstream_seed=1):
    """Values and gradients of ``fn`` against PyTorch's in ``dtype``."""
    torch = _torch()
    ours, theirs = [], []
    for a, g in zip(arrays, grads):
        a = np.asarray(a)
        a = a.astype(dtype) if a.dtype.kind == "f" else a
        ours.append(mt.tensor(a, device=device, requires_grad=g))
        theirs.append(torch.tensor(a, requires_grad=g))
    out, ref = first(fn(mt, mF, *ours)), first(fn(torch, torch.nn.functional, *theirs))
    assert str(out.dtype) == str(ref.dtype)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=rtol,
                               atol=atol)
    if not ref.requires_grad:
        return
    assert out.grad_fn.name() == ref.grad_fn.name()
    upstream = np.random.default_rng(upstream_seed).uniform(0.5, 1.5, tuple(ref.shape))
    out.backward(mt.tensor(upstream.astype(dtype), device=device))
    ref.backward(torch.tensor(upstream.astype(dtype)))
    for k, (o, r) in enumerate(zip(ours, theirs)):
        if r.grad is None:
            assert o.grad is None, f"input {k}: PyTorch gives no gradient, we do"
            continue
        assert o.grad.dtype is o.dtype
        np.testing.assert_allclose(o.grad.cpu().numpy(), r.grad.numpy(), rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {k}")


@pytest.mark.parametrize("case", params(CASES))
def test_float64_values_and_gradients_equal_pytorch(case, device):
    arrays = case.arrays(seed=3)
    _compare(case.fn, arrays, [a.differentiable for a in case.args], device, np.float64,
             rtol=1e-10, atol=1e-12)


# -- extreme inputs ----------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on inf, log(0)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_at_probabilities_0_and_1_equals_pytorch(device, dtype, reduction):
    """log(0) is clamped to -100 (a loss of 100, not inf) and the input's gradient divides by
    max(x (1 - x), 1e-12); the target's gradient -logit(x) is infinite there, as in PyTorch."""
    x = [0.0, 0.0, 1.0, 1.0, 1e-8, 1 - 1e-7, 0.5, 1e-30]
    t = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.5, 1.0]
    fn = lambda T, F, x, t: F.binary_cross_entropy(x, t, reduction=reduction)  # noqa: E731
    rtol = 1e-6 if dtype == np.float32 else 1e-13
    _compare(fn, [x, t], [True, True], device, dtype, rtol=rtol, atol=rtol)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on inf, log(0)
def test_bce_clamps_the_loss_at_100(device):
    x = mt.tensor([0.0, 1.0, 0.0], device=device, requires_grad=True)
    out = mF.binary_cross_entropy(x, mt.tensor([1.0, 0.0, 0.0], device=device), reduction="none")
    assert out.tolist() == [100.0, 100.0, 0.0]
    out.sum().backward()
    assert x.grad.tolist() == pytest.approx([-1e12, 1e12, 0.0], rel=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on inf, log(0)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("with_pos_weight", [False, True])
def test_bce_with_logits_at_large_logits_equals_pytorch(device, dtype, with_pos_weight):
    """Logits of +-100 (and +-1000) stay finite: no overflow in exp, no log(0)."""
    x = [100.0, -100.0, 100.0, -100.0, 1000.0, -1000.0, 30.0, -30.0, 0.0]
    t = [1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.5]
    pos_weight = [3.0]
    if with_pos_weight:
        def fn(T, F, x, t, p):
            return F.binary_cross_entropy_with_logits(x, t, pos_weight=p, reduction="none")
        arrays, grads = [x, t, pos_weight], [True, True, False]
    else:
        def fn(T, F, x, t):
            return F.binary_cross_entropy_with_logits(x, t, reduction="none")
        arrays, grads = [x, t], [True, True]
    # float32's subnormal e^-100 differs in its last bits between NumPy's and PyTorch's exp.
    _compare(fn, arrays, grads, device, dtype, rtol=1e-6, atol=1e-30)
    ours = fn(mt, mF, *[mt.tensor(np.asarray(a, dtype), device=device) for a in arrays])
    assert np.isfinite(ours.cpu().numpy()).all()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on inf, log(0)
def test_bce_with_logits_large_logits_exact_values():
    x = mt.tensor([100.0, -100.0, 100.0, -100.0], dtype=mt.float64, requires_grad=True)
    t = mt.tensor([1.0, 0.0, 0.0, 1.0], dtype=mt.float64)
    out = mF.binary_cross_entropy_with_logits(x, t, reduction="none")
    np.testing.assert_allclose(out.detach().numpy(), [np.exp(-100.0), 0.0, 100.0, 100.0],
                               rtol=1e-12)
    out.sum().backward()
    # sigmoid(100) - 1 rounds to 0; sigmoid(-100) - 0 = e^-100 is kept, as in PyTorch
    np.testing.assert_allclose(x.grad.numpy(), [0.0, np.exp(-100.0), 1.0, -1.0], rtol=1e-12)


def test_kl_div_zero_target_equals_pytorch(device):
    """xlogy(0, 0) = 0 in the value; the target's gradient there is PyTorch's NaN."""
    x, t = [-1.0, -2.0, -3.0], [0.0, 0.5, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fn = lambda T, F, x, t: F.kl_div(x, t, reduction="sum")  # noqa: E731
        _compare(fn, [x, t], [True, True], device, np.float64, rtol=1e-12, atol=0)


@pytest.mark.parametrize("name, call", [
    ("bce", lambda F, x: F.binary_cross_entropy(x.sigmoid(), x.sigmoid().detach())),
    ("bce_logits", lambda F, x: F.binary_cross_entropy_with_logits(x, x.detach().sigmoid())),
    ("smooth_l1", lambda F, x: F.smooth_l1_loss(x, x.detach() * 2)),
    ("huber", lambda F, x: F.huber_loss(x, x.detach() * 2)),
    ("kl_div", lambda F, x: F.kl_div(x.log_softmax(1), x.detach().softmax(1),
                                     reduction="batchmean")),
    ("cross_entropy", lambda F, x: F.cross_entropy(x, x.detach().softmax(1),
                                                   label_smoothing=0.1)),
])
def test_empty_batch_mean_is_nan_like_pytorch(name, call):
    torch = _torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ours = call(mF, mt.zeros(0, 3))
    theirs = call(torch.nn.functional, torch.zeros(0, 3))
    assert np.isnan(theirs.item())
    assert np.isnan(ours.item())


def test_mse_and_l1_of_nothing_are_nan_like_pytorch():
    # the shared reduction: a mean over no element is 0/0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(mF.mse_loss(mt.zeros(0), mt.zeros(0)).item())
        assert np.isnan(mF.l1_loss(mt.zeros(0, 3), mt.zeros(0, 3)).item())
        assert mF.mse_loss(mt.zeros(0), mt.zeros(0), reduction="sum").item() == 0.0


def test_losses_stay_float32():
    x = mt.rand(3, 4, requires_grad=True)
    p = mt.rand(3, 4)
    outs = (mF.binary_cross_entropy(x, p), mF.binary_cross_entropy(x, p, weight=mt.ones(4)),
            mF.binary_cross_entropy_with_logits(x, p, pos_weight=mt.ones(4, dtype=mt.float64)),
            mF.smooth_l1_loss(x, p), mF.huber_loss(x, p),
            mF.kl_div(x, p, reduction="batchmean"),
            mF.cross_entropy(x, mt.tensor([0, 1, 3]), label_smoothing=0.1))
    for out in outs:
        assert out.dtype is mt.float32
        out.backward()
    assert x.grad.dtype is mt.float32


def test_weights_of_another_dtype_are_used_in_the_inputs_dtype_like_pytorch():
    torch = _torch()
    rng = np.random.default_rng(0)
    x, t = rng.uniform(0.1, 0.9, S).astype(np.float32), rng.uniform(0, 1, S).astype(np.float32)
    w = rng.uniform(0.5, 2, (3,))  # float64
    ours = mF.binary_cross_entropy_with_logits(mt.tensor(x), mt.tensor(t), mt.tensor(w),
                                               pos_weight=mt.tensor(w))
    theirs = torch.nn.functional.binary_cross_entropy_with_logits(
        torch.tensor(x), torch.tensor(t), torch.tensor(w), pos_weight=torch.tensor(w))
    assert ours.dtype is mt.float32 and str(theirs.dtype) == "torch.float32"
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-6)


# -- arguments -----------------------------------------------------------------------------

NEW_LOSSES = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "smooth_l1_loss",
              "huber_loss", "kl_div", "cross_entropy"]


@pytest.mark.parametrize("name", NEW_LOSSES)
def test_signatures_equal_pytorchs(name):
    import inspect

    torch = _torch()
    ours = inspect.signature(getattr(mF, name)).parameters
    theirs = inspect.signature(getattr(torch.nn.functional, name)).parameters
    assert list(ours) == list(theirs)
    assert [p.default for p in ours.values()] == [p.default for p in theirs.values()]


@pytest.mark.filterwarnings("ignore::UserWarning")  # PyTorch's deprecation of the flags
@pytest.mark.parametrize("call", [
    lambda F, x, p, w: F.binary_cross_entropy(x, p, w, False),              # size_average: sum
    lambda F, x, p, w: F.binary_cross_entropy(x, p, None, None, False),     # reduce: none
    lambda F, x, p, w: F.binary_cross_entropy_with_logits(x, p, w, None, None, "sum", w),
    lambda F, x, p, w: F.binary_cross_entropy_with_logits(x, p, None, False),
    lambda F, x, p, w: F.smooth_l1_loss(x, p, None, None, "sum", 0.5),
    lambda F, x, p, w: F.smooth_l1_loss(x, p, False),
    lambda F, x, p, w: F.huber_loss(x, p, "none", 0.3),
    lambda F, x, p, w: F.kl_div(x, p, None, None, "batchmean", True),
    lambda F, x, p, w: F.kl_div(x, p, False),
    lambda F, x, p, w: F.kl_div(x, p, False, None, "batchmean"),  # PyTorch divides anyway
    lambda F, x, p, w: F.kl_div(x, p, None, False),
    lambda F, x, p, w: F.cross_entropy(x, p, None, None, -100, None, "sum", 0.25),
], ids=["bce_size_average", "bce_reduce", "bce_logits_positional", "bce_logits_size_average",
        "smooth_l1_positional", "smooth_l1_size_average", "huber_positional",
        "kl_div_positional", "kl_div_size_average", "kl_div_legacy_batchmean",
        "kl_div_reduce", "cross_entropy_positional"])
def test_positional_and_legacy_arguments_equal_pytorch(call):
    torch = _torch()
    rng = np.random.default_rng(0)
    x = rng.uniform(0.1, 0.9, S).astype(np.float32)
    p, w = rng.random(S).astype(np.float32), rng.uniform(0.5, 2, (3,)).astype(np.float32)
    ours = call(mF, mt.tensor(x), mt.tensor(p), mt.tensor(w))
    theirs = call(torch.nn.functional, torch.tensor(x), torch.tensor(p), torch.tensor(w))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-7)


def test_kl_div_mean_warns_pytorchs_words_at_the_caller():
    torch = _torch()
    with pytest.warns(UserWarning) as ours:
        mF.kl_div(mt.zeros(2, 3), mt.ones(2, 3))
    with pytest.warns(UserWarning) as theirs:
        torch.nn.functional.kl_div(torch.zeros(2, 3), torch.ones(2, 3))
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert ours[0].filename == __file__


@pytest.mark.parametrize("kwargs", [{"reduction": "batchmean"}, {"reduction": "sum"},
                                    {"reduction": "none"}])
def test_kl_div_other_reductions_do_not_warn(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mF.kl_div(mt.zeros(2, 3), mt.ones(2, 3), **kwargs)


def test_kl_div_legacy_flag_warns_as_pytorch():
    """``size_average`` is deprecated: the warning names the ``reduction`` to use instead."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    with pytest.warns(UserWarning) as ours:
        mF.kl_div(mt.zeros(2, 3), mt.ones(2, 3), size_average=True)
    with pytest.warns(UserWarning) as theirs:
        torch.nn.functional.kl_div(torch.zeros(2, 3), torch.ones(2, 3), size_average=True)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert ours[0].filename == __file__


def test_kl_div_batchmean_divides_by_the_batch_size_only():
    x, t = mt.zeros(4, 5), mt.full((4, 5), 0.5)
    total = mF.kl_div(x, t, reduction="sum").item()
    assert mF.kl_div(x, t, reduction="batchmean").item() == pytest.approx(total / 4)
    assert mF.kl_div(mt.tensor(0.0), mt.tensor(0.5), reduction="batchmean").item() == \
        pytest.approx(0.5 * np.log(0.5))  # a 0-d input has no batch: the sum


# -- errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, message", [
    (lambda: mF.binary_cross_entropy(mt.tensor([[0.5, 1.5], [0.2, 2.0]]), mt.rand(2, 2)),
     RuntimeError, r"binary_cross_entropy: all elements of input should be between 0 and 1, "
                   r"but input\[0, 1\] = 1.5 \(2 of 4 elements are not in \[0, 1\]\); input "
                   r"must hold probabilities: apply sigmoid first, or pass the logits to "
                   r"binary_cross_entropy_with_logits"),
    (lambda: mF.binary_cross_entropy(mt.rand(3), mt.tensor([0.5, -0.25, 1.0])),
     RuntimeError, r"all elements of target should be between 0 and 1, but target\[1\] = "
                   r"-0.25 \(1 of 3 elements"),
    (lambda: mF.binary_cross_entropy(mt.tensor(float("nan")), mt.tensor(0.5)),
     RuntimeError, r"all elements of input should be between 0 and 1, but input = nan"),
    (lambda: mF.binary_cross_entropy(mt.rand(3, 1), mt.rand(3)), mt.ShapeError,
     r"binary_cross_entropy: expected target of the input's shape \(3, 1\) \(broadcasting is "
     r"not allowed, as in PyTorch\), got target of shape \(3,\); reshape it, e.g. "
     r"target.view\(3, 1\)"),
    (lambda: mF.binary_cross_entropy_with_logits(mt.rand(3, 2), mt.rand(2)), mt.ShapeError,
     r"binary_cross_entropy_with_logits: expected target of the input's shape \(3, 2\) "
     r"\(broadcasting is not allowed, as in PyTorch\), got target of shape \(2,\)$"),
    (lambda: mF.binary_cross_entropy(mt.rand(3), mt.rand(3).double()), TypeError,
     "binary_cross_entropy: expected input and target to have the same dtype"),
    (lambda: mF.binary_cross_entropy(mt.tensor([1, 0]), mt.tensor([1, 0])), TypeError,
     "binary_cross_entropy: expected a floating-point input, got torch.int64"),
    (lambda: mF.binary_cross_entropy(mt.rand(3), mt.rand(3), mt.rand(2, 3)), mt.ShapeError,
     r"binary_cross_entropy: expected weight to broadcast to the input's shape \(3,\), got "
     r"weight of shape \(2, 3\)"),
    (lambda: mF.binary_cross_entropy_with_logits(mt.rand(2, 3), mt.rand(2, 3),
                                                 pos_weight=mt.rand(2)), mt.ShapeError,
     r"expected pos_weight to broadcast to the input's shape \(2, 3\), got pos_weight of "
     r"shape \(2,\)"),
    (lambda: mF.binary_cross_entropy(mt.rand(3), mt.rand(3), mt.rand(3, requires_grad=True)),
     RuntimeError, "The function 'binary_cross_entropy' is not differentiable with respect to "
                   "argument 'weight'. This input cannot have requires_grad True; pass "
                   r"weight.detach\(\)"),
    (lambda: mF.binary_cross_entropy_with_logits(mt.rand(3), mt.rand(3),
                                                 pos_weight=mt.rand(3, requires_grad=True)),
     RuntimeError, "not differentiable with respect to argument 'pos_weight'"),
    (lambda: mF.binary_cross_entropy(mt.rand(3), mt.rand(3), reduction="avg"), ValueError,
     r"binary_cross_entropy: reduction must be one of \('mean', 'sum', 'none'\), got 'avg'"),
    (lambda: mF.smooth_l1_loss(mt.rand(3), mt.rand(3), beta=-0.5), ValueError,
     "smooth_l1_loss does not support negative values for beta: expected beta >= 0, got -0.5"),
    (lambda: mF.huber_loss(mt.rand(3), mt.rand(3), delta=0.0), ValueError,
     "huber_loss does not support non-positive values for delta: expected delta > 0, got 0.0"),
    (lambda: mF.huber_loss(mt.rand(3), mt.rand(3), weight=mt.rand(1)), mt.ShapeError,
     r"huber_loss: weights and input must have the same size: expected weight of the input's "
     r"shape \(3,\), got weight of shape \(1,\)"),
    (lambda: mF.huber_loss(mt.rand(3), mt.rand(3), "avg", weight=mt.rand(3)), ValueError,
     r"huber_loss: reduction must be one of \('mean', 'sum', 'none'\), got 'avg'"),
    (lambda: mF.kl_div(mt.rand(3), mt.rand(3), reduction="avg"), ValueError,
     r"kl_div: reduction must be one of \('none', 'batchmean', 'sum', 'mean'\), got 'avg'"),
    (lambda: mF.kl_div(mt.rand(3), mt.tensor([1, 0, 1]), reduction="sum"), TypeError,
     "kl_div: expected floating-point input and target, got input.dtype=torch.float32 and "
     "target.dtype=torch.int64"),
    (lambda: mF.kl_div(mt.rand(3), mt.rand(2), reduction="sum"), mt.ShapeError,
     r"kl_div: shapes \(3,\) and \(2,\) cannot be broadcast together"),
    (lambda: mF.cross_entropy(mt.rand(3, 4), mt.tensor([0, 1, 2]), label_smoothing=1.5),
     ValueError, "cross_entropy: label_smoothing must be between 0.0 and 1.0, got 1.5"),
    (lambda: mF.cross_entropy(mt.rand(3, 4), mt.rand(3, 4), label_smoothing=-0.1),
     ValueError, "cross_entropy: label_smoothing must be between 0.0 and 1.0, got -0.1"),
    (lambda: mF.cross_entropy(mt.rand(3, 4), mt.rand(3, 4), ignore_index=1), ValueError,
     "cross_entropy: ignore_index is not supported for floating point target .class "
     "probabilities., got ignore_index=1"),
    (lambda: mF.cross_entropy(mt.rand(3, 4), mt.rand(3, 4), reduction="avg"), ValueError,
     r"cross_entropy: reduction must be one of \('mean', 'sum', 'none'\), got 'avg'"),
])
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("call", [
    lambda T, F: F.binary_cross_entropy(T.tensor([1.5]), T.tensor([0.5])),
    lambda T, F: F.binary_cross_entropy(T.tensor([0.5]), T.tensor([2.0])),
    lambda T, F: F.binary_cross_entropy(T.rand(3, 1), T.rand(3)),
    lambda T, F: F.binary_cross_entropy_with_logits(T.rand(3, 1), T.rand(3)),
    lambda T, F: F.binary_cross_entropy_with_logits(T.rand(3), T.rand(3),
                                                    pos_weight=T.rand(2, 3)),
    lambda T, F: F.smooth_l1_loss(T.rand(3), T.rand(3), beta=-1.0),
    lambda T, F: F.huber_loss(T.rand(3), T.rand(3), delta=-1.0),
    lambda T, F: F.huber_loss(T.rand(3), T.rand(3), weight=T.rand(2)),
    lambda T, F: F.kl_div(T.rand(3), T.rand(2), reduction="sum"),
    lambda T, F: F.cross_entropy(T.rand(3, 4), T.tensor([0, 1, 2]), label_smoothing=2.0),
    lambda T, F: F.cross_entropy(T.rand(3, 4), T.rand(3, 4), ignore_index=0),
])
def test_pytorch_refuses_the_same_calls(call):
    """Each error above is one PyTorch raises too (as RuntimeError where we raise ValueError:
    see docs/differences.md), so no call PyTorch accepts fails here."""
    torch = _torch()
    with pytest.raises((RuntimeError, ValueError)):
        call(mt, mF)
    with pytest.raises((RuntimeError, ValueError)):
        call(torch, torch.nn.functional)


@pytest.mark.parametrize("call", [
    lambda d: mF.binary_cross_entropy(mt.ones(3, 1, device=d), mt.ones(3, device=d)),
    lambda d: mF.binary_cross_entropy_with_logits(mt.ones(2, 3, device=d), mt.ones(2, 3, device=d),
                                                  pos_weight=mt.ones(2, device=d)),
    lambda d: mF.smooth_l1_loss(mt.ones(3, device=d), mt.ones(3, device=d), beta=-1.0),
    lambda d: mF.huber_loss(mt.ones(3, device=d), mt.ones(3, device=d), delta=0.0),
    lambda d: mF.kl_div(mt.ones(3, device=d), mt.ones(2, device=d), reduction="sum"),
    lambda d: mF.cross_entropy(mt.ones(3, 4, device=d), mt.ones(3, 4, device=d),
                               label_smoothing=3.0),
])
def test_errors_read_the_same_on_meta(call):
    messages = []
    for device in ("cpu", "meta"):
        with pytest.raises(ValueError) as info:
            call(device)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_value_checks_need_data_and_are_skipped_on_meta():
    """A probability outside [0, 1] can only be seen in the data: meta gives the shape."""
    out = mF.binary_cross_entropy(mt.empty(4, 3, device="meta"), mt.empty(4, 3, device="meta"))
    assert out.is_meta and out.shape == ()

"""The margin, embedding and likelihood losses (margin_ranking, hinge_embedding, soft_margin,
cosine_embedding, triplet_margin (with distance), multilabel_soft_margin, multi_margin,
multilabel_margin, poisson_nll, gaussian_nll) and pairwise_distance: gradcheck, values and
gradients against PyTorch in float32 and float64, meta shapes, the layers, and errors."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, first, params, three_way_tests

torch = pytest.importorskip("torch", reason="PyTorch is the reference for the losses")
tF = torch.nn.functional  # noqa: N816 - the harness's name for PyTorch's F

REDUCTIONS = ("mean", "sum", "none")
S = (4, 3)


@dataclass
class Sign(Arg):
    """Targets of +1 and -1 (``with_zero``: some 0 too, which PyTorch's hinge and cosine
    losses treat in their own way)."""

    kind: str = "sign"
    grad: bool = False
    with_zero: bool = False

    def make(self, rng):
        values = [-1.0, 0.0, 1.0] if self.with_zero else [-1.0, 1.0]
        return rng.choice(values, self.shape)


@dataclass
class Labels(Arg):
    """Multi-label targets: each row lists distinct classes in random order, then -1, then
    anything in [-1, C) (ignored)."""

    kind: str = "labels"
    grad: bool = False

    def make(self, rng):
        rows, classes = (1, self.shape[0]) if len(self.shape) == 1 else self.shape
        out = rng.integers(-1, classes, (rows, classes))
        for row in out:
            listed = rng.integers(0, classes + 1)
            row[:listed] = rng.permutation(classes)[:listed]
            if listed < classes:
                row[listed] = -1
        return out.reshape(self.shape).astype(np.int64)

    @property
    def differentiable(self):
        return False


def _dist_l1(T, x1, x2):
    return (x1 - x2).abs().sum(-1)


CASES = (
    [Case(f"margin_ranking_{r}",
          lambda T, F, a, b, t, r=r: F.margin_ranking_loss(a, b, t, margin=0.2, reduction=r),
          [Arg((5,)), Arg((5,)), Sign((5,))]) for r in REDUCTIONS]
    + [Case("margin_ranking_default_2d", lambda T, F, a, b, t: F.margin_ranking_loss(a, b, t),
            [Arg(S), Arg(S), Sign(S)])]
    + [Case(f"hinge_embedding_{r}",
            lambda T, F, x, t, r=r: F.hinge_embedding_loss(x, t, margin=0.7, reduction=r),
            [Arg(S), Sign(S, with_zero=True)]) for r in REDUCTIONS]
    + [Case("hinge_embedding_broadcast_target",
            lambda T, F, x, t: F.hinge_embedding_loss(x, t, reduction="none"),
            [Arg(S), Sign((3,))])]
    + [Case(f"soft_margin_{r}", lambda T, F, x, t, r=r: F.soft_margin_loss(x, t, reduction=r),
            [Arg(S), Sign(S)]) for r in REDUCTIONS]
    + [Case("soft_margin_broadcast_target",
            lambda T, F, x, t: F.soft_margin_loss(x, t, reduction="none"), [Arg(S), Sign((3,))])]
    + [Case(f"cosine_embedding_{r}",
            lambda T, F, a, b, t, r=r: F.cosine_embedding_loss(a, b, t, margin=-0.2,
                                                               reduction=r),
            [Arg(S), Arg(S), Sign((4,), with_zero=True)]) for r in REDUCTIONS]
    + [Case("cosine_embedding_unbatched",
            lambda T, F, a, b, t: F.cosine_embedding_loss(a, b, t[0]),
            [Arg((3,)), Arg((3,)), Sign((1,))])]
    + [Case(f"triplet_margin_{r}_p{p}_swap{swap}",
            lambda T, F, a, b, c, r=r, p=p, swap=swap: F.triplet_margin_loss(
                a, b, c, margin=1.5, p=p, swap=swap, reduction=r),
            [Arg(S), Arg(S), Arg(S)]) for r in REDUCTIONS for p, swap in ((2, False), (1, True))]
    + [Case("triplet_margin_p3_unbatched",
            lambda T, F, a, b, c: F.triplet_margin_loss(a, b, c, p=3, eps=1e-3),
            [Arg((5,)), Arg((5,)), Arg((5,))])]
    + [Case(f"triplet_distance_{r}",
            lambda T, F, a, b, c, r=r: F.triplet_margin_with_distance_loss(a, b, c, margin=2.0,
                                                                           reduction=r),
            [Arg(S), Arg(S), Arg(S)]) for r in REDUCTIONS]
    + [Case("triplet_distance_custom_swap",
            lambda T, F, a, b, c: F.triplet_margin_with_distance_loss(
                a, b, c, distance_function=lambda x1, x2: _dist_l1(T, x1, x2), swap=True),
            [Arg(S), Arg(S), Arg(S)])]
    + [Case(f"multilabel_soft_margin_{r}",
            lambda T, F, x, t, r=r: F.multilabel_soft_margin_loss(x, t, reduction=r),
            [Arg(S), Arg(S, "int:2", grad=False)]) for r in REDUCTIONS]
    + [Case("multilabel_soft_margin_weight_soft_targets",
            lambda T, F, x, t, w: F.multilabel_soft_margin_loss(x, t, weight=w),
            [Arg(S), Arg(S, "prob"), Arg((3,), "positive")])]
    + [Case(f"multi_margin_{r}_p{p}",
            lambda T, F, x, t, r=r, p=p: F.multi_margin_loss(x, t, p=p, margin=0.8, reduction=r),
            [Arg((5, 4)), Arg((5,), "int:4")]) for r in REDUCTIONS for p in (1, 2)]
    + [Case(f"multi_margin_weight_{r}",
            lambda T, F, x, t, w, r=r: F.multi_margin_loss(x, t, p=2, weight=w, reduction=r),
            [Arg((5, 4)), Arg((5,), "int:4"), Arg((4,), "positive", grad=False)])
       for r in REDUCTIONS]
    + [Case(f"multi_margin_unbatched_{r}",
            lambda T, F, x, t, r=r: F.multi_margin_loss(x, t[0], reduction=r),
            [Arg((4,)), Arg((1,), "int:4")]) for r in ("mean", "none")]
    + [Case(f"multilabel_margin_{r}",
            lambda T, F, x, t, r=r: F.multilabel_margin_loss(x, t, reduction=r),
            [Arg((6, 4)), Labels((6, 4))]) for r in REDUCTIONS]
    + [Case("multilabel_margin_unbatched_none",
            lambda T, F, x, t: F.multilabel_margin_loss(x, t, reduction="none"),
            [Arg((5,)), Labels((5,))])]
    + [Case(f"poisson_nll_{r}_log{log}_full{full}",
            lambda T, F, x, t, r=r, log=log, full=full: F.poisson_nll_loss(
                x, t, log_input=log, full=full, reduction=r),
            [Arg(S, "normal" if log else "positive"), Arg(S, "positive")])
       for r in REDUCTIONS for log in (True, False) for full in (False, True)]
    + [Case("poisson_nll_broadcast_eps",
            lambda T, F, x, t: F.poisson_nll_loss(x, t * 3, log_input=False, eps=0.1),
            [Arg(S, "positive"), Arg((3,), "positive")])]
    + [Case(f"gaussian_nll_{r}_full{full}",
            lambda T, F, x, t, v, r=r, full=full: F.gaussian_nll_loss(x, t, v, full=full,
                                                                      reduction=r),
            [Arg(S), Arg(S), Arg(S, "positive")]) for r in REDUCTIONS for full in (False, True)]
    + [Case(f"gaussian_nll_var_{name}",
            lambda T, F, x, t, v: F.gaussian_nll_loss(x, t, v, reduction="none"),
            [Arg((2, 4, 3)), Arg((2, 4, 3)), Arg(shape, "positive")])
       for name, shape in (("one_short", (2, 4)), ("size1_last", (2, 4, 1)),
                           ("size1_middle", (2, 1, 3)))]
    + [Case("gaussian_nll_float_var",
            lambda T, F, x, t: F.gaussian_nll_loss(x, t, 0.5), [Arg(S), Arg(S)])]
    + [Case(f"pairwise_distance_p{p}",
            lambda T, F, a, b, p=p: F.pairwise_distance(a, b, p=p), [Arg(S), Arg(S)])
       for p in (1, 2, 3)]
    + [Case("pairwise_distance_broadcast_keepdim",
            lambda T, F, a, b: F.pairwise_distance(a, b, eps=0.0, keepdim=True),
            [Arg(S), Arg((3,))])]
)

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _compare(fn, arrays, grads, device, dtype, rtol, atol):
    """Values and gradients of ``fn`` against PyTorch's in ``dtype``."""
    ours, theirs = [], []
    for a, g in zip(arrays, grads):
        a = np.asarray(a)
        a = a.astype(dtype) if a.dtype.kind == "f" else a
        ours.append(mt.tensor(a, device=device, requires_grad=g))
        theirs.append(torch.tensor(a, requires_grad=g))
    out, ref = first(fn(mt, mF, *ours)), first(fn(torch, tF, *theirs))
    assert str(out.dtype) == str(ref.dtype)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=rtol,
                               atol=atol)
    if not ref.requires_grad:
        return
    assert out.grad_fn.name() == ref.grad_fn.name()
    upstream = np.random.default_rng(1).uniform(0.5, 1.5, tuple(ref.shape))
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


# -- edge cases ----------------------------------------------------------------------------

def test_gaussian_nll_clamped_variance_keeps_its_gradient_like_pytorch(device):
    """PyTorch clamps a clone of var under no_grad: the loss sees eps, the gradient flows to
    var as if nothing were clamped."""
    x, t = [0.5, -1.0, 2.0], [0.0, 0.0, 1.0]
    var = [1e-9, 0.0, 0.3]
    fn = lambda T, F, x, t, v: F.gaussian_nll_loss(x, t, v, eps=1e-4, reduction="none")  # noqa: E731
    _compare(fn, [x, t, var], [True, True, True], device, np.float64, rtol=1e-12, atol=0)


@pytest.mark.parametrize("log_input", [True, False])
def test_poisson_full_adds_stirling_only_above_one_like_pytorch(device, log_input):
    """Stirling's term is masked where target <= 1 (at 0 its log is -inf, at 1 it is not 0)."""
    x, t = [0.5, 1.2, 0.3, 2.0, 0.7], [0.0, 0.5, 1.0, 1.5, 3.0]
    fn = lambda T, F, x, t: F.poisson_nll_loss(x, t, log_input=log_input, full=True,  # noqa: E731
                                               reduction="none")
    with np.errstate(all="ignore"):
        _compare(fn, [x, t], [True, False], device, np.float64, rtol=1e-12, atol=1e-15)


def test_multilabel_margin_reads_targets_up_to_the_first_minus_one(device):
    x = [[0.1, 0.2, 0.4, 0.8], [0.3, -0.2, 0.5, 0.0]]
    t = [[3, 0, -1, 1], [1, 1, -1, 3]]  # after -1: ignored; a class listed twice counts twice
    fn = lambda T, F, x, t: F.multilabel_margin_loss(x, t, reduction="none")  # noqa: E731
    _compare(fn, [x, np.array(t)], [True, False], device, np.float64, rtol=1e-12, atol=1e-15)
    ours = mF.multilabel_margin_loss(mt.tensor(x), mt.tensor(t), reduction="none")
    np.testing.assert_allclose(ours.numpy(), [0.85, 2.2], rtol=1e-6)  # 3.4 / 4, 8.8 / 4


def test_hinge_corners_match_pytorchs_gradients(device):
    """At a hinge's corner (clamp_min at exactly 0) PyTorch passes the gradient through."""
    a, b, s = [1.0, 0.5, 2.0], [1.0, 0.7, 0.0], [1.0, -1.0, 1.0]
    fn = lambda T, F, a, b, s: F.margin_ranking_loss(a, b, s, reduction="sum")  # noqa: E731
    _compare(fn, [a, b, s], [True, True, False], device, np.float64, rtol=0, atol=0)
    fn = lambda T, F, x: F.hinge_embedding_loss(x, T.tensor([-1.0, -1.0], device=x.device),
                                                   margin=1.0)  # noqa: E731
    _compare(fn, [[1.0, 0.25]], [True], device, np.float64, rtol=0, atol=1e-16)
    x = [[1.0, 0.0, 0.5], [0.2, 0.2, 0.2]]
    fn = lambda T, F, x: F.multi_margin_loss(x, T.tensor([0, 1], device=x.device),
                                              reduction="sum")  # noqa: E731
    _compare(fn, [x], [True], device, np.float64, rtol=0, atol=1e-16)


@pytest.mark.parametrize("call", [
    lambda T, F, x: F.margin_ranking_loss(x[:, 0], x[:, 1], T.ones(0)),
    lambda T, F, x: F.hinge_embedding_loss(x, T.ones(0, 3)),
    lambda T, F, x: F.soft_margin_loss(x, T.ones(0, 3)),
    lambda T, F, x: F.cosine_embedding_loss(x, x, T.ones(0)),
    lambda T, F, x: F.triplet_margin_loss(x, x, x),
    lambda T, F, x: F.multilabel_soft_margin_loss(x, x),
    lambda T, F, x: F.poisson_nll_loss(x, x),
    lambda T, F, x: F.gaussian_nll_loss(x, x, T.ones(0, 3)),
], ids=["margin_ranking", "hinge", "soft_margin", "cosine", "triplet", "multilabel_soft",
        "poisson", "gaussian"])
def test_mean_over_an_empty_batch_is_nan_like_pytorch(call):
    assert np.isnan(call(torch, tF, torch.zeros(0, 3)).item())
    with np.errstate(all="ignore"):
        assert np.isnan(call(mt, mF, mt.zeros(0, 3)).item())


def test_class_losses_of_an_empty_batch_are_nan_and_zero():
    """PyTorch's CPU kernels return uninitialised memory here (docs/differences.md): we give
    the mean over no sample (NaN) and the sum (0)."""
    with np.errstate(all="ignore"):
        for fn in (lambda r: mF.multi_margin_loss(mt.zeros(0, 3), mt.zeros(0, dtype=mt.int64),
                                                  reduction=r),
                   lambda r: mF.multilabel_margin_loss(mt.zeros(0, 3),
                                                       mt.zeros(0, 3, dtype=mt.int64),
                                                       reduction=r)):
            assert np.isnan(fn("mean").item())
            assert fn("sum").item() == 0.0
            assert tuple(fn("none").shape) == (0,)


def test_losses_stay_float32_and_integer_targets_are_accepted():
    x = mt.randn(4, 3, requires_grad=True)
    signs = mt.tensor([1, -1, 1, -1])
    outs = (mF.margin_ranking_loss(x[:, 0], x[:, 1], signs),
            mF.hinge_embedding_loss(x, mt.ones(4, 3, dtype=mt.int64)),
            mF.soft_margin_loss(x, mt.ones(4, 3, dtype=mt.int64)),
            mF.soft_margin_loss(x, mt.ones(4, 3, dtype=mt.float64)),
            mF.cosine_embedding_loss(x, x.detach() + 1, signs),
            mF.triplet_margin_loss(x, x.detach(), x.detach() + 1),
            mF.multilabel_soft_margin_loss(x, mt.ones(4, 3)),
            mF.multi_margin_loss(x, mt.tensor([0, 1, 2, 0])),
            mF.multilabel_margin_loss(x, mt.zeros(4, 3, dtype=mt.int64)),
            mF.poisson_nll_loss(x, mt.ones(4, 3)),
            mF.gaussian_nll_loss(x, mt.ones(4, 3), mt.ones(4, 3)))
    for out in outs:
        assert out.dtype is mt.float32
        out.backward()
    assert x.grad.dtype is mt.float32


def test_errors_read_the_same_on_meta():
    calls = [
        lambda d: mF.soft_margin_loss(mt.ones(4, 3, device=d), mt.ones(2, 3, device=d)),
        lambda d: mF.multi_margin_loss(mt.ones(4, 3, device=d),
                                       mt.zeros(3, dtype=mt.int64, device=d)),
        lambda d: mF.multilabel_margin_loss(mt.ones(4, 3, device=d),
                                            mt.zeros(4, 2, dtype=mt.int64, device=d)),
        lambda d: mF.cosine_embedding_loss(mt.ones(3, device=d), mt.ones(3, device=d),
                                           mt.ones(4, device=d)),
        lambda d: mF.gaussian_nll_loss(mt.ones(4, 3, device=d), mt.ones(4, 3, device=d),
                                       mt.ones(3, 3, device=d)),
    ]
    for call in calls:
        messages = []
        for device in ("cpu", "meta"):
            with pytest.raises(ValueError) as info:
                call(device)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


def test_value_checks_need_data_and_are_skipped_on_meta():
    """A class index out of range or a negative variance is in the data: meta gives shapes."""
    out = mF.multi_margin_loss(mt.empty(4, 3, device="meta"),
                               mt.empty(4, dtype=mt.int64, device="meta"))
    assert out.is_meta and out.shape == ()
    out = mF.gaussian_nll_loss(mt.empty(4, 3, device="meta"), mt.empty(4, 3, device="meta"),
                               mt.empty(4, device="meta"), reduction="none")
    assert out.is_meta and tuple(out.shape) == (4, 3)


# -- the layers ----------------------------------------------------------------------------

LAYERS = [
    ("MarginRankingLoss", {"margin": 0.3}, lambda T, a, b, c: (a[:, 0], b[:, 0], c)),
    ("HingeEmbeddingLoss", {"margin": 2.0, "reduction": "sum"}, lambda T, a, b, c: (a, c[:, None])),
    ("SoftMarginLoss", {"reduction": "none"}, lambda T, a, b, c: (a, c[:, None])),
    ("CosineEmbeddingLoss", {"margin": 0.1}, lambda T, a, b, c: (a, b, c)),
    ("TripletMarginLoss", {"margin": 0.5, "p": 1.0, "swap": True},
     lambda T, a, b, c: (a, b, b * 2)),
    ("TripletMarginWithDistanceLoss", {"margin": 3.0}, lambda T, a, b, c: (a, b, -b)),
    ("MultiLabelSoftMarginLoss", {}, lambda T, a, b, c: (a, (b > 0).to(a.dtype))),
    ("MultiMarginLoss", {"p": 2, "margin": 0.5},
     lambda T, a, b, c: (a, T.tensor([0, 1, 2, 0], device=a.device))),
    ("MultiLabelMarginLoss", {},
     lambda T, a, b, c: (a, T.tensor([[0, -1, 1]] * 4, device=a.device))),
    ("PoissonNLLLoss", {"log_input": False, "full": True},
     lambda T, a, b, c: (a.abs(), b.abs() * 3)),
    ("GaussianNLLLoss", {"full": True, "eps": 0.1}, lambda T, a, b, c: (a, b, c.abs())),
]


@pytest.mark.parametrize("name, options, inputs", LAYERS, ids=[n for n, _, _ in LAYERS])
def test_layers_equal_pytorchs(name, options, inputs, device):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(S), rng.standard_normal(S)
    c = rng.choice([-1.0, 1.0], (4,))
    ours_layer, their_layer = getattr(mt.nn, name)(**options), getattr(torch.nn, name)(**options)
    assert repr(ours_layer) == repr(their_layer)
    assert list(ours_layer.state_dict()) == list(their_layer.state_dict())
    ours = ours_layer(*inputs(mt, *(mt.tensor(v, device=device) for v in (a, b, c))))
    theirs = their_layer(*inputs(torch, *(torch.tensor(v) for v in (a, b, c))))
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-12)


def test_weighted_layers_keep_the_weight_as_a_buffer():
    w = mt.tensor([1.0, 2.0, 3.0])
    for name in ("MultiLabelSoftMarginLoss", "MultiMarginLoss"):
        ours = getattr(mt.nn, name)(weight=w)
        theirs = getattr(torch.nn, name)(weight=torch.tensor([1.0, 2.0, 3.0]))
        assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
        x, t = np.random.default_rng(1).standard_normal(S), [0, 2, 1, 1]
        target = (mt.tensor(t), torch.tensor(t))
        if name == "MultiLabelSoftMarginLoss":
            target = (mt.tensor(x > 0).float(), torch.tensor(x > 0).float())
        np.testing.assert_allclose(ours(mt.tensor(x).float(), target[0]).item(),
                                   theirs(torch.tensor(x).float(), target[1]).item(), rtol=1e-6)


def test_triplet_with_distance_layer_takes_a_custom_distance():
    layer = mt.nn.TripletMarginWithDistanceLoss(
        distance_function=lambda x1, x2: 1 - mF.cosine_similarity(x1, x2), reduction="none")
    theirs = torch.nn.TripletMarginWithDistanceLoss(
        distance_function=lambda x1, x2: 1 - tF.cosine_similarity(x1, x2), reduction="none")
    a, p, n = np.random.default_rng(2).standard_normal((3, 4, 5))
    np.testing.assert_allclose(layer(mt.tensor(a), mt.tensor(p), mt.tensor(n)).numpy(),
                               theirs(torch.tensor(a), torch.tensor(p), torch.tensor(n)).numpy(),
                               rtol=1e-12)


def test_pairwise_distance_layer():
    ours, theirs = mt.nn.PairwiseDistance(p=1.0, keepdim=True), torch.nn.PairwiseDistance(
        p=1.0, keepdim=True)
    a, b = np.random.default_rng(3).standard_normal((2, 4, 5))
    assert repr(ours) == repr(theirs)
    np.testing.assert_allclose(ours(mt.tensor(a), mt.tensor(b)).numpy(),
                               theirs(torch.tensor(a), torch.tensor(b)).numpy(), rtol=1e-12)


FUNCTIONS = ["margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
             "cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
             "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
             "poisson_nll_loss", "gaussian_nll_loss", "pairwise_distance"]


def _parameters(fn):
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_function_signatures_equal_pytorchs(name):
    if name == "pairwise_distance":  # a C++ builtin in PyTorch: compare with its docs
        assert _parameters(mF.pairwise_distance) == [
            ("x1", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
            ("x2", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
            ("p", inspect.Parameter.POSITIONAL_OR_KEYWORD, 2.0),
            ("eps", inspect.Parameter.POSITIONAL_OR_KEYWORD, 1e-6),
            ("keepdim", inspect.Parameter.POSITIONAL_OR_KEYWORD, False)]
        return
    assert _parameters(getattr(mF, name)) == _parameters(getattr(tF, name))


@pytest.mark.parametrize("name", [n for n, _, _ in LAYERS] + ["PairwiseDistance"])
def test_layer_signatures_and_attributes_equal_pytorchs(name):
    assert _parameters(getattr(mt.nn, name).__init__) == _parameters(
        getattr(torch.nn, name).__init__)
    ours, theirs = getattr(mt.nn, name)(), getattr(torch.nn, name)()
    for key in getattr(torch.nn, name).__constants__ if hasattr(
            getattr(torch.nn, name), "__constants__") else ():
        assert getattr(ours, key) == getattr(theirs, key), key


@pytest.mark.filterwarnings("ignore::UserWarning")  # PyTorch's deprecation of the flags
@pytest.mark.parametrize("call", [
    lambda F, x, y, s: F.margin_ranking_loss(x[:, 0], y[:, 0], s, 0.5, False),
    lambda F, x, y, s: F.hinge_embedding_loss(x, s[:, None], 0.5, None, False),
    lambda F, x, y, s: F.soft_margin_loss(x, s[:, None], False),
    lambda F, x, y, s: F.cosine_embedding_loss(x, y, s, 0.1, None, None, "sum"),
    lambda F, x, y, s: F.triplet_margin_loss(x, y, -y, 0.5, 1, 1e-3, True, None, False),
    lambda F, x, y, s: F.multilabel_soft_margin_loss(x, (y > 0).float(), None, False),
    lambda F, x, y, s: F.multi_margin_loss(x, (s > 0).long(), 2, 0.5, None, None, False),
    lambda F, x, y, s: F.multilabel_margin_loss(x, (s[:, None] > 0).long().expand(4, 3), False),
    lambda F, x, y, s: F.poisson_nll_loss(x.abs(), y.abs(), False, True, None, 0.1, False),
    lambda F, x, y, s: F.gaussian_nll_loss(x, y, x.abs(), True, 0.1, "sum"),
], ids=["margin_ranking", "hinge", "soft_margin", "cosine", "triplet", "multilabel_soft",
        "multi_margin", "multilabel_margin", "poisson", "gaussian"])
def test_positional_and_legacy_arguments_equal_pytorch(call):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(S).astype(np.float32), rng.standard_normal(S).astype(np.float32)
    s = rng.choice([-1.0, 1.0], (4,)).astype(np.float32)
    ours = call(mF, mt.tensor(x), mt.tensor(y), mt.tensor(s))
    theirs = call(tF, torch.tensor(x), torch.tensor(y), torch.tensor(s))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-7)


# -- errors --------------------------------------------------------------------------------

ERRORS = [
    (lambda T, F: F.margin_ranking_loss(T.ones(4, 3), T.ones(4, 3), T.ones(4)), mt.ShapeError,
     r"margin_ranking_loss: all input tensors should have the same number of dimensions, got "
     r"input1 \(4, 3\), input2 \(4, 3\) and target \(4,\)"),
    (lambda T, F: F.margin_ranking_loss(T.ones(4), T.ones(4), T.ones(4), reduction="avg"),
     ValueError, r"margin_ranking_loss: reduction must be one of \('mean', 'sum', 'none'\), "
                 r"got 'avg'"),
    (lambda T, F: F.hinge_embedding_loss(T.ones(4, 3), T.ones(4, 2)), mt.ShapeError,
     r"shapes \(4, 2\) and \(4, 3\) cannot be broadcast together"),
    (lambda T, F: F.soft_margin_loss(T.ones(4, 3), T.ones(2, 3)), mt.ShapeError,
     r"soft_margin_loss: expected target to broadcast to the input's shape \(4, 3\), got "
     r"target of shape \(2, 3\)"),
    (lambda T, F: F.soft_margin_loss(T.ones(3), T.ones(4, 3)), mt.ShapeError,
     "expected target to broadcast to the input's shape"),
    (lambda T, F: F.soft_margin_loss(T.ones(3), T.ones(3, requires_grad=True)), RuntimeError,
     "The function 'soft_margin_loss' is not differentiable with respect to argument "
     "'target'"),
    (lambda T, F: F.soft_margin_loss(T.tensor([1, 2]), T.ones(2)), TypeError,
     "soft_margin_loss: expected a floating-point input, got torch.int64"),
    (lambda T, F: F.cosine_embedding_loss(T.ones(4, 3), T.ones(4, 3), T.ones(4, 3)),
     mt.ShapeError, r"cosine_embedding_loss: expected a 0-D or 1-D target .one \+1/-1 per "
                    r"pair., got target of shape \(4, 3\); multi-target is not supported"),
    (lambda T, F: F.cosine_embedding_loss(T.ones(3), T.ones(3), T.ones(4)), mt.ShapeError,
     r"cosine_embedding_loss: a 1-D target expects 2-D input tensors, but got inputs of "
     r"shapes \(3,\) and \(3,\)"),
    (lambda T, F: F.cosine_embedding_loss(T.ones(4, 3), T.ones(4, 3), T.ones(3)),
     mt.ShapeError, r"where: shapes \(3,\) and \(4,\) cannot be broadcast together"),
    (lambda T, F: F.triplet_margin_loss(T.ones(4, 3), T.ones(4, 3), T.ones(3)), mt.ShapeError,
     "the anchor, positive, and negative tensors are expected to have the same number of "
     "dimensions, but got: anchor 2D, positive 2D, and negative 1D inputs"),
    (lambda T, F: F.triplet_margin_loss(T.ones(3), T.ones(3), T.ones(3), margin=0), ValueError,
     "triplet_margin_loss: margin must be greater than 0, got 0"),
    (lambda T, F: F.triplet_margin_with_distance_loss(T.ones(3), T.ones(3), T.ones(3),
                                                      margin=-1.0), ValueError,
     "triplet_margin_with_distance_loss: margin must be greater than 0, got -1.0"),
    (lambda T, F: F.triplet_margin_with_distance_loss(T.ones(3), T.ones(3), T.ones(3),
                                                      reduction="x"), ValueError,
     r"reduction must be one of \('mean', 'sum', 'none'\), got 'x'"),
    (lambda T, F: F.triplet_margin_with_distance_loss(T.ones(4, 3), T.ones(4, 3), T.ones(3)),
     mt.ShapeError, "anchor 2D, positive 2D, and negative 1D inputs"),
    (lambda T, F: F.multilabel_soft_margin_loss(T.ones(4, 3), T.ones(4, 2)), mt.ShapeError,
     r"shapes \(4, 2\) and \(4, 3\) cannot be broadcast together"),
    (lambda T, F: F.multilabel_soft_margin_loss(T.ones(4, 3), T.ones(4, 3), reduction="x"),
     ValueError, r"multilabel_soft_margin_loss: reduction must be one of"),
    (lambda T, F: F.multi_margin_loss(T.ones(4, 3), T.tensor([0, 1, 3, 0])), IndexError,
     r"multi_margin_loss: target 3 is out of range: expected class indices in \[0, 3\) for an "
     r"input with 3 classes"),
    (lambda T, F: F.multi_margin_loss(T.ones(4, 3), T.tensor([0, 1, 2])), mt.ShapeError,
     r"multi_margin_loss: expected target of shape \(4,\) \(one class index per sample of the "
     r"input \(4, 3\)\), got target of shape \(3,\)"),
    (lambda T, F: F.multi_margin_loss(T.ones(4, 3), T.tensor([0.0, 1, 2, 0])), TypeError,
     "multi_margin_loss: expected target to hold class indices as int64, got dtype "
     r"torch.float32; convert it with target.long\(\)"),
    (lambda T, F: F.multi_margin_loss(T.ones(4, 3), T.tensor([0, 1, 2, 0]), p=3), ValueError,
     "multi_margin_loss: only p == 1 and p == 2 supported, got p=3"),
    (lambda T, F: F.multi_margin_loss(T.ones(4, 3), T.tensor([0, 1, 2, 0]), weight=T.ones(4)),
     mt.ShapeError, r"expected weight of shape \(3,\) \(one per class of the input \(4, 3\)\), "
                    r"got weight of shape \(4,\)"),
    (lambda T, F: F.multi_margin_loss(T.ones(4, 3), T.tensor([0, 1, 2, 0]),
                                      weight=T.ones(3, 1)), ValueError,
     r"multi_margin_loss: weight must be one-dimensional .one per class., got weight of shape "
     r"\(3, 1\)"),
    (lambda T, F: F.multi_margin_loss(T.ones(4, 3), T.tensor([0, 1, 2, 0]),
                                      weight=T.ones(3, dtype=T.float64)), TypeError,
     "multi_margin_loss: expected input and weight to have the same dtype"),
    (lambda T, F: F.multi_margin_loss(T.ones(4, 3), T.tensor([0, 1, 2, 0]),
                                      weight=T.ones(3, requires_grad=True)), RuntimeError,
     "not differentiable with respect to argument 'weight'"),
    (lambda T, F: F.multi_margin_loss(T.ones(2, 3, 4), T.tensor([0, 1])), mt.ShapeError,
     r"multi_margin_loss: expected a non-empty \(C,\) vector or \(N, C\) matrix of class scores "
     r"\(N may be 0\), got input of shape \(2, 3, 4\)"),
    (lambda T, F: F.multi_margin_loss(T.ones(3, 0), T.tensor([0, 0, 0])), mt.ShapeError,
     r"got input of shape \(3, 0\)"),
    (lambda T, F: F.multi_margin_loss(T.ones(4, 3), T.tensor([0, 1, 2, 0]), reduction="avg"),
     ValueError, r"multi_margin_loss: reduction must be one of"),
    (lambda T, F: F.multilabel_margin_loss(T.ones(4, 3), T.zeros(3, 3, dtype=T.int64)),
     mt.ShapeError, r"multilabel_margin_loss: expected target of the input's shape \(4, 3\) "
                    r"\(class indices, ended by -1\), got target of shape \(3, 3\)"),
    (lambda T, F: F.multilabel_margin_loss(T.ones(2, 3), T.tensor([[0, 1, -1], [2, -2, -1]])),
     IndexError, r"multilabel_margin_loss: target -2 is out of range: expected class indices "
                 r"in \[-1, 3\)"),
    (lambda T, F: F.multilabel_margin_loss(T.ones(2, 3), T.tensor([[0, 1, -1], [-1, 0, 5]])),
     IndexError, "target 5 is out of range"),
    (lambda T, F: F.multilabel_margin_loss(T.ones(2, 3), T.zeros(2, 3, dtype=T.int32)),
     TypeError, "multilabel_margin_loss: expected target to hold class indices as int64, got "
                "dtype torch.int32"),
    (lambda T, F: F.multilabel_margin_loss(T.ones(2, 3, 1), T.zeros(2, 3, 1, dtype=T.int64)),
     mt.ShapeError, r"got input of shape \(2, 3, 1\)"),
    (lambda T, F: F.poisson_nll_loss(T.ones(4, 3), T.ones(2, 3)), mt.ShapeError,
     r"cannot be broadcast together"),
    (lambda T, F: F.poisson_nll_loss(T.ones(4, 3), T.ones(4, 3), reduction="x"), ValueError,
     r"poisson_nll_loss: reduction must be one of \('mean', 'sum', 'none'\), got 'x'"),
    (lambda T, F: F.gaussian_nll_loss(T.ones(4, 3), T.ones(4, 3), T.ones(2)), ValueError,
     r"gaussian_nll_loss: var is of incorrect size: expected the input's shape \(4, 3\), that "
     r"shape without its last dimension, or with one dimension of size 1, got var of shape "
     r"\(2,\)"),
    (lambda T, F: F.gaussian_nll_loss(T.ones(4, 3), T.ones(4, 3), T.ones(3)), ValueError,
     "var is of incorrect size"),
    (lambda T, F: F.gaussian_nll_loss(T.ones(4, 3), T.ones(4, 3), T.ones(1, 1)), ValueError,
     "var is of incorrect size"),
    (lambda T, F: F.gaussian_nll_loss(T.ones(4, 3), T.ones(4, 3), -T.ones(4, 3)), ValueError,
     "gaussian_nll_loss: var has negative entry/entries: expected variances >= 0"),
    (lambda T, F: F.gaussian_nll_loss(T.ones(4, 3), T.ones(4, 3), -1.0), ValueError,
     "var has negative entry/entries: expected variances >= 0, got -1.0"),
    (lambda T, F: F.gaussian_nll_loss(T.ones(4, 3), T.ones(4, 3), 1), TypeError,
     "gaussian_nll_loss: var must be a Tensor or a float, got int"),
    (lambda T, F: F.gaussian_nll_loss(T.ones(4, 3), T.ones(4, 3), T.ones(4, 3), reduction="x"),
     ValueError, r"gaussian_nll_loss: reduction must be one of"),
    (lambda T, F: T.nn.TripletMarginLoss(margin=0), ValueError,
     "TripletMarginLoss: expected margin to be greater than 0, got 0 instead"),
    (lambda T, F: T.nn.TripletMarginWithDistanceLoss(margin=-1), ValueError,
     "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got -1 instead"),
    (lambda T, F: T.nn.MultiMarginLoss(p=3), ValueError, "only p == 1 and p == 2 supported"),
    (lambda T, F: T.nn.MultiMarginLoss(weight=T.ones(2, 2)), ValueError,
     "MultiMarginLoss: expected weight to be None or 1D tensor, got 2D instead"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(mt, mF)


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_pytorch_refuses_the_same_calls(call, error, message):
    """Each call above fails in PyTorch too (a RuntimeError where we raise ShapeError, a
    ValueError, IndexError or TypeError: see docs/differences.md), so no call PyTorch accepts
    fails here."""
    with pytest.raises((RuntimeError, ValueError, IndexError, TypeError)) as theirs:
        call(torch, tF)
    if error in (ValueError, TypeError) and not issubclass(error, mt.ShapeError):
        assert theirs.type in (error, RuntimeError)

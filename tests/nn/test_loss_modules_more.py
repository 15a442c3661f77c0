"""nn.BCELoss, nn.BCEWithLogitsLoss, nn.SmoothL1Loss, nn.HuberLoss, nn.KLDivLoss and
CrossEntropyLoss(label_smoothing=): reprs, attributes, signatures and buffers as PyTorch's;
values and gradients against PyTorch in float32 and float64; devices, meta, training use."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn

NAMES = ["BCELoss", "BCEWithLogitsLoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss",
         "CrossEntropyLoss"]


def _modules(lib):
    """The same constructions in ``lib`` (``minitorch_meta`` or ``torch``)."""
    n = lib.nn
    w = lib.tensor([1.0, 2.0, 0.5])
    return [n.BCELoss(), n.BCELoss(weight=w), n.BCELoss(reduction="sum"),
            n.BCELoss(size_average=False), n.BCEWithLogitsLoss(),
            n.BCEWithLogitsLoss(pos_weight=w), n.BCEWithLogitsLoss(w, reduction="none"),
            n.SmoothL1Loss(), n.SmoothL1Loss(beta=0.5, reduction="sum"),
            n.SmoothL1Loss(reduce=False), n.HuberLoss(), n.HuberLoss("none", 2.0),
            n.KLDivLoss(), n.KLDivLoss(reduction="batchmean", log_target=True),
            n.KLDivLoss(size_average=False), n.CrossEntropyLoss(label_smoothing=0.1)]


@pytest.mark.filterwarnings("ignore:size_average and reduce args will be deprecated")
def test_reprs_attributes_and_buffers_equal_pytorch(torch_ref):
    for ours, theirs in zip(_modules(mt), _modules(torch_ref), strict=True):
        assert repr(ours) == repr(theirs)
        for name in ("reduction", "beta", "delta", "log_target", "label_smoothing",
                     "ignore_index"):
            assert getattr(ours, name, None) == getattr(theirs, name, None), (ours, name)
        assert list(ours._buffers) == list(theirs._buffers)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        for key, value in theirs.state_dict().items():
            np.testing.assert_array_equal(ours.state_dict()[key].numpy(), value.numpy())


@pytest.mark.filterwarnings("ignore:size_average and reduce args will be deprecated")
def test_reprs():
    assert [repr(m) for m in _modules(mt)[::4]] == [
        "BCELoss()", "BCEWithLogitsLoss()", "SmoothL1Loss()", "KLDivLoss()"]
    assert nn.HuberLoss(delta=3.0).delta == 3.0 and nn.HuberLoss().extra_repr() == ""


@pytest.mark.parametrize("name", NAMES)
def test_constructor_signatures_equal_pytorchs(torch_ref, name):
    ours = inspect.signature(getattr(nn, name)).parameters
    theirs = inspect.signature(getattr(torch_ref.nn, name)).parameters
    assert list(ours) == list(theirs)
    assert [p.default for p in ours.values()] == [p.default for p in theirs.values()]


def _data(rng, dtype):
    x = rng.uniform(0.05, 0.95, (5, 3)).astype(dtype)
    return {"probabilities": x, "logits": rng.standard_normal((5, 3)).astype(dtype) * 4,
            "target": rng.uniform(0, 1, (5, 3)).astype(dtype),
            "weight": rng.uniform(0.5, 2, (3,)).astype(dtype),
            "labels": np.array([0, 2, 1, 2, 1])}


# (module name, constructor keywords given the data, input key, target key)
CONFIGS = [
    ("BCELoss", {}, "probabilities", "target"),
    ("BCELoss", {"reduction": "none"}, "probabilities", "target"),
    ("BCELoss", {"weight": "weight", "reduction": "sum"}, "probabilities", "target"),
    ("BCEWithLogitsLoss", {}, "logits", "target"),
    ("BCEWithLogitsLoss", {"pos_weight": "weight"}, "logits", "target"),
    ("BCEWithLogitsLoss", {"weight": "weight", "pos_weight": "weight", "reduction": "none"},
     "logits", "target"),
    ("SmoothL1Loss", {}, "logits", "target"),
    ("SmoothL1Loss", {"beta": 0.25, "reduction": "none"}, "logits", "target"),
    ("SmoothL1Loss", {"beta": 0.0, "reduction": "sum"}, "logits", "target"),
    ("HuberLoss", {}, "logits", "target"),
    ("HuberLoss", {"delta": 3.0, "reduction": "sum"}, "logits", "target"),
    ("KLDivLoss", {"reduction": "batchmean"}, "logits", "target"),
    ("KLDivLoss", {"reduction": "none", "log_target": True}, "logits", "logits"),
    ("KLDivLoss", {"reduction": "sum"}, "logits", "target"),
    ("CrossEntropyLoss", {"label_smoothing": 0.2}, "logits", "labels"),
    ("CrossEntropyLoss", {"label_smoothing": 0.2, "ignore_index": 1, "reduction": "none"},
     "logits", "labels"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1}, "logits", "target"),
]


@pytest.mark.parametrize("dtype, rtol", [(np.float32, 1e-5), (np.float64, 1e-11)],
                         ids=["float32", "float64"])
@pytest.mark.parametrize("name, kwargs, input_key, target_key", CONFIGS)
def test_values_and_gradients_equal_pytorch(torch_ref, device, dtype, rtol, name, kwargs,
                                            input_key, target_key):
    data = _data(np.random.default_rng(7), dtype)

    def build(lib, to):
        options = {k: to(data[v]) if isinstance(v, str) and v in data else v
                   for k, v in kwargs.items()}
        return getattr(lib.nn, name)(**options)

    ours_module = build(mt, lambda a: mt.from_numpy(a)).to(device)
    theirs_module = build(torch_ref, torch_ref.from_numpy)
    x = data[input_key]
    xo = mt.from_numpy(x).to(device).requires_grad_()
    xt = torch_ref.from_numpy(x).requires_grad_()
    lo = ours_module(xo, mt.from_numpy(data[target_key]).to(device))
    lt = theirs_module(xt, torch_ref.from_numpy(data[target_key]))
    assert lo.dtype is getattr(mt, str(lt.dtype).split(".")[1])
    np.testing.assert_allclose(lo.detach().cpu().numpy(), lt.detach().numpy(), rtol=rtol,
                               atol=rtol)
    assert lo.grad_fn.name() == lt.grad_fn.name()
    upstream = np.random.default_rng(8).uniform(0.5, 1.5, tuple(lt.shape)).astype(dtype)
    lt.backward(torch_ref.from_numpy(upstream))
    lo.backward(mt.from_numpy(upstream).to(device))
    np.testing.assert_allclose(xo.grad.cpu().numpy(), xt.grad.numpy(), rtol=rtol, atol=rtol)


def test_kl_div_loss_mean_warns_like_pytorch(torch_ref):
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss") as ours:
        nn.KLDivLoss()(mt.zeros(2, 3), mt.ones(2, 3))
    with pytest.warns(UserWarning) as theirs:
        torch_ref.nn.KLDivLoss()(torch_ref.zeros(2, 3), torch_ref.ones(2, 3))
    assert str(ours[0].message) == str(theirs[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.KLDivLoss(reduction="batchmean")(mt.zeros(2, 3), mt.ones(2, 3))


def test_weights_are_buffers_that_follow_the_module():
    loss = nn.BCEWithLogitsLoss(weight=mt.ones(3), pos_weight=mt.full((3,), 2.0))
    assert dict(loss.named_buffers()).keys() == {"weight", "pos_weight"}
    assert list(loss.parameters()) == []
    on_meta = loss.to("meta")
    assert on_meta.weight.is_meta and on_meta.pos_weight.is_meta
    doubled = nn.BCELoss(weight=mt.ones(3)).double()
    assert doubled.weight.dtype is mt.float64
    fresh = nn.BCEWithLogitsLoss(weight=mt.zeros(3), pos_weight=mt.zeros(3))
    fresh.load_state_dict(nn.BCEWithLogitsLoss(weight=mt.ones(3),
                                               pos_weight=mt.full((3,), 2.0)).state_dict())
    assert fresh.pos_weight.tolist() == [2.0, 2.0, 2.0]


def test_on_meta_forward_and_backward_give_shapes():
    with mt.device("meta"):
        model = nn.Sequential(nn.Linear(784, 10))
        pos_weight = mt.ones(10)
    x = mt.empty(2**20, 784, device="meta")
    target = mt.empty(2**20, 10, device="meta")
    labels = mt.empty(2**20, dtype=mt.int64, device="meta")
    losses = [nn.BCEWithLogitsLoss(pos_weight=pos_weight), nn.SmoothL1Loss(), nn.HuberLoss(),
              nn.KLDivLoss(reduction="batchmean"), nn.CrossEntropyLoss(label_smoothing=0.1)]
    for loss in losses:
        value = loss(model(x), labels if isinstance(loss, nn.CrossEntropyLoss) else target)
        assert value.is_meta and value.shape == ()
        value.backward()
        assert model[0].weight.grad.is_meta and model[0].weight.grad.shape == (10, 784)
        model.zero_grad()
    probabilities = nn.Sequential(model, nn.Sigmoid())(x)
    assert nn.BCELoss(reduction="none")(probabilities, target).shape == (2**20, 10)
    assert nn.KLDivLoss(reduction="none")(model(x), target[0]).shape == (2**20, 10)


def test_bce_with_logits_trains_a_multi_label_classifier(device):
    """A few SGD steps on separable multi-label data lower the loss (the module in use)."""
    mt.manual_seed(0)
    x = mt.randn(64, 4, device=device)
    target = (x[:, :2] > 0).float()
    model = nn.Linear(4, 2).to(device)
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=mt.tensor([1.0, 2.0], device=device))
    optimizer = mt.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = loss_fn(model(x), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_bce_loss_after_sigmoid_equals_bce_with_logits(device):
    x = mt.randn(6, 3, device=device, dtype=mt.float64)
    t = mt.rand(6, 3, device=device, dtype=mt.float64)
    np.testing.assert_allclose(nn.BCELoss()(nn.Sigmoid()(x), t).item(),
                               nn.BCEWithLogitsLoss()(x, t).item(), rtol=1e-12)


@pytest.mark.parametrize("call, error, message", [
    (lambda: nn.BCELoss()(mt.rand(4, 1), mt.rand(4)), mt.ShapeError,
     r"expected target of the input's shape \(4, 1\)"),
    (lambda: nn.BCELoss()(mt.randn(4) + 5, mt.rand(4)), RuntimeError,
     "all elements of input should be between 0 and 1"),
    (lambda: nn.BCEWithLogitsLoss(pos_weight=mt.ones(2))(mt.rand(4, 3), mt.rand(4, 3)),
     mt.ShapeError, "expected pos_weight to broadcast"),
    (lambda: nn.SmoothL1Loss(beta=-1.0)(mt.rand(3), mt.rand(3)), ValueError,
     "negative values for beta"),
    (lambda: nn.HuberLoss(delta=0.0)(mt.rand(3), mt.rand(3)), ValueError,
     "non-positive values for delta"),
    (lambda: nn.KLDivLoss(reduction="avg")(mt.rand(3), mt.rand(3)), ValueError,
     "kl_div: reduction must be one of"),
    (lambda: nn.CrossEntropyLoss(label_smoothing=1.5)(mt.rand(3, 2), mt.tensor([0, 1, 1])),
     ValueError, "label_smoothing must be between 0.0 and 1.0, got 1.5"),
])
def test_call_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_shape_errors_name_the_module():
    model = nn.Sequential(nn.Linear(3, 1))
    with pytest.raises(mt.ShapeError, match="binary_cross_entropy_with_logits"):
        nn.BCEWithLogitsLoss()(model(mt.randn(5, 3)), mt.rand(5))

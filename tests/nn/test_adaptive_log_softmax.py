"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch with copied parameters: forward's output
and loss, log_prob, predict (every branch), gradients of the input and every parameter,
unbatched inputs, the layer's structure and repr, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _pair(torch, device, *args, **kwargs):
    """The layer in both frameworks, PyTorch's parameters copied from ours."""
    ours = mt.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs).to(device)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs)
    ours_named, theirs_named = dict(ours.named_parameters()), dict(theirs.named_parameters())
    assert list(ours_named) == list(theirs_named)
    with torch.no_grad():
        for name, p in theirs_named.items():
            p.copy_(torch.tensor(ours_named[name].detach().cpu().numpy()))
    return ours, theirs


def _close(ours, theirs, what=""):
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(),
                               rtol=1e-5, atol=1e-6, err_msg=what)


SETTINGS = [  # (in_features, n_classes, cutoffs, keywords)
    (16, 20, [4, 9, 15], {"div_value": 2.0}),
    (12, 10, [3], {"head_bias": True}),
    (8, 30, (5, 10, 20), {"div_value": 1.5, "head_bias": True}),
]


@pytest.mark.parametrize("setting", SETTINGS, ids=["three_clusters", "one_cluster_bias",
                                                   "tuple_cutoffs"])
def test_forward_output_loss_and_gradients_match_torch(setting, device, torch):
    in_features, n_classes, cutoffs, keywords = setting
    ours, theirs = _pair(torch, device, in_features, n_classes, cutoffs, **keywords)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((9, in_features)).astype(np.float32)
    # every bucket used, the last class and class 0 too
    middle = cutoffs[min(1, len(cutoffs) - 1)]
    target = np.array([0, n_classes - 1, 1, cutoffs[0], n_classes - 2, middle, cutoffs[-1], 0,
                       cutoffs[0] + 1])
    xo = mt.tensor(x, device=device, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    out = ours(xo, mt.tensor(target, device=device))
    ref = theirs(xt, torch.tensor(target))
    assert type(out).__name__ == "_ASMoutput" and out._fields == ("output", "loss")
    _close(out.output, ref.output, "output")
    _close(out.loss, ref.loss, "loss")
    assert tuple(out.output.shape) == (9,) and tuple(out.loss.shape) == ()
    assert out.output.grad_fn.name() == ref.output.grad_fn.name()
    assert out.loss.grad_fn.name() == ref.loss.grad_fn.name()
    assert out.output.device == tensor_device(device)
    (out.loss * 3 + out.output[2]).backward()
    (ref.loss * 3 + ref.output[2]).backward()
    _close(xo.grad, xt.grad, "input gradient")
    theirs_named = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        _close(p.grad, theirs_named[name].grad, f"gradient of {name}")


def test_unbatched_input_and_single_rows(device, torch):
    ours, theirs = _pair(torch, device, 6, 9, [2, 5], div_value=2.0)
    x = np.random.default_rng(1).standard_normal((3, 6)).astype(np.float32)
    for row, target in ((0, 0), (1, 3), (2, 8)):
        out = ours(mt.tensor(x[row], device=device), mt.tensor(target, device=device))
        ref = theirs(torch.tensor(x[row]), torch.tensor(target))
        assert tuple(out.output.shape) == () and tuple(out.loss.shape) == ()
        _close(out.output, ref.output)
        _close(out.loss, ref.loss)
        # one row in a batch: the row indices squeeze to a 0-d tensor in PyTorch's code
        out = ours(mt.tensor(x[row:row + 1], device=device),
                   mt.tensor([target], device=device))
        ref = theirs(torch.tensor(x[row:row + 1]), torch.tensor([target]))
        assert tuple(out.output.shape) == (1,)
        _close(out.output, ref.output)


def test_log_prob_matches_torch_and_sums_to_one(device, torch):
    ours, theirs = _pair(torch, device, 10, 14, [3, 8], div_value=2.0, head_bias=True)
    x = np.random.default_rng(2).standard_normal((5, 10)).astype(np.float32)
    xo = mt.tensor(x, device=device, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    lp, ref = ours.log_prob(xo), theirs.log_prob(xt)
    assert tuple(lp.shape) == (5, 14)
    _close(lp, ref)
    np.testing.assert_allclose(lp.exp().sum(1).detach().cpu().numpy(), np.ones(5), rtol=1e-5)
    weights = np.random.default_rng(3).standard_normal((5, 14)).astype(np.float32)
    (lp * mt.tensor(weights, device=device)).sum().backward()
    (ref * torch.tensor(weights)).sum().backward()
    _close(xo.grad, xt.grad)


@pytest.mark.parametrize("favour", ["shortlist", "clusters", "mixed"])
def test_predict_takes_each_branch_as_torch(favour, device, torch):
    ours, theirs = _pair(torch, device, 4, 12, [3, 7], div_value=1.0)
    head = np.zeros((5, 4), dtype=np.float32)  # shortlist 3 classes, then 2 clusters
    x = np.eye(4, dtype=np.float32)[[0, 1, 2, 3, 0, 1]] * 5
    if favour == "shortlist":
        head[[0, 1, 2], [0, 1, 2]] = 4.0
        head[:3, 3] = 4.0
    elif favour == "clusters":
        head[[3, 4], :] = 4.0
    else:
        head[0, 0], head[3, 1], head[4, 2], head[1, 3] = 4.0, 4.0, 4.0, 4.0
    with mt.no_grad():
        ours.head.weight.copy_(mt.tensor(head, device=device))
    with torch.no_grad():
        theirs.head.weight.copy_(torch.tensor(head))
    xo, xt = mt.tensor(x, device=device), torch.tensor(x)
    predicted = ours.predict(xo)
    assert predicted.dtype is mt.int64 and predicted.device == tensor_device(device)
    assert predicted.tolist() == theirs.predict(xt).tolist()
    assert predicted.tolist() == ours.log_prob(xo).argmax(1).tolist()
    in_shortlist = [p < 3 for p in predicted.tolist()]
    assert {"shortlist": all(in_shortlist), "clusters": not any(in_shortlist),
            "mixed": 0 < sum(in_shortlist) < len(in_shortlist)}[favour]


def test_structure_repr_and_state_dict_as_torch(torch):
    ours = mt.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for name in ("in_features", "n_classes", "cutoffs", "div_value", "head_bias",
                 "shortlist_size", "n_clusters", "head_size"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert isinstance(ours.tail, mt.nn.ModuleList)
    assert all(isinstance(cluster, mt.nn.Sequential) for cluster in ours.tail)
    before = ours.head.weight.detach().clone()
    ours.reset_parameters()
    assert not np.array_equal(before.numpy(), ours.head.weight.detach().numpy())


def test_factory_keywords_and_float64(torch):
    layer = mt.nn.AdaptiveLogSoftmaxWithLoss(6, 8, [2], dtype=mt.float64, device="meta")
    assert all(p.dtype is mt.float64 and p.is_meta for p in layer.parameters())
    assert tuple(layer.log_prob(mt.empty(4, 6, dtype=mt.float64, device="meta")).shape) == (4, 8)
    ours, theirs = _pair(torch, "cpu", 6, 8, [2])
    ours, theirs = ours.double(), theirs.double()
    x = np.random.default_rng(4).standard_normal((3, 6))
    out = ours(mt.tensor(x), mt.tensor([0, 5, 7]))
    ref = theirs(torch.tensor(x), torch.tensor([0, 5, 7]))
    assert out.output.dtype is mt.float64
    np.testing.assert_allclose(out.output.detach().numpy(), ref.output.detach().numpy(),
                               rtol=1e-12)


def test_a_cluster_of_no_hidden_features_warns_as_torch(torch):
    # 4 // 4.0 ** 2 == 0: PyTorch warns when initialising the empty weights; so do we
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2, 4])
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        ours = mt.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2, 4])
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("cutoffs", [[], [3, 2], [0, 2], [2, 9], [2, 2], [1.5, 3]],
                         ids=["empty", "unsorted", "zero", "too_large", "repeated",
                              "not_whole"])
def test_bad_cutoffs_raise_value_error_as_torch(cutoffs, torch):
    with pytest.raises(ValueError) as theirs:
        torch.nn.AdaptiveLogSoftmaxWithLoss(8, 9, cutoffs)
    with pytest.raises(ValueError) as ours:
        mt.nn.AdaptiveLogSoftmaxWithLoss(8, 9, cutoffs)
    # PyTorch's words, and ours add what arrived
    assert str(ours.value).startswith(str(theirs.value))


@pytest.mark.parametrize("x_shape, target, words", [
    ((3, 6), [0, 1], "Input and target should have the same size in the batch dimension"),
    ((3, 6, 1), [0, 1, 2], "1D target tensor expects 2D input tensors, but found inputs with "
                           "size torch.Size([3, 6, 1])"),
    ((3, 6), 1, "0D target tensor expects 1D input tensors, but found inputs with size "
                "torch.Size([3, 6])"),
    ((3, 6), [[0], [1], [2]], "0D or 1D target tensor expected, multi-target not supported"),
    ((3, 6), [0, 9, 2], "Target values should be in [0, 8], but values in range [0, 9] were "
                        "found."),
    ((3, 6), [0, -1, 2], "Target values should be in [0, 8], but values in range [-1, 2] were "
                         "found."),
])
def test_forward_errors_as_torch(x_shape, target, words, device, torch):
    ours, theirs = _pair(torch, device, 6, 9, [2, 5], div_value=2.0)
    with pytest.raises(RuntimeError) as ref:
        theirs(torch.zeros(x_shape), torch.tensor(target))
    with pytest.raises(RuntimeError) as info:
        ours(mt.zeros(x_shape, device=device), mt.tensor(target, device=device))
    assert words in str(info.value)
    assert str(ref.value).split(" (")[0].split(".")[0] in str(info.value)

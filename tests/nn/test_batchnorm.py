"""BatchNorm1d/BatchNorm2d and F.batch_norm: values, gradients and running statistics against
PyTorch, state dicts, float64 gradcheck, meta shapes, errors and reprs."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from minitorch_meta import nn
from minitorch_meta.errors import ShapeError
from tests.gradcheck import gradcheck

# (layer class name, constructor keywords, input shape)
CONFIGS = [
    pytest.param("BatchNorm1d", {}, (8, 4), id="1d-2D"),
    pytest.param("BatchNorm1d", {}, (6, 4, 5), id="1d-3D"),
    pytest.param("BatchNorm2d", {}, (4, 3, 5, 6), id="2d"),
    pytest.param("BatchNorm2d", {"affine": False}, (4, 3, 5, 5), id="2d-affine-False"),
    pytest.param("BatchNorm2d", {"bias": False}, (4, 3, 5, 5), id="2d-bias-False"),
    pytest.param("BatchNorm2d", {"track_running_stats": False}, (4, 3, 5, 5),
                 id="2d-no-running-stats"),
    pytest.param("BatchNorm1d", {"momentum": None}, (6, 4, 3), id="1d-momentum-None"),
    pytest.param("BatchNorm2d", {"momentum": 0.3, "eps": 1e-3}, (3, 2, 4, 4), id="2d-momentum"),
]


def _layers(torch, name, kwargs, shape, device):
    """Our layer and PyTorch's, both with random affine parameters (the same ones)."""
    ours = getattr(nn, name)(shape[1], **kwargs).to(device)
    theirs = getattr(torch.nn, name)(shape[1], **kwargs)
    rng = np.random.default_rng(5)
    with torch.no_grad(), mt.no_grad():
        for key in ("weight", "bias"):
            if getattr(theirs, key) is not None:
                values = rng.uniform(0.5, 1.5, shape[1]).astype(np.float32)
                getattr(theirs, key).copy_(torch.from_numpy(values))
                getattr(ours, key).copy_(mt.from_numpy(values))
    return ours, theirs


def _step(torch, ours, theirs, x, device, seed):
    """One forward and backward through both; returns nothing, asserts everything."""
    xo = mt.from_numpy(x).to(device).requires_grad_()
    xt = torch.from_numpy(x).requires_grad_()
    yo, yt = ours(xo), theirs(xt)
    assert yo.dtype is mt.float32
    np.testing.assert_allclose(yo.detach().cpu().numpy(), yt.detach().numpy(), rtol=1e-5,
                               atol=1e-5)
    assert yo.grad_fn.name() == type(yt.grad_fn).__name__ == "NativeBatchNormBackward0"
    upstream = np.random.default_rng(seed).standard_normal(x.shape).astype(np.float32)
    yo.backward(mt.from_numpy(upstream).to(device))
    yt.backward(torch.from_numpy(upstream))
    np.testing.assert_allclose(xo.grad.cpu().numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-5)
    assert xo.grad.dtype is mt.float32
    for key in ("weight", "bias"):
        mine, ref = getattr(ours, key), getattr(theirs, key)
        assert (mine is None) == (ref is None)
        if ref is not None:
            np.testing.assert_allclose(mine.grad.cpu().numpy(), ref.grad.numpy(), rtol=1e-4,
                                       atol=1e-4, err_msg=key)
            mine.grad, ref.grad = None, None


def _assert_same_buffers(ours, theirs):
    for key in ("running_mean", "running_var", "num_batches_tracked"):
        mine, ref = getattr(ours, key), getattr(theirs, key)
        assert (mine is None) == (ref is None), key
        if ref is not None:
            assert str(mine.dtype) == str(ref.dtype), key
            np.testing.assert_allclose(mine.cpu().numpy(), ref.numpy(), rtol=1e-5, atol=1e-6,
                                       err_msg=key)


@pytest.mark.parametrize("name, kwargs, shape", CONFIGS)
def test_train_then_eval_equal_pytorch(torch_ref, device, name, kwargs, shape):
    ours, theirs = _layers(torch_ref, name, kwargs, shape, device)
    rng = np.random.default_rng(0)
    for step in range(4):  # batches of different means and spreads move the statistics
        x = (rng.standard_normal(shape) * (step + 1) + step).astype(np.float32)
        _step(torch_ref, ours, theirs, x, device, seed=step)
        _assert_same_buffers(ours, theirs)
    ours.eval()
    theirs.eval()
    x = rng.standard_normal(shape).astype(np.float32)
    _step(torch_ref, ours, theirs, x, device, seed=10)
    _assert_same_buffers(ours, theirs)  # eval leaves the statistics alone


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("stats", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_functional_equals_pytorch(torch_ref, device, training, stats, affine):
    if not training and not stats:
        pytest.skip("eval mode needs running statistics (tested with the errors)")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 3, 4)).astype(np.float32)
    mean = rng.standard_normal(3).astype(np.float32)
    var = rng.uniform(0.5, 2, 3).astype(np.float32)
    weight = rng.uniform(0.5, 1.5, 3).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)

    def run(lib, functional, to):
        inputs = [to(a).requires_grad_() for a in (x, weight, bias)]
        running = [to(mean.copy()), to(var.copy())] if stats else [None, None]
        w, b = (inputs[1], inputs[2]) if affine else (None, None)
        y = functional.batch_norm(inputs[0], *running, w, b, training=training, momentum=0.2,
                                  eps=1e-4)
        y.backward(to(np.linspace(-1, 1, y.numel(), dtype=np.float32).reshape(x.shape)))
        return y, inputs, running

    yo, io, ro = run(mt, F, lambda a: mt.from_numpy(a).to(device))
    yt, it, rt = run(torch_ref, torch_ref.nn.functional, torch_ref.from_numpy)
    np.testing.assert_allclose(yo.detach().cpu().numpy(), yt.detach().numpy(), rtol=1e-5,
                               atol=1e-5)
    assert yo.grad_fn.name() == type(yt.grad_fn).__name__
    for o, t in zip(io + ro, it + rt):
        if t is None:
            continue
        if t.grad is None:
            assert o.grad is None
            np.testing.assert_allclose(o.detach().cpu().numpy(), t.detach().numpy(), rtol=1e-5)
        else:
            np.testing.assert_allclose(o.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-4,
                                       atol=1e-5)


def test_state_dict_keys_and_values(torch_ref):
    ours, theirs = nn.BatchNorm2d(3), torch_ref.nn.BatchNorm2d(3)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == [
        "weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    x = np.random.default_rng(0).standard_normal((4, 3, 2, 2)).astype(np.float32)
    for _ in range(2):
        ours(mt.from_numpy(x))
        theirs(torch_ref.from_numpy(x))
    for key, value in theirs.state_dict().items():
        mine = ours.state_dict()[key]
        assert str(mine.dtype) == str(value.dtype) and tuple(mine.shape) == tuple(value.shape)
        np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=1e-6)
    assert [name for name, _ in ours.named_buffers()] == [
        name for name, _ in theirs.named_buffers()]
    assert [name for name, _ in ours.named_parameters()] == ["weight", "bias"]
    assert list(nn.BatchNorm1d(2, track_running_stats=False).state_dict()) == ["weight", "bias"]
    assert list(nn.BatchNorm1d(2, affine=False).state_dict()) == [
        "running_mean", "running_var", "num_batches_tracked"]


def test_load_state_dict_round_trip_and_legacy_dicts():
    trained = nn.BatchNorm1d(3)
    trained(mt.randn(5, 3) * 3 + 1)
    fresh = nn.BatchNorm1d(3)
    fresh.load_state_dict(trained.state_dict())
    for key, value in trained.state_dict().items():
        np.testing.assert_array_equal(fresh.state_dict()[key].numpy(), value.numpy())
    # A state dict from before num_batches_tracked existed still loads (as in PyTorch),
    # and the caller's dict is not changed.
    legacy = {k: v for k, v in trained.state_dict().items() if k != "num_batches_tracked"}
    other = nn.BatchNorm1d(3)
    result = other.load_state_dict(legacy)
    assert result.missing_keys == [] and "num_batches_tracked" not in legacy
    assert other.num_batches_tracked.item() == 0
    np.testing.assert_array_equal(other.running_var.numpy(), trained.running_var.numpy())


def test_module_dtype_moves_keep_the_count_int64():
    bn = nn.BatchNorm2d(2).double()
    assert bn.weight.dtype is mt.float64 and bn.running_mean.dtype is mt.float64
    assert bn.num_batches_tracked.dtype is mt.int64
    bn(mt.randn(3, 2, 2, 2, dtype=mt.float64))
    assert bn.num_batches_tracked.item() == 1
    with_dtype = nn.BatchNorm1d(2, dtype=mt.float64)
    assert with_dtype.running_var.dtype is mt.float64
    assert with_dtype.num_batches_tracked.dtype is mt.int64


def test_cumulative_average_with_momentum_none():
    bn = nn.BatchNorm1d(2, momentum=None)
    batches = [mt.tensor([[1.0, 0.0], [3.0, 4.0]]), mt.tensor([[5.0, 2.0], [7.0, 2.0]]),
               mt.tensor([[0.0, 1.0], [2.0, 3.0]])]
    for batch in batches:
        bn(batch)
    stacked = np.stack([b.numpy() for b in batches])
    np.testing.assert_allclose(bn.running_mean.numpy(), stacked.mean(axis=1).mean(axis=0),
                               rtol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(),
                               stacked.var(axis=1, ddof=1).mean(axis=0), rtol=1e-6)
    assert bn.num_batches_tracked.item() == 3


@pytest.mark.parametrize("shape", [(5, 3), (4, 2, 3), (3, 2, 2, 3)])
def test_gradcheck_training(shape):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape)
    weight, bias = rng.uniform(0.5, 1.5, shape[1]), rng.standard_normal(shape[1])
    gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [x, weight, bias])
    gradcheck(lambda x: F.batch_norm(x, None, None, training=True, eps=1e-3), [x])


def test_gradcheck_eval():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 2, 2))
    weight, bias = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
    mean, var = mt.tensor(rng.standard_normal(3)), mt.tensor(rng.uniform(0.5, 2, 3))
    gradcheck(lambda x, w, b: F.batch_norm(x, mean, var, w, b), [x, weight, bias])


def test_running_stats_take_no_part_in_the_graph():
    bn = nn.BatchNorm2d(3)
    x = mt.randn(4, 3, 2, 2, requires_grad=True)
    bn(x).sum().backward()
    assert not bn.running_mean.requires_grad and bn.running_mean.grad_fn is None
    assert bn.running_var.grad is None


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("name, kwargs, shape", CONFIGS)
def test_meta_shapes(name, kwargs, shape, training):
    with mt.device("meta"):
        bn = getattr(nn, name)(shape[1], **kwargs)
    bn.train(training)
    x = mt.empty(shape, device="meta", requires_grad=True)
    y = bn(x)
    assert y.is_meta and tuple(y.shape) == shape and y.dtype is mt.float32
    assert y.grad_fn.name() == "NativeBatchNormBackward0"
    y.sum().backward()
    assert x.grad.is_meta and tuple(x.grad.shape) == shape
    if bn.weight is not None:
        assert bn.weight.grad.is_meta and tuple(bn.weight.grad.shape) == (shape[1],)
    if bn.running_mean is not None:
        assert bn.running_mean.is_meta and bn.num_batches_tracked.dtype is mt.int64


def test_meta_errors_match_cpu():
    with mt.device("meta"):
        bn = nn.BatchNorm2d(3)
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        bn(mt.empty(2, 3, 4, device="meta"))
    with pytest.raises(ShapeError, match="num_features=3"):
        bn(mt.empty(2, 4, 5, 5, device="meta"))


def test_to_empty_then_reset_parameters(device):
    with mt.device("meta"):
        model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
    model.to_empty(device=device)
    for module in model.modules():
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    bn = model[1]
    assert bn.weight.tolist() == [1.0, 1.0] and bn.bias.tolist() == [0.0, 0.0]
    assert bn.running_mean.tolist() == [0.0, 0.0] and bn.running_var.tolist() == [1.0, 1.0]
    assert bn.num_batches_tracked.item() == 0 and bn.num_batches_tracked.dtype is mt.int64
    model(mt.randn(2, 1, 5, 5, device=device)).sum().backward()
    assert bn.num_batches_tracked.item() == 1 and bn.weight.grad is not None


def test_reset_running_stats_keeps_the_affine_parameters():
    bn = nn.BatchNorm1d(2)
    with mt.no_grad():
        bn.weight.fill_(3.0)
    bn(mt.randn(4, 2) + 5)
    bn.reset_running_stats()
    assert bn.running_mean.tolist() == [0.0, 0.0] and bn.running_var.tolist() == [1.0, 1.0]
    assert bn.num_batches_tracked.item() == 0 and bn.weight.tolist() == [3.0, 3.0]


def test_track_running_stats_false_uses_batch_stats_in_eval():
    bn = nn.BatchNorm1d(2, track_running_stats=False, affine=False).eval()
    assert bn.running_mean is None and bn.num_batches_tracked is None
    y = bn(mt.tensor([[1.0, 10.0], [3.0, 30.0]]))
    np.testing.assert_allclose(y.numpy(), [[-1.0, -1.0], [1.0, 1.0]], atol=1e-4)


def test_eval_with_batch_of_one_is_allowed():
    bn = nn.BatchNorm1d(3).eval()
    assert tuple(bn(mt.randn(1, 3)).shape) == (1, 3)


@pytest.mark.parametrize("layer, shape, message", [
    (nn.BatchNorm2d(3), (2, 3, 4), r"expected 4D input \(got 3D input\)"),
    (nn.BatchNorm2d(3), (2, 3, 4, 4, 4), r"expected 4D input \(got 5D input\)"),
    (nn.BatchNorm1d(3), (2, 3, 4, 5), r"expected 2D or 3D input \(got 4D input\)"),
    (nn.BatchNorm1d(3), (3,), r"expected 2D or 3D input \(got 1D input\)"),
    (nn.BatchNorm1d(3), (1, 3), r"Expected more than 1 value per channel when training, got "
                                r"input size torch.Size\(\[1, 3\]\)"),
    (nn.BatchNorm2d(3), (1, 3, 1, 1), r"Expected more than 1 value per channel when training"),
])
def test_value_errors_with_pytorch_texts(layer, shape, message):
    with pytest.raises(ValueError, match=message):
        layer(mt.randn(*shape))


def test_value_error_texts_equal_pytorch(torch_ref):
    for name, shape in [("BatchNorm2d", (2, 3, 4)), ("BatchNorm1d", (2, 3, 4, 5)),
                        ("BatchNorm1d", (1, 3))]:
        messages = []
        for lib in (mt, torch_ref):
            with pytest.raises(ValueError) as info:
                getattr(lib.nn, name)(3)(lib.randn(*shape))
            messages.append(str(info.value))
        assert messages[0] == messages[1]


def test_wrong_channel_count_names_num_features():
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(3))
    with pytest.raises(ShapeError) as info:
        model(mt.randn(2, 1, 5, 5))
    text = str(info.value)
    assert "BatchNorm2d(num_features=3) expects 3 channels" in text
    assert "(2, 4, 3, 3) has 4" in text and "set num_features=4" in text
    assert "in module '1'" in text  # where in the model
    assert model[1].num_batches_tracked.item() == 0  # refused before counting a batch


def test_functional_errors():
    x = mt.randn(4, 3)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(x, None, None)
    with pytest.raises(RuntimeError, match="running_var must be defined in evaluation mode"):
        F.batch_norm(x, mt.zeros(3), None)
    with pytest.raises(ShapeError, match="running_mean should contain 3 elements not 4"):
        F.batch_norm(x, mt.zeros(4), mt.ones(4), training=True)
    with pytest.raises(ShapeError, match="weight should contain 3 elements not 2"):
        F.batch_norm(x, None, None, mt.ones(2), training=True)
    with pytest.raises(ValueError, match="eps must be positive during training, but got 0.0"):
        F.batch_norm(x, None, None, training=True, eps=0.0)
    with pytest.raises(ValueError, match="eps must be non-negative, but got -1.0"):
        F.batch_norm(x, mt.zeros(3), mt.ones(3), eps=-1.0)
    with pytest.raises(ShapeError, match="at least 2 dimensions"):
        F.batch_norm(mt.randn(3), None, None, training=True)


def _reprs(lib):
    return [repr(lib.nn.BatchNorm2d(16)), repr(lib.nn.BatchNorm1d(4, eps=1e-3, momentum=None)),
            repr(lib.nn.BatchNorm2d(2, affine=False, track_running_stats=False)),
            repr(lib.nn.BatchNorm1d(3, bias=False))]


def test_repr():
    assert _reprs(mt)[0] == ("BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                             "track_running_stats=True)")


def test_reprs_equal_pytorch(torch_ref):
    assert _reprs(mt) == _reprs(torch_ref)


def test_summary_counts_the_affine_parameters():
    from minitorch_meta.tools.summary import summary

    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
    report = summary(model, input_size=(2, 1, 6, 6))
    row = next(r for r in report.rows if r["name"] == "1")
    assert row["parameters"] == 8 and row["output_shape"] == [2, 4, 4, 4]
    assert model[1].num_batches_tracked.item() == 0  # the meta run leaves the buffers alone


def test_small_conv_bn_relu_model_trains(device):
    mt.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                          nn.Flatten(), nn.Linear(4 * 6 * 6, 2)).to(device)
    rng = np.random.default_rng(0)
    x = mt.from_numpy(rng.standard_normal((16, 1, 6, 6)).astype(np.float32)).to(device)
    labels = mt.from_numpy((rng.random(16) < 0.5).astype(np.int64)).to(device)
    optimizer = mt.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(8):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] * 0.8, losses
    assert model[1].num_batches_tracked.item() == 8
    model.eval()
    assert tuple(model(x).shape) == (16, 2)


MIXED_DTYPE_CASES = {
    "float64 weight, training": lambda lib, x: lib.nn.functional.batch_norm(
        x, None, None, lib.ones(3, dtype=lib.float64), None, training=True),
    "float64 running stats, eval": lambda lib, x: lib.nn.functional.batch_norm(
        x, lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)),
    "float64 running stats, training": lambda lib, x: lib.nn.functional.batch_norm(
        x, lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64), training=True),
    "float16 weight": lambda lib, x: lib.nn.functional.batch_norm(
        x, None, None, lib.ones(3, dtype=lib.float16), training=True),
    "a float64 input in a float32 layer": lambda lib, x: lib.nn.BatchNorm1d(3)(x.double()),
}


@pytest.mark.parametrize("call", MIXED_DTYPE_CASES.values(), ids=MIXED_DTYPE_CASES)
def test_parameters_of_another_dtype_are_refused_as_pytorch(call, torch_ref):
    """PyTorch's CPU batch norm refuses per-channel tensors of another dtype than the
    input's ("mixed dtype"); they were promoted here, changing the output's dtype."""
    with pytest.raises(RuntimeError, match="mixed dtype"):
        call(torch_ref, torch_ref.randn(4, 3))
    with pytest.raises(RuntimeError, match="mixed dtype"):
        call(mt, mt.randn(4, 3))


@pytest.mark.parametrize("training", [True, False])
def test_float16_input_with_float32_parameters_answers_in_float16(training, torch_ref):
    values = np.random.default_rng(0).standard_normal((4, 3))
    results = {}
    for lib in (mt, torch_ref):
        x = lib.tensor(values, dtype=lib.float16, requires_grad=True)
        weight = lib.tensor([1.0, 2.0, 0.5], requires_grad=True)
        y = lib.nn.functional.batch_norm(x, lib.zeros(3), lib.ones(3), weight, lib.zeros(3),
                                         training=training)
        y.float().sum().backward()
        results[lib] = (str(y.dtype), y.detach().float().numpy(), x.grad.dtype,
                        weight.grad.numpy())
    ours, theirs = results[mt], results[torch_ref]
    assert ours[0] == theirs[0] == "torch.float16" and str(ours[2]) == str(theirs[2])
    np.testing.assert_allclose(ours[1], theirs[1], atol=2e-3)
    np.testing.assert_allclose(ours[3], theirs[3], atol=2e-2)

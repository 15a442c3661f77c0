"""``nn.SyncBatchNorm`` against PyTorch: outside a distributed run it is batch norm for
inputs of rank 2 and up (values, gradients, running statistics, errors, repr), and
``convert_sync_batchnorm`` swaps it in as PyTorch's does. Inside a distributed run the
statistics are summed over the ranks: checked with a stand-in reduction that plays a second
rank holding the same batch, against PyTorch's batch norm of the doubled batch."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.distributed import process_group
from minitorch_meta.nn import sync_batchnorm
from tests.devices import tensor_device

SHAPES = [(4, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 2, 2)]


def _pair(torch, shape, device, **options):
    ours = mt.nn.SyncBatchNorm(3, device=device, dtype=mt.float64, **options)
    theirs = torch.nn.SyncBatchNorm(3, dtype=torch.float64, **options)
    if ours.affine:
        values = np.linspace(0.5, 2.0, 3)
        with mt.no_grad():
            ours.weight.copy_(mt.tensor(values))
            ours.bias.copy_(mt.tensor(values[::-1].copy()))
        with torch.no_grad():
            theirs.weight.copy_(torch.tensor(values))
            theirs.bias.copy_(torch.tensor(values[::-1].copy()))
    data = np.random.default_rng(0).standard_normal(shape)
    return ours, theirs, data


def _close(ours, theirs):
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(),
                               rtol=1e-10, atol=1e-12)


def test_signature_and_repr_are_pytorchs(torch_ref):
    ours, theirs = (inspect.signature(m.nn.SyncBatchNorm.__init__).parameters
                    for m in (mt, torch_ref))
    assert [(p.name, p.default, p.kind) for p in ours.values()] == \
        [(p.name, p.default, p.kind) for p in theirs.values()]
    for options in ({}, {"affine": False, "momentum": None}, {"track_running_stats": False}):
        assert repr(mt.nn.SyncBatchNorm(5, **options)) == \
            repr(torch_ref.nn.SyncBatchNorm(5, **options))
    assert mt.nn.SyncBatchNorm(3).process_group is None
    assert mt.nn.SyncBatchNorm.__mro__[1].__name__ == "_BatchNorm"  # (test_class_hierarchy)


@pytest.mark.parametrize("options", [{}, {"momentum": None}, {"affine": False},
                                     {"track_running_stats": False}], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_training_without_a_distributed_run_is_batch_norm(shape, options, device, torch_ref):
    ours, theirs, data = _pair(torch_ref, shape, device, **options)
    for _ in range(2):  # twice: the running statistics (and the cumulative average) move
        x, y = (mt.tensor(data, device=device, requires_grad=True),
                torch_ref.tensor(data, requires_grad=True))
        out, expected = ours(x), theirs(y)
        _close(out, expected)
        assert out.device == tensor_device(device)
        weights = mt.tensor(np.arange(out.numel(), dtype=np.float64).reshape(shape),
                            device=device)
        (out * weights).sum().backward()
        (expected * torch_ref.tensor(weights.cpu().numpy())).sum().backward()
        _close(x.grad, y.grad)
        if ours.affine:
            _close(ours.weight.grad, theirs.weight.grad)
            _close(ours.bias.grad, theirs.bias.grad)
    if ours.track_running_stats:
        _close(ours.running_mean, theirs.running_mean)
        _close(ours.running_var, theirs.running_var)
        assert ours.num_batches_tracked.item() == theirs.num_batches_tracked.item() == 2


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_eval_mode_uses_the_running_statistics(shape, device, torch_ref):
    ours, theirs, data = _pair(torch_ref, shape, device)
    with mt.no_grad():
        ours.running_mean.fill_(0.5)
        ours.running_var.fill_(2.0)
    with torch_ref.no_grad():
        theirs.running_mean.fill_(0.5)
        theirs.running_var.fill_(2.0)
    ours.eval()
    theirs.eval()
    _close(ours(mt.tensor(data, device=device)), theirs(torch_ref.tensor(data)))


def test_meta_shapes(torch_ref):
    out = mt.nn.SyncBatchNorm(3, device="meta")(mt.ones(4, 3, 5, device="meta"))
    assert out.shape == (4, 3, 5) and out.is_meta


@pytest.mark.parametrize(("make", "message"), [
    (lambda m: m.ones(3), "expected at least 2D input (got 1D input)"),
    (lambda m: m.ones(()), "expected at least 2D input (got 0D input)"),
    (lambda m: m.ones(4, 0), "SyncBatchNorm number of input channels should be non-zero"),
])
@pytest.mark.parametrize("training", [True, False])
def test_input_errors_are_pytorchs(make, message, training, torch_ref):
    for module in (mt, torch_ref):
        layer = module.nn.SyncBatchNorm(3 if "2D" in message else 0).train(training)
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            layer(make(module))


# -- convert_sync_batchnorm -------------------------------------------------------------------
def _model(nn):
    return nn.Sequential(nn.Conv2d(1, 3, 1), nn.BatchNorm2d(3),
                         nn.Sequential(nn.BatchNorm1d(4, affine=False, momentum=None)),
                         nn.InstanceNorm2d(3), nn.BatchNorm3d(2, track_running_stats=False,
                                                              bias=False))


def test_convert_sync_batchnorm_replaces_every_batch_norm_as_pytorch(torch_ref):
    ours, theirs = _model(mt.nn), _model(torch_ref.nn)
    ours[1].eval()
    theirs[1].eval()
    old = ours[1]
    converted = mt.nn.SyncBatchNorm.convert_sync_batchnorm(ours, process_group="group")
    assert converted is ours
    assert repr(converted) == repr(torch_ref.nn.SyncBatchNorm.convert_sync_batchnorm(theirs))
    new = converted[1]
    assert type(new) is mt.nn.SyncBatchNorm and new.process_group == "group"
    assert new.weight is old.weight and new.bias is old.bias
    assert new.running_mean is old.running_mean and new.running_var is old.running_var
    assert new.num_batches_tracked is old.num_batches_tracked and not new.training
    assert converted[2][0].momentum is None and converted[2][0].weight is None
    assert converted[4].running_mean is None and converted[4].bias is None
    assert type(converted[3]) is mt.nn.InstanceNorm2d
    assert list(converted.state_dict()) == list(_model(mt.nn).state_dict())


def test_converting_a_batch_norm_gives_a_new_layer_with_its_qconfig():
    layer = mt.nn.BatchNorm1d(3)
    layer.qconfig = "q"
    converted = mt.nn.SyncBatchNorm.convert_sync_batchnorm(layer)
    assert type(converted) is mt.nn.SyncBatchNorm and converted is not layer
    assert converted.qconfig == "q" and converted.weight is layer.weight


# -- inside a distributed run -------------------------------------------------------------------
class _World:
    """A stand-in process group of ``size`` ranks (no MPI)."""

    def __init__(self, size):
        self.size, self.rank, self.local_rank = size, 0, 0


@pytest.fixture
def world(monkeypatch):
    def make(size):
        group = _World(size)
        monkeypatch.setattr(process_group, "_group", group)
        # every other rank holds the same batch: each sum over the ranks is size times ours
        monkeypatch.setattr(sync_batchnorm, "_all_reduce", lambda t: t * size)
        return group
    return make


@pytest.mark.parametrize("size", [1, 2])
def test_training_on_the_cpu_in_a_distributed_run_is_pytorchs_error(size, world):
    world(size)
    layer = mt.nn.SyncBatchNorm(3)
    with pytest.raises(ValueError, match="^SyncBatchNorm expected input tensor to be on GPU, "
                                         "got one on 'cpu'.*model.eval()"):
        layer(mt.ones(4, 3))
    assert layer.eval()(mt.ones(4, 3)).shape == (4, 3)  # eval mode never synchronises


def test_another_process_group_than_the_world_is_refused(world, monkeypatch):
    world(2)
    monkeypatch.setattr(mt.Tensor, "device", property(lambda self: mt.device("cuda", 0)))
    with pytest.raises(NotImplementedError, match="process_group must be the whole world"):
        mt.nn.SyncBatchNorm(3, process_group="subgroup")(mt.ones(4, 3))


@pytest.mark.parametrize("options", [{}, {"affine": False}, {"momentum": None},
                                     {"track_running_stats": False}], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_the_global_statistics_span_every_rank(shape, options, world, torch_ref, monkeypatch):
    """Two ranks with the same batch normalise as one batch of twice its size; the input's
    gradient is the gradient of this rank's half, the parameters' this rank's share."""
    world(2)
    ours, theirs, data = _pair(torch_ref, shape, "cpu", **options)
    theirs = theirs.to(torch_ref.float64)
    x = mt.tensor(data, requires_grad=True)
    factor = 0.0 if ours.momentum is None else ours.momentum
    if ours.track_running_stats and ours.momentum is None:
        factor = 1.0
    running = (ours.running_mean, ours.running_var) if ours.track_running_stats else (None, None)
    out = sync_batchnorm._SyncBatchNormFunction.apply(x, ours.weight, ours.bias, *running,
                                                      ours.eps, factor)
    halves = [torch_ref.tensor(data, requires_grad=True) for _ in range(2)]
    expected = theirs(torch_ref.cat(halves))
    _close(out, expected[:shape[0]])
    weights = np.arange(out.numel(), dtype=np.float64).reshape(shape)
    (out * mt.tensor(weights)).sum().backward()
    # the other rank back-propagates the same weights through its half
    (expected * torch_ref.tensor(np.concatenate([weights] * 2))).sum().backward()
    _close(x.grad, halves[0].grad)
    if ours.affine:  # this rank's share: half of the global batch's
        _close(ours.weight.grad * 2, theirs.weight.grad)
        _close(ours.bias.grad * 2, theirs.bias.grad)
    if ours.track_running_stats:
        _close(ours.running_mean, theirs.running_mean)
        _close(ours.running_var, theirs.running_var)


def test_a_single_value_per_channel_in_the_global_batch_is_refused(world):
    world(1)
    layer = mt.nn.SyncBatchNorm(3)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        sync_batchnorm._SyncBatchNormFunction.apply(mt.ones(1, 3), layer.weight, layer.bias,
                                                    None, None, 1e-5, 0.1)

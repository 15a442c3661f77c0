"""torch.optim.swa_utils against PyTorch: AveragedModel's averages (SWA, EMA, per tensor and
per list, with and without buffers), its state dict and forward, update_bn's statistics,
SWALR's rates step by step, its state dict, and the errors."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.optim.scheduler_harness import assert_same, make_optimizer, trace

torch = pytest.importorskip("torch", reason="PyTorch is the reference for swa_utils")

S = mt.optim.swa_utils


# -- helpers -----------------------------------------------------------------------------
def _net(lib, dtype, device="cpu"):
    """Linear -> BatchNorm1d -> Linear, on ``device``, in ``dtype``."""
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(),
                         nn.Linear(4, 2)).to(device=device, dtype=dtype)


def _pair(dtype, device="cpu"):
    """The same network in minitorch_meta (on ``device``) and in PyTorch (cpu)."""
    ours, theirs = _net(mt, getattr(mt, dtype), device), _net(torch, getattr(torch, dtype))
    with torch.no_grad():
        for name, value in theirs.state_dict().items():
            ours.state_dict()[name].copy_(mt.tensor(value.numpy(), device=device))
    return ours, theirs


def _step_both(ours, theirs, step: int, device) -> None:
    """Change the weights and batch-norm statistics of both networks the same way."""
    rng = np.random.default_rng(step)
    x = rng.standard_normal((5, 3))
    ours(mt.tensor(x, dtype=ours[0].weight.dtype, device=device))
    theirs(torch.tensor(x, dtype=theirs[0].weight.dtype))
    for (_, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        delta = rng.standard_normal(tuple(b.shape))
        with torch.no_grad():
            b.add_(torch.tensor(delta, dtype=b.dtype))
        with mt.no_grad():
            a.add_(mt.tensor(delta, dtype=a.dtype, device=device))


def _assert_same_state(ours, theirs, exact: bool) -> None:
    mine, ref = ours.state_dict(), theirs.state_dict()
    assert list(mine) == list(ref)
    for key, value in ref.items():
        got = mine[key].cpu().numpy()
        assert got.dtype == value.numpy().dtype, key
        # float64 on the CPU: PyTorch's formulas (batch norm's statistics differ in the
        # last bit, from the layer, not the averaging)
        rtol, atol = (1e-13, 1e-15) if exact else (1e-5, 1e-6)
        np.testing.assert_allclose(got, value.numpy(), rtol=rtol, atol=atol, err_msg=key)


AVERAGERS = {
    "default": lambda s: {},
    "swa_avg_fn": lambda s: {"avg_fn": s.get_swa_avg_fn()},
    "ema_avg_fn": lambda s: {"avg_fn": s.get_ema_avg_fn(0.9)},
    "swa_multi": lambda s: {"multi_avg_fn": s.get_swa_multi_avg_fn()},
    "ema_multi": lambda s: {"multi_avg_fn": s.get_ema_multi_avg_fn(0.7)},
    "ema_multi_default": lambda s: {"multi_avg_fn": s.get_ema_multi_avg_fn()},
}


# -- AveragedModel -------------------------------------------------------------------------
@pytest.mark.parametrize("averager", sorted(AVERAGERS))
@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_averages_like_torch(device, averager, use_buffers, dtype):
    if averager == "swa_multi" and use_buffers:
        pytest.skip("PyTorch refuses the integer buffer there (tested below)")
    ours, theirs = _pair(dtype, device)
    avg_ours = S.AveragedModel(ours, use_buffers=use_buffers, **AVERAGERS[averager](S))
    if averager == "default" and use_buffers and device != "cpu":
        # Off the CPU, PyTorch averages every (device, dtype) group with the list rule, the
        # int64 buffer's too, which its addcdiv refuses (PyTorch's own CUDA path does so).
        avg_ours.update_parameters(ours)  # the first update copies
        with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
            avg_ours.update_parameters(ours)
        return
    avg_theirs = torch.optim.swa_utils.AveragedModel(theirs, use_buffers=use_buffers,
                                                     **AVERAGERS[averager](
                                                         torch.optim.swa_utils))
    for step in range(5):
        _step_both(ours, theirs, step, device)
        avg_ours.update_parameters(ours)
        avg_theirs.update_parameters(theirs)
        # CPU float64 follows PyTorch's formulas exactly; float32 and CUDA to rounding
        _assert_same_state(avg_ours, avg_theirs, exact=dtype == "float64" and device == "cpu")
    assert avg_ours.n_averaged.item() == 5 and avg_ours.n_averaged.dtype == mt.int64


def test_first_update_copies_and_model_is_a_copy(device):
    model = mt.nn.Linear(2, 2).to(device)
    averaged = S.AveragedModel(model)
    assert averaged.module is not model
    assert averaged.module.weight is not model.weight
    with mt.no_grad():
        model.weight.fill_(3.0)
    assert not (averaged.module.weight == 3.0).all().item()
    averaged.update_parameters(model)
    assert (averaged.module.weight == 3.0).all().item()
    with mt.no_grad():
        model.weight.fill_(5.0)
    averaged.update_parameters(model)
    assert (averaged.module.weight == 4.0).all().item()


def test_buffers_copied_without_use_buffers(device):
    ours, _ = _pair("float64", device)
    averaged = S.AveragedModel(ours)
    for _ in range(3):
        ours(mt.randn(4, 3, dtype=mt.float64, device=device))
        averaged.update_parameters(ours)
    for (name, mine), (_, theirs) in zip(averaged.module.named_buffers(), ours.named_buffers()):
        assert mt.equal(mine, theirs), name


def test_custom_avg_fn_receives_the_count(device):
    seen = []

    def remember(averaged, current, count):
        seen.append((count.item(), count.dtype))
        return current

    model = mt.nn.Linear(2, 1).to(device)
    averaged = S.AveragedModel(model, avg_fn=remember)
    for _ in range(3):
        averaged.update_parameters(model)
    assert seen == [(1, mt.int64)] * 2 + [(2, mt.int64)] * 2


def test_multi_avg_fn_gets_lists(device):
    seen = []
    model = mt.nn.Linear(2, 1).to(device)
    averaged = S.AveragedModel(model, multi_avg_fn=lambda a, c, n: seen.append((len(a),
                                                                              len(c), n.item())))
    averaged.update_parameters(model)
    averaged.update_parameters(model)
    assert seen == [(2, 2, 1)]


def test_forward_delegates_and_records(device):
    model = mt.nn.Linear(3, 2).to(device)
    averaged = S.AveragedModel(model)
    x = mt.randn(4, 3, device=device)
    out = averaged(x)
    assert mt.equal(out, model(x))
    assert out.grad_fn is not None
    assert [name for name, _ in averaged.named_parameters()] == ["module.weight", "module.bias"]
    assert [name for name, _ in averaged.named_buffers()] == ["n_averaged"]


def test_repr_and_state_dict_like_torch():
    ours, theirs = _pair("float32")
    mine = S.AveragedModel(ours)
    ref = torch.optim.swa_utils.AveragedModel(theirs)
    assert repr(mine) == repr(ref)
    assert list(mine.state_dict()) == list(ref.state_dict())
    restored = S.AveragedModel(ours)
    mine.update_parameters(ours)
    restored.load_state_dict(mine.state_dict())
    assert restored.n_averaged.item() == 1


def test_device_argument_moves_the_copy():
    model = mt.nn.Linear(2, 2)
    averaged = S.AveragedModel(model, device="meta")
    assert averaged.module.weight.is_meta and averaged.n_averaged.is_meta
    assert model.weight.device.type == "cpu"


def test_integer_buffers_refused_by_swa_multi_like_torch():
    ours, theirs = _pair("float32")
    for lib, net in ((torch, theirs), (mt, ours)):
        s = lib.optim.swa_utils
        averaged = s.AveragedModel(net, multi_avg_fn=s.get_swa_multi_avg_fn(),
                                   use_buffers=True)
        averaged.update_parameters(net)
        with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
            averaged.update_parameters(net)


@pytest.mark.parametrize("count", [0, 2])
def test_swa_multi_with_int_count_refuses_integers_like_torch(count):
    for lib in (torch, mt):
        averaged, current = [lib.tensor([1, 10])], [lib.tensor([4, 20])]
        with pytest.raises(RuntimeError):
            lib.optim.swa_utils.get_swa_multi_avg_fn()(averaged, current, count)


def test_both_averaging_functions_refused():
    model = mt.nn.Linear(2, 2)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        S.AveragedModel(model, avg_fn=S.get_swa_avg_fn(),
                        multi_avg_fn=S.get_swa_multi_avg_fn())


@pytest.mark.parametrize("getter", ["get_ema_avg_fn", "get_ema_multi_avg_fn"])
@pytest.mark.parametrize("decay", [-0.1, 1.5])
def test_bad_decay_like_torch(getter, decay):
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim.swa_utils, getter)(decay)
    with pytest.raises(ValueError) as ours:
        getattr(S, getter)(decay)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("getter", ["get_ema_avg_fn", "get_swa_avg_fn"])
def test_single_tensor_rules_like_torch(getter):
    args = (0.8,) if getter == "get_ema_avg_fn" else ()
    a, c = [0.5, -2.0, 3.25], [1.5, 4.0, -1.0]
    ref = getattr(torch.optim.swa_utils, getter)(*args)(
        torch.tensor(a, dtype=torch.float64), torch.tensor(c, dtype=torch.float64),
        torch.tensor(3))
    mine = getattr(S, getter)(*args)(mt.tensor(a, dtype=mt.float64),
                                     mt.tensor(c, dtype=mt.float64), mt.tensor(3))
    assert mine.tolist() == ref.tolist()


def test_averaging_records_no_graph(device):
    model = mt.nn.Linear(2, 2).to(device)
    averaged = S.AveragedModel(model)
    averaged.update_parameters(model)
    averaged.update_parameters(model)
    assert averaged.module.weight.grad_fn is None
    assert averaged.module.weight.requires_grad


def test_module_exports():
    assert sorted(S.__all__) == sorted(torch.optim.swa_utils.__all__)
    assert mt.optim.swa_utils is S


# -- update_bn -------------------------------------------------------------------------------
def _loader(lib, batches, labelled, dtype, **where):
    data = [lib.tensor(b, dtype=dtype, **where) for b in batches]
    if labelled:
        return [(x, lib.zeros(len(x))) for x in data]
    return data


@pytest.mark.parametrize("labelled", [False, True])
def test_update_bn_like_torch(device, labelled):
    ours, theirs = _pair("float64", device)
    for net in (ours, theirs):
        net[1].momentum = 0.3
        net.eval()
    rng = np.random.default_rng(7)
    batches = [rng.standard_normal((n, 3)) * 2 + 1 for n in (4, 7, 5)]
    S.update_bn(_loader(mt, batches, labelled, mt.float64, device=device), ours)
    torch.optim.swa_utils.update_bn(_loader(torch, batches, labelled, torch.float64), theirs)
    _assert_same_state(ours, theirs, exact=device == "cpu")
    assert ours[1].momentum == 0.3 and not ours.training
    assert ours[1].num_batches_tracked.item() == 3


def test_update_bn_device_argument_and_training_mode():
    ours, theirs = _pair("float32")
    batches = [np.ones((3, 3)), np.zeros((3, 3))]
    S.update_bn([mt.tensor(b, dtype=mt.float32, device="meta") for b in batches],
                ours.to("meta"), device="meta")
    assert ours.training and ours[1].momentum == 0.1


def test_update_bn_without_batch_norm_reads_nothing():
    class Untouchable:
        def __iter__(self):
            raise AssertionError("the loader must not be read")

    model = mt.nn.Linear(2, 2)
    model.eval()
    S.update_bn(Untouchable(), model)
    assert not model.training


def test_update_bn_resets_the_statistics():
    model = mt.nn.BatchNorm1d(2)
    model(mt.randn(5, 2))  # one batch counted already
    with mt.no_grad():
        model.running_mean.fill_(100.0)
    S.update_bn([mt.tensor([[1.0, 2.0], [3.0, 4.0]])], model)
    assert model.running_mean.tolist() == [2.0, 3.0]
    assert model.running_var.tolist() == [2.0, 2.0]


# -- SWALR ---------------------------------------------------------------------------------
def _swalr(lib, groups, **kwargs):
    optimizer = make_optimizer(lib, groups)
    return lib.optim.swa_utils.SWALR(optimizer, **kwargs)


SWALR_CASES = [
    {"swa_lr": 0.05},
    {"swa_lr": 0.05, "anneal_epochs": 3},
    {"swa_lr": 0.05, "anneal_epochs": 1, "anneal_strategy": "linear"},
    {"swa_lr": 0.5, "anneal_epochs": 7, "anneal_strategy": "linear"},
    {"swa_lr": 0.01, "anneal_epochs": 0},
    {"swa_lr": 0.01, "anneal_epochs": 0, "anneal_strategy": "linear"},
]


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("kwargs", SWALR_CASES, ids=str)
def test_swalr_rates_like_torch(kwargs, groups):
    assert_same(trace(_swalr(mt, groups, **kwargs), 15),
                trace(_swalr(torch, groups, **kwargs), 15))


def test_swalr_per_group_rates_like_torch():
    kwargs = {"swa_lr": [0.3, 0.001], "anneal_epochs": 4}
    mine, ref = _swalr(mt, 2, **kwargs), _swalr(torch, 2, **kwargs)
    assert [g["swa_lr"] for g in mine.optimizer.param_groups] == [0.3, 0.001]
    assert_same(trace(mine, 8), trace(ref, 8))


def test_swalr_after_another_schedule_like_torch():
    """SWA's usual recipe: a cosine schedule first, then SWALR from where it left off."""
    def run(lib):
        optimizer = make_optimizer(lib, 2)
        cosine = lib.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
        for _ in range(4):
            optimizer.step()
            cosine.step()
        return trace(lib.optim.swa_utils.SWALR(optimizer, swa_lr=0.02, anneal_epochs=5), 9)
    assert_same(run(mt), run(torch))


def test_swalr_state_dict_like_torch():
    mine = _swalr(mt, 1, swa_lr=0.05, anneal_epochs=4, anneal_strategy="linear")
    ref = _swalr(torch, 1, swa_lr=0.05, anneal_epochs=4, anneal_strategy="linear")
    assert sorted(mine.state_dict()) == sorted(ref.state_dict())
    assert "anneal_func" not in mine.state_dict()
    mine.optimizer.step()
    mine.step()
    state = mine.state_dict()
    other = _swalr(mt, 1, swa_lr=0.05)
    other.load_state_dict(copy.deepcopy(state))
    assert other.anneal_func(0.5) == 0.5  # linear again
    assert other.last_epoch == 1 and other.anneal_epochs == 4


@pytest.mark.parametrize("kwargs", [
    {"swa_lr": 0.1, "anneal_strategy": "exp"},
    {"swa_lr": 0.1, "anneal_epochs": -1},
    {"swa_lr": 0.1, "anneal_epochs": 2.0},
    {"swa_lr": [0.1, 0.2, 0.3]},
], ids=str)
def test_swalr_errors_like_torch(kwargs):
    with pytest.raises(ValueError) as theirs:
        _swalr(torch, 2, **kwargs)
    with pytest.raises(ValueError) as ours:
        _swalr(mt, 2, **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_swalr_get_lr_outside_step_warns():
    scheduler = _swalr(mt, 1, swa_lr=0.05)
    with pytest.warns(UserWarning, match="get_last_lr"):
        scheduler.get_lr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert scheduler.get_last_lr() == [0.1]

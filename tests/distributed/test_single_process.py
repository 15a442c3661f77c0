"""World size 1 without mpirun: no MPI, no mpi4py, and every piece of the API works."""

from __future__ import annotations

import copy
import sys

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.distributed as dist
from minitorch_meta import nn, optim
from minitorch_meta.distributed.loaders import per_rank_batch_size
from minitorch_meta.nn import functional as F

from .mpi import python


def test_a_plain_process_is_world_size_1_without_importing_mpi4py():
    done = python("-c", "import sys, minitorch_meta.distributed as d; g = d.init(); "
                        "print(d.get_rank(), d.get_world_size(), d.is_initialized(), "
                        "'mpi4py' in sys.modules)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "1", "True", "False"]


def test_group_queries():
    assert not dist.is_initialized() and dist.is_main_process()
    group = dist.init()
    assert dist.init() is group  # once per process
    assert (dist.get_rank(), dist.get_world_size(), dist.get_local_rank()) == (0, 1, 0)
    assert dist.is_initialized() and dist.is_main_process() and dist.rank_prefix() == ""
    dist.barrier()


def test_collectives_leave_the_tensor_as_it_is():
    dist.init()
    t = mt.tensor([1.0, -2.0])
    for op in dist.ReduceOp:
        dist.all_reduce(t, op)
    dist.broadcast(t, src=0)
    assert t.tolist() == [1.0, -2.0]
    assert dist.all_reduce_values([2.5, 3]) == [2.5, 3.0]


def test_ddp_training_is_plain_training():
    dist.init()
    mt.manual_seed(0)
    plain = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.LazyLinear(2))
    plain(mt.zeros(1, 4))
    wrapped = dist.DistributedDataParallel(copy.deepcopy(plain))
    plain_opt = optim.SGD(plain.parameters(), lr=0.1, momentum=0.9)
    wrapped_opt = dist.DistributedOptimizer(
        optim.SGD(wrapped.parameters(), lr=0.1, momentum=0.9), wrapped)
    x, y = mt.randn(8, 4), mt.tensor([0, 1] * 4)
    for model, opt in ((plain, plain_opt), (wrapped, wrapped_opt)):
        for _ in range(3):
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
    assert list(wrapped.state_dict()) == ["module." + k for k in plain.state_dict()]
    for a, b in zip(plain.parameters(), wrapped.module.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert wrapped_opt.param_groups[0]["lr"] == 0.1 and "state" in wrapped_opt.state_dict()


def test_distributed_optimizer_runs_a_closure_before_averaging():
    dist.init()
    model = dist.DistributedDataParallel(nn.Linear(2, 1))
    opt = dist.DistributedOptimizer(optim.SGD(model.parameters(), lr=0.1), model)
    x = mt.ones(3, 2)

    def closure():
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        return loss

    before = model.module.weight.detach().numpy().copy()
    loss = opt.step(closure)
    assert isinstance(loss, mt.Tensor)
    np.testing.assert_allclose(model.module.weight.detach().numpy(), before - 0.1 * 3)


def test_ddp_on_meta_checks_shapes_only():
    dist.init()
    model = dist.DistributedDataParallel(nn.Linear(3, 2, device="meta"))
    model(mt.empty(4, 3, device="meta")).sum().backward()
    model.reduce_gradients()
    assert tuple(model.module.weight.grad.shape) == (2, 3)


def test_trainer_checkpoints_hold_the_wrapped_models_state(tmp_path):
    from minitorch_meta.data import DataLoader, TensorDataset
    from minitorch_meta.training import Trainer
    from minitorch_meta.training.checkpoint import CheckpointFile

    dist.init()
    model = dist.DistributedDataParallel(nn.Linear(4, 3))
    optimizer = dist.DistributedOptimizer(optim.SGD(model.parameters(), lr=0.1), model)
    data = TensorDataset(mt.randn(8, 4), mt.tensor([0, 1, 2, 0, 1, 2, 0, 1]))
    checkpoint = CheckpointFile(str(tmp_path / "run.ckpt"))
    trainer = Trainer(model, optimizer, F.cross_entropy,
                      lambda generator: DataLoader(data, batch_size=4), seed=0,
                      checkpoint=checkpoint, distributed=True)
    history = trainer.fit(1)
    assert history[0]["samples_per_second"] > 0 and trainer.is_writer
    saved = checkpoint.load()
    assert sorted(saved["model"]) == ["bias", "weight"]
    nn.Linear(4, 3).load_state_dict(saved["model"])  # loads into the bare model


def test_errors_say_what_was_expected():
    with pytest.raises(RuntimeError, match=r"call minitorch_meta.distributed.init\(\)"):
        dist.get_rank()
    with pytest.raises(RuntimeError, match="has not been initialized"):
        dist.DistributedDataParallel(nn.Linear(2, 2))
    with pytest.raises(ValueError, match="backend must be None, 'mpi' or 'nccl', got 'gloo'"):
        dist.init("gloo")
    dist.init()
    with pytest.raises(ValueError, match="already initialised with backend 'single'"):
        dist.init("mpi")
    with pytest.raises(TypeError, match="wraps an nn.Module, got function"):
        dist.DistributedDataParallel(lambda x: x)
    with pytest.raises(TypeError, match="needs the DistributedDataParallel model .* got Linear"):
        dist.DistributedOptimizer(optim.SGD(nn.Linear(2, 2).parameters(), lr=1),
                                  nn.Linear(2, 2))
    with pytest.raises(TypeError, match="op must be a ReduceOp"):
        dist.all_reduce(mt.ones(2), "sum")
    with pytest.raises(TypeError, match="AVG needs a floating-point tensor, got torch.int64"):
        dist.all_reduce(mt.tensor([1, 2]), dist.ReduceOp.AVG)
    with pytest.raises(TypeError, match="expects a minitorch_meta Tensor .* got list"):
        dist.broadcast([1.0])
    with pytest.raises(ValueError, match="src must be a rank from 0 to 0 .* got 1"):
        dist.broadcast(mt.ones(1), src=1)
    with pytest.raises(ValueError, match="must be a multiple of 4; use e.g. 8"):
        per_rank_batch_size(10, 4)
    assert per_rank_batch_size(12, 4) == 3


def test_mpi_without_mpi4py_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # makes "import mpi4py" fail
    with pytest.raises(RuntimeError) as caught:
        dist.init("mpi")
    message = str(caught.value)
    assert "apt-get install openmpi-bin libopenmpi-dev" in message
    assert "pip install 'minitorch_meta[distributed]'" in message
    assert not dist.is_initialized()


def test_launcher_detection():
    assert not dist.launched_under_mpi({})
    assert dist.launched_under_mpi({"OMPI_COMM_WORLD_SIZE": "2"})
    assert dist.launched_under_mpi({"PMI_RANK": "0"})

"""``python -m minitorch_meta train --distributed``: end to end on 2 processes, the same run
on 1, and only rank 0 printing and writing files."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.distributed as dist
from minitorch_meta.cli.main import main
from minitorch_meta.data import write_idx
from minitorch_meta.distributed import process_group
from minitorch_meta.models import MLP

from .mpi import mpirun, requires_mpi

TRAIN, TEST = 64, 20  # both even: the 2 ranks' shares need no padding


@pytest.fixture
def dataset(tmp_path):
    folder = tmp_path / "idx"
    folder.mkdir()
    rng = np.random.default_rng(0)
    for split, count in (("train", TRAIN), ("t10k", TEST)):
        write_idx(folder / f"{split}-images-idx3-ubyte",
                  rng.integers(0, 256, (count, 28, 28), dtype=np.uint8))
        write_idx(folder / f"{split}-labels-idx1-ubyte",
                  rng.integers(0, 10, count, dtype=np.uint8))
    return folder


def train_args(dataset, out, *extra):
    return ["train", "--dataset", str(dataset), "--model", "mlp", "--epochs", "2",
            "--batch-size", "16", "--no-progress", "--checkpoint", str(out / "run.ckpt"),
            "--metrics", str(out / "metrics.json"), *extra]


def history(out):
    return json.loads((out / "metrics.json").read_text())["history"]


@requires_mpi
@pytest.mark.slow
def test_two_processes_train_like_one_and_only_rank_0_writes(dataset, tmp_path):
    two = tmp_path / "two"
    done = mpirun(2, "-m", "minitorch_meta", *train_args(dataset, two, "--distributed",
                                                          "--plot", str(two / "curves.png")),
                  tag_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    # --tag-output prefixes each line with [job,rank]<stream>:
    printed = [re.match(r"\[\d+,(\d+)\]<(\w+)>:(.*)", line).groups()
               for line in (done.stdout + done.stderr).splitlines() if line.startswith("[")]
    epochs = [(rank, text) for rank, _, text in printed if text.startswith("epoch ")]
    assert [rank for rank, _ in epochs] == ["0", "0"], done.stdout
    written = [rank for rank, _, text in printed if " written to " in text]
    assert written == ["0", "0"], done.stderr  # the metrics and the plot, by rank 0 only
    assert (two / "curves.png").stat().st_size > 0

    saved = mt.load(str(two / "run.ckpt"))
    assert saved["epoch"] == 2 and not any(k.startswith("module.") for k in saved["model"])
    MLP().load_state_dict(saved["model"])

    one = tmp_path / "one"
    assert main(train_args(dataset, one)) == 0  # the same run on a single process
    for a, b in zip(history(one), history(two)):
        np.testing.assert_allclose(b["train_loss"], a["train_loss"], rtol=1e-5)
        np.testing.assert_allclose(b["test_loss"], a["test_loss"], rtol=1e-5)
        assert (b["train_accuracy"], b["test_accuracy"]) == (a["train_accuracy"],
                                                             a["test_accuracy"])
    one_weights, two_weights = mt.load(str(one / "run.ckpt")), saved
    for name, value in one_weights["model"].items():
        np.testing.assert_allclose(two_weights["model"][name].numpy(), value.numpy(),
                                   rtol=1e-5, atol=1e-6)


def test_distributed_without_mpirun_is_the_single_process_run(dataset, tmp_path, capsys):
    assert main(train_args(dataset, tmp_path / "plain")) == 0
    assert main(train_args(dataset, tmp_path / "dist", "--distributed")) == 0
    assert dist.get_world_size() == 1
    for a, b in zip(history(tmp_path / "plain"), history(tmp_path / "dist")):
        assert a["train_loss"] == b["train_loss"] and a["test_loss"] == b["test_loss"]


class _LoopbackComm:
    """Stands for a world of ``size`` ranks that all hold this rank's values."""

    def __init__(self, size):
        self.size = size

    def Allreduce(self, _in_place, buffer, op):  # noqa: N802 - mpi4py's name
        if op == "sum":
            buffer *= self.size

    def Bcast(self, buffer, root):  # noqa: N802
        pass

    def Barrier(self):  # noqa: N802
        pass


def test_rank_1_prints_and_writes_nothing(dataset, tmp_path, capsys, monkeypatch):
    mpi = SimpleNamespace(IN_PLACE=object(), SUM="sum", PROD="prod", MIN="min", MAX="max")
    rank_1 = SimpleNamespace(rank=1, size=2, local_rank=1, backend="mpi", MPI=mpi,
                             comm=_LoopbackComm(2), nccl=None, nccl_decision=None)
    monkeypatch.setattr(process_group, "_group", rank_1)
    out = tmp_path / "out"
    assert main(train_args(dataset, out, "--distributed", "--plot", str(out / "c.png"))) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "written" not in captured.err
    assert not any(p.is_file() for p in out.rglob("*")), list(out.rglob("*"))


def test_meta_and_distributed_do_not_mix(dataset, tmp_path, capsys):
    assert main(train_args(dataset, tmp_path, "--distributed", "--device", "meta")) == 2
    assert "--device meta is a dry run on one process: drop --distributed" in \
        capsys.readouterr().err

"""The training loop: learning, checkpoints, and exact resume after an interruption."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import optim
from minitorch_meta.models import LectureNet
from minitorch_meta.nn import functional as F
from minitorch_meta.training import Trainer
from minitorch_meta.training.checkpoint import CheckpointFile
from minitorch_meta.training.data import make_loaders


def _args(dataset, **overrides):
    values = {"dataset": str(dataset), "data_root": str(dataset), "limit": None,
              "batch_size": 16, "loss": "cross-entropy"}
    values.update(overrides)
    return argparse.Namespace(**values)


def _trainer(dataset, checkpoint=None, seed=3, loss="cross-entropy"):
    mt.manual_seed(seed)
    model = LectureNet()
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    make_train, test_loader = make_loaders(_args(dataset, loss=loss), "cpu")
    loss_fn = F.mse_loss if loss == "mse" else F.cross_entropy
    return Trainer(model, optimizer, loss_fn, make_train, test_loader, seed=seed,
                   checkpoint=checkpoint)


def _weights(model):
    return {name: p.detach().numpy().copy() for name, p in model.named_parameters()}


def test_training_lowers_the_loss_and_reports_every_epoch(idx_dataset):
    trainer = _trainer(idx_dataset)
    history = trainer.fit(3)
    assert [h["epoch"] for h in history] == [1, 2, 3]
    assert history[-1]["train_loss"] < history[0]["train_loss"]
    assert 0.0 <= history[-1]["test_accuracy"] <= 1.0


def test_mse_with_signed_one_hot_targets_trains(idx_dataset):
    history = _trainer(idx_dataset, loss="mse").fit(2)
    assert history[-1]["train_loss"] < history[0]["train_loss"]


def test_interrupted_then_resumed_run_equals_an_uninterrupted_one(idx_dataset, tmp_path):
    reference = _trainer(idx_dataset)
    reference.fit(3)

    path = tmp_path / "run.ckpt"
    interrupted = _trainer(idx_dataset, checkpoint=CheckpointFile(str(path)))
    real_step, calls = interrupted.train_step, []

    def step_then_interrupt(x, y):  # Ctrl-C in the middle of the second epoch
        calls.append(1)
        if len(calls) == 9:
            raise KeyboardInterrupt
        return real_step(x, y)

    interrupted.train_step = step_then_interrupt
    with pytest.raises(KeyboardInterrupt):
        interrupted.fit(3)
    saved = CheckpointFile(str(path)).load()
    assert (saved["epoch"], saved["batches_done"]) == (1, 2)  # 6 batches an epoch

    resumed = _trainer(idx_dataset, checkpoint=CheckpointFile(str(path)), seed=99)
    resumed.load_state_dict(CheckpointFile(str(path)).load())
    history = resumed.fit(3)
    assert len(history) == 3
    expected = _weights(reference.model)
    for name, value in _weights(resumed.model).items():
        np.testing.assert_array_equal(value, expected[name], err_msg=name)


def test_checkpoint_is_written_after_every_epoch(idx_dataset, tmp_path):
    path = tmp_path / "every.ckpt"
    trainer = _trainer(idx_dataset, checkpoint=CheckpointFile(str(path)))
    trainer.fit(1)
    assert CheckpointFile(str(path)).load()["epoch"] == 1
    trainer.fit(2)
    state = CheckpointFile(str(path)).load()
    assert state["epoch"] == 2 and len(state["history"]) == 2


def test_missing_checkpoint_says_how_to_start(tmp_path):
    with pytest.raises(FileNotFoundError, match="run without --resume first"):
        CheckpointFile(str(tmp_path / "none.ckpt")).load()


def test_limit_must_be_positive(idx_dataset):
    with pytest.raises(ValueError, match="--limit must be positive"):
        make_loaders(_args(idx_dataset, limit=0), "cpu")


def test_unknown_dataset_is_refused(tmp_path):
    with pytest.raises(ValueError, match="neither fashion-mnist, mnist, nor a folder"):
        make_loaders(_args(tmp_path / "nowhere"), "cpu")


def test_a_resumed_epoch_does_not_build_the_batches_it_skips(idx_dataset, monkeypatch):
    from minitorch_meta.data.fetcher import MapFetcher

    trainer = _trainer(idx_dataset)
    built = []
    real_fetch = MapFetcher.__call__
    monkeypatch.setattr(MapFetcher, "__call__",
                        lambda self, indices: built.append(len(indices)) or real_fetch(self,
                                                                                       indices))
    trainer.state.batches_done = 4  # of 6 batches an epoch
    trained = []
    real_step = trainer.train_step
    trainer.train_step = lambda x, y: trained.append(x.shape[0]) or real_step(x, y)
    trainer.run_epoch(0)
    assert len(trained) == 2
    assert len(built) == 2 + len(trainer.test_loader)  # the two batches left, then evaluation


def test_a_plain_iterable_loader_is_read_past_the_done_batches(idx_dataset):
    trainer = _trainer(idx_dataset)
    make_loader = trainer.make_loader
    trainer.make_loader = lambda generator: list(make_loader(generator))  # no iter_from
    trainer.state.batches_done = 5
    trained = []
    real_step = trainer.train_step
    trainer.train_step = lambda x, y: trained.append(x.shape[0]) or real_step(x, y)
    trainer.run_epoch(0)
    assert len(trained) == 1

"""Warnings about a user's call name the user's line, however many of the library's frames
(modules, the ``no_grad`` wrapper, an op's dispatch, a method forwarding to a function) sit
between it and the warning: each is raised through ``caller_warnings.warn_at_caller``."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from minitorch_meta import nn


def _empty_generator():
    yield from ()


def _scheduler_stepped_with_an_epoch():
    optimizer = mt.optim.SGD([nn.Parameter(mt.zeros(1))], lr=0.1)
    scheduler = mt.optim.lr_scheduler.StepLR(optimizer, step_size=1)
    optimizer.step()
    scheduler.step(1)


CALLS = {
    # an op's shape rule, reached through a Module's __call__ and forward
    "mse_loss_module": (lambda: nn.MSELoss()(mt.zeros(3, 1), mt.zeros(3)),
                        "using a target size"),
    "mse_loss_function": (lambda: F.mse_loss(mt.zeros(3, 1), mt.zeros(3)),
                          "using a target size"),
    "upsample": (lambda: F.upsample(mt.zeros(1, 1, 2, 2), scale_factor=2), "is deprecated"),
    "init_of_an_empty_tensor": (lambda: nn.init.kaiming_uniform_(mt.empty(0, 3)),
                                "zero-element tensors is a no-op"),
    "clip_grad_norm_of_no_parameters": (
        lambda: nn.utils.clip_grad_norm_(_empty_generator(), 1.0), "empty generator"),
    "dropout2d_of_a_3d_input": (lambda: F.dropout2d(mt.ones(2, 3, 4)), "Received a 3D input"),
    "new_tensor_of_a_tensor": (lambda: mt.zeros(2).new_tensor(mt.ones(2)),
                               "To copy construct from a tensor"),
    "scheduler_step_with_an_epoch": (_scheduler_stepped_with_an_epoch,
                                     "epoch parameter in `scheduler.step"),
    "expanded_masked_fill_": (lambda: mt.zeros(4).expand(2, 4).masked_fill_(
        mt.ones(4, dtype=mt.bool), 1.0), "Use of masked_fill_ on expanded tensors"),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_the_warning_names_the_callers_file(name):
    call, words = CALLS[name]
    with pytest.warns(UserWarning) as record:
        call()
    matching = [w for w in record if words in str(w.message)]
    assert matching, [str(w.message) for w in record]
    assert all(w.filename == __file__ for w in matching), [w.filename for w in matching]


def test_a_wrapper_of_the_users_own_is_named_not_the_librarys():
    def my_loss(x, t):
        return F.mse_loss(x, t)  # the line the warning names

    with pytest.warns(UserWarning, match="using a target size") as record:
        my_loss(mt.zeros(3, 1), mt.zeros(3))
    assert record[0].filename == __file__
    assert record[0].lineno == my_loss.__code__.co_firstlineno + 1

"""Regressions found by fuzzing ``torch.nn.functional`` and the ``torch.nn`` layers against
PyTorch: one test per bug, compared with the ``torch_ref`` fixture."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt


def _pair(torch_ref, data, device, requires_grad=False):
    """The same float64 data as a PyTorch tensor and one of ours on ``device``."""
    t = torch_ref.tensor(data, requires_grad=requires_grad)
    m = mt.tensor(data, device=device, requires_grad=requires_grad)
    return t, m


def _raised(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type and message are what we compare
        return error
    return None


@pytest.mark.parametrize("which", ["mean", "var"])
@pytest.mark.parametrize("norm", ["batch_norm", "instance_norm"])
def test_training_norm_with_only_one_running_statistic(torch_ref, device, which, norm):
    """Training with only one of ``running_mean``/``running_var`` raises PyTorch's
    ValueError (it normalised and updated the one given)."""
    data = np.random.default_rng(0).standard_normal((2, 3, 4))
    tx, mx = _pair(torch_ref, data, device)

    def call(framework, x):
        stat = framework.zeros(3, dtype=framework.float64, **({} if framework is torch_ref
                                                                else {"device": device}))
        mean, var = (stat, None) if which == "mean" else (None, stat)
        if norm == "batch_norm":
            return framework.nn.functional.batch_norm(x, mean, var, training=True)
        return framework.nn.functional.instance_norm(x, mean, var, use_input_stats=True)

    expected, got = _raised(lambda: call(torch_ref, tx)), _raised(lambda: call(mt, mx))
    assert type(expected) is ValueError and type(got) is ValueError
    assert str(got).startswith(str(expected))

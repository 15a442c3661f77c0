"""Anomaly mode: NaN checks and forward stacks for backward errors, against PyTorch."""

from __future__ import annotations

import threading
import warnings

import pytest
import torch

import minitorch_meta as mt
from minitorch_meta.ops.function import _observers

ENABLED = "^Anomaly Detection has been enabled. This mode will increase the runtime"


def _nan_function(fw):
    class NanB(fw.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g, g * float("nan")

    return NanB


def _failing_function(fw):
    class Failing(fw.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom in backward")

    return Failing


def _run(fw, device, body):
    """``body(x, y)`` inside detect_anomaly; returns (error message, warnings' messages)."""
    kwargs = {"device": device} if fw is mt else {}
    x = fw.tensor([1.0, -2.0, 3.0], requires_grad=True, **kwargs)
    y = fw.tensor([0.5, 0.25, -1.0], requires_grad=True, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with fw.autograd.detect_anomaly():
            with pytest.raises(Exception) as error:
                body(fw, x, y)
    return error, [str(w.message) for w in caught if w.category is UserWarning]


def test_nan_in_backward_raises_as_torch(device):
    def custom(fw, x, y):
        _nan_function(fw).apply(x, y).sum().backward()

    def sqrt(fw, x, y):
        fw.sqrt(-x.detach().requires_grad_()).sum().backward()

    for body, name, position in ((custom, "NanBBackward", 1), (sqrt, "SqrtBackward0", 0)):
        theirs, their_warnings = _run(torch, None, body)
        ours, our_warnings = _run(mt, device, body)
        message = f"Function '{name}' returned nan values in its {position}th output."
        assert type(ours.value) is type(theirs.value) is RuntimeError
        assert str(ours.value) == str(theirs.value) == message
        assert our_warnings[0] == their_warnings[0]  # the "enabled" warning
        assert our_warnings[1].startswith(f"Error detected in {name}. Traceback of forward "
                                          "call that caused the error:\n")


def test_error_in_backward_shows_the_forward_stack(device):
    def body(fw, x, y):
        out = _failing_function(fw).apply(x)  # FORWARD-LINE
        out.sum().backward()

    theirs, their_warnings = _run(torch, None, body)
    ours, our_warnings = _run(mt, device, body)
    assert type(ours.value) is type(theirs.value) is ValueError
    for shown in (our_warnings[1], their_warnings[1]):
        assert shown.startswith("Error detected in FailingBackward. Traceback of forward "
                                "call that caused the error:\n")
        assert "# FORWARD-LINE" in shown and __file__ in shown
    # our stack holds the user's frames only
    assert "minitorch_meta" not in our_warnings[1].split("\n", 1)[1]


def test_op_nodes_remember_their_forward(device):
    x = mt.tensor([1.0, 2.0], device=device, requires_grad=True)
    with pytest.warns(UserWarning, match=ENABLED), mt.autograd.detect_anomaly():
        y = x * 2  # OP-LINE
    assert "# OP-LINE" in "".join(y.grad_fn._anomaly_trace)
    z = x * 3  # outside anomaly mode: nothing recorded
    assert not hasattr(z.grad_fn, "_anomaly_trace")
    y.sum().backward()
    with pytest.warns(UserWarning, match=ENABLED), mt.autograd.detect_anomaly(), \
            pytest.warns(UserWarning, match="(?s)^Error detected in MulBackward0. Traceback.*"
                         "# OP-LINE"), \
            pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()
    with pytest.warns(UserWarning, match=ENABLED), mt.autograd.detect_anomaly(), \
            pytest.warns(UserWarning, match="^Error detected in MulBackward0. No forward pass "
                         "information available. Enable detect anomaly during forward pass"), \
            pytest.raises(RuntimeError):
        z.sum().backward()
        z.sum().backward()


def test_nan_from_a_function_with_two_outputs(device):
    class TwoOutputs(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return (g1 + g2) * float("nan")

    x = mt.tensor([1.0, 2.0], device=device, requires_grad=True)
    with pytest.warns(UserWarning, match=ENABLED), mt.autograd.detect_anomaly(), \
            pytest.warns(UserWarning, match="^Error detected in TwoOutputsBackward"), \
            pytest.raises(RuntimeError, match="^Function 'TwoOutputsBackward' returned nan "
                          "values in its 0th output.$"):
        a, b = TwoOutputs.apply(x)
        (a + b).sum().backward()


def test_check_nan_false_lets_nan_through(device):
    x = mt.tensor([1.0, -2.0], device=device, requires_grad=True)
    y = mt.tensor([1.0, 1.0], device=device, requires_grad=True)
    with pytest.warns(UserWarning, match=ENABLED), mt.autograd.detect_anomaly(check_nan=False):
        assert mt.is_anomaly_enabled() and not mt.is_anomaly_check_nan_enabled()
        _nan_function(mt).apply(x, y).sum().backward()
    assert mt.isnan(y.grad).all()
    # without anomaly mode NaN passes silently, as in PyTorch
    _nan_function(mt).apply(x, y).sum().backward()


def test_state_functions_match_torch():
    states = []
    for fw in (torch, mt):
        seen = [fw.is_anomaly_enabled(), fw.is_anomaly_check_nan_enabled()]
        fw.set_anomaly_enabled(True)
        seen += [fw.is_anomaly_enabled(), fw.is_anomaly_check_nan_enabled()]
        fw.set_anomaly_enabled(True, False)
        seen += [fw.is_anomaly_check_nan_enabled()]
        fw.set_anomaly_enabled(False)
        seen += [fw.is_anomaly_enabled(), fw.is_anomaly_check_nan_enabled()]
        result = fw.autograd.set_detect_anomaly(True)
        seen += [fw.is_anomaly_enabled(), type(result).__name__]
        fw.autograd.set_detect_anomaly(False)
        with fw.autograd.set_detect_anomaly(True, check_nan=False):
            seen += [fw.is_anomaly_enabled(), fw.is_anomaly_check_nan_enabled()]
        seen += [fw.is_anomaly_enabled(), fw.is_anomaly_check_nan_enabled()]
        with pytest.raises(TypeError):
            fw.set_anomaly_enabled()
        states.append(seen)
    assert states[0] == states[1]
    assert not _observers  # the op observer left with the mode


def test_detect_anomaly_restores_and_decorates():
    with pytest.warns(UserWarning, match=ENABLED):
        outer = mt.autograd.detect_anomaly(check_nan=False)
    with outer:
        with pytest.warns(UserWarning, match=ENABLED), mt.autograd.detect_anomaly():
            assert mt.is_anomaly_check_nan_enabled()
        assert mt.is_anomaly_enabled() and not mt.is_anomaly_check_nan_enabled()
    assert not mt.is_anomaly_enabled() and mt.is_anomaly_check_nan_enabled()

    with pytest.warns(UserWarning, match=ENABLED):
        @mt.autograd.detect_anomaly()
        def inside():
            return mt.is_anomaly_enabled()

    assert inside() is True and not mt.is_anomaly_enabled()
    with pytest.raises(ZeroDivisionError), pytest.warns(UserWarning, match=ENABLED), \
            mt.autograd.detect_anomaly():
        raise ZeroDivisionError
    assert not mt.is_anomaly_enabled() and not _observers


def test_mode_is_per_thread():
    seen = {}

    def worker():
        seen["enabled"] = mt.is_anomaly_enabled()
        x = mt.tensor([1.0], requires_grad=True)
        seen["recorded"] = hasattr((x * 2).grad_fn, "_anomaly_trace")

    with pytest.warns(UserWarning, match=ENABLED), mt.autograd.detect_anomaly():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert seen == {"enabled": False, "recorded": False}


def test_meta_backward_in_anomaly_mode():
    x = mt.zeros(3, device="meta", requires_grad=True)
    with pytest.warns(UserWarning, match=ENABLED), mt.autograd.detect_anomaly():
        (x.sqrt() * 2).sum().backward()
    assert x.grad.shape == (3,)

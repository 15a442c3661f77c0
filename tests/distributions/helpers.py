"""What the distribution tests share: the library's distributions module, a seeded
``rsample`` for finite differences, and a map of uniform draws into (0, 1)."""

from __future__ import annotations


def D(T):  # noqa: N802 - the library's distributions module, minitorch_meta's or torch's
    return T.distributions


def reseeded(make):
    """rsample with the noise fixed, so that finite differences see one function:
    ``make(T, *params)`` builds the distribution."""
    def fn(T, F, *params):
        T.manual_seed(0)
        return make(T, *params).rsample((5,))
    return fn


def open_unit(u):
    """A uniform draw in [0, 1) mapped into [0.05, 0.95): away from the support's ends."""
    return 0.05 + 0.9 * u


def errors_of_both(call):
    """``(torch's error, ours)`` raised by ``call(torch)`` and ``call(minitorch_meta)``,
    ours checked to be of torch's type; the caller compares the texts as it needs."""
    import pytest

    import minitorch_meta as mt

    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(mt)
    return theirs.value, ours.value

"""torch.celu_, selu_, rrelu_, threshold_, dropout_, alpha_dropout_, feature_dropout_,
feature_alpha_dropout_ and the native alpha_dropout, feature_dropout,
feature_alpha_dropout (inplace_functions.py), against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt

DATA = np.array([[-2.0, -0.5, 0.0], [0.25, 1.0, 3.0]], dtype=np.float32)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


ACTIVATIONS = {
    "celu_": (lambda T, x: T.celu_(x), lambda T, x: T.celu_(x, 0.5)),
    "selu_": (lambda T, x: T.selu_(x),),
    "rrelu_": (lambda T, x: T.rrelu_(x), lambda T, x: T.rrelu_(x, 0.2, 0.4)),
    "threshold_": (lambda T, x: T.threshold_(x, 0.1, 20.0),),
}


@pytest.mark.parametrize("name, k", [(n, k) for n, calls in ACTIVATIONS.items()
                                     for k in range(len(calls))])
def test_activations_write_torchs_values_into_the_input(name, k, device):
    torch = _torch()
    call = ACTIVATIONS[name][k]
    x, tx = mt.tensor(DATA, device=device), torch.tensor(DATA)
    returned = call(mt, x)
    call(torch, tx)
    assert returned is x and x._version == 1
    np.testing.assert_allclose(x.cpu().numpy(), tx.numpy(), rtol=1e-6)


def test_rrelu_while_training_draws_slopes_in_bounds(device):
    x = mt.tensor(DATA, device=device)
    mt.rrelu_(x, 0.2, 0.4, True)
    negative = DATA < 0
    slopes = x.cpu().numpy()[negative] / DATA[negative]
    assert ((slopes >= 0.2) & (slopes <= 0.4)).all()
    assert (x.cpu().numpy()[~negative] == DATA[~negative]).all()


@pytest.mark.parametrize("call, message", [
    (lambda T: T.celu_(T.ones(2), 0.0), "alpha"),
    (lambda T: T.rrelu_(T.ones(2), 0.5, 0.1), "[Ll]ower bound"),
    (lambda T: T.selu_(T.ones(2, requires_grad=True)), "leaf"),
])
def test_activation_errors_are_runtime_errors_like_torch(call, message):
    torch = _torch()
    for lib in (torch, mt):
        with pytest.raises(RuntimeError, match=message):
            call(lib)


DROPOUTS_IN_PLACE = ["dropout_", "alpha_dropout_", "feature_dropout_", "feature_alpha_dropout_"]
DROPOUTS = ["dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout"]


@pytest.mark.parametrize("name", DROPOUTS_IN_PLACE + DROPOUTS)
@pytest.mark.parametrize("p, train", [(0.5, False), (0.0, True)])
def test_identity_returns_the_input_untouched_even_on_a_leaf(name, p, train):
    torch = _torch()
    for lib in (torch, mt):
        x = lib.ones(2, 3, requires_grad=True)
        assert getattr(lib, name)(x, p, train) is x
        assert x._version == 0


@pytest.mark.parametrize("name", DROPOUTS_IN_PLACE + DROPOUTS)
@pytest.mark.parametrize("p", [-0.5, 1.5])
def test_a_probability_outside_0_1_is_a_runtime_error_like_torch(name, p):
    torch = _torch()
    message = f"dropout probability has to be between 0 and 1, but got {p}"
    for lib in (torch, mt):
        with pytest.raises(RuntimeError, match=message):
            getattr(lib, name)(lib.ones(2, 3), p, False)


@pytest.mark.parametrize("name", DROPOUTS_IN_PLACE + DROPOUTS)
def test_p_one_gives_torchs_zeros(name, device):
    torch = _torch()
    x = mt.tensor(DATA, device=device)
    out = getattr(mt, name)(x, 1.0, True)
    ref = getattr(torch, name)(torch.tensor(DATA), 1.0, True)
    np.testing.assert_array_equal(out.cpu().numpy(), ref.numpy())
    assert (out is x) == name.endswith("_")


@pytest.mark.parametrize("name", ["dropout_", "feature_dropout_"])
def test_training_zeroes_or_scales_in_place(name, device):
    data = np.random.default_rng(0).uniform(1.0, 2.0, (64, 8, 3)).astype(np.float32)
    x = mt.tensor(data, device=device)
    returned = getattr(mt, name)(x, 0.25, True)
    assert returned is x and x._version == 1
    out = x.cpu().numpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], data[kept] / 0.75, rtol=1e-6)
    assert 0.6 < kept.mean() < 0.9
    if name == "feature_dropout_":  # whole channels x[n, c]
        assert (kept.all(axis=2) | ~kept.any(axis=2)).all()


@pytest.mark.parametrize("name", ["alpha_dropout_", "feature_alpha_dropout_"])
def test_alpha_dropout_in_place_keeps_the_out_of_place_values(name, device):
    mt.manual_seed(3)
    expected = getattr(mt, name[:-1])(mt.tensor(DATA, device=device), 0.5, True)
    mt.manual_seed(3)
    x = mt.tensor(DATA, device=device)
    assert getattr(mt, name)(x, 0.5, True) is x
    np.testing.assert_allclose(x.cpu().numpy(), expected.cpu().numpy())


@pytest.mark.parametrize("name", DROPOUTS)
def test_grad_fn_names_match_torch(name):
    torch = _torch()
    ours = getattr(mt, name)(mt.ones(2, 3, requires_grad=True), 0.5, True)
    theirs = getattr(torch, name)(torch.ones(2, 3, requires_grad=True), 0.5, True)
    assert ours.grad_fn.name() == theirs.grad_fn.name()


@pytest.mark.parametrize("name", ["feature_dropout", "feature_dropout_",
                                  "feature_alpha_dropout", "feature_alpha_dropout_"])
def test_feature_forms_need_two_dims_like_torch(name):
    torch = _torch()
    for lib in (torch, mt):
        with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 "
                                               "dimensions in the input"):
            getattr(lib, name)(lib.ones(3), 0.5, True)


@pytest.mark.parametrize("name", DROPOUTS_IN_PLACE)
def test_refusals_match_torch(name):
    torch = _torch()
    for lib in (torch, mt):
        with pytest.raises(RuntimeError, match="leaf"):
            getattr(lib, name)(lib.ones(2, 3, requires_grad=True), 1.0, True)
        with pytest.raises(RuntimeError):  # a float result cannot be written into int64
            getattr(lib, name)(lib.ones(2, 3, dtype=lib.int64), 0.5, True)

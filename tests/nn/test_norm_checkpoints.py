"""Old checkpoints of the weight and spectral normalisations still load, as in PyTorch:
a hook-based ``weight_norm`` dict into ``parametrizations.weight_norm``, and a
first-version ``spectral_norm`` dict (``weight`` kept, no ``weight_v``) into
``spectral_norm``, whose ``state_dict`` records its version in ``_metadata``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt

_W = np.array([[1.0, 2.0, -1.0], [0.5, 1.0, 3.0]])


def _as(torch, array):
    return torch.tensor(array, dtype=torch.float64)


def _weight_norm_upgrade(torch, nested: bool):
    utils = torch.nn.utils
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # the old weight_norm's deprecation
        old = utils.weight_norm(torch.nn.Linear(3, 2).double())
    with torch.no_grad():
        old.weight_v.copy_(_as(torch, _W))
        old.weight_g.copy_(_as(torch, [[2.0], [3.0]]))
        old.bias.zero_()
    checkpoint = old.state_dict()
    new = utils.parametrizations.weight_norm(torch.nn.Linear(3, 2).double())
    if nested:  # the keys carry the prefix of the module's place in a model
        new = torch.nn.Sequential(new)
        checkpoint = {"0." + k: v for k, v in checkpoint.items()}
    result = new.load_state_dict(checkpoint)
    layer = new[0] if nested else new
    return (sorted(checkpoint), tuple(result.missing_keys), tuple(result.unexpected_keys),
            layer.weight.detach().numpy().tolist(), sorted(new.state_dict()))


@pytest.mark.parametrize("nested", [False, True])
def test_an_old_weight_norm_checkpoint_loads_into_the_parametrization(torch_ref, nested):
    ours = _weight_norm_upgrade(mt, nested)
    assert ours == _weight_norm_upgrade(torch_ref, nested)
    assert ours[1:3] == ((), ())
    rows = _W / np.linalg.norm(_W, axis=1, keepdims=True) * np.array([[2.0], [3.0]])
    assert np.allclose(ours[3], rows)


def _spectral(torch):
    layer = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 2).double())
    with torch.no_grad():
        layer.weight_orig.copy_(_as(torch, _W))
        layer.weight_u.copy_(_as(torch, [0.6, 0.8]))
        layer.bias.zero_()
    return layer


def _spectral_upgrade(torch):
    saved = _spectral(torch).state_dict()
    metadata = dict(saved._metadata)
    # PyTorch's first version kept the normalised weight and no ``weight_v``
    old = {"weight_orig": saved["weight_orig"], "weight_u": saved["weight_u"],
           "bias": saved["bias"], "weight": saved["weight_orig"] / 2.5}
    upgraded = _spectral(torch)
    result = upgraded.load_state_dict(old)
    upgraded.eval()  # no power iteration: the loaded u and the solved v give sigma
    out = upgraded(torch.ones(1, 3, dtype=torch.float64))
    current = _spectral(torch)
    current.load_state_dict(dict(saved))  # the current keys without metadata: as they are
    return (metadata, tuple(result.missing_keys), upgraded.weight_v.numpy().tolist(),
            out.detach().numpy().tolist(),
            bool((current.weight_v == saved["weight_v"]).all()))


def test_spectral_norm_records_its_version_and_upgrades_old_checkpoints(torch_ref):
    ours = _spectral_upgrade(mt)
    theirs = _spectral_upgrade(torch_ref)
    assert ours[0] == theirs[0] == {"": {"version": 1, "spectral_norm": {"weight.version": 1}}}
    assert ours[1] == theirs[1] == ()
    assert np.allclose(ours[2], theirs[2]) and np.allclose(ours[3], theirs[3])
    assert np.allclose(ours[3], [_W.sum(axis=1) / 2.5])  # the old weight's sigma, 2.5
    assert ours[4] and theirs[4]  # its weight_v is the dict's, not solved for


def _spectral_errors(torch):
    layer = _spectral(torch)
    seen = []
    try:
        layer.load_state_dict({"weight": _as(torch, _W), "bias": _as(torch, [0.0, 0.0])})
    except RuntimeError as error:
        seen.append(str(error))
    result = layer.load_state_dict({"weight": _as(torch, _W)}, strict=False)
    seen.append((result.missing_keys, result.unexpected_keys))
    duplicated = _spectral(torch)
    hook = next(iter(duplicated._state_dict_hooks.values()))
    duplicated._register_state_dict_hook(type(hook)(hook.fn))
    try:
        duplicated.state_dict()
    except RuntimeError as error:
        seen.append(str(error))
    return seen


def test_spectral_norm_checkpoint_errors_equal_pytorch(torch_ref):
    ours = _spectral_errors(mt)
    assert ours == _spectral_errors(torch_ref)
    assert ours[-1] == "Unexpected key in metadata['spectral_norm']: weight.version"


def test_removing_spectral_norm_removes_its_state_dict_hooks():
    layer = mt.nn.utils.remove_spectral_norm(_spectral(mt))
    assert not layer._state_dict_hooks and not layer._load_state_dict_pre_hooks
    # PyTorch leaves its load pre-hook, which then asks a plain dict for weight_orig
    assert layer.load_state_dict({"weight": _as(mt, _W), "bias": _as(mt, [0.0, 0.0])})
    assert "spectral_norm" not in layer.state_dict()._metadata[""]

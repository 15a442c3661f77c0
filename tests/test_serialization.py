"""Checkpoints: round trips, atomic writes, and clear errors for what cannot be saved/loaded."""

from __future__ import annotations

import io
import json
import math
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.serialization import CheckpointError


def _state():
    w = mt.randn(3, 4, requires_grad=True)
    opt = mt.optim.Adam([w], lr=0.01, amsgrad=True)
    (w * w).sum().backward()
    opt.step()
    return {"model": OrderedDict([("fc.weight", w.detach()), ("steps", mt.arange(3))]),
            "optimizer": opt.state_dict(), "epoch": 4,
            "metrics": {"loss": [0.5, float("nan"), math.inf], "best": (1, "acc", None, True)},
            7: np.arange(4, dtype=np.int16), 2.5: np.float32(1.25)}


def _assert_same(a, b):
    assert type(a) is type(b)
    if isinstance(a, mt.Tensor):
        assert a.dtype == b.dtype and a.device == b.device and a.requires_grad == b.requires_grad
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    elif isinstance(a, (np.ndarray, np.generic)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            _assert_same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b


def test_state_dict_round_trip(tmp_path):
    state = _state()
    mt.save(state, tmp_path / "run.ckpt")
    _assert_same(state, mt.load(tmp_path / "run.ckpt"))


def test_round_trip_through_a_file_object():
    buffer = io.BytesIO()
    mt.save({"x": mt.ones(2)}, buffer)
    buffer.seek(0)
    np.testing.assert_array_equal(mt.load(buffer)["x"].numpy(), [1, 1])


def test_loaded_optimizer_state_resumes_training(tmp_path):
    w = mt.tensor([1.0, -2.0], requires_grad=True)
    opt = mt.optim.SGD([w], lr=0.1, momentum=0.9)
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    mt.save({"w": w.detach(), "opt": opt.state_dict()}, tmp_path / "c")
    loaded = mt.load(tmp_path / "c")
    w2 = loaded["w"].clone().requires_grad_()
    opt2 = mt.optim.SGD([w2], lr=0.1, momentum=0.9)
    opt2.load_state_dict(loaded["opt"])
    for optimizer, param in ((opt, w), (opt2, w2)):
        optimizer.zero_grad()
        (param * param).sum().backward()
        optimizer.step()
    np.testing.assert_array_equal(w.detach().numpy(), w2.detach().numpy())


def test_shared_tensors_load_as_one_tensor(tmp_path):
    t = mt.ones(2)
    mt.save([t, {"again": t}], tmp_path / "c")
    a, b = mt.load(tmp_path / "c")
    assert a is b["again"]


def test_loaded_tensors_are_writable(tmp_path):
    mt.save({"x": mt.zeros(3)}, tmp_path / "c")
    x = mt.load(tmp_path / "c")["x"]
    x.add_(1)
    np.testing.assert_array_equal(x.numpy(), [1, 1, 1])


@pytest.mark.parametrize("location", ["meta", mt.device("meta"), {"cpu": "meta"}])
def test_map_location_moves_tensors(tmp_path, location):
    mt.save({"w": mt.ones(2, 3)}, tmp_path / "c")
    w = mt.load(tmp_path / "c", map_location=location)["w"]
    assert w.is_meta and tuple(w.shape) == (2, 3)


def test_bad_map_location_is_a_type_error(tmp_path):
    mt.save(1, tmp_path / "c")
    with pytest.raises(TypeError, match="map_location must be"):
        mt.load(tmp_path / "c", map_location=3.5)


def test_cuda_checkpoint_without_cuda_says_to_use_map_location(tmp_path):
    from minitorch_meta.backends.cupy_backend import cuda_unavailable_reason

    if cuda_unavailable_reason() is None:
        pytest.skip("CUDA is usable here, so a cuda checkpoint loads")
    mt.save({"w": mt.ones(2)}, tmp_path / "c")
    with zipfile.ZipFile(tmp_path / "c") as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    manifest = json.loads(entries["manifest.json"])
    manifest["root"]["items"][0][1]["device"] = "cuda:0"
    entries["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(tmp_path / "c", "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    with pytest.raises(mt.DeviceError, match=r"obj\['w'\] was saved on 'cuda:0'.*"
                                             r"map_location='cpu'"):
        mt.load(tmp_path / "c")
    assert mt.load(tmp_path / "c", map_location={"cuda:0": "cpu"})["w"].device == "cpu"


def test_unsupported_objects_name_their_key_path(tmp_path):
    with pytest.raises(TypeError, match=r"cannot save obj\['model'\]\['act'\]\[1\] of type "
                                        r"object"):
        mt.save({"model": {"act": [1, object()]}}, tmp_path / "c")
    with pytest.raises(TypeError, match=r"key \(1, 2\) of obj\['a'\]"):
        mt.save({"a": {(1, 2): 3}}, tmp_path / "c")
    with pytest.raises(TypeError, match="NumPy ndarray of dtype object"):
        mt.save({"a": np.array([None])}, tmp_path / "c")
    with pytest.raises(TypeError, match="of type set"):
        mt.save({1, 2}, tmp_path / "c")
    assert not list(tmp_path.iterdir())


def test_meta_tensors_cannot_be_saved(tmp_path):
    with pytest.raises(ValueError, match=r"obj\['w'\] is a meta tensor of shape \(2, 3\).*no "
                                         r"data to save"):
        mt.save({"w": mt.empty(2, 3, device="meta")}, tmp_path / "c")


def test_interrupted_save_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "run.ckpt"
    mt.save({"epoch": 1, "w": mt.ones(3)}, path)
    calls = {"n": 0}
    original = zipfile.ZipFile.writestr

    def crash_midway(self, name, data, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:  # the manifest and one array are written, then the crash
            raise KeyboardInterrupt
        return original(self, name, data, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", crash_midway)
    with pytest.raises(KeyboardInterrupt):
        mt.save({"epoch": 2, "w": mt.zeros(3), "b": mt.zeros(2), "c": mt.zeros(1)}, path)
    monkeypatch.undo()
    assert calls["n"] == 3
    assert [p.name for p in tmp_path.iterdir()] == ["run.ckpt"]  # no temporary file left
    loaded = mt.load(path)
    assert loaded["epoch"] == 1 and loaded["w"].tolist() == [1, 1, 1]


def test_a_file_that_is_not_a_checkpoint(tmp_path):
    (tmp_path / "notes.txt").write_text("just some text")
    with pytest.raises(CheckpointError, match=r"notes\.txt is not a minitorch_meta checkpoint"):
        mt.load(tmp_path / "notes.txt")


def test_a_truncated_checkpoint(tmp_path):
    mt.save({"w": mt.ones(100)}, tmp_path / "c")
    data = (tmp_path / "c").read_bytes()
    (tmp_path / "cut").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="corrupt or truncated"):
        mt.load(tmp_path / "cut")


def test_a_corrupted_array_fails_its_checksum(tmp_path):
    mt.save({"w": mt.ones(100)}, tmp_path / "c")
    data = bytearray((tmp_path / "c").read_bytes())
    start = data.index(b"\x00\x00\x80\x3f")  # the first float32 1.0
    data[start + 3] = 0x40
    (tmp_path / "bad").write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupt or truncated"):
        mt.load(tmp_path / "bad")


def test_a_zip_without_manifest_and_a_pytorch_checkpoint(tmp_path):
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(CheckpointError, match=r"\(no manifest\.json inside\)$"):
        mt.load(tmp_path / "other.zip")
    with zipfile.ZipFile(tmp_path / "model.pt", "w") as archive:
        archive.writestr("model/data.pkl", b"\x80\x04N.")
    with pytest.raises(CheckpointError, match="PyTorch \\(pickle\\) checkpoint"):
        mt.load(tmp_path / "model.pt")


@pytest.mark.parametrize("manifest, message", [
    (b"{not json", "not valid JSON"),
    (json.dumps({"format": "something else", "root": 1}).encode(), "does not declare format"),
    (json.dumps({"format": "minitorch_meta.checkpoint", "version": 99, "root": 1}).encode(),
     "version 99"),
    (json.dumps({"format": "minitorch_meta.checkpoint", "version": 1,
                 "root": {"type": "pickle"}}).encode(), "unknown entry type 'pickle'"),
    (json.dumps({"format": "minitorch_meta.checkpoint", "version": 1,
                 "root": {"type": "tensor", "array": 0, "dtype": "float32", "shape": [1]}}
                ).encode(), "lacks arrays/0.npy"),
])
def test_bad_manifests_are_reported(tmp_path, manifest, message):
    with zipfile.ZipFile(tmp_path / "c", "w") as archive:
        archive.writestr("manifest.json", manifest)
    with pytest.raises(CheckpointError, match=message):
        mt.load(tmp_path / "c")


def test_pickled_object_arrays_are_refused(tmp_path):
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    manifest = {"format": "minitorch_meta.checkpoint", "version": 1,
                "root": {"type": "ndarray", "array": 0, "dtype": "object", "shape": [1]}}
    with zipfile.ZipFile(tmp_path / "c", "w") as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        archive.writestr("arrays/0.npy", buffer.getvalue())
    with pytest.raises(CheckpointError, match="unreadable array arrays/0.npy"):
        mt.load(tmp_path / "c")


def test_a_real_pytorch_checkpoint_is_refused(tmp_path):
    torch = pytest.importorskip("torch", reason="needs PyTorch to write a PyTorch checkpoint")
    torch.save({"w": torch.ones(2)}, tmp_path / "model.pt")
    with pytest.raises(CheckpointError, match="PyTorch \\(pickle\\) checkpoint"):
        mt.load(tmp_path / "model.pt")


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        mt.load(tmp_path / "nothing.ckpt")


def test_save_into_a_missing_folder_says_so(tmp_path):
    with pytest.raises(FileNotFoundError, match="the folder .*missing does not exist"):
        mt.save({"a": 1}, tmp_path / "missing" / "c")


def _train_epochs(w, optimizer, loader, generator, epochs):
    for epoch in epochs:
        generator.manual_seed(1000 + epoch)  # each epoch's order depends on the epoch only
        for x, y in loader:
            optimizer.zero_grad()
            ((x @ w - y) ** 2).mean().backward()
            optimizer.step()


@pytest.mark.parametrize("make", [lambda p: mt.optim.SGD(p, lr=0.05, momentum=0.9),
                                  lambda p: mt.optim.Adam(p, lr=0.05)], ids=["sgd", "adam"])
def test_interrupted_and_resumed_run_ends_with_the_same_weights(tmp_path, make):
    from minitorch_meta.data import DataLoader, TensorDataset

    rng = np.random.default_rng(0)
    dataset = TensorDataset(mt.tensor(rng.standard_normal((40, 3)).astype(np.float32)),
                            mt.tensor(rng.standard_normal(40).astype(np.float32)))
    generator = mt.Generator()
    loader = DataLoader(dataset, batch_size=8, shuffle=True, generator=generator)
    start = rng.standard_normal(3).astype(np.float32)

    w = mt.tensor(start, requires_grad=True)
    optimizer = make([w])
    _train_epochs(w, optimizer, loader, generator, range(4))

    first = mt.tensor(start, requires_grad=True)
    first_optimizer = make([first])
    _train_epochs(first, first_optimizer, loader, generator, range(2))
    mt.save({"w": first.detach(), "optimizer": first_optimizer.state_dict(), "epoch": 2},
            tmp_path / "run.ckpt")
    del first, first_optimizer

    checkpoint = mt.load(tmp_path / "run.ckpt")
    resumed = checkpoint["w"].requires_grad_()
    resumed_optimizer = make([resumed])
    resumed_optimizer.load_state_dict(checkpoint["optimizer"])
    _train_epochs(resumed, resumed_optimizer, loader, generator, range(checkpoint["epoch"], 4))
    np.testing.assert_array_equal(resumed.detach().numpy(), w.detach().numpy())

"""``torch.hub``: entrypoints of a local folder's or a cached GitHub repository's
``hubconf.py``, downloads (with ``file://`` URLs and a stand-in for GitHub: these machines
have no network), hash checks, and the trust list; errors compared with PyTorch's."""

from __future__ import annotations

import hashlib
import io
import textwrap
import urllib.request
import zipfile
from urllib.error import URLError

import pytest

import minitorch_meta as mt
from minitorch_meta import hub

_HUBCONF = '''
dependencies = ["numpy"]


def tiny(width=3, bias=True):
    """A Linear layer of the given width."""
    import minitorch_meta as torch

    return torch.nn.Linear(width, 2, bias=bias)


def _private():
    return "hidden"
'''


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    """A fresh hub folder, set as PyTorch's set_dir would, and restored afterwards."""
    monkeypatch.setattr(hub, "_hub_dir", None)
    hub.set_dir(tmp_path / "hub")
    return tmp_path / "hub"


def _repository(folder, text=_HUBCONF):
    folder.mkdir(parents=True)
    (folder / "hubconf.py").write_text(text)
    return folder


def test_a_local_folder_entrypoint_is_called_with_the_arguments(tmp_path):
    folder = _repository(tmp_path / "repo")
    layer = hub.load(str(folder), "tiny", 5, source="local", bias=False)
    assert isinstance(layer, mt.nn.Linear)
    assert tuple(layer.weight.shape) == (2, 5) and layer.bias is None
    assert mt.hub.load is hub.load  # torch.hub, reached as PyTorch's


@pytest.mark.parametrize("text,call,error,message", [
    ('dependencies = ["no_such_package_xyz"]\ndef m():\n    return 1\n',
     lambda d: ("m",), RuntimeError, "Missing dependencies: no_such_package_xyz"),
    ("def m():\n    return 1\n", lambda d: ("nope",), RuntimeError,
     "Cannot find callable nope in hubconf"),
    ("m = 3\n", lambda d: ("m",), RuntimeError, "Cannot find callable m in hubconf"),
], ids=["missing dependency", "no such entrypoint", "not callable"])
def test_pytorchs_errors_for_a_bad_hubconf(torch_ref, tmp_path, text, call, error, message):
    folder = _repository(tmp_path / "repo", text)
    for framework_hub in (hub, torch_ref.hub):
        with pytest.raises(error, match=message):
            framework_hub.load(str(folder), *call(folder), source="local")


def test_an_unknown_source_is_pytorchs_value_error(torch_ref, tmp_path):
    for framework_hub in (hub, torch_ref.hub):
        with pytest.raises(ValueError, match='Unknown source: "ftp"'):
            framework_hub.load(str(tmp_path), "m", source="ftp")


def test_get_dir_follows_torch_home_and_xdg_cache_home(torch_ref, monkeypatch, tmp_path):
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert hub.get_dir() == str(tmp_path / "th" / "hub")
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub.get_dir() == str(tmp_path / "xdg" / "torch" / "hub")
    assert hub.get_dir() == torch_ref.hub.get_dir() or torch_ref.hub._hub_dir is not None


def test_a_cached_github_repository_is_used_offline(hub_dir, monkeypatch):
    _repository(hub_dir / "someone_models_main")

    def offline(url):
        raise URLError("no network")

    monkeypatch.setattr(hub, "urlopen", offline)
    layer = hub.load("someone/models", "tiny", trust_repo=True, verbose=False)
    assert tuple(layer.weight.shape) == (2, 3)
    assert hub.list("someone/models:main", trust_repo=True, verbose=False) == ["tiny"]
    assert hub.help("someone/models:main", "tiny", trust_repo=True) == \
        "A Linear layer of the given width."


def test_offline_without_a_cached_copy_says_so(hub_dir, monkeypatch):
    def offline(url):
        raise URLError("no network")

    monkeypatch.setattr(hub, "urlopen", offline)
    with pytest.raises(RuntimeError, match="no internet connection and the repo could not"):
        hub.load("someone/models", "tiny", trust_repo=True)


def _github_zip(tmp_path) -> str:
    """A zip laid out as GitHub's zipball (one top folder), served by file:// URL."""
    path = tmp_path / "zipball.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("someone-models-abc123/", "")
        archive.writestr("someone-models-abc123/hubconf.py", _HUBCONF)
    return path.as_uri()


def test_a_github_repository_is_downloaded_once_then_cached(hub_dir, tmp_path, monkeypatch):
    fetched = []
    served = _github_zip(tmp_path)

    def github(url):
        fetched.append(url)
        return urllib.request.urlopen(served)

    monkeypatch.setattr(hub, "urlopen", github)
    layer = hub.load("someone/models:v1.0", "tiny", 4, trust_repo=True, verbose=False)
    assert tuple(layer.weight.shape) == (2, 4)
    assert fetched == ["https://github.com/someone/models/zipball/v1.0"]
    assert (hub_dir / "someone_models_v1.0" / "hubconf.py").is_file()
    assert not (hub_dir / "v1.0.zip").exists()  # the download is removed once unpacked
    hub.load("someone/models:v1.0", "tiny", trust_repo=True, verbose=False)
    assert len(fetched) == 1  # the second load uses the cache
    assert (hub_dir / "trusted_list").read_text() == "someone_models\n"


def test_an_untrusted_repository_is_refused_when_the_answer_is_no(hub_dir, tmp_path,
                                                                   monkeypatch):
    monkeypatch.setattr(hub, "urlopen", lambda url: urllib.request.urlopen(
        _github_zip(tmp_path)))
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    with pytest.raises(RuntimeError, match="Untrusted repository"):
        hub.load("someone/models:main", "tiny", trust_repo="check")
    monkeypatch.setattr("builtins.input", lambda prompt: "maybe")
    with pytest.raises(ValueError, match="Unrecognized response maybe"):
        hub.load("someone/models:main", "tiny", trust_repo=False)
    monkeypatch.setattr("builtins.input", lambda prompt: "y")
    hub.load("someone/models:main", "tiny", trust_repo="check", verbose=False)
    assert (hub_dir / "trusted_list").read_text() == "someone_models\n"


def _checkpoint(tmp_path, name_with_hash: bool):
    state = {"weight": mt.arange(6.0).reshape(2, 3)}
    buffer = io.BytesIO()
    mt.save(state, buffer)
    digest = hashlib.sha256(buffer.getvalue()).hexdigest()
    path = tmp_path / (f"model-{digest[:8]}.pt" if name_with_hash else "model.pt")
    path.write_bytes(buffer.getvalue())
    return path, digest


def test_load_state_dict_from_url_downloads_once_and_loads(hub_dir, tmp_path):
    path, _ = _checkpoint(tmp_path, name_with_hash=True)
    state = hub.load_state_dict_from_url(path.as_uri(), check_hash=True, progress=False)
    assert state["weight"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    cached = hub_dir / "checkpoints" / path.name
    assert cached.is_file()
    path.unlink()  # the second call reads the cache, not the URL
    assert hub.load_state_dict_from_url(path.as_uri())["weight"].shape == (2, 3)


def test_a_wrong_hash_never_reaches_the_cache(hub_dir, tmp_path):
    path, digest = _checkpoint(tmp_path, name_with_hash=False)
    wrong = tmp_path / "model-deadbeef.pt"
    path.rename(wrong)
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "deadbeef"'):
        hub.load_state_dict_from_url(wrong.as_uri(), check_hash=True, progress=False)
    assert list((hub_dir / "checkpoints").iterdir()) == []  # no partial or bad file left


def test_download_url_to_file_checks_the_hash_prefix(tmp_path):
    path, digest = _checkpoint(tmp_path, name_with_hash=False)
    target = tmp_path / "copy.pt"
    hub.download_url_to_file(path.as_uri(), target, hash_prefix=digest[:10], progress=False)
    assert target.read_bytes() == path.read_bytes()


def test_an_unreachable_url_says_what_it_tried(tmp_path):
    missing = (tmp_path / "absent.pt").as_uri()
    with pytest.raises(RuntimeError, match="could not download .*absent.pt"):
        hub.download_url_to_file(missing, tmp_path / "x.pt", progress=False)


def test_the_module_docstring_example_hubconf_is_valid_python():
    compile(textwrap.dedent(_HUBCONF), "hubconf.py", "exec")

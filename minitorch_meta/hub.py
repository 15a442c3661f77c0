"""``torch.hub``: load models published as a ``hubconf.py`` (from a local folder or a GitHub
repository) and checkpoints published at a URL, cached under ``get_dir()``.

As PyTorch's: a repository's entrypoints are the public callables of its ``hubconf.py``,
whose ``dependencies`` list names the packages it needs; GitHub repositories are
downloaded once as a zip into ``<hub dir>/<owner>_<repo>_<ref>`` and used from there;
checkpoints go to ``<hub dir>/checkpoints`` and are read with ``torch.load`` (so they must
be checkpoints of ours: PyTorch's pickles are refused by ``load``, which says so).
Downloads are written atomically, and a ``check_hash`` download whose SHA-256 does not
start with the hash in its file name is refused before it reaches the cache.

Not done: the GitHub API checks of ``skip_validation=False`` (that the ref belongs to the
repository and not to a fork). A repository is trusted as PyTorch's ``trust_repo`` says.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import zipfile
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse
from urllib.request import urlopen

from .utils.atomic import atomic_write

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
#: the hash prefix a checkpoint's file name carries: ``resnet18-5c106cde.pth``
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
READ_DATA_CHUNK = 128 * 1024

_hub_dir: str | None = None  # set_dir's folder (PyTorch keeps it per process too)


def get_dir() -> str:
    """The hub's cache folder: ``set_dir``'s, else ``$TORCH_HOME/hub``, else
    ``$XDG_CACHE_HOME/torch/hub``, else ``~/.cache/torch/hub``."""
    if _hub_dir is not None:
        return _hub_dir
    torch_home = os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(
        os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")))
    return os.path.join(torch_home, "hub")


def set_dir(d: str | os.PathLike) -> None:
    """Use ``d`` as the hub's cache folder from now on."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


# -- entrypoints ----------------------------------------------------------------------------
def load(repo_or_dir: str, model: str, *args, source: str = "github", trust_repo=None,
         force_reload: bool = False, verbose: bool = True, skip_validation: bool = False,
         **kwargs):
    """The object that entrypoint ``model`` of ``repo_or_dir``'s ``hubconf.py`` returns
    when called with ``*args`` and ``**kwargs``.

    ``source='github'``: ``repo_or_dir`` is ``owner/repo[:ref]``, downloaded once into the
    cache; ``source='local'``: a folder holding a ``hubconf.py``.

    Raises:
        ValueError: an unknown ``source``;
        RuntimeError: a missing dependency or entrypoint, or no network and no cached copy.
    """
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _get_cache_or_reload(repo_or_dir, force_reload, trust_repo, "load",
                                           verbose=verbose)
    return _load_local(repo_or_dir, model, *args, **kwargs)


def list(github: str, force_reload: bool = False, skip_validation: bool = False,  # noqa: A001
         trust_repo=None, verbose: bool = True) -> builtins.list:
    """The names of the entrypoints of GitHub repository ``github`` (``owner/repo[:ref]``)."""
    with _hubconf(_get_cache_or_reload(github, force_reload, trust_repo, "list",
                                       verbose=verbose)) as hub_module:
        return [name for name in dir(hub_module)
                if callable(getattr(hub_module, name)) and not name.startswith("_")]


def help(github: str, model: str, force_reload: bool = False,  # noqa: A001
         skip_validation: bool = False, trust_repo=None) -> str | None:
    """The docstring of entrypoint ``model`` of GitHub repository ``github``."""
    with _hubconf(_get_cache_or_reload(github, force_reload, trust_repo, "help",
                                       verbose=True)) as hub_module:
        return _entrypoint(hub_module, model).__doc__


def _load_local(hubconf_dir: str, model: str, *args, **kwargs):
    """Call entrypoint ``model`` of the ``hubconf.py`` in ``hubconf_dir``."""
    with _hubconf(hubconf_dir) as hub_module:
        return _entrypoint(hub_module, model)(*args, **kwargs)


@contextlib.contextmanager
def _hubconf(hubconf_dir: str):
    """``hubconf_dir/hubconf.py`` imported, its dependencies checked, with the folder on
    ``sys.path`` meanwhile (so that it can import its own modules)."""
    hubconf_dir = os.fspath(hubconf_dir)
    path = os.path.join(hubconf_dir, MODULE_HUBCONF)
    if not os.path.isfile(path):
        raise RuntimeError(f"Cannot find {MODULE_HUBCONF} in {hubconf_dir}: a hub repository "
                           "or folder must hold one at its top level")
    sys.path.insert(0, hubconf_dir)
    try:
        spec = importlib.util.spec_from_file_location("hubconf", path)
        hub_module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(hub_module)
        _check_dependencies(hub_module)
        yield hub_module
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(hubconf_dir)


def _check_dependencies(hub_module) -> None:
    missing = [package for package in getattr(hub_module, VAR_DEPENDENCY, None) or ()
               if importlib.util.find_spec(package) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")


def _entrypoint(hub_module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    function = getattr(hub_module, model, None)
    if function is None or not callable(function):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return function


# -- GitHub repositories --------------------------------------------------------------------
def _parse_repo_info(github: str) -> tuple:
    """``(owner, repo, ref)`` of ``owner/repo[:ref]``; without a ref, ``main`` if the
    repository has that branch, else ``master`` (offline: whichever is cached)."""
    if ":" in github:
        repo_info, ref = github.split(":", 1)
    else:
        repo_info, ref = github, None
    if repo_info.count("/") != 1 or not all(repo_info.split("/")):
        raise ValueError(f"Invalid GitHub repository {github!r}: expected 'owner/repo' or "
                         "'owner/repo:ref'")
    owner, name = repo_info.split("/")
    if ref is None:
        ref = _default_branch(owner, name)
    return owner, name, ref


def _default_branch(owner: str, name: str) -> str:
    try:
        with urlopen(f"https://github.com/{owner}/{name}/tree/main/"):
            return "main"
    except HTTPError as error:
        if error.code == 404:
            return "master"
        raise
    except URLError as error:
        for ref in ("main", "master"):  # no network: a cached copy is the last resort
            if os.path.exists(os.path.join(get_dir(), f"{owner}_{name}_{ref}")):
                return ref
        raise RuntimeError("It looks like there is no internet connection and the repo could "
                           f"not be found in the cache ({get_dir()})") from error


def _get_cache_or_reload(github: str, force_reload: bool, trust_repo, calling_fn: str,
                         verbose: bool = True) -> str:
    """The folder of ``github``'s cached copy, downloaded first if needed."""
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    owner, name, ref = _parse_repo_info(github)
    normalized_ref = ref.replace("/", "_")
    repo_dir = os.path.join(hub_dir, "_".join([owner, name, normalized_ref]))
    _check_repo_is_trusted(owner, name, hub_dir, repo_dir, trust_repo, calling_fn)
    if os.path.exists(repo_dir) and not force_reload:
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    url = f"https://github.com/{owner}/{name}/zipball/{ref}"
    cached_zip = os.path.join(hub_dir, normalized_ref + ".zip")
    if verbose:
        sys.stderr.write(f'Downloading: "{url}" to {cached_zip}\n')
    download_url_to_file(url, cached_zip, progress=False)
    try:
        _extract_repository(cached_zip, hub_dir, repo_dir)
    finally:
        os.remove(cached_zip)
    return repo_dir


def _extract_repository(cached_zip: str, hub_dir: str, repo_dir: str) -> None:
    """Unpack GitHub's zip (one top folder) and move its folder to ``repo_dir``."""
    with zipfile.ZipFile(cached_zip) as archive:
        top = archive.infolist()[0].filename.split("/")[0]
        staging = tempfile.mkdtemp(dir=hub_dir)
        try:
            archive.extractall(staging)
            if os.path.exists(repo_dir):
                shutil.rmtree(repo_dir)
            shutil.move(os.path.join(staging, top), repo_dir)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


#: owners whose repositories PyTorch trusts without asking
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")


def _check_repo_is_trusted(owner: str, name: str, hub_dir: str, repo_dir: str, trust_repo,
                           calling_fn: str) -> None:
    """PyTorch's ``trust_repo``: False asks, ``'check'`` asks unless the repository is
    trusted already (listed, cached, or of a trusted owner), True and None trust; a trusted
    repository is remembered in ``<hub dir>/trusted_list``.

    Raises:
        RuntimeError: the answer to the question was no; ValueError: it was not y/n.
    """
    trusted_file = os.path.join(hub_dir, "trusted_list")
    trusted = _read_trusted(trusted_file)
    repo = f"{owner}_{name}"
    is_trusted = repo in trusted or os.path.isdir(repo_dir) or owner in _TRUSTED_REPO_OWNERS
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        answer = input(f"The repository {repo} does not belong to the list of trusted "
                       "repositories and as such cannot be downloaded. Do you trust this "
                       "repository and wish to add it to the trusted list of repositories "
                       "(y/N)?").lower()
        if answer in ("n", "no", ""):
            raise RuntimeError(f"Untrusted repository: {repo} was not added to {calling_fn}'s "
                               f"trusted list ({trusted_file})")
        if answer not in ("y", "yes"):
            raise ValueError(f"Unrecognized response {answer}: expected y or n")
    if not is_trusted:
        with atomic_write(trusted_file) as handle:
            handle.write("".join(f"{entry}\n" for entry in [*trusted, repo]).encode())


def _read_trusted(path: str) -> builtins.list:
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return [line.strip() for line in handle if line.strip()]


# -- files at URLs --------------------------------------------------------------------------
def download_url_to_file(url: str, dst: str | os.PathLike, hash_prefix: str | None = None,
                         progress: bool = True) -> None:
    """Copy the object at ``url`` (``https://``, ``file://``, ...) to ``dst``, atomically.

    Raises:
        RuntimeError: its SHA-256 does not start with ``hash_prefix`` (``dst`` unchanged),
            or it cannot be fetched (no network).
    """
    digest = hashlib.sha256() if hash_prefix is not None else None
    try:
        response = urlopen(url)
    except URLError as error:
        raise RuntimeError(f"could not download {url}: {error.reason} (no network? a file "
                           "already in the cache is used without one)") from error
    with response, atomic_write(dst) as handle, _progress_bar(response, progress) as bar:
        while chunk := response.read(READ_DATA_CHUNK):
            handle.write(chunk)
            if digest is not None:
                digest.update(chunk)
            bar(len(chunk))
        if digest is not None and not digest.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                               f'"{digest.hexdigest()}")')


@contextlib.contextmanager
def _progress_bar(response, progress: bool):
    """A callable that advances a tqdm bar by a byte count (a no-op without ``progress``
    or without tqdm, the ``train`` extra's progress bars)."""
    total = response.headers.get("Content-Length") if hasattr(response, "headers") else None
    try:
        from tqdm import tqdm
    except ImportError:
        progress = False
    if not progress:
        yield lambda count: None
        return
    with tqdm(total=int(total) if total else None, unit="B", unit_scale=True,
              unit_divisor=1024) as bar:
        yield bar.update


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None,
                             progress: bool = True, check_hash: bool = False,
                             file_name: str | None = None, weights_only: bool = False):
    """``torch.load`` of the checkpoint at ``url``, downloaded once into ``model_dir``
    (default ``<hub dir>/checkpoints``) under ``file_name`` (default: the URL's).

    With ``check_hash``, the file name's ``-<hex>.`` part must begin the file's SHA-256.
    """
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stderr.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            found = HASH_REGEX.search(filename)
            hash_prefix = found.group(1) if found else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    from .serialization import load as torch_load

    return torch_load(cached_file, map_location=map_location)

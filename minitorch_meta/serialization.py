"""``save`` / ``load``: checkpoints that cannot run code when loaded (no pickle).

A checkpoint is a zip archive holding ``manifest.json`` (the structure of the saved object)
and one ``.npy`` file per tensor or NumPy array, read back with ``allow_pickle=False``.
Loading only ever builds dicts, lists, tuples, numbers, strings, booleans, None, tensors
and NumPy arrays, so a checkpoint from an untrusted source cannot execute anything.

What can be saved: nested ``dict`` / ``OrderedDict`` (keys: str, int, float, bool or None),
``list``, ``tuple``, ``int``, ``float``, ``str``, ``bool``, ``None``, tensors (cpu or cuda;
``requires_grad`` is kept, an ``nn.Parameter`` comes back as a plain tensor) and NumPy
arrays and scalars of numeric dtypes. An ``OrderedDict``'s ``_metadata`` (a state dict's
module versions) is kept. A tensor saved twice in one object is stored once
and loads as one tensor, as with PyTorch; views are not preserved beyond that.

Saving to a path is atomic: the archive is written to a temporary file in the same
folder, fsync'ed, then renamed over the destination, so an interrupted save leaves the
previous checkpoint intact.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
import zlib
from collections import OrderedDict
from typing import Any

import numpy as np

from . import dtypes
from .device import device as Device
from .errors import DeviceError
from .factories import from_numpy
from .int_arguments import is_int
from .tensor import Tensor
from .utils.atomic import atomic_write

FORMAT = "minitorch_meta.checkpoint"
VERSION = 1
MANIFEST = "manifest.json"
_KEY_TYPES = (str, int, float, bool, type(None))
_ARRAY_KINDS = "biufc"  # bool, signed and unsigned integers, floats, complex numbers


class CheckpointError(ValueError):
    """A file is not a readable minitorch_meta checkpoint (corrupt, truncated or foreign)."""


# -- save ---------------------------------------------------------------------------------
def save(obj: Any, f: str | os.PathLike | io.IOBase) -> None:
    """Write ``obj`` (state dicts, numbers, strings, ...) to a path or a binary file object.

    Raises:
        TypeError: something in ``obj`` cannot be saved; the message gives its key path,
            e.g. ``obj['optimizer']['state'][0]['step']``.
        ValueError: ``obj`` holds a meta tensor (it has no data to save).
    """
    encoder = _Encoder()
    manifest = {"format": FORMAT, "version": VERSION, "root": encoder.encode(obj, "obj")}
    if isinstance(f, (str, os.PathLike)):
        with atomic_write(f) as handle:
            _write_archive(handle, manifest, encoder.arrays)
    else:
        _write_archive(f, manifest, encoder.arrays)


def _write_archive(handle, manifest: dict, arrays: list[np.ndarray]) -> None:
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(MANIFEST, json.dumps(manifest))
        for number, array in enumerate(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array, allow_pickle=False)
            archive.writestr(_array_name(number), buffer.getvalue())


def _savable_array(t: Tensor) -> np.ndarray:
    """A CPU tensor's data as an array ``.npy`` holds: a bfloat16 one as its uint16 bits, a
    float8 one as its uint8 bits (``.npy`` knows only NumPy's own dtypes; the manifest's
    dtype says to view them back)."""
    if t.dtype in dtypes.CPU_ONLY:
        return t._data.view(np.uint16 if t.dtype is dtypes.bfloat16 else np.uint8)
    return t.numpy()


def _array_name(number: int) -> str:
    return f"arrays/{number}.npy"


class _Encoder:
    """Turns an object into JSON-able nodes, collecting arrays to store beside them."""

    def __init__(self):
        self.arrays: list[np.ndarray] = []
        self._tensor_ids: dict[int, int] = {}
        self._keep_alive: list = []  # ids stay unique while the objects live

    def encode(self, obj, path: str):
        if obj is None or isinstance(obj, (bool, int, str)):
            return obj
        if isinstance(obj, float):
            return {"type": "float", "value": repr(obj)}  # JSON has no inf/nan
        if isinstance(obj, Tensor):
            return self._tensor(obj, path)
        if isinstance(obj, (np.ndarray, np.generic)):
            return self._numpy(obj, path)
        if isinstance(obj, dict):
            return self._dict(obj, path)
        if isinstance(obj, (list, tuple)) and type(obj) in (list, tuple):
            return {"type": type(obj).__name__,
                    "items": [self.encode(v, f"{path}[{i}]") for i, v in enumerate(obj)]}
        raise TypeError(f"save: cannot save {path} of type {type(obj).__name__}: checkpoints "
                        "hold dicts, lists, tuples, tensors, NumPy arrays, numbers, strings, "
                        "booleans and None (convert it, e.g. to a dict of those)")

    def _dict(self, obj: dict, path: str):
        if type(obj) not in (dict, OrderedDict):
            raise TypeError(f"save: cannot save {path} of type {type(obj).__name__}: only "
                            "dict and OrderedDict mappings can be saved")
        items = []
        for key, value in obj.items():
            if not isinstance(key, _KEY_TYPES):
                raise TypeError(f"save: cannot save the key {key!r} of {path}: dict keys must "
                                f"be str, int, float, bool or None, got {type(key).__name__}")
            items.append([self.encode(key, path), self.encode(value, f"{path}[{key!r}]")])
        kind = "OrderedDict" if isinstance(obj, OrderedDict) else "dict"
        metadata = getattr(obj, "_metadata", None)
        if metadata is None:
            return {"type": kind, "items": items}
        # A state dict's module versions, which load_state_dict hands to
        # ``_load_from_state_dict`` (as pickle keeps them for PyTorch)
        return {"type": kind, "items": items,
                "metadata": self.encode(metadata, f"{path}._metadata")}

    def _tensor(self, t: Tensor, path: str):
        if t.is_meta:
            raise ValueError(f"save: {path} is a meta tensor of shape {tuple(t.shape)}, which "
                             "has no data to save; move the model to a real device (e.g. "
                             "model.to_empty(device='cpu') and initialise it) before saving")
        number = self._tensor_ids.get(id(t))
        if number is None:
            number = self._store(_savable_array(t.detach().cpu()))
            self._tensor_ids[id(t)] = number
            self._keep_alive.append(t)
        return {"type": "tensor", "array": number, "dtype": t.dtype.name,
                "shape": list(t.shape), "device": str(t.device),
                "requires_grad": bool(t.requires_grad)}

    def _numpy(self, value, path: str):
        array = np.asarray(value)
        if array.dtype.kind not in _ARRAY_KINDS:
            raise TypeError(f"save: cannot save {path}, a NumPy {type(value).__name__} of dtype "
                            f"{array.dtype}: only bool, integer and float arrays can be saved")
        return {"type": "ndarray" if isinstance(value, np.ndarray) else "numpy_scalar",
                "array": self._store(array), "dtype": str(array.dtype),
                "shape": list(array.shape)}

    def _store(self, array: np.ndarray) -> int:
        self.arrays.append(array)
        return len(self.arrays) - 1


# -- load ---------------------------------------------------------------------------------
def load(f: str | os.PathLike | io.IOBase, map_location=None, weights_only: bool = True) -> Any:
    """Read an object written by ``save``.

    Args:
        f: a path or a binary file object.
        map_location: where tensors go: None (where they were saved), a device or device
            string (``"cpu"``, ``"meta"``, ``"cuda:0"``), or a dict mapping saved device
            strings to new ones (``{"cuda:0": "cpu"}``).
        weights_only: accepted for PyTorch compatibility and ignored: loading never runs
            code, whatever its value.

    Raises:
        FileNotFoundError: no such file.
        CheckpointError: the file is not a minitorch_meta checkpoint, or is corrupt or
            truncated; the message says which.
        DeviceError: a tensor's device is not usable here (pass ``map_location="cpu"``).
    """
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as handle:  # a missing file raises FileNotFoundError here
            return _load_from(handle, str(f), map_location)
    return _load_from(f, getattr(f, "name", "<file object>"), map_location)


def _load_from(handle, name: str, map_location) -> Any:
    location = _location_function(map_location)
    try:
        with zipfile.ZipFile(handle) as archive:
            manifest = _read_manifest(archive, name)
            return _Decoder(archive, name, location).decode(manifest["root"], "obj")
    except zipfile.BadZipFile as error:
        raise CheckpointError(f"{name} is not a minitorch_meta checkpoint, or it is corrupt or "
                              f"truncated: {error}") from None
    except (EOFError, zlib.error) as error:
        raise CheckpointError(f"{name}: corrupt or truncated checkpoint ({error})") from None


def _read_manifest(archive: zipfile.ZipFile, name: str) -> dict:
    names = set(archive.namelist())
    if MANIFEST not in names:
        pytorch = any(n.endswith("data.pkl") for n in names)
        raise CheckpointError(
            f"{name} is not a minitorch_meta checkpoint (no {MANIFEST} inside)"
            + ("; it looks like a PyTorch (pickle) checkpoint, which minitorch_meta does not "
               "load because unpickling can run arbitrary code" if pytorch else ""))
    try:
        manifest = json.loads(archive.read(MANIFEST).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"{name}: the manifest is not valid JSON ({error})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or "root" not in manifest:
        raise CheckpointError(f"{name} is not a minitorch_meta checkpoint (its manifest does not "
                              f"declare format {FORMAT!r})")
    if manifest.get("version") != VERSION:
        raise CheckpointError(f"{name} has checkpoint format version {manifest.get('version')!r};"
                              f" this minitorch_meta reads version {VERSION}: upgrade it")
    return manifest


def _location_function(map_location):
    if map_location is None:
        return lambda saved: saved
    if isinstance(map_location, (str, Device)):
        target = str(Device(map_location))
        return lambda saved: target
    if isinstance(map_location, dict):
        table = {str(Device(k)): str(Device(v)) for k, v in map_location.items()}
        return lambda saved: table.get(saved, saved)
    raise TypeError(f"load: map_location must be None, a device, a device string or a dict "
                    f"of device strings, got {type(map_location).__name__}")


class _Decoder:
    """Rebuilds objects from manifest nodes, reading arrays from the archive."""

    def __init__(self, archive: zipfile.ZipFile, name: str, location):
        self.archive = archive
        self.name = name
        self.location = location
        self._tensors: dict[int, Tensor] = {}

    def error(self, path: str, problem: str) -> CheckpointError:
        return CheckpointError(f"{self.name}: corrupt checkpoint: {path}: {problem}")

    def decode(self, node, path: str):
        if node is None or isinstance(node, (bool, int, str)):
            return node
        if not isinstance(node, dict) or "type" not in node:
            raise self.error(path, f"unexpected manifest entry {node!r}")
        kind = node["type"]
        if kind == "float":
            return self._float(node, path)
        if kind in ("list", "tuple"):
            items = [self.decode(v, f"{path}[{i}]") for i, v in enumerate(self._items(node, path))]
            return items if kind == "list" else tuple(items)
        if kind in ("dict", "OrderedDict"):
            return self._dict(node, path, OrderedDict if kind == "OrderedDict" else dict)
        if kind == "tensor":
            return self._tensor(node, path)
        if kind in ("ndarray", "numpy_scalar"):
            array = self._array(node, path)
            return array if kind == "ndarray" else array[()]
        raise self.error(path, f"unknown entry type {kind!r}")

    def _items(self, node: dict, path: str) -> list:
        items = node.get("items")
        if not isinstance(items, list):
            raise self.error(path, f"{node['type']} entry without a list of items")
        return items

    def _float(self, node: dict, path: str) -> float:
        try:
            return float(node["value"])
        except (KeyError, TypeError, ValueError):
            raise self.error(path, f"bad float entry {node!r}") from None

    def _dict(self, node: dict, path: str, kind: type):
        result = kind()
        for pair in self._items(node, path):
            if not isinstance(pair, list) or len(pair) != 2:
                raise self.error(path, f"bad dict item {pair!r}")
            key = self.decode(pair[0], path)
            if not isinstance(key, _KEY_TYPES):
                raise self.error(path, f"bad dict key {key!r}")
            result[key] = self.decode(pair[1], f"{path}[{key!r}]")
        if "metadata" in node:
            if kind is not OrderedDict:
                raise self.error(path, "a plain dict cannot carry _metadata")
            result._metadata = self.decode(node["metadata"], f"{path}._metadata")
        return result

    def _array(self, node: dict, path: str) -> np.ndarray:
        number = node.get("array")
        if not is_int(number):
            raise self.error(path, f"bad array reference {number!r}")
        try:
            data = self.archive.read(_array_name(number))
        except KeyError:
            raise self.error(path, f"the archive lacks {_array_name(number)}") from None
        try:
            array = np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
        except ValueError as error:  # a bad header, short data, or an object array
            raise self.error(path, f"unreadable array {_array_name(number)} ({error})") from None
        if not array.flags.writeable:  # read from bytes: give tensors their own memory
            array = array.copy()
        if str(array.dtype) != node.get("dtype", str(array.dtype)) and node["type"] != "tensor":
            raise self.error(path, f"array dtype {array.dtype} differs from the manifest's "
                            f"{node.get('dtype')}")
        if list(array.shape) != node.get("shape"):
            raise self.error(path, f"array shape {list(array.shape)} differs from the manifest's "
                            f"{node.get('shape')}")
        if array.dtype.kind not in _ARRAY_KINDS:
            raise self.error(path, f"array of unsupported dtype {array.dtype}")
        return array

    def _tensor(self, node: dict, path: str) -> Tensor:
        cached = self._tensors.get(node.get("array"))
        if cached is not None:
            return cached
        array = self._array(node, path)
        try:
            dtype = dtypes.from_name(str(node.get("dtype")))
        except TypeError:
            raise self.error(path, f"unknown tensor dtype {node.get('dtype')!r}") from None
        if dtype in dtypes.CPU_ONLY and array.dtype.kind == "u" \
                and array.dtype.itemsize == dtype.itemsize:
            array = array.view(dtype.numpy)  # stored as its bits (see _savable_array)
        if array.dtype != dtype.numpy:
            raise self.error(path, f"array dtype {array.dtype} differs from the tensor's {dtype}")
        target = self.location(str(node.get("device", "cpu")))
        try:
            t = from_numpy(array).to(target)
        except DeviceError as error:
            raise DeviceError(f"load: {path} was saved on '{node.get('device')}' and cannot be "
                              f"placed on '{target}' here ({error}); pass "
                              "map_location='cpu' to load it on the CPU") from None
        if node.get("requires_grad") and t.is_floating_point():
            t.requires_grad_(True)
        self._tensors[node["array"]] = t
        return t

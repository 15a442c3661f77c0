"""``default_collate``: merge a list of samples into a batch, as PyTorch's does; and
``default_convert``: turn the NumPy arrays of one sample into tensors (no batching).

Tensors and NumPy arrays are stacked along a new first dimension, Python ints become an
int64 tensor, floats a float64 tensor, and tuples, lists and dicts are collated field by
field (tuples and lists come back as lists, a namedtuple as itself, as in PyTorch). Strings
are kept as a list.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence
from numbers import Number

import numpy as np

from ..factories import from_numpy, tensor
from ..tensor import Tensor


def default_collate(samples: Sequence):
    """Stack a list of samples (all of the same structure) into one batch.

    Raises:
        TypeError: a sample holds something that cannot be batched.
        RuntimeError: tensors of different shapes in the same field.
    """
    first = samples[0]
    if isinstance(first, Tensor):
        return _stack_tensors(samples)
    if isinstance(first, np.ndarray):
        return from_numpy(np.stack(samples))
    if isinstance(first, (bool, np.bool_)):
        return tensor(list(samples))
    if isinstance(first, (int, np.integer)):
        return tensor(np.asarray(samples, dtype=np.int64))
    if isinstance(first, (float, np.floating)):
        return tensor(np.asarray(samples, dtype=np.float64))
    if isinstance(first, str):
        return list(samples)
    if isinstance(first, Mapping):
        return {key: default_collate([s[key] for s in samples]) for key in first}
    if isinstance(first, (tuple, list)):
        sizes = {len(s) for s in samples}
        if len(sizes) != 1:
            raise RuntimeError(f"each sample in a batch must have the same number of fields, got "
                               f"sizes {sorted(sizes)}")
        fields = [default_collate(list(field)) for field in zip(*samples)]
        if hasattr(first, "_fields"):  # a namedtuple stays one, its fields batched
            return type(first)(*fields)
        return fields  # a tuple or a list comes back as a list, as in PyTorch
    kind = "number" if isinstance(first, Number) else type(first).__name__
    raise TypeError(f"default_collate: samples must hold tensors, NumPy arrays, numbers, strings, "
                    f"dicts, lists or tuples; found {kind}")


def _stack_tensors(samples: Sequence[Tensor]) -> Tensor:
    shapes = {tuple(t.shape) for t in samples}
    if len(shapes) != 1:
        raise RuntimeError(f"stack expects each tensor to be equal size, got shapes "
                           f"{sorted(shapes)} in one batch")
    device = samples[0].device
    stacked = from_numpy(np.stack([np.asarray(t) for t in samples]))
    return stacked if device.type == "cpu" else stacked.to(device)


def default_convert(data):
    """``data`` with its NumPy arrays and NumPy scalars turned into tensors (arrays share
    memory, as ``from_numpy``), looking inside dicts, lists and tuples; everything else is
    kept. As in PyTorch, a tuple comes back as a list (a namedtuple stays one), and arrays
    of strings or objects are kept.

    What ``DataLoader(batch_size=None)`` applies to each sample when there is no
    ``collate_fn``.
    """
    if isinstance(data, np.ndarray):
        return data if data.dtype.kind in "OSUV" else from_numpy(data)
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return tensor(data)
    if isinstance(data, Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        return _rebuilt_mapping(data, converted)
    if isinstance(data, tuple):
        fields = [default_convert(d) for d in data]
        return type(data)(*fields) if hasattr(data, "_fields") else fields
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _rebuilt_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuilt_mapping(data: Mapping, converted: dict):
    """``converted`` in ``data``'s own mapping type when that can be made, else a dict."""
    try:
        if isinstance(data, MutableMapping):
            clone = copy.copy(data)
            clone.update(converted)
            return clone
        return type(data)(converted)
    except TypeError:
        return converted


def _rebuilt_sequence(data: Sequence, converted: list):
    """``converted`` in ``data``'s own sequence type when that can be made, else a list."""
    try:
        if isinstance(data, MutableSequence):
            clone = copy.copy(data)
            clone[:] = converted
            return clone
        return type(data)(converted)
    except TypeError:
        return converted

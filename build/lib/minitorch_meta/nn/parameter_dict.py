"""``ParameterDict``: a dict of parameters that are registered under their keys, so that
``parameters()``, ``state_dict()``, ``to()`` and optimizers see them (a plain ``dict``
attribute is invisible to the module)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..tensor import Tensor
from .container import _describe
from .module import Module
from .parameter import Parameter


class ParameterDict(Module):
    """An ordered dict of parameters; it has no forward.

    A tensor that is not a ``Parameter`` is made one as it is stored (sharing its storage,
    requiring grad); other objects are stored as they are, as in PyTorch. Keys are strings
    (each becomes the parameter's name). ``update`` with a plain ``dict`` adds its items in
    sorted key order, with an ``OrderedDict``, a ``ParameterDict`` or pairs in their order.

    Raises:
        TypeError: a key that is not a string (before anything is stored).
        AttributeError: reading a missing key (PyTorch's type).
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key: str) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}'). Open an issue on "
                            "github if you need non-string keys.")
        return key

    # -- the mapping -------------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        # Every way of adding an entry ends here, so this is the one place that wraps
        # tensors. The key is recorded only once the attribute is set, so a refused key
        # (".", "", a method's name) leaves nothing behind.
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)
        self._keys[key] = None

    def __delitem__(self, key: str) -> None:
        attr = self._key_to_attr(key)
        del self._keys[key]
        delattr(self, attr)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterDict should not be called.")

    def keys(self):
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        """The value at ``key``, or ``default`` when it is missing."""
        return self[key] if key in self else default

    def setdefault(self, key: str, default: Any = None) -> Any:
        """The value at ``key``, first storing ``default`` there if it is missing."""
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str) -> Any:
        """Remove ``key`` and return its value."""
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last inserted ``(key, value)`` pair.

        Raises:
            KeyError: the dict is empty.
        """
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def copy(self) -> ParameterDict:
        """A new ``ParameterDict`` holding the same values (not copies), in the same order."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        """A new ``ParameterDict`` with ``keys``, each holding ``default``."""
        return ParameterDict((k, default) for k in keys)

    def update(self, parameters) -> None:
        """Add (or overwrite) entries from a mapping or an iterable of ``(key, value)``
        pairs; a plain mapping's items go in sorted key order, as in PyTorch.

        Raises:
            TypeError: ``parameters`` is not iterable, or an element is not a pair.
            ValueError: an element does not have length 2.
        """
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of "
                            "key/value pairs, but got " + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = parameters.items()
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = _checked_pairs(parameters)
        for key, value in pairs:
            self[key] = value

    def __or__(self, other: ParameterDict) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(value, _legacy_type_name)}"
                         for k, value in self.items())


def _checked_pairs(pairs: Iterable) -> Iterator[tuple]:
    """Each element of ``pairs`` as ``(key, value)``, with PyTorch's errors."""
    for j, pair in enumerate(pairs):
        if not isinstance(pair, Iterable):
            raise TypeError(f"ParameterDict update sequence element #{j} should be Iterable; "
                            f"is {type(pair).__name__}")
        if len(pair) != 2:
            raise ValueError(f"ParameterDict update sequence element #{j} has length "
                             f"{len(pair)}; 2 is required")
        yield pair[0], pair[1]


def _legacy_type_name(tensor: Tensor) -> str:
    """PyTorch's ``torch.typename`` of a tensor: ``torch.FloatTensor``, with the device type
    for other devices (``torch.cuda.FloatTensor``, ``torch.meta.FloatTensor``): its
    ``type()``."""
    return tensor.type()

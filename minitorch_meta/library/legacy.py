"""PyTorch's older operator API: ``Library(ns, kind)``, ``define`` and ``impl``.

PyTorch registers these kernels in its C++ dispatcher under dispatch keys. There is no
dispatcher here, so a key becomes the device type it stands for (``CPU``, ``CUDA``,
``Meta``), or every device type (``CompositeImplicitAutograd``, ``CompositeExplicitAutograd``,
``""``). The kernel runs with grad mode as the caller left it, so gradients flow through the
tensor ops inside it, as they do through PyTorch's composite kernels.

Refused (``NotImplementedError``), because each needs the dispatcher itself: ``Autograd*``
keys (their kernels re-enter the op below autograd; use ``register_autograd``), the other
keys (``Python``, ``Functionalize``, ``Autocast*``, ...), ``with_keyset=True``,
``fallthrough_kernel``, and ``Library`` on PyTorch's own namespaces (``aten``, ``prims``):
their operators are not registered objects here that a kernel could replace.
"""

from __future__ import annotations

from collections.abc import Callable

from .operator import operator, split_qualname
from .schema import parse_schema

#: dispatch key -> device type (None: every device type)
_KEYS = {"CPU": "cpu", "CUDA": "cuda", "Meta": "meta", "CompositeImplicitAutograd": None,
         "CompositeExplicitAutograd": None}
_BUILT_IN_NAMESPACES = ("aten", "prim", "prims", "quantized", "_quantized", "profiler")
_KINDS = ("DEF", "IMPL", "FRAGMENT")
_DEF_NAMESPACES: set = set()


class Library:
    """A handle to define (``DEF``, ``FRAGMENT``) or implement (``IMPL``) ops of ``ns``.

    Raises:
        ValueError: an unknown ``kind``.
        RuntimeError: a second ``DEF`` library of the same namespace (PyTorch's rule).
        NotImplementedError: a namespace of PyTorch's built-in operators.
    """

    def __init__(self, ns: str, kind: str, dispatch_key: str = ""):
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in _BUILT_IN_NAMESPACES:
            raise NotImplementedError(
                f"Library({ns!r}, {kind!r}): minitorch_meta's built-in ops are Python "
                "functions, not entries of a dispatcher table that a kernel could be added "
                "to or replace; define your own namespace (Library('mylib', 'DEF'))")
        from .custom_op import _check_namespace

        _check_namespace(ns)
        if kind == "DEF":
            if ns in _DEF_NAMESPACES:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace "
                    f"{ns}; please put all of your definitions in a single TORCH_LIBRARY "
                    "block. If you were trying to specify implementations, consider using "
                    "TORCH_LIBRARY_IMPL (which can be duplicated). If you really intended "
                    "to define operators for a single namespace in a distributed way, you "
                    "can use TORCH_LIBRARY_FRAGMENT to explicitly indicate this")
            _DEF_NAMESPACES.add(ns)
        if dispatch_key:
            _device_type_of(dispatch_key)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defined: list = []

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        """Declare the op ``schema`` names (``"foo(Tensor x) -> Tensor"``); returns its name.

        Raises:
            RuntimeError: the op is already defined, or the schema cannot be read.
        """
        parsed = parse_schema(schema)
        if not parsed.name:
            raise RuntimeError(f"define: the schema {schema!r} has no operator name "
                               "(write 'my_op(Tensor x) -> Tensor')")
        qualname = f"{self.ns}::{parsed.name}"
        entry = operator(qualname, create=True)
        if entry.schema is not None:
            raise RuntimeError(f"Tried to register an operator ({qualname}"
                               f"{str(parsed)[len(parsed.name):]}) with the same name and "
                               "overload name multiple times. Each overload's schema "
                               "should only be registered with a single call to def().")
        entry.schema = parsed
        self._defined.append(qualname)
        return parsed.name

    def impl(self, op_name, fn: Callable, dispatch_key: str = "", *,
             with_keyset: bool = False, allow_override: bool = True) -> None:
        """Use ``fn`` as ``op_name``'s kernel for ``dispatch_key`` (see the module's
        docstring for the keys understood).

        Raises:
            NotImplementedError: ``with_keyset=True``, or a key that needs the dispatcher.
        """
        if with_keyset:
            raise NotImplementedError("Library.impl(..., with_keyset=True): the kernel would "
                                      "receive a dispatch key set, and there is no "
                                      "dispatcher here to give one")
        name = op_name if isinstance(op_name, str) else op_name._op.name
        qualname = name if "::" in name else f"{self.ns}::{name}"
        _set_kernel(operator(qualname, create=True), dispatch_key or self.dispatch_key
                    or "CompositeImplicitAutograd", fn)

    def _destroy(self) -> None:
        """Forget the ops this library defined (PyTorch's test helper)."""
        from .operator import _LOCK, _OPERATORS

        with _LOCK:
            for qualname in self._defined:
                _OPERATORS.pop(qualname, None)
        self._defined = []
        if self.kind == "DEF":
            _DEF_NAMESPACES.discard(self.ns)


def _device_type_of(key: str):
    """The device type a dispatch key or device type name selects (None: all)."""
    if key in _KEYS:
        return _KEYS[key]
    if key in ("cpu", "cuda", "meta"):
        return key
    if key.startswith("Autograd"):
        raise NotImplementedError(
            f"dispatch key {key!r}: an autograd kernel re-enters the op below autograd "
            "through PyTorch's dispatcher, which minitorch_meta does not have; give the "
            "gradient formula to torch.library.register_autograd instead")
    raise NotImplementedError(
        f"dispatch key {key!r} is not supported: without a dispatcher, the keys understood "
        f"are {', '.join(_KEYS)} (and the device types cpu, cuda, meta)")


def _set_kernel(entry, key: str, fn: Callable) -> None:
    kind = _device_type_of(key)
    if kind is None:
        entry.default_kernel = fn
        entry.composite = key == "CompositeImplicitAutograd"
    else:
        entry.kernels[kind] = fn


def define(qualname: str, schema: str, *, lib: Library | None = None, tags=()) -> None:
    """Declare the op ``qualname`` with the schema ``"(Tensor x) -> Tensor"``."""
    namespace, name = split_qualname(qualname)
    library = lib if lib is not None else Library(namespace, "FRAGMENT")
    library.define(name + schema)


def impl(qualname: str, types, func: Callable | None = None, *, lib: Library | None = None):
    """Use ``func`` as ``qualname``'s kernel for ``types`` (device types such as ``"cpu"``
    or dispatch keys); a decorator when ``func`` is omitted."""
    split_qualname(qualname)
    names = [types] if isinstance(types, str) else list(types)
    for name in names:
        _device_type_of(name)  # refuse an unknown key before registering anything

    def inner(func: Callable) -> Callable:
        entry = operator(qualname, create=True)
        for name in names:
            _set_kernel(entry, name, func)
        return func

    return inner if func is None else inner(func)


def fallthrough_kernel(*args, **kwargs):
    """PyTorch's marker for "skip this dispatch key"; there are no keys to skip here."""
    raise NotImplementedError("fallthrough_kernel: there is no dispatcher in "
                              "minitorch_meta, so there is no dispatch key to fall through")

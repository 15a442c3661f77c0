"""Nested containers of tensors ("pytrees"), as ``torch.func`` walks them.

A tree is a leaf (anything else) or a tuple, list, dict or named tuple of trees. ``flatten``
gives its leaves in order and a ``Spec`` that ``unflatten`` rebuilds it from; the transforms
use it for arguments, outputs, cotangents and ``in_dims``/``out_dims``. ``str(spec)``
reads as PyTorch's messages print structures: ``(*, {'s': *})``.
"""

from __future__ import annotations


class Spec:
    """The shape of a tree: its container type, dict keys and child specs (none: a leaf)."""

    __slots__ = ("kind", "keys", "children")

    def __init__(self, kind=None, keys=(), children=()):
        self.kind, self.keys, self.children = kind, tuple(keys), tuple(children)

    @property
    def is_leaf(self) -> bool:
        return self.kind is None

    def __eq__(self, other) -> bool:
        return (isinstance(other, Spec) and self.kind is other.kind and self.keys == other.keys
                and self.children == other.children)

    def __hash__(self) -> int:
        return hash((self.kind, self.keys, self.children))

    def __str__(self) -> str:
        if self.is_leaf:
            return "*"
        parts = [str(c) for c in self.children]
        if issubclass(self.kind, dict):
            return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(self.keys, parts)) + "}"
        if issubclass(self.kind, list):
            return "[" + ", ".join(parts) + "]"
        if len(parts) == 1 and not _is_namedtuple(self.kind):
            return f"({parts[0]},)"
        name = self.kind.__name__ if _is_namedtuple(self.kind) else ""
        return name + "(" + ", ".join(parts) + ")"


def _is_namedtuple(kind) -> bool:
    return issubclass(kind, tuple) and hasattr(kind, "_fields")


def _is_node(tree) -> bool:
    return isinstance(tree, (tuple, list, dict))


def _children(tree) -> tuple[tuple, list]:
    """A container's keys (dicts only) and children, in order."""
    if isinstance(tree, dict):
        return tuple(tree), list(tree.values())
    return (), list(tree)


def flatten(tree) -> tuple[list, Spec]:
    """The leaves of ``tree`` in order, and its ``Spec``."""
    leaves: list = []
    return leaves, _flatten_into(tree, leaves)


def _flatten_into(tree, leaves: list) -> Spec:
    if not _is_node(tree):
        leaves.append(tree)
        return Spec()
    keys, children = _children(tree)
    return Spec(type(tree), keys, [_flatten_into(c, leaves) for c in children])


def unflatten(leaves, spec: Spec):
    """The tree of ``spec`` holding ``leaves`` in order (``flatten``'s inverse)."""
    iterator = iter(leaves)
    return _build(iterator, spec)


def _build(leaves, spec: Spec):
    if spec.is_leaf:
        return next(leaves)
    children = [_build(leaves, c) for c in spec.children]
    if issubclass(spec.kind, dict):
        built = dict(zip(spec.keys, children))
        return built if spec.kind is dict else spec.kind(built)
    if _is_namedtuple(spec.kind):
        return spec.kind(*children)
    return spec.kind(children)


def map_leaves(function, tree):
    """``tree`` with ``function`` applied to each leaf."""
    leaves, spec = flatten(tree)
    return unflatten([function(leaf) for leaf in leaves], spec)


class StructureMismatchError(ValueError):
    """A prefix tree (``in_dims``) that does not fit the tree it describes."""


def broadcast_prefix(prefix, tree) -> list:
    """One value of ``prefix`` per leaf of ``tree``: a leaf of ``prefix`` stands for the
    whole subtree at its place; containers must match in type, length and keys.

    Raises:
        StructureMismatchError: a container of ``prefix`` does not match ``tree`` there.
    """
    values: list = []
    _broadcast_into(prefix, tree, values)
    return values


def _broadcast_into(prefix, tree, values: list) -> None:
    if not _is_node(prefix):
        values.extend([prefix] * len(flatten(tree)[0]))
        return
    if not _is_node(tree) or type(prefix) is not type(tree):
        raise StructureMismatchError()
    prefix_keys, prefix_children = _children(prefix)
    keys, children = _children(tree)
    if len(prefix_children) != len(children) or set(prefix_keys) != set(keys):
        raise StructureMismatchError()
    if keys:
        prefix_children = [prefix[key] for key in keys]
    for p, child in zip(prefix_children, children):
        _broadcast_into(p, child, values)

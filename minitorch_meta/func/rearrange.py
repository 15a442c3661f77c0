"""``torch.func.rearrange``: einops' ``rearrange`` pattern language over reshape and permute.

A pattern ``"b (h h1) w c -> b h (w h1 c)"`` names the input's dims on the left and the
output's on the right. A name is one axis; ``(h h1)`` is one dim made of several axes
(one level of brackets); ``...`` stands for the dims the other names leave, once per side;
``1`` and ``()`` are a dim of size 1. Every name appears on both sides, and the lengths the
input's shape leaves open are given as keywords (``h1=2``). The result is
``x.reshape(axes).permute(order).reshape(output)``, a view where the strides allow, so
gradients and meta tensors work as for those ops. A list or tuple of tensors is stacked
first (the new dim 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..int_arguments import is_int
from ..tensor import Tensor

_ELLIPSIS = "…"  # the ellipsis as one identifier, as einops (and its error messages) name it


class DimensionBindError(Exception):
    """The axis lengths of a pattern do not fit the input's shape (functorch's error
    type, from ``functorch.dim``)."""


@dataclass
class _Side:
    """One side of a pattern: per dim, the names of its axes (``"1"`` for a unit axis,
    ``_ELLIPSIS`` for the ellipsis), and whether the dim was written in brackets."""

    dims: list = field(default_factory=list)
    bracketed: list = field(default_factory=list)

    def names(self) -> list:
        return [name for dim in self.dims for name in dim if name != "1"]


def rearrange(tensor, pattern: str, **axes_lengths) -> Tensor:
    """``tensor`` (or the stack of a list or tuple of tensors) rearranged as ``pattern``
    says (see the module's docstring).

    Shape:
        the left side names the input's dims, the right side the output's.

    Raises:
        ValueError: a malformed pattern (PyTorch's messages), or one whose left side does
            not have the input's number of dims.
        DimensionBindError: the axis lengths do not fit the input's shape.
    """
    left, right = _parse_pattern(pattern)
    _check_names(pattern, left, right, axes_lengths)
    x = _as_tensor(tensor)
    left_dims = _expand_ellipsis(left, x.dim())
    lengths = _bind(left_dims, tuple(x.shape), _lengths(axes_lengths))
    axes = [name for dim in left_dims for name in dim if name != "1"]
    right_dims = _right_dims(right, [name for name in axes if name.startswith(_ELLIPSIS)])
    wanted = [name for dim in right_dims for name in dim if name != "1"]
    x = x.reshape([lengths[name] for name in axes])
    x = x.permute([axes.index(name) for name in wanted])
    return x.reshape([math.prod(lengths.get(name, 1) for name in dim) for dim in right_dims])


# -- the pattern ---------------------------------------------------------------------------
def _parse_pattern(pattern: str) -> tuple:
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError("Pattern must contain a single '->' separator")
    left_text, right_text = pattern.split("->")
    left, right = _parse_side(left_text), _parse_side(right_text)
    left_has, right_has = (_ELLIPSIS in side.names() for side in (left, right))
    if right_has and not left_has:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern "
                         f"{pattern}")
    if left_has and any(_ELLIPSIS in dim for dim, bracketed in
                        zip(left.dims, left.bracketed) if bracketed):
        raise ValueError(f"Ellipsis is parenthesis in the left side is not allowed: {pattern}")
    return left, right


def _parse_side(text: str) -> _Side:
    """The dims of one side of a pattern; raises einops' ValueErrors for bad syntax."""
    if "." in text.replace("...", ""):
        raise ValueError("Expression may contain dots only inside ellipsis (...)")
    if text.count("...") > 1:
        raise ValueError("Expression may contain dots only inside ellipsis (...); only one "
                         "ellipsis for tensor ")
    side, group, token = _Side(), None, ""
    for char in text.replace("...", _ELLIPSIS) + " ":
        if char.isalnum() or char == "_":
            token += char
            continue
        if token:
            _add(side, group, _axis_name(token))
            token = ""
        if char == _ELLIPSIS:
            _add(side, group, _ELLIPSIS)
        elif char == "(":
            if group is not None:
                raise ValueError("Axis composition is one-level (brackets inside brackets not "
                                 "allowed)")
            group = []
        elif char == ")":
            if group is None:
                raise ValueError("Brackets are not balanced")
            side.dims.append(group)
            side.bracketed.append(True)
            group = None
        elif not char.isspace():
            raise ValueError(f"Unknown character '{char}'")
    if group is not None:
        raise ValueError(f"Imbalanced parentheses in expression: '{text}'")
    names = side.names()
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"Indexing expression contains duplicate dimension '{name}'")
    return side


def _add(side: _Side, group, name: str) -> None:
    if group is None:
        side.dims.append([name])
        side.bracketed.append(False)
    else:
        group.append(name)


def _axis_name(token: str) -> str:
    if token.isdecimal():
        if token != "1":
            raise ValueError("rearrange only supports unnamed axes of size 1")
        return token
    if not token.isidentifier() or token.startswith("_") or token.endswith("_"):
        raise ValueError(f"Invalid axis identifier: {token}\naxis name should should not start "
                         "or end with underscore")
    return token


def _check_names(pattern: str, left: _Side, right: _Side, axes_lengths: dict) -> None:
    one_side = set(left.names()) ^ set(right.names())
    if one_side:
        raise ValueError(f"Identifiers only on one side of rearrange expression (should be on "
                         f"both): {_set(one_side)}")
    unknown = set(axes_lengths) - set(left.names())
    if unknown:
        raise ValueError(f"Identifiers not found in rearrange expression: {_set(unknown)}")


def _set(names) -> str:
    return "{" + ", ".join(repr(n) for n in sorted(names)) + "}"


# -- binding the lengths ----------------------------------------------------------------------
def _as_tensor(tensor) -> Tensor:
    if isinstance(tensor, Tensor):
        return tensor
    if isinstance(tensor, (list, tuple)):
        from ..functions import stack

        return stack(list(tensor))
    raise TypeError(f"rearrange(): expected a Tensor or a list or tuple of Tensors, got "
                    f"{type(tensor).__name__}")


def _expand_ellipsis(left: _Side, ndim: int) -> list:
    """The left side's dims with the ellipsis replaced by one axis per dim it covers."""
    named = [dim for dim in left.dims if dim != [_ELLIPSIS]]
    if len(named) == len(left.dims):
        if len(named) != ndim:
            raise ValueError(f"Number of dimensions in pattern ({len(named)}) must be equal to "
                             f"the number of dimensions in the tensor ({ndim})")
        return left.dims
    if len(named) > ndim:
        raise ValueError(f"Number of dimensions in pattern ({len(named)}) must be less than or "
                         f"equal to the number of dimensions in the tensor ({ndim})")
    at = left.dims.index([_ELLIPSIS])
    covered = [[f"{_ELLIPSIS}{i}"] for i in range(ndim - len(named))]
    return left.dims[:at] + covered + left.dims[at + 1:]


def _right_dims(right: _Side, covered: list) -> list:
    """The right side's dims with the ellipsis as the axes it ``covered`` on the left: a
    dim each, or one dim of them all in brackets (``(...)``)."""
    dims = []
    for dim, bracketed in zip(right.dims, right.bracketed):
        if _ELLIPSIS not in dim:
            dims.append(dim)
        elif bracketed:
            at = dim.index(_ELLIPSIS)
            dims.append(dim[:at] + covered + dim[at + 1:])
        else:
            dims.extend([name] for name in covered)
    return dims


def _lengths(axes_lengths: dict) -> dict:
    lengths = {}
    for name, value in axes_lengths.items():
        if not is_int(value):
            raise TypeError(f"rearrange axis lengths must be integers, got: {type(value)} "
                            f"(axis '{name}' = {value!r})")
        if value < 0:
            raise RuntimeError(f"rearrange(): the length of axis '{name}' must not be "
                               f"negative, got {value}")
        lengths[name] = int(value)
    return lengths


def _bind(left_dims: list, shape: tuple, given: dict) -> dict:
    """The length of every axis: given, or the one unknown axis of a dim inferred from its
    size (``shape``)."""
    lengths = {}
    for dim, size in zip(left_dims, shape):
        unknown = [name for name in dim if name != "1" and name not in given]
        known = math.prod(1 if name == "1" else given[name] for name in dim if name not in unknown)
        if len(unknown) > 1:
            raise DimensionBindError(f"cannot infer the sizes of two dimensions at once "
                                     f"{unknown[0]} and {unknown[1]}; give one of them as a "
                                     f"keyword, e.g. {unknown[0]}=...")
        if unknown:
            if known == 0:
                raise ZeroDivisionError(f"rearrange(): cannot infer the length of axis "
                                        f"'{unknown[0]}' next to axes of length 0")
            if size % known:
                shown = ", ".join([str(given[n]) for n in dim if n in given] + ["'?'"])
                raise DimensionBindError(f"inferred dimension does not evenly fit into larger "
                                         f"dimension: {size} vs ({shown})")
            lengths[unknown[0]] = size // known
        elif known != size:
            raise DimensionBindError(f"Dimension sizes to do not match ({size} != {known}) when "
                                     f"matching dimension pack ({', '.join(dim)})")
        lengths.update((name, given[name]) for name in dim if name in given)
    return lengths


__all__ = ["DimensionBindError", "rearrange"]

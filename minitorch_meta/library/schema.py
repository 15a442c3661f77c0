"""Operator schemas: ``"(Tensor x, *, float a=1.0) -> Tensor"``, parsed, inferred and bound.

A schema is the contract of a custom op: its arguments (type, default, keyword-only,
mutated) and its returns. ``infer_schema`` writes it from a Python function's annotations
(PyTorch's ``torch.library.infer_schema``), ``parse_schema`` reads the text that
``Library.define`` and ``custom_op(..., schema=...)`` are given, and ``Schema.bind`` checks
one call's arguments against it with PyTorch's messages.

There is no symbolic shape here, so ``SymInt`` is ``int`` (the name is kept in the text,
as PyTorch writes it).
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass

_UNSET = object()


@dataclass(frozen=True)
class Argument:
    """One argument of a schema: ``type`` is the schema's spelling (``"Tensor?"``)."""

    name: str
    type: str
    default: object = _UNSET
    kwarg_only: bool = False
    alias: str = ""  # "a0!" when the op writes into it

    @property
    def has_default(self) -> bool:
        return self.default is not _UNSET

    @property
    def is_mutable(self) -> bool:
        return self.alias.endswith("!")

    def __str__(self) -> str:
        kind = self.type
        if self.alias:  # the alias annotation sits after "Tensor", before "[]"/"?"
            kind = f"Tensor({self.alias}){self.type[len('Tensor'):]}"
        text = f"{kind} {self.name}"
        return text if not self.has_default else f"{text}={_default_text(self.default)}"


@dataclass(frozen=True)
class Schema:
    """``name(arguments) -> returns``; ``name`` is empty for an inferred schema."""

    name: str
    arguments: tuple
    returns: tuple  # type strings

    def __str__(self) -> str:
        parts, star = [], False
        for argument in self.arguments:
            if argument.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(str(argument))
        if len(self.returns) == 1:
            returns = self.returns[0]
        else:
            returns = f"({', '.join(self.returns)})"
        return f"{self.name}({', '.join(parts)}) -> {returns}"

    def bind(self, qualname: str, args: tuple, kwargs: dict) -> list:
        """The call's values in the schema's order, defaults filled in.

        Raises:
            RuntimeError: too many or too few arguments, an unknown keyword, or a value
                of the wrong type (PyTorch's messages).
        """
        declaration = f"Declaration: {qualname}{str(self)[len(self.name):]}"
        positional = [a for a in self.arguments if not a.kwarg_only]
        if len(args) > len(positional):
            raise RuntimeError(f"{qualname}() expected at most {len(positional)} "
                               f"argument(s) but received {len(args)} argument(s). "
                               f"{declaration}")
        names = {a.name for a in self.arguments}
        for key in kwargs:
            if key not in names:
                raise RuntimeError(f"Unknown keyword argument '{key}' for operator "
                                   f"'{qualname}'. Schema: {qualname}"
                                   f"{str(self)[len(self.name):]}")
        values = []
        for position, argument in enumerate(self.arguments):
            if position < len(args):
                if argument.name in kwargs:
                    raise RuntimeError(f"{qualname}() got multiple values for argument "
                                       f"'{argument.name}'. {declaration}")
                value = args[position]
            elif argument.name in kwargs:
                value = kwargs[argument.name]
            elif argument.has_default:
                value = argument.default
            else:
                raise RuntimeError(f"{qualname}() is missing value for argument "
                                   f"'{argument.name}'. {declaration}")
            _check_value(qualname, argument, position, value, declaration)
            values.append(value)
        return values


# -- reading annotations (infer_schema) ------------------------------------------------------

def _python_types() -> dict:
    """Python annotation -> schema type, PyTorch's table (built on first use: it needs
    the Tensor class)."""
    from ..device import device
    from ..dtypes import dtype
    from ..tensor import Tensor

    table = {Tensor: "Tensor", int: "SymInt", float: "float", bool: "bool", str: "str",
             dtype: "ScalarType", device: "Device", int | float | bool: "Scalar"}
    for python, name in list(table.items()):
        if name not in ("str",):
            table[python | None] = f"{name}?"
        if name in ("Tensor", "SymInt", "float", "bool", "Scalar"):
            for sequence in (list, Sequence, typing.List, typing.Sequence):  # noqa: UP006
                table[sequence[python]] = f"{name}[]"
                if name != "Tensor":
                    table[sequence[python] | None] = f"{name}[]?"
    for sequence in (list, Sequence, typing.List, typing.Sequence):  # noqa: UP006
        table[sequence[Tensor | None]] = "Tensor?[]"
    return table


def _normalise(annotation):
    """``typing.Optional[X]``/``typing.Union`` spelled as ``X | None`` so the table finds it."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        members = [_normalise(a) for a in typing.get_args(annotation)]
        result = members[0]
        for member in members[1:]:
            result = result | member
        return result
    return annotation


def _schema_type(annotation) -> str | None:
    table = _python_types()
    for candidate in (annotation, _normalise(annotation)):
        try:
            if candidate in table:
                return table[candidate]
        except TypeError:  # an unhashable annotation
            return None
    return None


def _return_types(annotation, fail) -> tuple:
    if annotation is None or annotation is type(None):
        return ()
    if typing.get_origin(annotation) is tuple:
        return tuple(_one_return(a, fail) for a in typing.get_args(annotation))
    return (_one_return(annotation, fail),)


def _one_return(annotation, fail) -> str:
    kind = _schema_type(annotation)
    if kind not in ("Tensor", "Tensor[]", "SymInt", "float", "bool", "Scalar"):
        fail(f"Return has unsupported type {annotation}. The valid types are: Tensor, "
             "list[Tensor], int, float, bool, Number and tuples of them.")
    return kind


def infer_schema(prototype_function, /, *, mutates_args, op_name: str | None = None,
                 tags=()) -> str:
    """The schema of ``prototype_function`` from its type annotations (PyTorch's
    ``torch.library.infer_schema``); ``mutates_args`` names the arguments it writes into,
    or is ``"unknown"``.

    Raises:
        ValueError: an argument without an annotation or of a type a schema cannot
            hold, varargs, no return annotation, or a mutated name that is not an argument.
    """
    signature = inspect.signature(prototype_function, eval_str=True)

    def fail(what: str):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {signature})")

    mutated = _mutated_names(mutates_args, signature, fail)
    arguments = []
    for index, (name, parameter) in enumerate(signature.parameters.items()):
        if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            fail("We do not support positional-only args, varargs, or varkwargs.")
        if parameter.annotation is inspect.Parameter.empty:
            fail(f"Parameter {name} must have a type annotation.")
        kind = _schema_type(parameter.annotation)
        if kind is None:
            fail(f"Parameter {name} has unsupported type {parameter.annotation}. The valid "
                 "types are: Tensor, int, float, bool, str, Number, torch.dtype, "
                 "torch.device, their Optional forms and lists of Tensor, int, float, bool "
                 "and Number.")
        default = parameter.default
        if default is inspect.Parameter.empty:
            default = _UNSET
        elif default is not None and not isinstance(default, (int, float, bool, str)) \
                and kind not in ("ScalarType", "ScalarType?", "Device", "Device?"):
            fail(f"Parameter {name} has an unsupported default value type {type(default)}.")
        alias = ""
        if name in mutated or mutates_args == "unknown" and kind.startswith("Tensor"):
            if not kind.startswith("Tensor"):
                fail(f"Parameter {name} is in mutable_args but only Tensors or collections "
                     "of Tensors can be mutated")
            alias = f"a{index}!"
        arguments.append(Argument(name, kind, default,
                                  parameter.kind == parameter.KEYWORD_ONLY, alias))
    if signature.return_annotation is inspect.Signature.empty:
        fail("No return type annotation was provided. Please add one.")
    schema = Schema(op_name or "", tuple(arguments),
                    _return_types(signature.return_annotation, fail))
    return str(schema)


def _mutated_names(mutates_args, signature, fail) -> set:
    if mutates_args == "unknown":
        return set()
    if isinstance(mutates_args, str) or not isinstance(mutates_args, typing.Iterable):
        raise ValueError("mutates_args must be a tuple/list/set of argument names or the "
                         f"string 'unknown', got {mutates_args!r}")
    names = set(mutates_args)
    missing = names - set(signature.parameters)
    if missing:
        fail(f"{missing} in mutates_args were not found in the custom op's signature. "
             "mutates_args should contain the names of all args that the custom op "
             "mutates, or just the string 'unknown' if you don't know.")
    return names


# -- reading text (parse_schema) -------------------------------------------------------------

_BASE_TYPES = ("Tensor", "SymInt", "int", "float", "bool", "str", "Scalar", "ScalarType",
               "Device", "Layout", "MemoryFormat", "Generator")
_ARGUMENT = re.compile(r"^(?P<base>\w+)(?:\((?P<alias>[\w!]+)\))?(?P<list>\[\d*\])?"
                       r"(?P<optional>\?)?\s+(?P<name>\w+)(?:\s*=\s*(?P<default>.+))?$")


def parse_schema(text: str) -> Schema:
    """Read ``"name(Tensor x, *, float a=1.0) -> Tensor"`` (the name may be empty).

    Raises:
        RuntimeError: text that is not a schema, naming the piece that is wrong.
    """
    match = re.fullmatch(r"\s*([\w.:]*)\s*\((.*)\)\s*->\s*(.+?)\s*", text, re.S)
    if match is None:
        raise RuntimeError(f"expected a schema like 'name(Tensor x) -> Tensor' but got "
                           f"{text!r}")
    name, body, returns = match.groups()
    arguments, kwarg_only = [], False
    for piece in _split_top_level(body):
        if piece == "*":
            kwarg_only = True
            continue
        arguments.append(_parse_argument(piece, kwarg_only, text))
    return Schema(name, tuple(arguments), _parse_returns(returns, text))


def _split_top_level(body: str) -> list:
    pieces, depth, current = [], 0, ""
    for char in body:
        depth += char in "([" and 1 or (-1 if char in ")]" else 0)
        if char == "," and depth == 0:
            pieces.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        pieces.append(current.strip())
    return pieces


def _parse_argument(piece: str, kwarg_only: bool, text: str) -> Argument:
    match = _ARGUMENT.match(piece)
    if match is None or match["base"] not in _BASE_TYPES:
        raise RuntimeError(f"cannot read the argument {piece!r} of schema {text!r}: "
                           f"expected '<type> <name>[=<default>]' with a type among "
                           f"{', '.join(_BASE_TYPES)}")
    kind = match["base"] + ("[]" if match["list"] else "") + (match["optional"] or "")
    default = _UNSET if match["default"] is None else _parse_default(match["default"], kind)
    return Argument(match["name"], kind, default, kwarg_only, match["alias"] or "")


def _parse_returns(returns: str, text: str) -> tuple:
    returns = returns.strip()
    if returns.startswith("(") and returns.endswith(")"):
        pieces = _split_top_level(returns[1:-1])
    else:
        pieces = [returns]
    result = []
    for piece in pieces:
        match = re.fullmatch(r"(\w+)(?:\([\w!]+\))?(\[\])?(?:\s+\w+)?", piece.strip())
        if match is None or match[1] not in _BASE_TYPES:
            raise RuntimeError(f"cannot read the return {piece!r} of schema {text!r}")
        result.append(match[1] + (match[2] or ""))
    return tuple(result)


def _parse_default(text: str, kind: str):
    from .. import dtypes

    text = text.strip()
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text[:1] in "\"'" and text[-1:] == text[:1]:
        return text[1:-1]
    if text.startswith("["):
        return [_parse_default(p, kind.replace("[]", "")) for p in _split_top_level(text[1:-1])]
    if kind.startswith("ScalarType"):
        return getattr(dtypes, text)
    number = float(text)
    return int(number) if re.fullmatch(r"-?\d+", text) else number


def _default_text(value) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return f"[{', '.join(_default_text(v) for v in value)}]"
    text = str(value)
    return text[len("torch."):] if text.startswith("torch.") else text


# -- checking values -------------------------------------------------------------------------

def _check_value(qualname: str, argument: Argument, position: int, value,
                 declaration: str) -> None:
    """Raise PyTorch's RuntimeError when ``value`` cannot be ``argument``'s type."""
    kind = argument.type
    if value is None and kind.endswith("?"):
        return
    base = kind.rstrip("?")
    if base.endswith("[]"):
        element = base[:-2] + ("?" if base.startswith("Tensor?") else "")
        element = element.replace("Tensor??", "Tensor?")
        if isinstance(value, (list, tuple)) and all(_fits(element, v) for v in value):
            return
        if element in ("SymInt", "int") and _fits(element, value):  # int[] takes one int
            return
    elif _fits(base, value):
        return
    expected = {"SymInt": "int"}.get(base, base)
    raise RuntimeError(
        f"{qualname}() Expected a value of type '{expected}' for argument "
        f"'{argument.name}' but instead found type '{type(value).__name__}'.\n"
        f"Position: {position}\nValue: {value!r}\n{declaration}")


def _fits(kind: str, value) -> bool:
    from ..device import device
    from ..dtypes import dtype
    from ..tensor import Tensor

    if kind.endswith("?"):
        return value is None or _fits(kind[:-1], value)
    checks = {
        "Tensor": lambda v: isinstance(v, Tensor),
        "SymInt": lambda v: isinstance(v, int) and not isinstance(v, bool) or _int_like(v),
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool) or _int_like(v),
        "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "bool": lambda v: isinstance(v, bool),
        "str": lambda v: isinstance(v, str),
        "Scalar": lambda v: isinstance(v, (int, float, bool, complex)),
        "ScalarType": lambda v: isinstance(v, dtype),
        "Device": lambda v: isinstance(v, (device, str, int)),
    }
    return checks.get(kind, lambda v: True)(value)


def _int_like(value) -> bool:
    # NumPy integers and 0-d integer tensors pass where PyTorch takes an int
    return hasattr(value, "__index__") and not isinstance(value, (bool, float))

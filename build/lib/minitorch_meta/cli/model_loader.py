"""Build a model from a command-line spec: a built-in name, ``file.py:Class`` or
``package.module:Class``, with optional constructor arguments ``Class(3, hidden=64)``."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys


class ModelSpecError(ValueError):
    """The model spec cannot be resolved or built; the message says why."""


def build_model(spec: str, builtins: dict | None = None, **factory_kwargs):
    """The model ``spec`` names, constructed (``factory_kwargs`` go to built-in models)."""
    builtins = builtins or {}
    if spec in builtins:
        return builtins[spec](**factory_kwargs)
    target, args, kwargs = _parse(spec, builtins)
    cls = _resolve(target)
    try:
        return cls(*args, **kwargs)
    except Exception as error:
        raise ModelSpecError(f"could not build the model {spec!r}: {type(error).__name__}: "
                             f"{error}") from error


def _parse(spec: str, builtins: dict):
    if ":" not in spec:
        raise ModelSpecError(f"unknown model {spec!r}: expected a built-in name "
                             f"({', '.join(sorted(builtins)) or 'none'}), or "
                             "'path/to/file.py:ClassName' or 'package.module:ClassName'")
    location, _, call = spec.rpartition(":")
    name, args, kwargs = call, (), {}
    if "(" in call:
        if not call.endswith(")"):
            raise ModelSpecError(f"malformed constructor call {call!r} in {spec!r}")
        name = call[:call.index("(")]
        args, kwargs = _literal_arguments(call, spec)
    if not name.isidentifier():
        raise ModelSpecError(f"{name!r} in {spec!r} is not a class name")
    return (location, name), args, kwargs


def _literal_arguments(call: str, spec: str):
    try:
        node = ast.parse(call, mode="eval").body
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    except (SyntaxError, ValueError) as error:
        raise ModelSpecError(f"constructor arguments in {spec!r} must be Python literals "
                             f"(numbers, strings, tuples...): {error}") from None
    return args, kwargs


def _resolve(target):
    location, name = target
    if location.endswith(".py") or os.sep in location:
        module = _load_file(location)
    else:
        try:
            module = importlib.import_module(location)
        except ImportError as error:
            raise ModelSpecError(f"cannot import module {location!r}: {error}") from None
    try:
        return getattr(module, name)
    except AttributeError:
        available = sorted(n for n in dir(module) if n[:1].isupper())
        raise ModelSpecError(f"{location!r} has no class {name!r}; classes found there: "
                             f"{', '.join(available) or 'none'}") from None


def _load_file(path: str):
    if not os.path.isfile(path):
        raise ModelSpecError(f"model file {path!r} does not exist")
    module_name = f"_minitorch_user_model_{abs(hash(os.path.abspath(path)))}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[module_name]
        raise ModelSpecError(f"error while importing {path!r}: {type(error).__name__}: "
                             f"{error}") from error
    return module

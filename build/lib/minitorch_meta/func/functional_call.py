"""``functional_call``: run a module with given tensors in place of its parameters and
buffers, as ``torch.func.functional_call``.

The given tensors are put into the module's registries (``_parameters``/``_buffers``, or
as plain attributes for other names) for the call only and the originals are put back in
``finally``, so they return even when ``forward`` raises. The module's ops then read the
given tensors, so gradients flow to them and not to the module's own parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager

_MISSING = object()  # a name the module did not have before the call


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a
    dict of dotted names, or a tuple/list of such dicts) standing in for the module's own.

    Names not given keep the module's tensors. ``tie_weights``: a tensor the module holds
    under several names (shared weights) takes the value given for any of them.
    ``strict``: every parameter and buffer must be given, and nothing else.

    Raises:
        ValueError: not a dict or a sequence of dicts, a name in two dicts, or two
            different values for tied names.
        RuntimeError: ``strict`` and missing or unexpected names.
    """
    return call_with_tensors(module, _merged(parameter_and_buffer_dicts), args, kwargs,
                             tie_weights=tie_weights, strict=strict)


def _merged(parameter_and_buffer_dicts) -> dict:
    """One dict of the given dicts, refusing a name given twice (which would win is
    ambiguous)."""
    if isinstance(parameter_and_buffer_dicts, dict):
        return parameter_and_buffer_dicts
    if not isinstance(parameter_and_buffer_dicts, Sequence):
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                         f"of dicts, but got {type(parameter_and_buffer_dicts)}")
    if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                         "dictionaries")
    merged, repeated = {}, []
    for tensors in parameter_and_buffer_dicts:
        for name, value in tensors.items():
            if name in merged and name not in repeated:
                repeated.append(name)
            merged[name] = value
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                         "functional call is ambiguous")
    return merged


def call_with_tensors(module, tensors: dict, args=None, kwargs=None, *,
                      tie_weights: bool = True, strict: bool = False):
    """Call ``module`` with ``tensors`` (one dict) swapped in; shared by ``torch.func`` and
    the deprecated ``nn.utils.stateless`` spelling."""
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    kwargs = {} if kwargs is None else kwargs
    given = _untied(module, tensors) if tie_weights else tensors
    if strict:
        _check_names(module, given)
    with _swapped(module, given, write_back=tensors):
        return module(*args, **kwargs)


def _named_tensors(module) -> list:
    """Every (name, tensor) of the module's parameters and buffers, shared ones under each
    of their names."""
    return (list(module.named_parameters(remove_duplicate=False))
            + list(module.named_buffers(remove_duplicate=False)))


def _untied(module, tensors: dict) -> dict:
    """``tensors`` with each tied name (one tensor held under several names) given the
    value passed for any of its names."""
    names_of = {}  # id(tensor) -> the names the module holds it under
    for name, tensor in _named_tensors(module):
        names_of.setdefault(id(tensor), set()).add(name)
    groups = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    untied = dict(tensors)
    for name in [n for n in tensors if n in groups]:
        tied = groups[name]
        values = {id(tensors[n]) for n in tied if n in tensors}
        if len(values) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied)}, "
                             "which are tied. Consider using tie_weights=False")
        untied.update(dict.fromkeys(tied, tensors[name]))
    return untied


def _check_names(module, tensors: dict) -> None:
    valid = {name for name, _ in _named_tensors(module)}
    missing, unexpected = sorted(valid - set(tensors)), sorted(set(tensors) - valid)
    messages = []
    if unexpected:
        messages.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        messages.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if messages:
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t"
                           + "\n\t".join(messages))


@contextmanager
def _swapped(module, tensors: dict, write_back: dict):
    """Put ``tensors`` into ``module`` for the block; put the originals back after it,
    last swapped first. A name the module re-assigned during the call (``self.x = ...``)
    has its new value written into ``write_back``, as PyTorch does."""
    originals = []
    try:
        for name, value in tensors.items():
            originals.append((name, _swap(module, name, value)))
        yield
    finally:
        for name, original in reversed(originals):
            current = _swap(module, name, original)
            if name in write_back:
                write_back[name] = current


def _swap(module, dotted_name: str, value):
    """Set ``module.<dotted_name>`` to ``value`` (``_MISSING`` removes it); return the old
    value (``_MISSING`` if there was none)."""
    from ..tensor import Tensor

    prefix, _, name = dotted_name.rpartition(".")
    owner = _submodule(module, prefix)
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    for registry in (owner._parameters, owner._buffers):
        if name in registry:
            original = registry[name]
            if value is _MISSING:
                del registry[name]
            else:
                registry[name] = value
            return original
    original = getattr(owner, name, _MISSING)
    if original is not _MISSING and original is not None and not isinstance(original, Tensor):
        raise TypeError(f"attribute `{name}`: {original} is not an instance of torch.Tensor")
    if value is not _MISSING:
        setattr(owner, name, value)
    elif original is not _MISSING:
        delattr(owner, name)
    return original


def _submodule(module, dotted_path: str):
    from ..nn.module import Module

    for name in dotted_path.split(".") if dotted_path else ():
        child = getattr(module, name, _MISSING)
        if child is _MISSING:
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if not isinstance(child, Module):
            raise TypeError(f"submodule `{dotted_path}`: {child} is not an instance of "
                            "torch.nn.Module")
        module = child
    return module

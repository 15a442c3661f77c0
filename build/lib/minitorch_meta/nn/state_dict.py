"""``state_dict`` and ``load_state_dict``: a module's tensors by dotted name, and back.

The walk and the report follow PyTorch: parameters, then persistent buffers, then children
with ``prefix + name + '.'``; loading reports missing, unexpected and mis-shaped keys by
name, and returns the missing and unexpected keys as a named tuple.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..autograd import no_grad
from ..tensor import Tensor
from .parameter import Parameter, is_lazy


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` could not match: ``(missing_keys, unexpected_keys)``."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def local_state(module) -> dict:
    """The module's own parameters and persistent buffers (no children), None left out."""
    state = {k: v for k, v in module._parameters.items() if v is not None}
    state.update((k, v) for k, v in module._buffers.items()
                 if v is not None and k not in module._non_persistent_buffers_set)
    return state


def save(module, destination: OrderedDict, prefix: str, keep_vars: bool) -> OrderedDict:
    """Fill ``destination`` with ``module``'s state and its children's, recursively."""
    for name, value in local_state(module).items():
        keep = keep_vars or is_lazy(value)  # a placeholder is kept as is, as in PyTorch
        destination[prefix + name] = value if keep else value.detach()
    for name, child in module._modules.items():
        if child is not None:
            save(child, destination, prefix + name + ".", keep_vars)
    return destination


def load(root, state_dict, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
    """Copy ``state_dict``'s tensors into ``root``'s parameters and buffers.

    Raises:
        TypeError: ``state_dict`` is not a mapping.
        RuntimeError: listing every missing (strict), unexpected (strict) and mis-shaped key.
    """
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing, unexpected, errors = [], [], []

    def walk(module, prefix):
        module._load_from_state_dict(state_dict, prefix, {"assign_to_params_buffers": assign},
                                     True, missing, unexpected, errors)
        for name, child in module._modules.items():
            if child is not None:
                walk(child, prefix + name + ".")

    walk(root, "")
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected)))
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing)))
    if errors:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            type(root).__name__, "\n\t".join(errors)))
    return _IncompatibleKeys(missing, unexpected)


def load_local(module, state_dict, prefix: str, assign: bool, strict: bool, missing: list,
               unexpected: list, errors: list) -> None:
    """Load one module's own tensors; record what is missing, unexpected or mis-shaped."""
    own = local_state(module)
    for name, target in own.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing.append(key)
            continue
        source = state_dict[key]
        if not isinstance(source, Tensor):
            errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                          f"Tensor-like object from checkpoint but received {type(source)}")
            continue
        if is_lazy(source) and is_lazy(target):
            continue  # a placeholder onto a placeholder: nothing to copy, as in PyTorch
        if is_lazy(source):
            errors.append(f'While copying the parameter named "{key}", the checkpoint holds an '
                          "uninitialized parameter; call the lazy model that saved it once "
                          "before saving")
            continue
        if is_lazy(target):
            target.materialize(tuple(source.shape))
        if tuple(source.shape) != tuple(target.shape):
            errors.append(f"size mismatch for {key}: copying a param with shape {source.shape} "
                          f"from checkpoint, the shape in current model is {target.shape}.")
            continue
        _copy_into(module, name, target, source, assign, key, errors)
    if strict:
        for key in state_dict:
            if not key.startswith(prefix):
                continue
            head, dot, _ = key[len(prefix):].partition(".")
            if (dot and head not in module._modules) or (not dot and head not in own):
                unexpected.append(key)


def _copy_into(module, name, target, source, assign, key, errors) -> None:
    try:
        if assign:
            if isinstance(target, Parameter):
                value = Parameter(source.detach(), requires_grad=target.requires_grad)
                module._parameters[name] = value
            else:
                module._buffers[name] = source.detach()
        else:
            with no_grad():
                target.copy_(source)
    except (RuntimeError, TypeError, ValueError) as error:
        errors.append(f'While copying the parameter named "{key}", whose dimensions in the model '
                      f"are {target.shape} and whose dimensions in the checkpoint are "
                      f"{source.shape}, an exception occurred : {error.args}.")

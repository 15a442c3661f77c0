"""``Module``: the base class of every layer and model, with PyTorch's semantics.

State lives in three ordered registries filled by ``__setattr__``: ``_parameters``,
``_buffers`` and ``_modules``. Only what is assigned as an attribute (or added with
``register_parameter``, ``register_buffer``, ``add_module``, or held by ``ModuleList`` /
``ModuleDict`` / ``Sequential``) is seen: a ``Parameter`` or ``Module`` kept in a plain
``dict`` or ``list`` attribute is invisible to ``parameters()``, ``to()``, ``state_dict()``
and optimizers — wrap such collections in ``ModuleList``/``ModuleDict`` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..autograd import no_grad
from ..errors import MetaDataError, ShapeError
from ..factories import empty
from ..hooks import HookDict, RemovableHandle, add_hook
from ..tensor import Tensor, _parse_to
from . import legacy_backward_hooks as _legacy
from . import shape_errors
from . import state_dict as _state
from .global_hooks import GLOBAL_MODULE_HOOKS as _GLOBAL
from .global_hooks import registered as _registered
from .module_call import call_with_hooks
from .parameter import Buffer, Parameter, is_lazy

_GLOBAL_CALL_HOOKS = _GLOBAL.call  # one emptiness test per call for every global hook


def _typename(value) -> str:
    return type(value).__qualname__


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _check_name(kind: str, name, module, registry: dict) -> None:
    """Raise PyTorch's errors for an unusable member name."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\", got: {name}")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"")
    if hasattr(module, name) and name not in registry:
        raise KeyError(f"attribute '{name}' already exists")


#: a module's hook registries, each a ``HookDict`` (handle id -> hook)
_HOOK_REGISTRIES = ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                    "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                    "_backward_hooks", "_backward_pre_hooks",
                    "_state_dict_pre_hooks", "_state_dict_hooks",
                    "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks")


class Module:
    """Base class of layers and models: subclass it, assign layers in ``__init__``, define
    ``forward``, and call the instance.

    Raises:
        NotImplementedError: a subclass did not define ``forward``.
    """

    training: bool
    _version = 1
    #: whether ``_backward_hooks`` holds full hooks (True) or the deprecated non-full ones
    #: (False); None until the first registration (``legacy_backward_hooks.py``)
    _is_full_backward_hook: bool | None = None

    def __init__(self, *args, **kwargs) -> None:
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        for name in _HOOK_REGISTRIES:
            setattr_(self, name, HookDict())

    def __setstate__(self, state: dict) -> None:
        # A module pickled by an older version (``torch.save(model)``) may lack registries
        # added since: give it empty ones, as PyTorch's ``__setstate__`` does.
        self.__dict__.update(state)
        for name in _HOOK_REGISTRIES:
            if name not in self.__dict__:
                object.__setattr__(self, name, HookDict())

    def forward(self, *args, **kwargs):
        """The computation of the module; every subclass defines it."""
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    # -- calling -----------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        try:
            if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                    or self._backward_pre_hooks or _GLOBAL_CALL_HOOKS):
                return self.forward(*args, **kwargs)  # the fast path: no hooks to run
            return call_with_hooks(self, args, kwargs)
        except ShapeError as error:
            shape_errors.annotate(self, error, args)
            raise

    # -- hooks ---------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Run ``hook(module, args)`` before every forward; a non-None result replaces args."""
        handle = add_hook(self._forward_pre_hooks, hook, prepend,
                          self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False, always_call: bool = False
                              ) -> RemovableHandle:
        """Run ``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
        ``with_kwargs``) after every forward; a non-None result replaces the output.

        With ``always_call`` the hook also runs when the call raises (in forward, a
        pre-hook or another forward hook), given the output so far (None if forward did
        not return); the call's error then goes on, and an error of the hook itself
        becomes a warning.
        """
        handle = add_hook(self._forward_hooks, hook, prepend, self._forward_hooks_with_kwargs,
                          self._forward_hooks_always_called)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False
                                    ) -> RemovableHandle:
        """Run ``hook(module, grad_input, grad_output)`` once the inputs' gradients are known.

        ``grad_input`` holds one entry per positional tensor input (None for those that do
        not require grad); a non-None result replaces it.

        Raises:
            RuntimeError: the module has non-full hooks (``register_backward_hook``).
        """
        _legacy.check_kind(self._is_full_backward_hook, True, _legacy.ON_MODULE)
        self._is_full_backward_hook = True
        return add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated (use ``register_full_backward_hook``): ``hook(module, grad_input,
        grad_output)`` on the graph node of the module's first output, with that node's
        gradients: the module's only if its forward is one op on its inputs (PyTorch's
        FutureWarning at each call says when they are not). A non-None result replaces
        the node's ``grad_input``.

        Raises:
            RuntimeError: the module has full backward hooks.
        """
        _legacy.check_kind(self._is_full_backward_hook, False, _legacy.ON_MODULE)
        self._is_full_backward_hook = False
        return add_hook(self._backward_hooks, hook)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False
                                        ) -> RemovableHandle:
        """Run ``hook(module, grad_output)`` when the gradients of the module's outputs are
        known, before its inputs' gradients are computed; a non-None result (as many
        entries as ``grad_output``) replaces ``grad_output``."""
        return add_hook(self._backward_pre_hooks, hook, prepend)

    # -- registries ----------------------------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_member(name, d, self._buffers, self._modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                self._remove_member(name, d, self._parameters, self._buffers)
                modules[name] = _registered(_GLOBAL.module_registration, self, name, value)
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                modules[name] = _registered(_GLOBAL.module_registration, self, name, value)
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer):  # registers itself, as in PyTorch
                    self.register_buffer(name, value, value.persistent)
                elif buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(torch.Tensor or None expected)")
                    buffers[name] = _registered(_GLOBAL.buffer_registration, self, name, value)
                else:
                    object.__setattr__(self, name, value)

    def _remove_member(self, name: str, *registries) -> None:
        for registry in registries:
            registry.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str):
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            members = d.get(registry)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add ``param`` as the parameter ``name`` (None marks an absent one, like bias).

        Raises:
            TypeError / KeyError: bad name or value; ValueError: a non-leaf tensor.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self, self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             "function of another Tensor, compute the value in the forward() "
                             "method.")
        self._parameters[name] = _registered(_GLOBAL.parameter_registration, self, name, param)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add ``tensor`` as the buffer ``name`` (state that is not trained, e.g. statistics).

        Non-persistent buffers move with the module but are left out of ``state_dict``.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = _registered(_GLOBAL.buffer_registration, self, name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add ``module`` as the child ``name`` (None leaves an empty slot)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        _check_name("module", name, self, self._modules)
        self._modules[name] = _registered(_GLOBAL.module_registration, self, name, module)

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``''`` is the module itself)."""
        module = self
        if target == "":
            return module
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at the dotted path ``target``, whose parent must exist; it replaces
        a submodule there or (unless ``strict``) adds a new one, never another attribute."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if not hasattr(parent, name):
            if strict:
                raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        elif not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target``."""
        module, name = self._member_owner(target)
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target``."""
        module, name = self._member_owner(target)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return module._buffers[name]

    def _member_owner(self, target: str) -> tuple:
        """The submodule holding the attribute at the dotted path ``target``, and the
        attribute's name; PyTorch's error when the submodule has no such attribute."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        return module, name

    # -- iteration -----------------------------------------------------------------------
    def _named_members(self, members, prefix: str, recurse: bool, remove_duplicate: bool):
        seen = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for name, value in members(module):
                if value is None or value in seen:
                    continue
                if remove_duplicate:
                    seen.add(value)
                yield (module_prefix + ("." if module_prefix else "") + name, value)

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)``: own parameters first, then each child's, once each."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """``(dotted name, module)`` for this module (named ``prefix``, ``''`` by default)
        and all its descendants, depth first, each once."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name,
                                            remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every child (recursively), then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- modes and gradients -------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode on this module and every descendant."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's gradient (to None, or to zeros in place)."""
        for param in self.parameters():
            if param._grad is None:
                continue
            if set_to_none:
                param._grad = None
            else:
                with no_grad():
                    param._grad.zero_()

    # -- moves ---------------------------------------------------------------------------
    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        """Replace every parameter's and buffer's data by ``fn`` of it.

        Parameters keep their identity (their ``data`` is swapped), so an optimizer built
        before a move keeps updating the moved parameters.
        """
        if recurse:
            for module in self.children():
                module._apply(fn)
        with no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                param.data = fn(param)
                if param._grad is not None:
                    param._grad.data = fn(param._grad)
            for name, buffer in self._buffers.items():
                if buffer is not None:
                    self._buffers[name] = fn(buffer)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``, both, or
        ``to(tensor)``. Only floating-point tensors change dtype. ``memory_format=`` lays
        out the 4-D and 5-D ones so (``torch.channels_last``: convolution weights).

        Raises:
            TypeError: a non-floating-point dtype, a ``memory_format`` that is not one.
            RuntimeError: ``channels_last`` with a 5-D parameter (PyTorch's rank error).
            MetaDataError: the module is on meta (use ``to_empty`` instead).
        """
        kwargs = dict(kwargs)
        memory_format = kwargs.pop("memory_format", None)
        device, dtype, copy = _parse_to(args, kwargs)
        if copy:  # the parameters are converted in place
            raise RuntimeError(".to() does not accept copy argument: a module's parameters "
                               "are converted in place; deep-copy the module first "
                               "(copy.deepcopy) to keep the original")
        if dtype is not None:
            from .. import dtypes

            dtype = dtypes.to_dtype(dtype)
            if not dtype.is_floating_point:
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                                f"got desired dtype={dtype}")

        if memory_format is not None:
            from ..memory_formats import check_memory_format

            check_memory_format("to", memory_format)

        def convert(t: Tensor) -> Tensor:
            if memory_format is not None and t.dim() in (4, 5):  # PyTorch's rule
                return t.to(device=device, dtype=dtype if t.is_floating_point() else None,
                            memory_format=memory_format)
            return t.to(device=device, dtype=dtype if t.is_floating_point() else None)

        return self._move(convert, device)

    def _move(self, convert: Callable, device) -> Module:
        try:
            return self._apply(convert)
        except MetaDataError:
            target = str(device) if device is not None else "the target device"
            raise MetaDataError(
                f"cannot move {self._get_name()} from the meta device to {target}: meta tensors "
                f"have no data to copy. Use module.to_empty(device={target!r}) to allocate "
                "(uninitialised) storage there, then fill it with reset_parameters() on each "
                "layer or with load_state_dict(...)") from None

    def cuda(self, device=None) -> Module:
        return self._move(lambda t: t.cuda(device), "cuda" if device is None else device)

    def cpu(self) -> Module:
        return self._move(lambda t: t.cpu(), "cpu")

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        """Cast floating-point parameters and buffers to float16 (integer ones are kept)."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        """Cast floating-point parameters and buffers to bfloat16 (integer ones are kept)."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def share_memory(self) -> Module:
        """Move every parameter, gradient and buffer into shared memory in place
        (``Tensor.share_memory_``), so that processes started afterwards update the same
        values (Hogwild training with ``torch.multiprocessing``)."""
        return self._apply(lambda t: t.share_memory_())

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Give every parameter and buffer new, uninitialised storage on ``device``.

        The way off the meta device: follow with ``reset_parameters()`` or
        ``load_state_dict``.
        """
        # A lazy module's placeholder has no shape yet: it stays a placeholder, on ``device``.
        return self._apply(lambda t: t.to(device=device) if is_lazy(t) else
                           empty(tuple(t.shape), dtype=t.dtype, device=device), recurse=recurse)

    # -- state ---------------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """Parameters, persistent buffers and extra state by dotted name (tensors detached
        unless ``keep_vars``), in an ``OrderedDict`` whose ``_metadata`` holds each
        module's ``_version``. Positional arguments are deprecated (FutureWarning)."""
        destination, prefix, keep_vars = _state.state_dict_arguments(args, destination, prefix,
                                                                     keep_vars)
        return _state.save(self, destination, prefix, keep_vars)

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        """Put this module's own state (not its children's) into ``destination``; the
        override point for a class that saves differently."""
        _state.save_local(self, destination, prefix, keep_vars)

    def get_extra_state(self):
        """State beyond tensors to save under ``<prefix>_extra_state``: a class that
        defines it (and ``set_extra_state``) gets that key in its state dict."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called: only a class that defines get_extra_state saves extra "
                           "state")

    def set_extra_state(self, state) -> None:
        """Restore what ``get_extra_state`` returned; called by ``load_state_dict``."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called: only a class that defines set_extra_state loads extra "
                           "state")

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy tensors from ``state_dict``; returns ``(missing_keys, unexpected_keys)``.

        Raises:
            RuntimeError: missing or unexpected keys (when ``strict``), or shape mismatches
                (always), each named.
        """
        return _state.load(self, state_dict, strict, assign)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        """Load this module's own state from ``state_dict`` (its keys start with
        ``prefix``); the override point for migrating old checkpoints, which read
        ``local_metadata.get("version")`` (None for a dict without ``_metadata``)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        assign = local_metadata.get("assign_to_params_buffers", False)
        _state.load_local(self, state_dict, prefix, assign, strict, missing_keys,
                          unexpected_keys, error_msgs)

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, prefix, keep_vars)`` before ``state_dict`` saves anything."""
        return add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata)`` once this module and its
        children are saved; it edits ``state_dict`` in place and must return None."""
        hook._from_public_api = True  # PyTorch's mark: unlike the private hook's, no result
        return add_hook(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        """The older, private post-hook: a non-None result replaces the state dict (it is
        what ``state_dict`` returns when the hook is on the module it was called on)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via "
                               "register_state_dict_post_hook")
        return add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads; it may rewrite the keys of
        ``state_dict`` (a copy of the caller's), e.g. to rename an old checkpoint's."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False
                                           ) -> RemovableHandle:
        """As ``register_load_state_dict_pre_hook``; without ``with_module`` the hook is
        called without the module argument."""
        return add_hook(self._load_state_dict_pre_hooks,
                        _state.ModuleBoundHook(hook, self if with_module else None))

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, incompatible_keys)`` once this module and its children are
        loaded; editing ``incompatible_keys.missing_keys`` / ``.unexpected_keys`` in place
        changes what ``strict`` reports. It must return None."""
        return add_hook(self._load_state_dict_post_hooks, hook)

    # -- printing ------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's settings shown inside its repr; layers override it."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): {_addindent(repr(module), 2)}"
                       for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

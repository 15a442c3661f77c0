"""``nn.utils.parametrize``: a module's tensor computed from other tensors on every access.

``register_parametrization(module, "weight", p)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` (so ``state_dict`` holds
``parametrizations.weight.original``) and makes ``module.weight`` a property that returns
``p(original)``: gradients then reach ``original`` through ``p``. As in PyTorch, the module's
class is swapped for a subclass made for it (``ParametrizedLinear``), because a property
lives on a class; the original class comes back when the last parametrization is removed.

Assigning ``module.weight = value`` goes through the parametrizations' ``right_inverse``
(last first) to the originals. ``cached()`` computes each parametrized tensor once inside
its block.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from contextlib import contextmanager

from ...autograd import no_grad
from ...tensor import Tensor
from ..container import ModuleDict, ModuleList
from ..module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]


class _Cache:
    """The state of ``cached()`` blocks: how deep they nest and the tensors computed so far
    (keyed by module id and tensor name), cleared when the outermost block ends."""

    def __init__(self) -> None:
        self.depth = 0
        self.values: dict = {}


_CACHE = _Cache()  # PyTorch's caching is process-wide too; only ``cached()`` changes it


@contextmanager
def cached():
    """Inside the block, each parametrized tensor is computed on first access and reused
    (one graph shared by every use, e.g. a parametrized RNN weight over the time steps)."""
    _CACHE.depth += 1
    try:
        yield
    finally:
        _CACHE.depth -= 1
        if not _CACHE.depth:
            _CACHE.values = {}


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_data(dest: Tensor, src: Tensor) -> None:
    """Make ``dest`` hold ``src``'s storage (PyTorch's ``set_``): ``dest`` keeps its identity,
    so optimizers holding it see the new values."""
    dest.data = src


def _check_same(kind: str, expected, got, what_expected: str, what_got: str) -> None:
    """Raise PyTorch's ValueError when a parametrization changed a dtype or a shape."""
    if expected != got:
        raise ValueError(
            f"Registering a parametrization may not change the {kind} of the tensor, unless "
            f"the `unsafe` flag is enabled.\n{what_expected}: {expected}\n{what_got}: {got}")


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the tensor(s) they start
    from: ``original``, or ``original0``, ``original1``, ... when the first one's
    ``right_inverse`` returns a sequence.

    Raises:
        ValueError: no modules, a ``right_inverse`` returning neither a tensor nor a
            sequence of tensors or changing the dtype or device, or (unless ``unsafe``) a
            result that is not a tensor of the original's dtype and shape.
    """

    def __init__(self, modules: Sequence[Module], original: Tensor,
                 unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        new = self._initial_originals(original)
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            self._keep_one_original(original, new)
        else:
            self._keep_originals(original, new)
        if not self.unsafe:
            self._check_result(original_dtype, original_shape)

    def _initial_originals(self, original: Tensor):
        """``original`` through every ``right_inverse`` (last first) that is implemented."""
        new = original
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor | Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        return new

    def _keep_one_original(self, original: Tensor, new: Tensor) -> None:
        if original.dtype != new.dtype:
            raise ValueError("When `right_inverse` outputs one tensor, it may not change the "
                             f"dtype.\noriginal.dtype: {original.dtype}\n"
                             f"right_inverse(original).dtype: {new.dtype}")
        if original.device != new.device:
            raise ValueError("When `right_inverse` outputs one tensor, it may not change the "
                             f"device.\noriginal.device: {original.device}\n"
                             f"right_inverse(original).device: {new.device}")
        with no_grad():
            _set_data(original, new)
        _register_parameter_or_buffer(self, "original", original)

    def _keep_originals(self, original: Tensor, new: Sequence) -> None:
        for i, value in enumerate(new):
            if not isinstance(value, Tensor):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                 "tensors (list, tuple...). Got element "
                                 f"{i} of the sequence with type {type(value).__name__}.")
            if isinstance(original, Parameter):
                value = Parameter(value, original.requires_grad)
            value.requires_grad_(original.requires_grad)
            _register_parameter_or_buffer(self, f"original{i}", value)

    def _check_result(self, original_dtype, original_shape) -> None:
        result = self()
        if not isinstance(result, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got "
                             f"{type(result).__name__}.")
        if result.dtype != original_dtype:
            raise ValueError(
                "Registering a parametrization may not change the dtype of the tensor, unless "
                f"`unsafe` flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                f"parametrized dtype: {result.dtype}")
        if result.shape != original_shape:
            raise ValueError(
                "Registering a parametrization may not change the shape of the tensor, unless "
                f"`unsafe` flag is enabled.\nunparametrized shape: {original_shape}\n"
                f"parametrized shape: {result.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Store in the originals what makes the parametrized tensor equal ``value``.

        Raises:
            RuntimeError: a parametrization has no ``right_inverse``.
            ValueError: what it returns does not fit the originals (kind, count, dtype).
        """
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                self._set_original(value)
            else:
                self._set_originals(value)

    def _set_original(self, value) -> None:
        if not isinstance(value, Tensor):
            raise ValueError(f"`right_inverse` should return a tensor. Got "
                             f"{type(value).__name__}")
        if value.dtype != self.original.dtype:
            raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                             f"while `original` has dtype {self.original.dtype}")
        _set_data(self.original, value)

    def _set_originals(self, values) -> None:
        if not isinstance(values, Sequence):
            raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                             f"{type(values).__name__}.")
        if len(values) != self.ntensors:
            raise ValueError("'right_inverse' must return a sequence of tensors of length "
                             f"{self.ntensors}. Got a sequence of length {len(values)}.")
        for i, value in enumerate(values):
            original = getattr(self, f"original{i}")
            if not isinstance(value, Tensor):
                raise ValueError("'right_inverse' must return a sequence of tensors or "
                                 f"reference-type opaques. Got element {i} of type "
                                 f"{type(value).__name__}.")
            if original.dtype != value.dtype:
                raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                 f"{value.dtype} while `original{i}` has dtype "
                                 f"{original.dtype}")
            _set_data(original, value)

    def forward(self) -> Tensor:
        """The parametrized tensor: the first parametrization of the original(s), then each
        following one of the previous result."""
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _deepcopy(self, memo):
    """A deep copy that does not go through ``__getstate__`` (which refuses, see below)."""
    replica = memo.get(id(self))
    if replica is not None:
        return replica
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def _getstate(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _inject_new_class(module: Module) -> None:
    """Give ``module`` a class of its own, ``Parametrized<Name>``, to hold its properties."""
    cls = module.__class__
    namespace = {"__getstate__": _getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Module, tensor_name: str) -> None:
    """Make ``module.<tensor_name>`` read the parametrization and write its right inverse."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _CACHE.depth:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _CACHE.values.get(key)
        if tensor is None:
            tensor = _CACHE.values[key] = parametrization()
        return tensor

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_stacked(module: Module, tensor_name: str, parametrization: Module) -> None:
    """PyTorch's checks when a parametrization is added on top of others: it keeps the
    dtype and shape, and so does its ``right_inverse`` where it has one."""
    y = getattr(module, tensor_name)
    x = parametrization(y)
    if not isinstance(x, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
    _check_same("dtype", y.dtype, x.dtype, f"module.{tensor_name}.dtype",
                f"parametrization(module.{tensor_name}).dtype")
    _check_same("shape", y.shape, x.shape, f"module.{tensor_name}.shape",
                f"parametrization(module.{tensor_name}).shape")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        z = parametrization.right_inverse(x)
    except NotImplementedError:
        return
    if not isinstance(z, Tensor):
        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: "
                         f"{type(z).__name__}")
    for kind, expected, got in (("dtype", y.dtype, z.dtype), ("shape", y.shape, z.shape)):
        if expected != got:
            raise ValueError(
                f"The tensor returned by parametrization.right_inverse must have the same "
                f"{kind} as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                f"module.{tensor_name}.{kind}: {expected}\nreturned {kind}: {got}")


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` (a parameter or buffer, or an already parametrized
    tensor) be computed as ``parametrization(original)`` on every access.

    ``unsafe=True`` allows the parametrization to change the tensor's shape or dtype.

    Raises:
        ValueError: ``module`` has no parameter, buffer or parametrization of that name, or
            the parametrization breaks the checks of ``ParametrizationList`` (unless
            ``unsafe``).
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_stacked(module, tensor_name, parametrization)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization on ``tensor_name`` (on any tensor if None)."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Undo ``register_parametrization`` on ``tensor_name``: the tensor becomes a parameter
    (or buffer) again, holding the parametrized value if ``leave_parametrized``, else the
    original. The module gets its own class back when no parametrization is left.

    Raises:
        ValueError: no parametrization on ``tensor_name``, or ``leave_parametrized=False``
            for a tensor parametrized by several originals.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                _set_data(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The class ``module`` had before it was parametrized (its own class otherwise)."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Register ``from_module``'s parametrizations (of ``tensor_name``, or all) on
    ``to_module`` too, sharing the same original tensors."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            for i in range(source.ntensors):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
    return to_module

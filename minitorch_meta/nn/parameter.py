"""``Parameter``: a tensor that a ``Module`` registers as learnable state.

``UninitializedParameter`` is the placeholder a lazy module holds until its first call
tells it the shape (``materialize``); it then becomes a plain ``Parameter``.
"""

from __future__ import annotations

from ..factories import empty
from ..tensor import Tensor, _parse_to


class Parameter(Tensor):
    """A tensor that is a module's parameter: assigning one to a module attribute registers it.

    It shares ``data``'s storage and requires grad by default, as ``torch.nn.Parameter``.

    Raises:
        TypeError: ``data`` is not a tensor.
        RuntimeError: ``requires_grad=True`` on a non-floating-point tensor.
    """

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor as data, got {type(data).__name__}")
        parameter = cls._make(data._data, data._backend)
        if requires_grad:
            parameter.requires_grad_(True)
        return parameter

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        # ``__new__`` built the parameter; Tensor.__init__ would build a second tensor.
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


_SHAPE_UNKNOWN = ("Can't access the shape of an uninitialized parameter or buffer. This error "
                  "usually happens in `load_state_dict` when trying to load an uninitialized "
                  "parameter into an initialized one. Call `forward` to initialize the "
                  "parameters before accessing their attributes.")


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (held by lazy modules until their first call).

    Raises:
        RuntimeError: its shape, size or number of elements is read before ``materialize``.
    """

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        # A zero-element placeholder remembers the device and dtype to materialise on.
        return super().__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        pass

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the parameter storage of ``shape`` (uninitialised) and make it a ``Parameter``."""
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        self.data = empty(tuple(shape), device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_SHAPE_UNKNOWN)

    def size(self, dim: int | None = None):
        raise RuntimeError(_SHAPE_UNKNOWN)

    def numel(self) -> int:
        raise RuntimeError(_SHAPE_UNKNOWN)

    def to(self, *args, **kwargs) -> Tensor:
        """A placeholder on another device or dtype (there is no data to copy)."""
        device, dtype = _parse_to(args, dict(kwargs))
        return empty(0, device=device if device is not None else self.device,
                     dtype=dtype if dtype is not None else self.dtype)

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__


def is_lazy(value) -> bool:
    """Whether ``value`` is a parameter still waiting for its shape."""
    return isinstance(value, UninitializedParameter)


def add_weight_and_bias(module, weight_shape: tuple, bias: bool, device=None, dtype=None,
                        bias_size: int | None = None) -> None:
    """Register ``module.weight`` (uninitialised, ``weight_shape``) and ``module.bias``
    (``bias_size`` values, by default ``weight_shape[0]``, or registered as None), as
    Linear and Conv2d have them."""
    module.weight = Parameter(empty(tuple(weight_shape), device=device, dtype=dtype))
    if bias:
        size = weight_shape[0] if bias_size is None else bias_size
        module.bias = Parameter(empty(size, device=device, dtype=dtype))
    else:
        module.register_parameter("bias", None)

"""``nn.Container``: PyTorch's deprecated base of containers, a ``Module`` that registers
its keyword arguments as children. Making one, or subclassing it, warns as PyTorch does."""

from __future__ import annotations

from ..caller_warnings import warn_at_caller
from .module import Module

#: PyTorch's deprecation warning of ``nn.Container``, word for word
CONTAINER_DEPRECATION = (
    "`nn.Container` is deprecated. All of its functionality is now implemented in "
    "`nn.Module`. Subclass that instead.")


class Container(Module):
    """A ``Module`` whose keyword arguments become its children, in order (deprecated:
    subclass ``Module``). Warns ``FutureWarning`` when made and when subclassed.

    Shape:
        no forward of its own (a subclass defines it).
    """

    def __init_subclass__(cls, **kwargs) -> None:
        warn_at_caller(CONTAINER_DEPRECATION, FutureWarning)
        super().__init_subclass__(**kwargs)

    def __init__(self, **kwargs) -> None:
        warn_at_caller(CONTAINER_DEPRECATION, FutureWarning)
        super().__init__()
        for name, module in kwargs.items():
            self.add_module(name, module)

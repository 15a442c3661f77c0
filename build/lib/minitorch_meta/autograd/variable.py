"""``Variable``: PyTorch's deprecated name for a tensor that takes part in autograd.

Since PyTorch 0.4 every ``Tensor`` does; ``Variable(x, requires_grad=True)`` survives in
old tutorials, so it is kept as PyTorch keeps it: calling it returns a ``Tensor`` (``x``
detached, sharing its memory), and ``isinstance(t, Variable)`` is true of every tensor.
"""

from __future__ import annotations

from ..caller_warnings import warn_at_caller


class _VariableMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        from ..tensor import Tensor  # here: tensor.py imports autograd

        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: ``data.detach()``, requiring grad if asked.

    Raises:
        TypeError: ``data`` is not a tensor.
        RuntimeError: ``requires_grad=True`` for a tensor that is not floating-point.
    """

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        from ..factories import empty
        from ..tensor import Tensor

        if volatile:
            warn_at_caller("volatile was removed and now has no effect. Use `with "
                           "torch.no_grad():` instead.", UserWarning)
        if data is None:
            return empty(0, requires_grad=requires_grad)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got "
                            f"{type(data).__name__}")
        out = data.detach()
        return out.requires_grad_(True) if requires_grad else out

"""``Tensor.grad``: the gradient a backward pass accumulated, with PyTorch's warning when a
script reads it on a non-leaf tensor, whose ``.grad`` backward never fills.

The value lives in the ``_grad`` slot. The library (the autograd engine's accumulation,
optimizers, ``zero_grad``, gradient clipping, DDP, ...) reads and writes that slot
directly: it knows which tensors it works on, so it neither warns nor pays for the check.
"""

from __future__ import annotations

from .caller_warnings import warn_at_caller

#: PyTorch 2.13's words (without its "Triggered internally at <C++ file>" suffix).
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


def _get_grad(self):
    """This tensor's gradient, or None. Warns, as PyTorch, when that None is because the
    tensor is not a leaf (it requires grad and has a ``grad_fn``) and does not
    ``retain_grad()``: backward will never fill it. Grad mode does not matter."""
    grad = self._grad
    # cheapest test first: a leaf's or a filled .grad never warns
    if grad is None and self.grad_fn is not None and self.requires_grad \
            and not self.retains_grad:
        warn_at_caller(NON_LEAF_GRAD_WARNING)
    return grad


def _set_grad(self, grad) -> None:
    """``t.grad = g``: None, or a tensor of ``t``'s size, dtype and device type (PyTorch's
    checks and errors; the library writes ``_grad`` itself)."""
    if grad is not None:
        _check_assigned_grad(self, grad)
    self._grad = grad


def _check_assigned_grad(self, grad) -> None:
    from .tensor import Tensor  # (tensor.py imports this module)

    if not isinstance(grad, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                        f"{type(grad).__name__}")
    if grad is self:
        raise RuntimeError("can't assign Variable as its own grad")
    if grad.dtype != self.dtype:
        raise RuntimeError(f"attempting to assign a gradient with dtype '{grad.dtype}' to a "
                           f"tensor with dtype '{self.dtype}': the gradient must have the "
                           "tensor's dtype (convert it with .to(tensor.dtype))")
    if grad.device.type != self.device.type:
        raise RuntimeError(f"attempting to assign a gradient with device type "
                           f"'{grad.device.type}' to a tensor with device type "
                           f"'{self.device.type}'. Please ensure that the gradient and the "
                           "tensor are on the same device")
    if tuple(grad.shape) != tuple(self.shape):
        raise RuntimeError(f"attempting to assign a gradient of size '{list(grad.shape)}' to a "
                           f"tensor of size '{list(self.shape)}'. Please ensure that the "
                           "gradient and the tensor are the same size")


def _delete_grad(self) -> None:
    """``del t.grad``: as PyTorch, the same as ``t.grad = None``."""
    self._grad = None


grad_property = property(_get_grad, _set_grad, _delete_grad,
                         "The gradient accumulated by ``backward()`` (None before any); "
                         "filled for leaves, and for non-leaves that ``retain_grad()``.")

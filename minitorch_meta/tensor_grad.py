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
    self._grad = grad


def _delete_grad(self) -> None:
    """``del t.grad``: as PyTorch, the same as ``t.grad = None``."""
    self._grad = None


grad_property = property(_get_grad, _set_grad, _delete_grad,
                         "The gradient accumulated by ``backward()`` (None before any); "
                         "filled for leaves, and for non-leaves that ``retain_grad()``.")

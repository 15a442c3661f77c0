"""``TensorMethods``: the math methods of ``Tensor``, each one line over ``functions``."""

from __future__ import annotations

from . import functions as F


def _shape_args(shape) -> tuple:
    """``view(2, 3)`` and ``view((2, 3))`` both mean the shape ``(2, 3)``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


class TensorMethods:
    """Operators and named methods shared by every ``Tensor``."""

    __slots__ = ()

    # arithmetic (reflected forms swap the operands)
    def __add__(self, other):
        return F.add(self, other)

    def __radd__(self, other):
        return F._binary(_ew().Add, other, self)

    def __sub__(self, other):
        return F.sub(self, other)

    def __rsub__(self, other):
        return F._binary(_ew().Sub, other, self)

    def __mul__(self, other):
        return F.mul(self, other)

    def __rmul__(self, other):
        return F._binary(_ew().Mul, other, self)

    def __truediv__(self, other):
        return F.div(self, other)

    def __rtruediv__(self, other):
        return F._binary(_ew().Div, other, self)

    def __pow__(self, other):
        return F.pow(self, other)

    def __rpow__(self, other):
        return F._binary(_ew().Pow, other, self)

    def __neg__(self):
        return F.neg(self)

    def __abs__(self):
        return F.abs(self)

    def __matmul__(self, other):
        return F.matmul(self, other)

    def __rmatmul__(self, other):
        return F.matmul(other, self)

    # comparisons (``==`` compares elementwise, as in PyTorch)
    def __eq__(self, other):
        return F.eq(self, other)

    def __ne__(self, other):
        return F.ne(self, other)

    def __lt__(self, other):
        return F.lt(self, other)

    def __le__(self, other):
        return F.le(self, other)

    def __gt__(self, other):
        return F.gt(self, other)

    def __ge__(self, other):
        return F.ge(self, other)

    def add(self, other, alpha=1):
        return F.add(self, other, alpha)

    def sub(self, other, alpha=1):
        return F.sub(self, other, alpha)

    def mul(self, other):
        return F.mul(self, other)

    def div(self, other):
        return F.div(self, other)

    def pow(self, exponent):
        return F.pow(self, exponent)

    def eq(self, other):
        return F.eq(self, other)

    def ne(self, other):
        return F.ne(self, other)

    def lt(self, other):
        return F.lt(self, other)

    def le(self, other):
        return F.le(self, other)

    def gt(self, other):
        return F.gt(self, other)

    def ge(self, other):
        return F.ge(self, other)

    def neg(self):
        return F.neg(self)

    def abs(self):
        return F.abs(self)

    def exp(self):
        return F.exp(self)

    def log(self):
        return F.log(self)

    def sqrt(self):
        return F.sqrt(self)

    def relu(self):
        return F.relu(self)

    # reductions
    def sum(self, dim=None, keepdim=False):
        return F.sum(self, dim, keepdim)

    def mean(self, dim=None, keepdim=False):
        return F.mean(self, dim, keepdim)

    def max(self, dim=None, keepdim=False):
        return F.max(self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        return F.argmax(self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        return F.min(self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        return F.argmin(self, dim, keepdim)

    def all(self, dim=None, keepdim=False):
        return F.all(self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        return F.any(self, dim, keepdim)

    def tanh(self):
        return F.tanh(self)

    def var(self, dim=None, keepdim=False, *, correction=1):
        return F.var(self, dim, keepdim, correction=correction)

    def std(self, dim=None, keepdim=False, *, correction=1):
        return F.std(self, dim, keepdim, correction=correction)

    def softmax(self, dim):
        return F.softmax(self, dim)

    def log_softmax(self, dim):
        return F.log_softmax(self, dim)

    def sigmoid(self):
        return F.sigmoid(self)

    # products
    def mm(self, mat2):
        return F.mm(self, mat2)

    def mv(self, vec):
        return F.mv(self, vec)

    def matmul(self, other):
        return F.matmul(self, other)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return F.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    # shape
    def view(self, *shape):
        from .ops.layout import View

        return View(shape=_shape_args(shape))(self)

    def view_as(self, other):
        return self.view(tuple(other.shape))

    def reshape(self, *shape):
        return F.reshape(self, _shape_args(shape))

    def flatten(self, start_dim=0, end_dim=-1):
        return F.flatten(self, start_dim, end_dim)

    def t(self):
        return F.t(self)

    @property
    def T(self):  # noqa: N802 - PyTorch's name
        return F.permute(self, tuple(reversed(range(self.dim()))))

    def transpose(self, dim0, dim1):
        return F.transpose(self, dim0, dim1)

    def permute(self, *dims):
        return F.permute(self, _shape_args(dims))

    def unsqueeze(self, dim):
        return F.unsqueeze(self, dim)

    def squeeze(self, dim=None):
        return F.squeeze(self, dim)

    def expand(self, *shape):
        from .ops.layout import Expand

        return Expand(shape=_shape_args(shape))(self)

    def expand_as(self, other):
        return self.expand(tuple(other.shape))


def _ew():
    from .ops import elementwise

    return elementwise


"""The transforms onto sets of matrices: ``LowerCholeskyTransform`` (onto Cholesky
factors), ``PositiveDefiniteTransform`` (onto positive-definite matrices) and
``CorrCholeskyTransform`` (a bijection from ``D (D - 1) / 2`` reals onto the Cholesky
factors of ``D x D`` correlation matrices, what ``biject_to(corr_cholesky)`` gives)."""

from __future__ import annotations

import math

from ..factories import eye
from ..linalg import cholesky
from ..nn.functional import pad, softplus
from ..size import Size
from ..type_info import finfo
from . import constraints
from .transform import Transform
from .utils import tril_matrix_to_vec, vec_to_tril_matrix


class LowerCholeskyTransform(Transform):
    """The strictly lower triangle of ``x`` kept and its diagonal exponentiated: any square
    matrix onto a lower-triangular one with a positive diagonal (no log-det-Jacobian, as
    PyTorch's: the upper triangle is dropped).

    Shape:
        ``x`` and ``y`` are ``(*, n, n)``.
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """``L Lᵀ`` for ``L`` the ``LowerCholeskyTransform`` of ``x``: any square matrix onto a
    positive-definite one; the inverse goes back through the Cholesky factor.

    Shape:
        ``x`` and ``y`` are ``(*, n, n)``.
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        factor = LowerCholeskyTransform()(x)
        return factor @ factor.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(cholesky(y))


class CorrCholeskyTransform(Transform):
    """A signed stick breaking, row by row: ``x``'s entries fill the strict lower triangle
    row by row, each goes through ``tanh`` into ``(-1, 1)`` and takes that signed
    fraction of the squared length the entries before it in its row left; the diagonal
    takes the rest, so every row has unit length and a positive diagonal.

    ``log_abs_det_jacobian`` is that of the map from ``x`` to the strict lower triangle of
    ``y`` (the diagonal is determined by it), PyTorch's convention. Two instances are
    equal only if they are the same object (PyTorch's class has no ``__eq__`` of its own).

    Shape:
        ``x`` is ``(*, D (D - 1) / 2)``, ``y`` is ``(*, D, D)``.
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = finfo(x.dtype).eps
        # kept inside (-1, 1) so that no row is used up before its diagonal
        r = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # y_ij = r_ij sqrt(prod_{k<j} (1 - r_ik^2)): the fraction r of what is left
        left = (1 - r.pow(2)).sqrt().cumprod(-1)
        r = r + eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * pad(left[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        left = 1 - (y * y).cumsum(-1)
        left_before = pad(left[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left_before, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y):
        # stick breaking: half the log of what each row had left before each entry (the
        # diagonal -2 skips the first entry of each row, whose rest is 1)
        left = 1 - (y * y).cumsum(-1)
        stick_breaking = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        # tanh: log(1 - tanh(x)^2), written without cancellation
        tanh = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return Size(tuple(shape[:-1]) + (d, d))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return Size(tuple(shape[:-2]) + (d * (d - 1) // 2,))

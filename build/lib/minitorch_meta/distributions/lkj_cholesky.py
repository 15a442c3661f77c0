"""``LKJCholesky(dim, concentration)``: the LKJ law over Cholesky factors of correlation
matrices (Lewandowski, Kurowicka and Joe, 2009)."""

from __future__ import annotations

import math

from ..autograd import no_grad
from ..factories import arange, randn
from ..functions import cat
from ..size import Size
from ..type_info import finfo
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all


class LKJCholesky(Distribution):
    """The Cholesky factor ``L`` of a ``dim x dim`` correlation matrix ``M = L Lᵀ`` whose
    density is proportional to ``det(M)^(concentration - 1)`` (uniform at 1).

    ``sample`` is the onion method written for the factor, every row at once: row ``i``
    off the diagonal is a uniform direction in ``i`` dims scaled by the square root of a
    ``Beta(i / 2, concentration + (dim - 1 - i) / 2)`` draw (row 0 is empty), and the
    diagonal takes the rest of the unit length. ``log_prob`` is the density of ``L``:
    ``prod L_ii^(2 (concentration - 1) + dim - i)`` over the normaliser of the LKJ paper.

    Shape:
        ``concentration`` is ``batch_shape``; ``event_shape`` is ``(dim, dim)``.

    Raises:
        ValueError: ``dim`` under 2, or (with validation) a non-positive
        ``concentration`` or a value that is not such a factor.
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        self._beta = self._row_lengths()
        super().__init__(self.concentration.shape, (dim, dim), validate_args=validate_args)

    def _row_lengths(self) -> Beta:
        """The Beta laws of the squared off-diagonal lengths of rows ``0 .. dim - 1``: row
        ``i`` (``i`` entries) has ``Beta(i / 2, concentration + (dim - 1 - i) / 2)``, the
        onion method's; row 0's (a dummy, it has no off-diagonal entries) is row 1's.

        PyTorch 2.13 gives row ``i`` a first concentration of ``i - 1/2`` (its
        ``offset + 0.5``), which is right for row 1 only: its draws for ``dim >= 3`` are not
        LKJ (the off-diagonal correlations of lower rows are too small; the LKJ law makes
        them all alike). The paper's ``i / 2`` is used here."""
        c = self.concentration
        offset = arange(self.dim - 1, dtype=c.dtype, device=c.device)
        offset = cat([offset.new_zeros((1,)), offset])  # i - 1, and 0 for the dummy row 0
        marginal = c + 0.5 * (self.dim - 2)
        return Beta(0.5 * offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        new._batch_shape = batch_shape
        return new

    def sample(self, sample_shape=()):
        with no_grad():
            squared_length = self._beta.sample(sample_shape).unsqueeze(-1)
            direction = randn(self._extended_shape(sample_shape), dtype=squared_length.dtype,
                              device=squared_length.device).tril(-1)
            # row 0 is all zeros: its norm clamped to tiny keeps it zero instead of NaN
            tiny = finfo(direction.dtype).tiny
            direction = direction / direction.norm(dim=-1, keepdim=True).clamp(min=tiny)
            w = squared_length.sqrt() * direction
            diagonal = (1 - w.pow(2).sum(-1)).clamp(min=tiny).sqrt()
            return w + diagonal.diag_embed()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(dim1=-2, dim2=-1)[..., 1:]
        c = self.concentration
        order = arange(2, self.dim + 1, device=c.device)
        order = 2 * (c - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diagonal.log()).sum(-1)
        # the normaliser of the LKJ paper (p. 1999); mvlgamma's pi term is (D-1)(D-2)/4
        # log(pi), the paper's D(D-1)/4 log(pi): the difference (D-1)/2 log(pi) is added
        dm1 = self.dim - 1
        alpha = c + 0.5 * dm1
        normalizer = (0.5 * dm1 * math.log(math.pi) + (alpha - 0.5).mvlgamma(dm1)
                      - alpha.lgamma() * dm1)
        return unnormalized - normalizer

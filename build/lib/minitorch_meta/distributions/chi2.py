"""``Chi2(df)``: the chi-squared distribution, a gamma distribution of rate 1/2."""

from __future__ import annotations

from . import constraints
from .gamma import Gamma
from .utils import broadcast_all


class Chi2(Gamma):
    """The sum of ``df`` squared standard normal variables: ``Gamma(df / 2, 1 / 2)``
    (``df`` any positive real); ``rsample`` is differentiable in ``df``.

    Shape:
        ``df`` is ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2

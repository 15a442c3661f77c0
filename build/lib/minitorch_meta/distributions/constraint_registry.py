"""``biject_to`` and ``transform_to``: from a constraint to a transform onto it.

``biject_to(c)`` gives a bijection from the unconstrained reals onto ``c`` (for HMC-like
uses, where the log-det-Jacobian matters); ``transform_to(c)`` any transform onto ``c``
(for optimisation: ``SoftmaxTransform`` for the simplex). Both are registries keyed by
the constraint's class; ``register`` adds a factory for a new class, as PyTorch's.
"""

from __future__ import annotations

from numbers import Number

from . import constraints
from .elementwise_transforms import AffineTransform, ExpTransform, SigmoidTransform
from .functor_transforms import CatTransform, StackTransform
from .matrix_transforms import (
           CorrCholeskyTransform,
           LowerCholeskyTransform,
           PositiveDefiniteTransform,
)
from .simplex_transforms import SoftmaxTransform, StickBreakingTransform
from .transform import ComposeTransform, IndependentTransform, identity_transform


class ConstraintRegistry:
    """Maps constraint classes to factories ``factory(constraint) -> Transform``."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """Register ``factory`` for ``constraint`` (a Constraint subclass, or an instance
        standing for its class); without ``factory``, a decorator.

        Raises:
            TypeError: ``constraint`` is neither a Constraint subclass nor an instance.
        """
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not (isinstance(constraint, type) and issubclass(constraint, constraints.Constraint)):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        """The transform onto ``constraint``.

        Raises:
            NotImplementedError: no factory for the constraint's class.
        """
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _register_both(constraint, factory):
    biject_to.register(constraint, factory)
    transform_to.register(constraint, factory)


def _to_real(constraint):
    return identity_transform


def _to_independent(constraint, registry):
    return IndependentTransform(registry(constraint.base_constraint),
                                constraint.reinterpreted_batch_ndims)


def _to_greater_than(constraint):
    # positive (greater than 0) is a greater_than too: exp, then shifted, as PyTorch's
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.lower_bound, 1)])


def _to_less_than(constraint):
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.upper_bound, -1)])


def _to_interval(constraint):
    lower_is_0 = isinstance(constraint.lower_bound, Number) and constraint.lower_bound == 0
    upper_is_1 = isinstance(constraint.upper_bound, Number) and constraint.upper_bound == 1
    if lower_is_0 and upper_is_1:
        return SigmoidTransform()
    scale = constraint.upper_bound - constraint.lower_bound
    return ComposeTransform([SigmoidTransform(), AffineTransform(constraint.lower_bound, scale)])


_register_both(constraints.real, _to_real)
biject_to.register(constraints.independent,
                   lambda constraint: _to_independent(constraint, biject_to))
transform_to.register(constraints.independent,
                      lambda constraint: _to_independent(constraint, transform_to))
_register_both(constraints.greater_than, _to_greater_than)
_register_both(constraints.greater_than_eq, _to_greater_than)
_register_both(constraints.less_than, _to_less_than)
_register_both(constraints.interval, _to_interval)
biject_to.register(constraints.simplex, lambda constraint: StickBreakingTransform())
transform_to.register(constraints.simplex, lambda constraint: SoftmaxTransform())



def _to_cat(constraint, registry):
    return CatTransform([registry(c) for c in constraint.cseq], constraint.dim,
                        constraint.lengths)


def _to_stack(constraint, registry):
    return StackTransform([registry(c) for c in constraint.cseq], constraint.dim)


_register_both(constraints.half_open_interval, _to_interval)
transform_to.register(constraints.lower_cholesky, lambda constraint: LowerCholeskyTransform())
# a positive-definite matrix is positive-semidefinite too: PyTorch maps both onto it
transform_to.register(constraints.positive_definite,
                      lambda constraint: PositiveDefiniteTransform())
transform_to.register(constraints.positive_semidefinite,
                      lambda constraint: PositiveDefiniteTransform())
_register_both(constraints.corr_cholesky, lambda constraint: CorrCholeskyTransform())
biject_to.register(constraints.cat, lambda constraint: _to_cat(constraint, biject_to))
transform_to.register(constraints.cat, lambda constraint: _to_cat(constraint, transform_to))
biject_to.register(constraints.stack, lambda constraint: _to_stack(constraint, biject_to))
transform_to.register(constraints.stack,
                      lambda constraint: _to_stack(constraint, transform_to))

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]

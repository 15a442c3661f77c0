"""Constraints: the sets parameters and values of a distribution must lie in.

``constraint.check(value)`` returns a bool tensor (True where ``value`` is inside),
computed with ordinary tensor ops, so it runs on every device; a distribution with
``validate_args`` raises PyTorch's ``ValueError`` when a check fails (on meta there are no
values to check, see ``all_true``). Reprs are PyTorch's
(``GreaterThan(lower_bound=0.0)``), because its error messages print them.
"""

from __future__ import annotations

from ..dtypes import bool_


class Constraint:
    """A set of valid values. ``event_dim`` dims on the right form one event."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def _arguments(self) -> str:
        return ""

    def __repr__(self) -> str:
        return f"{type(self).__name__.lstrip('_')}({self._arguments()})"


class _Dependent(Constraint):
    """A placeholder for a constraint that depends on other parameters; never checked."""

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


class _Real(Constraint):
    def check(self, value):
        return value == value  # False only at NaN


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return value > self.lower_bound

    def _arguments(self) -> str:
        return f"lower_bound={self.lower_bound}"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return value >= self.lower_bound


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def _arguments(self) -> str:
        return f"upper_bound={self.upper_bound}"


class _Interval(Constraint):
    """The closed interval ``[lower_bound, upper_bound]``."""

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value >= self.lower_bound) & (value <= self.upper_bound)

    def _arguments(self) -> str:
        return f"lower_bound={self.lower_bound}, upper_bound={self.upper_bound}"


class _IntegerInterval(_Interval):
    is_discrete = True

    def check(self, value):
        return (value.remainder(1) == 0) & super().check(value)


class _IntegerGreaterThan(_GreaterThan):
    """Whole numbers ``>= lower_bound`` (PyTorch names the bound inclusive here)."""

    is_discrete = True

    def check(self, value):
        return (value.remainder(1) == 0) & (value >= self.lower_bound)


class _Simplex(Constraint):
    """Non-negative vectors along the last dim that sum to 1 (within 1e-6, PyTorch's)."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _OneHot(Constraint):
    """Vectors of zeros with a single one along the last dim."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _IndependentConstraint(Constraint):
    """``base_constraint`` holding for whole events of ``reinterpreted_batch_ndims`` dims."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            result = result.all(-1)
        return result

    def _arguments(self) -> str:
        return f"{self.base_constraint!r}, {self.reinterpreted_batch_ndims}"


class _HalfOpenInterval(_Interval):
    """The interval ``[lower_bound, upper_bound)``."""

    def check(self, value):
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _Multinomial(Constraint):
    """Non-negative count vectors along the last dim summing to at most ``upper_bound``
    (PyTorch's check: the counts need not be whole)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


class _Square(Constraint):
    """Square matrices in the last two dims."""

    event_dim = 2

    def check(self, value):
        from ..factories import full

        return full(value.shape[:-2], value.shape[-1] == value.shape[-2], dtype=bool_,
                    device=value.device)


class _Symmetric(_Square):
    """Square matrices equal to their transpose (within PyTorch's ``atol=1e-6``)."""

    def check(self, value):
        square = super().check(value)
        if not all_true(square):
            return square
        return value.isclose(value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices whose eigenvalues are all >= 0."""

    def check(self, value):
        from ..linalg import eigvalsh

        symmetric = super().check(value)
        if not all_true(symmetric):
            return symmetric
        return (eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with a Cholesky factor (all eigenvalues > 0)."""

    def check(self, value):
        from ..linalg import cholesky_ex

        symmetric = super().check(value)
        if not all_true(symmetric):
            return symmetric
        return cholesky_ex(value).info == 0


class _LowerTriangular(Constraint):
    """Square matrices with zeros above the diagonal."""

    event_dim = 2

    def check(self, value):
        return (value.tril() == value).flatten(-2).all(-1)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal: Cholesky factors."""

    event_dim = 2

    def check(self, value):
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _LowerTriangular().check(value) & positive_diagonal


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower-triangular, positive diagonal, rows
    of unit length (within ``10 n eps``, PyTorch's tolerance)."""

    event_dim = 2

    def check(self, value):
        from ..type_info import finfo

        tolerance = finfo(value.dtype).eps * value.shape[-1] * 10
        row_norm = value.detach().pow(2).sum(-1).sqrt()
        unit_rows = ((row_norm - 1.0).abs() <= tolerance).all(-1)
        return _LowerCholesky().check(value) & unit_rows


class MixtureSameFamilyConstraint(Constraint):
    """The support of a ``MixtureSameFamily``: its component distribution's support
    (``base_constraint``), checked with the components' dim put back into the value."""

    def __init__(self, base_constraint: Constraint):
        if not isinstance(base_constraint, Constraint):
            # PyTorch's type and words
            raise AssertionError(f"base_constraint must be a Constraint, got "
                                 f"{type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim

    def check(self, value):
        """Whether ``value`` lies in the support of every component, per batch element.

        Raises:
            ValueError: ``value`` has fewer dims than an event.
        """
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        kept = value.dim() - self.event_dim
        return result.reshape(tuple(result.shape[:kept]) + (-1,)).all(-1)

    def _arguments(self) -> str:
        return repr(self.base_constraint)


class _Cat(Constraint):
    """``cseq[k]`` holding on the ``lengths[k]`` slices of ``dim`` after those of the
    constraints before it (the domain of a ``CatTransform``).

    Raises:
        AssertionError: an element of ``cseq`` is not a Constraint, ``lengths`` and
        ``cseq`` differ in length, or (in ``check``) ``dim`` is out of range.
    """

    def __init__(self, cseq, dim: int = 0, lengths=None):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq "
                                 f"({len(self.cseq)})")
        self.dim = dim

    @property
    def is_discrete(self) -> bool:
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        from ..functions import cat

        _check_dim_of_value(self.dim, value)
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return cat(checks, self.dim)


class _Stack(Constraint):
    """``cseq[k]`` holding on slice ``k`` of ``dim`` (the domain of a ``StackTransform``).

    Raises:
        AssertionError: an element of ``cseq`` is not a Constraint, or (in ``check``)
        ``dim`` is out of range.
    """

    def __init__(self, cseq, dim: int = 0):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:
        event_dim = max(c.event_dim for c in self.cseq)
        # a stacking dim counted from the right inside the event adds a dim to it
        return event_dim + 1 if self.dim + event_dim < 0 else event_dim

    def check(self, value):
        from ..functions import stack

        _check_dim_of_value(self.dim, value)
        return stack([constraint.check(value.select(self.dim, i))
                      for i, constraint in zip(range(value.size(self.dim)), self.cseq)],
                     self.dim)


def _check_dim_of_value(dim: int, value) -> None:
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for value with {value.dim()} dimensions")


def all_true(valid) -> bool:
    """Whether a check passed everywhere; a meta check has no values and passes."""
    return valid.is_meta or bool(valid.all())


dependent = _Dependent()
real = _Real()
boolean = _Boolean()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
one_hot = _OneHot()
real_vector = _IndependentConstraint(real, 1)
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
interval = _Interval
integer_interval = _IntegerInterval
independent = _IndependentConstraint
half_open_interval = _HalfOpenInterval
multinomial = _Multinomial
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
cat = _Cat
stack = _Stack


def is_dependent(constraint) -> bool:
    return isinstance(constraint, _Dependent)


__all__ = ["Constraint", "boolean", "dependent", "greater_than", "greater_than_eq",
           "independent", "integer_interval", "interval", "is_dependent", "less_than",
           "nonnegative", "one_hot", "positive", "real", "real_vector", "simplex",
           "unit_interval", "nonnegative_integer", "positive_integer",
           "half_open_interval", "multinomial",
           "corr_cholesky", "lower_cholesky", "lower_triangular", "positive_definite",
           "positive_semidefinite", "square", "symmetric",
           "MixtureSameFamilyConstraint",
           "cat", "stack"]

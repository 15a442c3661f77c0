"""``FuzzedParameter`` and ``ParameterAlias``: the random values a ``Fuzzer`` draws (sizes,
strides, flags) and parameters that copy another's value.

Values are drawn from a ``numpy.random.RandomState`` with the calls PyTorch's fuzzer makes,
so a seed gives the same parameters here as there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

DISTRIBUTIONS = ("loguniform", "uniform")


class ParameterAlias:
    """A parameter's value that is another parameter's (``alias_to``, its name): with a
    custom distribution, ``y_len`` can be 1 or ``x_len``, making tensors that broadcast.
    Chains are followed; cycles are refused."""

    def __init__(self, alias_to: str) -> None:
        self.alias_to = alias_to

    def __repr__(self) -> str:
        return f"ParameterAlias[alias_to: {self.alias_to}]"


class FuzzedParameter:
    """A named random value: ``"loguniform"`` (an integer between ``minval`` and ``maxval``,
    as likely in [1, 10) as in [10, 100)), ``"uniform"`` (integers when both bounds are
    ints, floats otherwise; bounds inclusive) or a dict ``{value: probability}`` (without
    bounds). A ``strict`` parameter keeps its first value while the fuzzer redraws the others
    to meet its constraints (so that redrawing does not skew it).

    Raises:
        AssertionError: an unknown distribution, negative or unnormalised probabilities, or
            bounds given with a dict (PyTorch's error type and messages).
    """

    def __init__(self, name: str, minval: int | float | None = None,
                 maxval: int | float | None = None,
                 distribution: str | dict[Any, float] | None = None,
                 strict: bool = False) -> None:
        self._name = name
        self._minval = minval
        self._maxval = maxval
        self._distribution = self._check_distribution(distribution)
        self.strict = strict

    @property
    def name(self) -> str:
        return self._name

    def _check_distribution(self, distribution):
        if not isinstance(distribution, dict):
            if distribution not in DISTRIBUTIONS:
                raise AssertionError(f"Unknown distribution: {distribution}")
            return distribution
        if any(p < 0 for p in distribution.values()):
            raise AssertionError("Probabilities cannot be negative")
        # PyTorch's test is inverted here (it refuses every normalised dict); this is the
        # check its message and documentation describe
        if abs(sum(distribution.values()) - 1) > 1e-5:
            raise AssertionError("Distribution is not normalized")
        if self._minval is not None:
            raise AssertionError("When passing a custom distribution, 'minval' must be None")
        if self._maxval is not None:
            raise AssertionError("When passing a custom distribution, 'maxval' must be None")
        return distribution

    def sample(self, state: np.random.RandomState) -> Any:
        """One value drawn with ``state``."""
        if self._distribution == "loguniform":
            return self._loguniform(state)
        if self._distribution == "uniform":
            return self._uniform(state)
        return self._custom_distribution(state)

    def _loguniform(self, state: np.random.RandomState) -> int:
        low = np.log2(self._minval) if self._minval is not None else None
        high = np.log2(self._maxval) if self._maxval is not None else None
        output = int(2 ** state.uniform(low=low, high=high))
        # the power can land just outside the bounds
        if self._minval is not None and output < self._minval:
            return self._minval
        if self._maxval is not None and output > self._maxval:
            return self._maxval
        return output

    def _uniform(self, state: np.random.RandomState) -> int | float:
        if isinstance(self._minval, int) and isinstance(self._maxval, int):
            return int(state.randint(low=self._minval, high=self._maxval + 1))
        return state.uniform(low=self._minval, high=self._maxval)

    def _custom_distribution(self, state: np.random.RandomState) -> Any:
        # an index, not the keys themselves: NumPy would turn those into NumPy scalars
        index = state.choice(np.arange(len(self._distribution)),
                             p=tuple(self._distribution.values()))
        return list(self._distribution)[index]

"""``Distribution``: the base of every probability distribution (PyTorch's API).

A distribution holds parameter tensors of shape ``batch_shape`` (+ whatever an event
needs); ``sample``/``rsample`` draw tensors of shape ``sample_shape + batch_shape +
event_shape`` from the parameters' device generator (``manual_seed`` reproduces them);
``log_prob``, ``entropy`` and the moments are ordinary tensor ops, so autograd and the
meta device work through them with no kernel of their own.

With ``validate_args`` (the default, as PyTorch's ``__debug__``), parameters are checked
against ``arg_constraints`` when the distribution is made and values against ``support``
in ``log_prob``; a failure raises PyTorch's ``ValueError``. On meta only the shapes are
checked: there are no values.
"""

from __future__ import annotations

from ..autograd import no_grad
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .constraints import all_true as _all_true
from .utils import lazy_property


class Distribution:
    """Base class: shapes, argument validation, ``sample`` through ``rsample``, repr."""

    has_rsample = False
    has_enumerate_support = False
    #: the class-wide default of ``validate_args`` (``set_default_validate_args``)
    _validate_args = __debug__
    #: each parameter's constraint, checked at construction when validating
    arg_constraints: dict = {}
    support = None

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Set whether distributions made without ``validate_args=`` validate (PyTorch's)."""
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args expects True or False, got {value!r}")
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args: bool | None = None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self) -> None:
        for name, constraint in self.arg_constraints.items():
            # a parameter derived lazily from another (``probs`` from ``logits``) is not
            # checked: the one given was; a plain property (``HalfNormal.scale``, read from
            # the base distribution) is
            if constraints.is_dependent(constraint) or (
                    name not in self.__dict__
                    and isinstance(getattr(type(self), name, None), lazy_property)):
                continue
            value = getattr(self, name)
            if not _all_true(constraint.check(value)):
                raise ValueError(
                    f"Expected parameter {name} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                    f"{constraint!r}, but found invalid values:\n{value}")

    # -- shapes ------------------------------------------------------------------------
    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape=()) -> Size:
        """``sample_shape + batch_shape + event_shape``: the shape of a sample."""
        return Size(tuple(sample_shape) + self._batch_shape + self._event_shape)

    def expand(self, batch_shape, _instance=None) -> Distribution:
        """The same distribution with its parameters expanded (viewed, not copied) to
        ``batch_shape``; an event's own dims stay on the right."""
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        kept = len(self._batch_shape)
        for name, value in self.__dict__.items():
            if isinstance(value, Tensor):
                value = value.expand(batch_shape + value.shape[kept:])
            new.__dict__[name] = value
        new._batch_shape = batch_shape
        return new

    # -- statistics, to be given by subclasses -----------------------------------------
    @property
    def mean(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement mean")

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement variance")

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def entropy(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement entropy")

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement log_prob")

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement cdf")

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement icdf")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement "
                                  "enumerate_support")

    # -- sampling ----------------------------------------------------------------------
    def sample(self, sample_shape=()) -> Tensor:
        """A sample of shape ``sample_shape + batch_shape + event_shape``, outside the graph."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()) -> Tensor:
        """A reparameterised sample: differentiable in the parameters (``has_rsample``)."""
        raise NotImplementedError(f"{type(self).__name__} has no reparameterised sampler "
                                  "(has_rsample is False); use sample()")

    # -- validation and printing -------------------------------------------------------
    def _validate_sample(self, value: Tensor) -> None:
        """PyTorch's checks of a value given to ``log_prob``/``cdf``: a tensor, whose right
        dims are the event shape and broadcast with the batch shape, inside the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event = len(self._event_shape)
        if value.shape[value.dim() - event:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.shape} vs {self._event_shape}.")
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(value.shape), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{value.shape} vs {Size(expected)}.")
        support = self.support
        if not _all_true(support.check(value)):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self) -> str:
        # a one-element parameter prints its value (``loc: 0.0``), others their size
        shown = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                value = self.__dict__[name]
                shown.append(f"{name}: {value if value.numel() == 1 else value.size()}")
        return f"{type(self).__name__}({', '.join(shown)})"

"""``MixtureSameFamily(mixture_distribution, component_distribution)``: a mixture of ``k``
components of one family, picked by a ``Categorical``."""

from __future__ import annotations

from ..autograd import no_grad
from ..size import Size
from .categorical import Categorical
from .constraints import MixtureSameFamilyConstraint
from .distribution import Distribution
from .utils import broadcast_shape


def _check_parts(mixture, component) -> int:
    """The number of components, after PyTorch's checks of the two parts.

    Raises:
        ValueError: a part of the wrong type, batch shapes that do not broadcast, or
        component counts that differ.
        IndexError: the component distribution has no batch dim to index the components.
    """
    if not isinstance(mixture, Categorical):
        raise ValueError(" The Mixture distribution needs to be an  instance of "
                         "torch.distributions.Categorical")
    if not isinstance(component, Distribution):
        raise ValueError("The Component distribution needs to be an instance of "
                         "torch.distributions.Distribution")
    mixture_batch, component_batch = mixture.batch_shape, component.batch_shape[:-1]
    for size1, size2 in zip(reversed(mixture_batch), reversed(component_batch)):
        if size1 != 1 and size2 != 1 and size1 != size2:
            raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not "
                             f"compatible with `component_distribution.batch_shape`"
                             f"({component_batch})")
    if not component.batch_shape:
        raise IndexError(f"component_distribution needs a rightmost batch dim indexing the "
                         f"components, but its batch_shape is {component.batch_shape}")
    # reading logits (not probs) as PyTorch does: it then shows in the mixture's repr
    km, kc = mixture.logits.shape[-1], component.batch_shape[-1]
    if km != kc:
        raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                         f"`component_distribution.batch_shape[-1]` ({kc})")
    return km


def _widen_batch(x, sample_dims: int, missing: int):
    """``x`` with ``missing`` unit dims put between its sample dims and its batch dims,
    so that it broadcasts against a longer batch shape."""
    shape = tuple(x.shape)
    return x.reshape(shape[:sample_dims] + (1,) * missing + shape[sample_dims:])


class MixtureSameFamily(Distribution):
    """``x`` drawn from component ``i`` of ``component_distribution`` (whose rightmost
    batch dim indexes ``k`` components), ``i`` drawn from ``mixture_distribution``.

    ``log_prob`` is ``logsumexp_i(log w_i + log p_i(x))``; ``mean`` and ``variance`` are
    the weighted mean and the law of total variance; ``cdf`` (events of ``()``) the
    weighted cdfs. Not reparameterisable: ``sample`` picks one component's draw.

    Shape:
        ``batch_shape`` is the component's batch shape without its last dim (the
        mixture's batch broadcasts with it); ``event_shape`` is the component's.

    Raises:
        ValueError: see ``_check_parts``. IndexError: the component has no batch dim.
    """

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = _check_parts(mixture_distribution, component_distribution)
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(component_distribution.batch_shape[:-1], event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """Both parts expanded: the component to ``batch_shape + (k,)``."""
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    @property
    def support(self):
        return MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    def _pad(self, x):
        """``x`` with a dim for the components put before the event dims."""
        return x.unsqueeze(-1 - self._event_ndims)

    def _weights(self):
        """The mixture's probabilities with a unit dim per event dim on the right, so that
        they broadcast against the components' statistics (batch dims align on the
        right by broadcasting)."""
        probs = self._mixture_distribution.probs
        return probs.reshape(tuple(probs.shape) + (1,) * self._event_ndims)

    @property
    def mean(self):
        return (self._weights() * self._component_distribution.mean).sum(
            -1 - self._event_ndims)

    @property
    def variance(self):
        """``E[Var(x | i)] + Var(E[x | i])``, the law of total variance."""
        weights, component = self._weights(), self._component_distribution
        dim = -1 - self._event_ndims
        mean_of_variances = (weights * component.variance).sum(dim)
        variance_of_means = (weights * (component.mean - self._pad(self.mean)).pow(2.0)).sum(dim)
        return mean_of_variances + variance_of_means

    def cdf(self, x):
        cdf_x = self._component_distribution.cdf(self._pad(x))
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self._component_distribution.log_prob(self._pad(x))
        log_weights = self._mixture_distribution.logits.log_softmax(-1)
        return (log_prob_x + log_weights).logsumexp(-1)

    def sample(self, sample_shape=()):
        """Each component's draw, then the one the mixture picks, gathered along the
        components' dim; a part of fewer batch dims is broadcast to the batch first."""
        with no_grad():
            sample_shape = Size(sample_shape)
            event = self._event_shape
            mixture, component = self._mixture_distribution, self._component_distribution
            batch = broadcast_shape(mixture.batch_shape, self._batch_shape)
            picked = _widen_batch(mixture.sample(sample_shape), len(sample_shape),
                                  len(batch) - len(mixture.batch_shape))
            picked = picked.reshape(tuple(picked.shape) + (1,) * (len(event) + 1))
            draws = _widen_batch(component.sample(sample_shape), len(sample_shape),
                                 len(batch) - len(self._batch_shape))
            dim = len(sample_shape) + len(batch)
            draws = draws.expand(sample_shape + batch + (self._num_component,) + event)
            index = picked.expand(sample_shape + batch + (1,) + event)
            return draws.gather(dim, index).squeeze(dim)

    def __repr__(self) -> str:
        return (f"MixtureSameFamily(\n  {self._mixture_distribution},\n  "
                f"{self._component_distribution})")

"""``ExponentialFamily``: the base of the families whose density is
``exp(<t(x), theta> - F(theta) + k(x))`` (PyTorch's class of that name).

A family gives its natural parameters ``theta`` (``_natural_params``), its log normalizer
``F`` (``_log_normalizer``) and the expected carrier measure ``E[k(x)]``
(``_mean_carrier_measure``); the generic ``entropy`` here and the generic KL in ``kl.py``
are Bregman divergences of ``F``, whose gradient autograd gives.
"""

from __future__ import annotations

from ..autograd import enable_grad, is_grad_enabled
from ..autograd.gradients import grad
from .distribution import Distribution


def natural_gradients(family: ExponentialFamily) -> tuple:
    """``(theta, F(theta), dF/dtheta)`` at ``family``'s natural parameters: ``theta`` as
    fresh leaves, the other two detached from the parameters' graph.

    A gradient that flows into the parameters would need the gradient of ``dF/dtheta``,
    a second-order one, which minitorch_meta does not compute.

    Raises:
        NotImplementedError: a natural parameter requires grad while grad mode is on.
    """
    params = family._natural_params
    if is_grad_enabled() and any(p.requires_grad for p in params):
        raise NotImplementedError(
            f"The exponential-family Bregman divergence of {type(family).__name__} needs "
            "higher-order gradients (PyTorch differentiates dF/dtheta with "
            "create_graph=True), which minitorch_meta does not support: detach the "
            "parameters or run under torch.no_grad()")
    leaves = [p.detach().requires_grad_() for p in params]
    with enable_grad():
        log_normalizer = family._log_normalizer(*leaves)
        gradients = grad(log_normalizer.sum(), leaves)
    return leaves, log_normalizer.detach(), gradients


class ExponentialFamily(Distribution):
    """Abstract base of the exponential families (``Normal``, ``Bernoulli``, ``Gamma``,
    ``Beta``, ``Dirichlet``, ...): they give ``_natural_params``, ``_log_normalizer`` and
    ``_mean_carrier_measure``; each family shipped here also has its own closed-form
    ``entropy``, so the generic one below serves user subclasses.
    """

    @property
    def _natural_params(self) -> tuple:
        """The natural parameters ``theta``, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """The log normalizer ``F(theta)``."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """``E[k(x)]``, needed by the generic entropy."""
        raise NotImplementedError

    def entropy(self):
        """``F(theta) - <theta, dF/dtheta> - E[k(x)]``.

        Shape:
            ``batch_shape``.

        Raises:
            NotImplementedError: a natural parameter requires grad (its gradient would be
            a second-order one).
        """
        carrier = self._mean_carrier_measure  # first: a family without one raises here
        leaves, log_normalizer, gradients = natural_gradients(self)
        result = log_normalizer - carrier
        for param, gradient in zip(leaves, gradients):
            result = result - (param.detach() * gradient).reshape(
                tuple(self._batch_shape) + (-1,)).sum(-1)
        return result

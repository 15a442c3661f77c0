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
    """``(theta, F(theta), dF/dtheta)`` at ``family``'s natural parameters.

    When a natural parameter requires grad under grad mode, all three stay joined to the
    parameters' graph (``dF/dtheta`` recorded with ``create_graph=True``), so the generic
    entropy and KL are differentiable in the parameters, through the second-order
    formulas of the ops in ``F``. Otherwise the three are plain values. (PyTorch detaches
    ``theta``, so its generic entropy and KL pass no gradient to them; the values are the
    same.)
    """
    params = family._natural_params
    differentiable = is_grad_enabled() and any(p.requires_grad for p in params)
    # dF/dtheta needs every theta as an input that requires grad: the ones that do not
    # (a fixed scale beside a learned location) become fresh leaves
    inputs = [p if differentiable and p.requires_grad else p.detach().requires_grad_()
              for p in params]
    with enable_grad():
        log_normalizer = family._log_normalizer(*inputs)
        gradients = grad(log_normalizer.sum(), inputs, create_graph=differentiable)
    if not differentiable:
        return [p.detach() for p in inputs], log_normalizer.detach(), gradients
    return inputs, log_normalizer, gradients


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
        """
        carrier = self._mean_carrier_measure  # first: a family without one raises here
        leaves, log_normalizer, gradients = natural_gradients(self)
        result = log_normalizer - carrier
        for param, gradient in zip(leaves, gradients):
            result = result - (param * gradient).reshape(
                tuple(self._batch_shape) + (-1,)).sum(-1)
        return result

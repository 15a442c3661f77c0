"""Jacobian-vector products ``J·t`` on the reverse-mode engine, for everything that asks
for forward-mode derivatives: ``torch.func.jvp``/``jacfwd``/``linearize`` and
``torch.autograd.functional.jvp``/``jacobian(strategy="forward-mode")``.

minitorch_meta records graphs for reverse mode only, so a product ``J·t`` comes from the
double-backward trick (PyTorch's ``autograd.functional.jvp`` uses it too): the
vector-Jacobian product ``g(u) = Jᵀu`` of a dummy cotangent ``u`` (zeros that require
grad) is recorded with ``create_graph=True``; ``g`` is linear in ``u``, so its own
vector-Jacobian product with respect to ``u``, weighted by ``t``, is ``J·t``.

``ForwardProducts`` records ``g`` once; each product after that is one backward pass
through ``g``'s graph, so a Jacobian built column by column (``jacobian_columns``) costs
one pass per input element, as forward mode's does. The values are exactly those of
forward mode. What differs from PyTorch: it needs the second-order formula of every op on
the way (``docs/usage.md`` lists the ops that have one; an op without one raises
``NotImplementedError`` naming it), and it keeps ``g``'s graph in memory while products are
asked for.
"""

from __future__ import annotations

from .grad_mode import enable_grad
from .gradients import grad as _grad

_NO_SECOND_ORDER = ("forward-mode derivatives (jvp, jacfwd, linearize, "
                    "strategy='forward-mode') are computed by differentiating a gradient in "
                    "minitorch_meta, so they need the op's second-order formula: {error}")


class ForwardProducts:
    """``J·t`` of ``outputs`` with respect to ``inputs`` (tensors whose graph joins them),
    for any tangents ``t``: one per input, of its shape, or None for a zero tangent.

    The result has one entry per output: its product, or None where the output does not
    depend on any input with a tangent (the caller fills zeros or refuses, as its API
    says)."""

    def __init__(self, outputs, inputs):
        self.outputs = list(outputs)
        with enable_grad():
            # an output that does not require grad does not depend on the inputs
            self.cotangents = [o.detach().new_zeros(tuple(o.shape)).requires_grad_()
                               if o.requires_grad else None for o in self.outputs]
            used = [(o, u) for o, u in zip(self.outputs, self.cotangents) if u is not None]
            vjps = [None] * len(inputs) if not used else _recorded(
                lambda: _grad([o for o, _ in used], list(inputs), [u for _, u in used],
                              retain_graph=True, create_graph=True, allow_unused=True))
        # a gradient that does not require grad is a constant of u: its products are zero
        self.vjps = [g if g is not None and g.requires_grad else None for g in vjps]

    def __call__(self, tangents, create_graph: bool = False) -> list:
        """``J·t`` per output (see the class). With ``create_graph`` the products are
        differentiable (in the inputs' outer graph and in the tangents)."""
        pairs = [(g, t) for g, t in zip(self.vjps, tangents) if g is not None and t is not None]
        dummies = [u for u in self.cotangents if u is not None]
        if not pairs:
            return [None] * len(self.outputs)
        with enable_grad():
            products = iter(_recorded(
                lambda: _grad([g for g, _ in pairs], dummies,
                              [t.to(g.dtype) for g, t in pairs], retain_graph=True,
                              create_graph=create_graph, allow_unused=True)))
        return [None if u is None else next(products) for u in self.cotangents]


def jacobian_columns(products: ForwardProducts, inputs, create_graph: bool = False) -> list:
    """The Jacobians of every output with respect to every input, one column (a product
    with a one-hot tangent) per input element: ``jacobians[o][i]`` has the shape
    ``outputs[o].shape + inputs[i].shape`` (zeros where an output does not depend on the
    input)."""
    from ..factories import eye, zeros
    from ..functions import stack

    outputs = products.outputs
    jacobians = [[None] * len(inputs) for _ in outputs]
    for i, x in enumerate(inputs):
        columns = [[] for _ in outputs]
        basis = eye(x.numel(), dtype=x.dtype, device=x.device)
        for k in range(x.numel()):
            tangents = [None] * len(inputs)
            tangents[i] = basis[k].reshape(tuple(x.shape))
            for o, product in enumerate(products(tangents, create_graph)):
                columns[o].append(product if product is not None
                                  else outputs[o].detach().new_zeros(tuple(outputs[o].shape)))
        for o, output in enumerate(outputs):
            shape = tuple(output.shape) + tuple(x.shape)
            jacobians[o][i] = (stack(columns[o], dim=-1).reshape(shape) if columns[o]
                               else zeros(shape, dtype=output.dtype, device=output.device))
    return jacobians


def _recorded(compute):
    """``compute()``, naming forward mode in the error of an op without a second-order
    formula (the user asked for a jvp, not for a gradient of a gradient)."""
    try:
        return compute()
    except NotImplementedError as error:
        raise NotImplementedError(_NO_SECOND_ORDER.format(error=error)) from error

"""The ``torch.func`` transforms that need forward-mode autograd, which minitorch_meta
does not have: ``jvp`` and ``jacfwd`` raise ``NotImplementedError`` naming what is missing
and the reverse-mode way round it."""

from __future__ import annotations

_WHY = ("minitorch_meta's autograd is reverse mode only: there are no forward-mode "
        "derivatives (tangents)")


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """Not supported: a Jacobian-vector product needs forward-mode autograd."""
    raise NotImplementedError(f"torch.func.jvp needs forward-mode autograd: {_WHY}. A "
                              "Jacobian from torch.func.jacrev(func) times the tangent gives "
                              "the same product at the cost of one backward pass per output "
                              "element")


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """Not supported: needs forward-mode autograd; ``jacrev`` gives the same Jacobian."""
    raise NotImplementedError(f"torch.func.jacfwd needs forward-mode autograd: {_WHY}. "
                              "torch.func.jacrev(func, argnums) computes the same Jacobian "
                              "by reverse mode")

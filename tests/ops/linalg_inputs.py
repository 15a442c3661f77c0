"""Well-posed matrices for the linalg tests, built from random ones with each library's own
ops (``T`` is ``minitorch_meta`` or ``torch``), so that the gradient flows through the
construction and finite differences stay inside the op's domain."""

from __future__ import annotations


def eye_like(T, a):
    return T.eye(a.shape[-1], dtype=a.dtype, device=a.device)


def well_conditioned(T, a):
    """``a + n I``: invertible, with a modest condition number, for normal ``a``."""
    return a + a.shape[-1] * eye_like(T, a)


def spd(T, a):
    """``a aᵀ + I``: symmetric positive-definite."""
    return a.matmul(a.mT) + eye_like(T, a)


def symmetric(T, a):
    """``a + aᵀ``: symmetric, with distinct eigenvalues for normal ``a``."""
    return a + a.mT

"""The regularised incomplete gamma functions: ``igamma`` (``special.gammainc``) and
``igammac`` (``special.gammaincc``), their in-place Tensor methods ``igamma_`` and
``igammac_``.

Thin wrappers over the ops of ``ops/incomplete_gamma.py``. As PyTorch's, they take two
tensors (a number in either position raises ``TypeError``).
"""

from __future__ import annotations

from .math_functions import _tensors
from .ops.incomplete_gamma import Igamma, Igammac


def igamma(input, other):  # noqa: A002 - PyTorch's name
    """``P(input, other) = gamma(input, other) / Gamma(input)``, the regularised lower
    incomplete gamma function (``input`` the shape ``a >= 0``, ``other`` the point
    ``x >= 0``; NaN outside). Differentiable in ``other`` only, as PyTorch.

    Shape:
        ``input`` and ``other`` broadcast together; the output has the broadcast shape.
    """
    _tensors("igamma", input, other)
    return Igamma()(input, other)


def igammac(input, other):  # noqa: A002 - PyTorch's name
    """``Q(input, other) = 1 - P(input, other)``, the regularised upper incomplete gamma
    function, computed directly (accurate where it is tiny). Differentiable in ``other``
    only, as PyTorch.

    Shape:
        ``input`` and ``other`` broadcast together; the output has the broadcast shape.
    """
    _tensors("igammac", input, other)
    return Igammac()(input, other)


def gammainc(input, other):  # noqa: A002 - PyTorch's name
    """``special.gammainc``: ``igamma``.

    Shape:
        ``input`` and ``other`` broadcast together; the output has the broadcast shape.
    """
    _tensors("special_gammainc", input, other)
    return Igamma()(input, other)


def gammaincc(input, other):  # noqa: A002 - PyTorch's name
    """``special.gammaincc``: ``igammac``.

    Shape:
        ``input`` and ``other`` broadcast together; the output has the broadcast shape.
    """
    _tensors("special_gammaincc", input, other)
    return Igammac()(input, other)

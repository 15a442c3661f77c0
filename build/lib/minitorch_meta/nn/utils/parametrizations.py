"""``nn.utils.parametrizations``: ready-made parametrizations, each in its own file
(``parametrized_weight_norm.py``, ``parametrized_spectral_norm.py``, ``orthogonal.py``)."""

from .orthogonal import orthogonal
from .parametrized_spectral_norm import spectral_norm
from .parametrized_weight_norm import weight_norm

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]

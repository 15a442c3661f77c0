"""``torch.distributions.transforms``: every transform, under PyTorch's module name."""

from .elementwise_transforms import (
           AbsTransform,
           AffineTransform,
           ExpTransform,
           PowerTransform,
           SigmoidTransform,
           TanhTransform,
)
from .simplex_transforms import SoftmaxTransform, StickBreakingTransform
from .transform import (
           ComposeTransform,
           IndependentTransform,
           ReshapeTransform,
           Transform,
           identity_transform,
)

__all__ = ["AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "StickBreakingTransform", "TanhTransform", "Transform",
           "identity_transform"]

"""``torch.distributions.transforms``: every transform, under PyTorch's module name."""

from .elementwise_transforms import (
           AbsTransform,
           AffineTransform,
           CumulativeDistributionTransform,
           ExpTransform,
           PowerTransform,
           SigmoidTransform,
           SoftplusTransform,
           TanhTransform,
)
from .functor_transforms import CatTransform, StackTransform
from .matrix_transforms import (
           CorrCholeskyTransform,
           LowerCholeskyTransform,
           PositiveDefiniteTransform,
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
           "identity_transform",
           "SoftplusTransform", "CumulativeDistributionTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "CorrCholeskyTransform", "CatTransform",
           "StackTransform"]

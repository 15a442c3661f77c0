"""``minitorch_meta.utils.data.distributed``: PyTorch's import path for ``DistributedSampler``."""

from ...distributed.sampler import DistributedSampler

__all__ = ["DistributedSampler"]

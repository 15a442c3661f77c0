"""``nn.parallel``: PyTorch's import path for ``DistributedDataParallel``.

The implementation lives in ``minitorch_meta.distributed`` (MPI through mpi4py, imported
only when more than one process runs).
"""

from ..distributed.parallel import DistributedDataParallel

__all__ = ["DistributedDataParallel"]

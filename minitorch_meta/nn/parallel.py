"""``nn.parallel``: PyTorch's import path for ``DistributedDataParallel`` (and for
``DataParallel``, also ``nn.DataParallel``).

The implementation lives in ``minitorch_meta.distributed`` (MPI through mpi4py, imported
only when more than one process runs).
"""

from ..distributed.parallel import DistributedDataParallel
from .data_parallel import DataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]

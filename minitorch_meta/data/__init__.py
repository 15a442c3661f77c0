"""Data loading: datasets, ``DataLoader``, ``random_split``, transforms, and the IDX format.

Also importable as ``minitorch_meta.utils.data`` (PyTorch's path). ``datasets`` and
``transforms`` follow torchvision's names for the part we cover.
"""

from . import datasets, transforms
from .collate import default_collate, default_convert
from .concat import ConcatDataset
from .dataloader import DataLoader
from .dataset import Dataset, Subset, TensorDataset
from .download import DownloadError, download_file
from .idx import IDXError, read_idx, write_idx
from .iterable import ChainDataset, IterableDataset, get_worker_info
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .splitting import random_split
from .stack import StackDataset

__all__ = ["DataLoader", "Dataset", "DownloadError", "IDXError", "Subset", "TensorDataset",
           "datasets", "default_collate", "download_file", "random_split", "read_idx",
           "transforms", "write_idx",
           "BatchSampler", "ConcatDataset", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler",
           "ChainDataset", "IterableDataset", "StackDataset", "default_convert",
           "get_worker_info", "DistributedSampler"]


def __getattr__(name: str):
    # Loaded on first use: the distributed package imports this one's modules, so an
    # import here at load time would be circular when minitorch_meta.distributed is
    # imported first.
    if name == "DistributedSampler":
        from ..distributed.sampler import DistributedSampler

        return DistributedSampler
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

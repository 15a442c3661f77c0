"""The command line's data: a split of Fashion-MNIST, MNIST or IDX files, normalised with the
training split's mean and std, as DataLoaders on the training device."""

from __future__ import annotations

import os

import numpy as np

from ..data import DataLoader, TensorDataset, datasets
from ..data.transforms import Normalize, ToTensor, compute_mean_std, signed_one_hot
from ..factories import from_numpy

TEST_BATCH_SIZE = 1000


def load_split(dataset: str, root: str, train: bool):
    """``(images uint8 (N, 28, 28), labels int64 (N,))`` of one split, as NumPy arrays."""
    if dataset == "fashion-mnist":
        split = datasets.FashionMNIST(root, train=train, download=True)
    elif dataset == "mnist":
        split = datasets.MNIST(root, train=train, download=True)
    elif os.path.isdir(dataset):  # a folder holding the four IDX files
        split = datasets.MNIST(dataset, train=train)
    else:
        raise ValueError(f"--dataset {dataset!r} is neither fashion-mnist, mnist, nor a folder "
                         "of MNIST-format IDX files")
    return split.data.numpy(), split.targets.numpy()


def prepare(images: np.ndarray, labels: np.ndarray, mean: float, std: float, loss: str):
    """Normalised float32 images ``(N, 1, 28, 28)`` and targets for ``loss``."""
    x = Normalize(mean, std)(ToTensor()(images))
    y = from_numpy(labels.astype(np.int64))
    if loss == "mse":  # the lecture's ±1 one-hot targets
        y = signed_one_hot(y, num_classes=10)
    return x, y


def make_loaders(args, device):
    """``(make_train_loader(generator), test_loader)`` for the command line's arguments.

    With ``args.distributed``, each rank gets its share: ``--batch-size`` is the global
    batch, split evenly across the ranks (see ``distributed/loaders.py``).
    """
    train_images, train_labels = load_split(args.dataset, args.data_root, train=True)
    test_images, test_labels = load_split(args.dataset, args.data_root, train=False)
    if args.limit is not None:
        if args.limit <= 0:
            raise ValueError(f"--limit must be positive, got {args.limit}")
        train_images, train_labels = train_images[:args.limit], train_labels[:args.limit]
        test_images, test_labels = test_images[:args.limit], test_labels[:args.limit]
    mean, std = compute_mean_std(train_images)
    train_set = TensorDataset(*prepare(train_images, train_labels, mean, std, args.loss))
    test_set = TensorDataset(*prepare(test_images, test_labels, mean, std, args.loss))

    distributed = getattr(args, "distributed", False)
    if distributed:
        from ..distributed.loaders import distributed_eval_loader, distributed_train_loader

    def make_train_loader(generator):
        if distributed:
            return distributed_train_loader(train_set, args.batch_size, generator, device)
        return DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                          generator=generator, device=device)

    if distributed:
        test_loader = distributed_eval_loader(test_set, TEST_BATCH_SIZE, device)
    else:
        test_loader = DataLoader(test_set, batch_size=TEST_BATCH_SIZE, device=device)
    return make_train_loader, test_loader

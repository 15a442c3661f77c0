"""Samplers: which dataset indices a ``DataLoader`` reads, and in what order (PyTorch's).

``SequentialSampler`` (0, 1, 2, ...), ``RandomSampler`` (a permutation, or draws with
replacement), ``SubsetRandomSampler`` (a permutation of given indices),
``WeightedRandomSampler`` (draws by weight, through ``multinomial``) and ``BatchSampler``
(lists of indices from another sampler). Random ones draw from ``generator`` or, without
one, from the default cpu generator that ``manual_seed`` seeds, anew at every pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .. import dtypes
from ..factories import randint, randperm, tensor
from ..int_arguments import is_int
from ..sampling import multinomial


def _positive_int(name: str, value) -> int:
    if not is_int(value) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got "
                         f"{name}={value}")
    return value


def _boolean(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} should be a boolean value, but got {name}={value}")
    return value


class Sampler:
    """Base class: an iterable of dataset indices (subclasses define ``__iter__``, and
    ``__len__`` when the count is known)."""

    def __init__(self, data_source=None) -> None:
        pass

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError(f"{type(self).__name__} does not implement __iter__")


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order of ``data_source``'s indices at each pass; with ``replacement``,
    ``num_samples`` independent uniform draws (default: one per sample).

    Raises:
        TypeError: ``replacement`` is not a bool.
        ValueError: ``num_samples`` is given without being a positive int.
    """

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None,
                 generator=None) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        _positive_int("num_samples", self.num_samples)

    @property
    def num_samples(self) -> int:
        # The dataset's length is read at each use, as in PyTorch: it may grow.
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        size, count = len(self.data_source), self.num_samples
        if self.replacement:
            yield from randint(0, size, (count,), generator=self.generator, device="cpu").tolist()
            return
        # Whole permutations, then part of one, as PyTorch's (num_samples may exceed size).
        for _ in range(count // size):
            yield from randperm(size, generator=self.generator, device="cpu").tolist()
        yield from randperm(size, generator=self.generator, device="cpu").tolist()[:count % size]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order, a new one at each pass."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator, device="cpu").tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices in ``[0, len(weights))``, index ``i`` drawn with probability
    ``weights[i] / sum(weights)`` (the weights need not sum to 1); without ``replacement``
    each index comes at most once.

    Raises:
        ValueError: ``num_samples`` is not a positive int, ``replacement`` not a bool, or
            ``weights`` not one-dimensional.
    """

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator=None) -> None:
        _positive_int("num_samples", num_samples)
        _boolean("replacement", replacement)
        weights = tensor(weights.tolist() if hasattr(weights, "tolist") else weights,
                         dtype=dtypes.float64, device="cpu")
        if weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}")
        self.weights, self.num_samples = weights, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter unless
    ``drop_last``).

    Raises:
        ValueError: ``batch_size`` is not a positive int, or ``drop_last`` not a bool.
    """

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        self.sampler = sampler
        self.batch_size = _positive_int("batch_size", batch_size)
        self.drop_last = _boolean("drop_last", drop_last)

    def __iter__(self) -> Iterator[list[int]]:
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return -(-len(self.sampler) // self.batch_size)


__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]

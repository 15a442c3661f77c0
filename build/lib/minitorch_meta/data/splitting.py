"""``random_split``: a dataset cut at random into non-overlapping ``Subset`` s.

PyTorch's rules: ``lengths`` are either counts that sum to ``len(dataset)`` or fractions
that sum to 1; fractions become ``floor(fraction * len(dataset))`` each, and the items left
over go one by one to the splits in turn, from the first.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from ..caller_warnings import warn_at_caller
from ..factories import randperm
from .dataset import Dataset, Subset

SUM_MISMATCH = "Sum of input lengths does not equal the length of the input dataset!"


def random_split(dataset: Dataset, lengths: Sequence[int | float],
                 generator=None) -> list[Subset]:
    """Split ``dataset`` at random into ``Subset`` s of the given lengths (or fractions).

    The same ``generator`` seed (``Generator().manual_seed(42)``) gives the same split every
    time; without one, the default generator is used (seeded by ``manual_seed``).

    Raises:
        ValueError: a fraction outside ``[0, 1]``, a negative length, or lengths that do not
            sum to ``len(dataset)``.
        TypeError: a length that is neither an int nor part of fractions summing to 1.
    """
    size = len(dataset)
    if _are_fractions(lengths):
        lengths = _lengths_from_fractions(lengths, size)
    _check_counts(lengths, size)
    lengths = [int(length) for length in lengths]
    device = generator.device if generator is not None else "cpu"
    indices = randperm(size, generator=generator, device=device).tolist()
    return [Subset(dataset, indices[end - length:end])
            for end, length in zip(itertools.accumulate(lengths), lengths)]


def _are_fractions(lengths: Sequence[int | float]) -> bool:
    # PyTorch's test, kept exactly: fractions whose sum lands a hair above 1
    # ([0.5, 0.5 + 1e-12]) are taken as counts and fail the sum check, and counts that
    # sum to 1 ([0, 1]) are taken as fractions (so [0, 1] gives [0, len(dataset)]).
    total = sum(lengths)
    return math.isclose(total, 1) and total <= 1


def _lengths_from_fractions(fractions: Sequence[float], size: int) -> list[int]:
    """``floor(fraction * size)`` each, then the remainder one by one, round-robin."""
    lengths = []
    for i, fraction in enumerate(fractions):
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(size * fraction))
    for i in range(size - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warn_at_caller(f"Length of split at index {i} is 0. This might result in an empty "
                           "dataset.")
    return lengths


def _check_counts(lengths: Sequence[int], size: int) -> None:
    if sum(lengths) != size:  # first, as in PyTorch: [3.0, 6.0] is a sum error
        raise ValueError(f"{SUM_MISMATCH} (lengths {list(lengths)} sum to {sum(lengths)}, "
                         f"the dataset has {size} samples)")
    for i, length in enumerate(lengths):
        if isinstance(length, bool) or not hasattr(length, "__index__"):
            raise TypeError(f"random_split: lengths must be ints summing to len(dataset) = "
                            f"{size}, or fractions summing to 1; got {length!r} at index {i}")
        # PyTorch slices with negative lengths and returns overlapping subsets; we refuse.
        if length < 0:
            raise ValueError(f"random_split: lengths must be non-negative, got {length} at "
                             f"index {i}")

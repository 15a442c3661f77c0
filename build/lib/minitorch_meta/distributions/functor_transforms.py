"""Transforms made of other transforms along one dim: ``CatTransform`` (each transform
on its own run of slices, as ``torch.cat`` joins them) and ``StackTransform`` (each on
its own slice, as ``torch.stack`` joins them)."""

from __future__ import annotations

from ..functions import cat, stack
from . import constraints
from .transform import Transform
from .utils import sum_rightmost


def _checked_transforms(tseq, cache_size: int) -> list:
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")
    return [t.with_cache(cache_size) for t in tseq] if cache_size else list(tseq)


def _check_dim(dim: int, tensor, name: str) -> None:
    if not -tensor.dim() <= dim < tensor.dim():
        raise AssertionError(f"dim {dim} out of range for {name} with {tensor.dim()} dimensions")


def _check_size(dim: int, tensor, name: str, expected: int, what: str) -> None:
    if tensor.size(dim) != expected:
        raise AssertionError(f"{name}.size({dim}) = {tensor.size(dim)} must equal {what} "
                             f"{expected}")


class CatTransform(Transform):
    """``tseq[k]`` applied to the ``lengths[k]`` slices of ``dim`` that follow those of the
    transforms before it; the results are joined with ``cat``. ``lengths`` defaults to one
    slice each.

    Shape:
        ``x`` and ``y`` have ``sum(lengths)`` entries along ``dim``.

    Raises:
        AssertionError: an element of ``tseq`` is not a Transform, ``lengths`` and
        ``tseq`` differ in length, or (on a call) ``dim`` is out of range or its size is
        not ``sum(lengths)`` (PyTorch's type and words).
    """

    def __init__(self, tseq, dim: int = 0, lengths=None, cache_size: int = 0):
        tseq = _checked_transforms(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.lengths = [1] * len(tseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self) -> int:
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        return sum(self.lengths)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)

    def with_cache(self, cache_size: int = 1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, tensor):
        """``tensor`` cut along ``dim`` into one run of slices per transform."""
        start = 0
        for length in self.lengths:
            yield tensor.narrow(self.dim, start, length)
            start += length

    def _checked(self, tensor, name: str, where: str = "tensor") -> None:
        _check_dim(self.dim, tensor, where)
        _check_size(self.dim, tensor, name, self.length, "length")

    def _call(self, x):
        self._checked(x, "x")
        return cat([t(piece) for t, piece in zip(self.transforms, self._pieces(x))],
                   dim=self.dim)

    def _inverse(self, y):
        self._checked(y, "y")
        return cat([t.inv(piece) for t, piece in zip(self.transforms, self._pieces(y))],
                   dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        self._checked(x, "x", "x")
        self._checked(y, "y", "y")
        event_dim = self.event_dim
        terms = [sum_rightmost(t.log_abs_det_jacobian(x_piece, y_piece),
                               event_dim - t.event_dim)
                 for t, x_piece, y_piece in zip(self.transforms, self._pieces(x),
                                                self._pieces(y))]
        # ``dim`` counted from the right of what is left once the event is summed out:
        # a batch dim joins the pieces, an event dim was summed and the pieces add up
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + event_dim
        if dim < 0:
            return cat(terms, dim=dim)
        return sum(terms)


class StackTransform(Transform):
    """``tseq[k]`` applied to slice ``k`` of ``dim``; the results are joined with
    ``stack``.

    Shape:
        ``x`` and ``y`` have ``len(tseq)`` entries along ``dim``.

    Raises:
        AssertionError: an element of ``tseq`` is not a Transform, or (on a call) ``dim``
        is out of range or its size is not ``len(tseq)`` (PyTorch's type and words).
    """

    def __init__(self, tseq, dim: int = 0, cache_size: int = 0):
        tseq = _checked_transforms(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.dim = dim

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)

    def with_cache(self, cache_size: int = 1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, tensor):
        return [tensor.select(self.dim, i) for i in range(tensor.size(self.dim))]

    def _checked(self, tensor, name: str, where: str = "tensor") -> None:
        _check_dim(self.dim, tensor, where)
        _check_size(self.dim, tensor, name, len(self.transforms), "len(transforms)")

    def _call(self, x):
        self._checked(x, "x")
        return stack([t(piece) for t, piece in zip(self.transforms, self._slices(x))],
                     dim=self.dim)

    def _inverse(self, y):
        self._checked(y, "y")
        return stack([t.inv(piece) for t, piece in zip(self.transforms, self._slices(y))],
                     dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        self._checked(x, "x", "x")
        self._checked(y, "y", "y")
        return stack([t.log_abs_det_jacobian(x_piece, y_piece)
                      for t, x_piece, y_piece in zip(self.transforms, self._slices(x),
                                                     self._slices(y))], dim=self.dim)

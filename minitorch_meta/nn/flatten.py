"""``Flatten``: merge a range of dimensions into one (by default all but the batch);
``Unflatten``: split one dimension into several."""

from __future__ import annotations

from ..int_arguments import is_int
from ..tensor import Tensor
from .module import Module


class Flatten(Module):
    """Flatten dimensions ``start_dim`` .. ``end_dim`` into one.

    Shape:
        ``(N, *dims)`` -> ``(N, prod(dims))`` with the defaults.
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size`` (a tuple, list or ``Size``).

    Shape:
        ``(*, prod(unflattened_size), *)`` -> ``(*, *unflattened_size, *)``, e.g.
        ``Unflatten(1, (16, 5, 5))`` turns ``(N, 400)`` into ``(N, 16, 5, 5)``.

    Raises:
        TypeError: ``dim`` is not an int, or ``unflattened_size`` not a sequence of ints.
    """

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        if not is_int(dim):
            raise TypeError(f"invalid argument type for dim parameter: expected int, got "
                            f"{type(dim).__name__}")
        if not isinstance(unflattened_size, (tuple, list)) or not all(
                is_int(s) for s in unflattened_size):
            raise TypeError(f"unflattened_size must be a tuple (or list, or Size) of ints, "
                            f"but found {unflattened_size!r}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"

"""``Size``: the shape of a tensor, a tuple that prints like PyTorch's."""


class Size(tuple):
    """A tuple of ints describing a tensor's shape, e.g. ``Size([2, 3])``.

    It prints as ``torch.Size([2, 3])``, exactly as PyTorch's does, so output written for
    PyTorch reads the same.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        """Number of elements of a tensor of this shape."""
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

"""``FuzzedTensor``: a tensor a ``Fuzzer`` makes from its drawn parameters, with a random
memory layout (permuted, strided) so that benchmarks see non-contiguous inputs too."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import dtypes


def dtype_size(dtype) -> int:
    """Bytes per element of ``dtype``."""
    return dtype.itemsize


def prod(values, base: int = 1) -> int:
    """The product of sizes in Python integers (NumPy's int64 could overflow to a negative
    count that would pass the size checks)."""
    return functools.reduce(lambda x, y: int(x) * int(y), values, base)


def _nullable_greater(left, right) -> bool:
    return left is not None and right is not None and left > right


class FuzzedTensor:
    """A tensor named ``name`` of ``size`` (ints, or names of parameters), optionally a
    strided slice (``steps``) of a larger allocation; with probability
    ``1 - probability_contiguous`` its memory is laid out in a random dimension order.
    ``min_elements``, ``max_elements`` and ``max_allocation_bytes`` reject parameter draws;
    ``dim_parameter`` names a parameter that truncates (or pads with 1) ``size`` and
    ``steps``. ``tensor_constructor(size=, dtype=, **params)`` replaces the default values
    (``rand`` for floating and complex dtypes, integers in [1, 127) otherwise). ``cuda``
    moves it to the GPU. (``roll_parameter`` is accepted, and unused, as in PyTorch.)
    """

    def __init__(self, name: str, size: tuple[str | int, ...],
                 steps: tuple[str | int, ...] | None = None,
                 probability_contiguous: float = 0.5, min_elements: int | None = None,
                 max_elements: int | None = None, max_allocation_bytes: int | None = None,
                 dim_parameter: str | None = None, roll_parameter: str | None = None,
                 dtype=dtypes.float32, cuda: bool = False,
                 tensor_constructor: Callable | None = None) -> None:
        self._name = name
        self._size = size
        self._steps = steps
        self._probability_contiguous = probability_contiguous
        self._min_elements = min_elements
        self._max_elements = max_elements
        self._max_allocation_bytes = max_allocation_bytes
        self._dim_parameter = dim_parameter
        self._dtype = dtype
        self._cuda = cuda
        self._tensor_constructor = tensor_constructor

    @property
    def name(self) -> str:
        return self._name

    @staticmethod
    def default_tensor_constructor(size, dtype, **kwargs):
        """Uniform [0, 1) values for floating and complex dtypes, integers in [1, 127)
        otherwise, on the CPU."""
        import minitorch_meta as torch

        if dtype.is_floating_point or dtype.is_complex:
            return torch.rand(size, dtype=dtype, device="cpu")
        return torch.randint(1, 127, size=size, dtype=dtype, device="cpu")

    def _make_tensor(self, params: dict[str, Any], state: np.random.RandomState):
        """The tensor for ``params``, and its properties (``numel``, the dimension
        ``order`` of its memory, ``steps``, ``is_contiguous``, ``dtype``)."""
        size, steps, allocation_size = self._get_size_and_steps(params)
        constructor = self._tensor_constructor or self.default_tensor_constructor
        raw_tensor = constructor(size=allocation_size, dtype=self._dtype, **params)
        if self._cuda:
            raw_tensor = raw_tensor.cuda()
        # lay the memory out in a random order (permute, copy, permute back): same shape,
        # other strides
        dim = len(size)
        order = np.arange(dim)
        if state.rand() > self._probability_contiguous:
            while dim > 1 and np.all(order == np.arange(dim)):
                order = state.permutation(raw_tensor.dim())
            raw_tensor = raw_tensor.permute(tuple(order)).contiguous()
            raw_tensor = raw_tensor.permute(tuple(np.argsort(order)))
        slices = tuple(slice(0, n * step, step) for n, step in zip(size, steps))
        tensor = raw_tensor[slices]
        properties = {"numel": int(tensor.numel()), "order": order, "steps": steps,
                      "is_contiguous": tensor.is_contiguous(), "dtype": str(self._dtype)}
        return tensor, properties

    def _get_size_and_steps(self, params: dict[str, Any]):
        dim = (params[self._dim_parameter] if self._dim_parameter is not None
               else len(self._size))

        def resolve(values):
            # parameter names become their values; then cut or padded with 1 to ``dim``
            values = tuple(params.get(v, v) for v in values)[:dim]
            return values + (1,) * (dim - len(values))

        size, steps = resolve(self._size), resolve(self._steps or ())
        allocation_size = tuple(n * step for n, step in zip(size, steps))
        return size, steps, allocation_size

    def satisfies_constraints(self, params: dict[str, Any]) -> bool:
        """Whether ``params`` give this tensor an allowed element count and allocation."""
        size, _, allocation_size = self._get_size_and_steps(params)
        num_elements = prod(size)
        if num_elements < 0:
            raise AssertionError("Computed number of elements is negative")
        allocation_bytes = prod(allocation_size, base=dtype_size(self._dtype))
        return not (_nullable_greater(num_elements, self._max_elements)
                    or _nullable_greater(self._min_elements, num_elements)
                    or _nullable_greater(allocation_bytes, self._max_allocation_bytes))

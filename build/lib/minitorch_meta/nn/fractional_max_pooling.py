"""``F.fractional_max_pool2d``/``3d`` (and their ``_with_indices`` forms) and the layers
``FractionalMaxPool2d``/``3d``: max pooling over windows whose starts step by a random,
non-integer stride (``ops/fractional_max_pooling.py``). As in PyTorch, the output size is
given or follows from ``output_ratio``, and the samples placing the windows are drawn from
the default generator (``rand``, in the input's dtype and on its device) unless given as
``_random_samples``."""

from __future__ import annotations

from ..autocasting import autocast_op
from ..factories import rand
from ..ops.avg_pooling import _require_dtype
from ..ops.fractional_max_pooling import FractionalMaxPool2d as _FractionalMaxPool2dOp
from ..ops.fractional_max_pooling import FractionalMaxPool3d as _FractionalMaxPool3dOp
from ..tensor import Tensor
from .module import Module


def _pool(op_class, input: Tensor, kernel_size, output_size, output_ratio, samples):
    """``(output, indices)``: the output size worked out, samples drawn if none given."""
    op, d = op_class.op_name, op_class.dims
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        ratio = _ratios(op, d, output_ratio)
        output_size = [int(input.size(axis - d) * ratio[axis]) for axis in range(d)]
    if samples is None:
        if not input.is_floating_point():  # before ``rand`` is asked for integers
            _require_dtype(op, input.dtype, ())
        batch = 1 if input.dim() == d + 1 else input.size(0)
        samples = rand(batch, input.size(-d - 1), d, dtype=input.dtype, device=input.device)
    return op_class(kernel_size=kernel_size, output_size=output_size)(input, samples)


def _ratios(op: str, d: int, output_ratio) -> tuple:
    """``output_ratio`` as ``d`` numbers, as PyTorch reads it: the 2-D function takes a
    sequence only (its layer makes pairs of numbers), the 3-D one also a number."""
    if not isinstance(output_ratio, (tuple, list)):
        if d == 2:
            raise TypeError(f"{op}: output_ratio must be a tuple of 2 floats, but got "
                            f"{output_ratio!r} (nn.FractionalMaxPool2d also takes one number)")
        return (output_ratio,) * d
    if len(output_ratio) > d and d == 2:
        raise ValueError(f"{op} requires output_ratio to either be a single Int or tuple of "
                         f"Ints, but got {tuple(output_ratio)}")
    if len(output_ratio) < d:
        raise IndexError(f"{op}: output_ratio must hold {d} ratios, but got "
                         f"{tuple(output_ratio)}")
    return tuple(output_ratio[:d])  # PyTorch reads the first three of a longer one


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None,
                                       output_ratio=None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None):
    """``fractional_max_pool2d`` that always returns ``(output, indices)``."""
    return _pool(_FractionalMaxPool2dOp, input, kernel_size, output_size, output_ratio,
                 _random_samples)


@autocast_op("fractional_max_pool2d")
def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False,
                          _random_samples: Tensor | None = None):
    """2-D fractional max pooling: the maximum over ``kernel_size`` windows placed at
    pseudo-random, non-integer steps; with ``return_indices``, also each maximum's flat
    position ``h * W + w`` in its plane (int64, for ``F.max_unpool2d``).

    ``output_size`` (an int or a pair) or ``output_ratio`` (a pair of numbers in (0, 1):
    ``int(H * ratio_h)``, likewise W) gives the output size; ``_random_samples`` ``(N, C,
    2)`` in [0, 1), of the input's dtype, places the windows (drawn with ``rand`` when
    None).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` or ``(C, H_out,
        W_out)``, with ``H_out + kH - 1 <= H`` and ``W_out + kW - 1 <= W``.
    """
    y, indices = fractional_max_pool2d_with_indices(input, kernel_size, output_size,
                                                    output_ratio,
                                                    _random_samples=_random_samples)
    return (y, indices) if return_indices else y


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None,
                                       output_ratio=None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None):
    """``fractional_max_pool3d`` that always returns ``(output, indices)``."""
    return _pool(_FractionalMaxPool3dOp, input, kernel_size, output_size, output_ratio,
                 _random_samples)


@autocast_op("fractional_max_pool3d")
def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False,
                          _random_samples: Tensor | None = None):
    """3-D fractional max pooling (``fractional_max_pool2d`` over volumes); indices are
    flat positions ``(t * H + h) * W + w`` in each volume, ``output_ratio`` may be one
    number, and ``_random_samples`` is ``(N, C, 3)``.

    Shape:
        ``(N, C, T, H, W)`` or ``(C, T, H, W)`` -> ``(N, C, T_out, H_out, W_out)`` or
        ``(C, T_out, H_out, W_out)``, with ``T_out + kT - 1 < T`` (likewise H and W).
    """
    y, indices = fractional_max_pool3d_with_indices(input, kernel_size, output_size,
                                                    output_ratio,
                                                    _random_samples=_random_samples)
    return (y, indices) if return_indices else y


def _as_tuple(value, d: int):
    return None if value is None else tuple(value) if isinstance(value, (tuple, list)) \
        else (value,) * d


class _FractionalMaxPoolNd(Module):
    """The settings and checks the 2-D and 3-D layers share (PyTorch's, word for word
    where it has them)."""

    dims = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices: bool = False, _random_samples=None) -> None:
        super().__init__()
        self.kernel_size = _as_tuple(kernel_size, self.dims)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _as_tuple(output_size, self.dims)
        self.output_ratio = _as_tuple(output_ratio, self.dims)
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """``F.fractional_max_pool2d`` as a layer; ``_random_samples`` given here is a buffer
    used by every call (fixed windows), else each call draws new ones.

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` or ``(C, H_out,
        W_out)``, ``(H_out, W_out)`` being ``output_size`` or ``output_ratio`` times
        ``(H, W)``, rounded down.
    """

    def forward(self, input: Tensor):
        return fractional_max_pool2d(input, self.kernel_size, self.output_size,
                                     self.output_ratio, self.return_indices,
                                     _random_samples=self._random_samples)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """``F.fractional_max_pool3d`` as a layer.

    Shape:
        ``(N, C, T, H, W)`` or ``(C, T, H, W)`` -> ``(N, C, T_out, H_out, W_out)`` or
        ``(C, T_out, H_out, W_out)``.

    Raises:
        ValueError: a kernel size that is not positive (PyTorch checks it for 3-D only).
    """

    dims = 3

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices: bool = False, _random_samples=None) -> None:
        sizes = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,)
        if not all(k > 0 for k in sizes):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        super().__init__(kernel_size, output_size, output_ratio, return_indices,
                         _random_samples)

    def forward(self, input: Tensor):
        return fractional_max_pool3d(input, self.kernel_size, self.output_size,
                                     self.output_ratio, self.return_indices,
                                     _random_samples=self._random_samples)

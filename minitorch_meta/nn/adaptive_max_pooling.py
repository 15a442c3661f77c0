"""``F.adaptive_max_pool1d/2d`` (and their ``_with_indices`` forms) and the layers
``AdaptiveMaxPool1d/2d``: maxima over windows fitted to an output size
(``ops/adaptive_max_pooling.py``). The 1-D form is the 2-D op on a height of 1 as PyTorch
composes it (``unsqueeze(-2)``, pool, ``squeeze(-2)``), so its ``grad_fn`` reads
``SqueezeBackward1`` as in PyTorch."""

from __future__ import annotations

from ..ops.adaptive_max_pooling import AdaptiveMaxPool2d as _AdaptiveMaxPool2dOp
from ..ops.shapes import ShapeRuntimeError, fmt, require_non_empty
from ..tensor import Tensor
from .module import Module
from .pool1d_functions import require_int_sizes


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """``adaptive_max_pool2d`` that always returns ``(output, indices)``."""
    return _AdaptiveMaxPool2dOp(output_size=output_size, return_indices=True)(input)


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling to ``output_size`` (an int, or a pair whose ``None`` keeps that input
    size); with ``return_indices``, also each maximum's flat position ``h * W + w`` in its
    plane (int64).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` or
        ``(C, H_out, W_out)``; window ``i`` along H covers ``[floor(i * H / H_out),
        ceil((i + 1) * H / H_out))`` (likewise W).
    """
    return _AdaptiveMaxPool2dOp(output_size=output_size, return_indices=return_indices)(input)


def _length(op: str, output_size) -> int:
    """The 1-D ``output_size`` (an int or a one-int tuple, its type checked already by
    ``require_int_sizes``), with PyTorch's error for another length."""
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise ShapeRuntimeError(op, f"argument 'output_size' should contain one int (got "
                                        f"{len(output_size)})")
        (output_size,) = output_size
    return output_size


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """``adaptive_max_pool1d`` that always returns ``(output, indices)``."""
    op = "adaptive_max_pool1d"
    require_int_sizes(op, output_size)
    if input.dim() not in (2, 3):
        raise ShapeRuntimeError(op, f"expected 2 to 3 dimensions, (C, L) or (N, C, L), but got "
                                    f"a {input.dim()}-D input of shape {fmt(input.shape)}")
    size = _length(op, output_size)
    require_non_empty(op, tuple(input.shape), range(1, input.dim()))
    y, indices = adaptive_max_pool2d_with_indices(input.unsqueeze(-2), (1, size))
    return y.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling of sequences to ``output_size`` positions (an int or a one-int tuple);
    with ``return_indices``, also each maximum's position along L (int64).

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, L_out)`` or ``(C, L_out)``; window ``i``
        covers ``[floor(i * L / L_out), ceil((i + 1) * L / L_out))``.
    """
    y, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (y, indices) if return_indices else y


class _AdaptiveMaxPoolNd(Module):
    """The settings and repr shared by the 1-D and 2-D layers."""

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """``F.adaptive_max_pool1d`` as a layer.

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, L_out)`` or ``(C, L_out)``,
        ``L_out = output_size``.
    """

    def forward(self, input: Tensor):
        return adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """``F.adaptive_max_pool2d`` as a layer (``None`` in ``output_size`` keeps that size).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` or
        ``(C, H_out, W_out)``, ``(H_out, W_out) = output_size``.
    """

    def forward(self, input: Tensor):
        return adaptive_max_pool2d(input, self.output_size, self.return_indices)

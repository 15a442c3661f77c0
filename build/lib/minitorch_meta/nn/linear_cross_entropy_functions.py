"""``F.linear_cross_entropy``: the cross-entropy of a linear layer's logits, PyTorch's
``torch.nn.functional.linear_cross_entropy`` (its checks, messages and two paths).

With ``options=None`` it is ``cross_entropy(linear(input, W, b).reshape(N, C, *d), target)``
(the reference path: every ``cross_entropy`` option, K-dimensional weights). With a
``LinearCrossEntropyOptions`` it runs ``LinearCrossEntropyChunks`` (``ops/``), which makes
the logits a chunk of rows at a time, so that the ``(N, C)`` logits never exist whole; as
in PyTorch, that path takes int64 targets, no label smoothing and a 2-D weight only, and
other calls warn and take the reference path.
"""

from __future__ import annotations

import math

from .. import dtypes
from ..caller_warnings import warn_at_caller
from ..ops.linear_cross_entropy import LinearCrossEntropyChunks
from ..tensor import Tensor
from .functional import cross_entropy, linear
from .linear_cross_entropy_options import LinearCrossEntropyOptions


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *,
                         linear_bias: Tensor | None = None, weight: Tensor | None = None,
                         reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0,
                         options: LinearCrossEntropyOptions | None = None) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target)``. With class
    ``weight`` the chunked path is not taken (the reference path's values are the same; the
    ``(N, C)`` logits then exist whole).

    ``ignore_index=None`` means -100 for class indices and is required for probabilities.

    Shape:
        input ``(F,)`` or ``(N, F)``; linear weight ``(C, F)`` or ``(C, d_1, ..., d_K, F)``
        (batched input only); linear bias ``(C, d_1, ..., d_K)``; target ``()``/``(N,)``/
        ``(N, d_1, ..., d_K)`` class indices or probabilities of the logits' shape ``(N, C,
        d_1, ..., d_K)`` -> ``()`` (the target's batch shape for ``'none'``).

    Raises:
        RuntimeError: the shapes do not fit (PyTorch's messages), or ``ignore_index`` is
            given with probability targets.
    """
    batch, in_features = _check_shapes(input, linear_weight, linear_bias)
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    logits_shape = (*batch, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None and weight is None:
        if (out_features or reduction not in ("mean", "sum", "none") or label_smoothing != 0.0
                or target.dtype is not dtypes.int64):
            warn_at_caller(
                "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
                f"out_features == (). Got reduction={reduction!r}, label_smoothing="
                f"{label_smoothing}, target.dtype={target.dtype}, out_features={out_features}"
                ", tracing=False, linear_bias.shape="
                f"{tuple(linear_bias.shape) if linear_bias is not None else None}.")
        else:
            return _chunked(input, linear_weight, target, linear_bias, reduction,
                            ignore_index, options)
    if out_features:
        linear_weight = linear_weight.reshape(math.prod(logits_shape[-1 - len(out_features):]),
                                              in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(-1)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)


def _check_shapes(input: Tensor, linear_weight: Tensor, linear_bias: Tensor | None):
    """PyTorch's checks, in its order; returns the batch shape and ``in_features``."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {in_features} and {linear_weight.shape[-1]}, "
                           "respectively")
    expected_bias = tuple(linear_weight.shape[:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != expected_bias:
        raise RuntimeError(f"expected linear_bias shape {expected_bias}, got "
                           f"{tuple(linear_bias.shape)}")
    if linear_weight.dim() > 2 and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, "
                           f"{in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    return batch, in_features


def _chunked(input: Tensor, linear_weight: Tensor, target: Tensor,
             linear_bias: Tensor | None, reduction: str, ignore_index: int,
             options: LinearCrossEntropyOptions) -> Tensor:
    """The chunked path; an unbatched input is a batch of one row."""
    batched = input.dim() == 2
    if not batched:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    size = options.chunk_size(input.shape[0], input.shape[1], linear_weight.shape[0],
                              input.dtype, input.device.type)
    result = LinearCrossEntropyChunks(reduction=reduction, ignore_index=ignore_index,
                                      chunk_size=size)(input, linear_weight, target,
                                                       linear_bias)
    return result if batched else result.squeeze(0)

"""``nn.functional``: the layer math as functions — conv2d, max_pool2d, linear, relu, losses.

Each function is a thin wrapper over one op (``ops/``): it normalises arguments and
handles PyTorch's conveniences (unbatched inputs, ``return_indices``), nothing more.
"""

from __future__ import annotations

from .. import functions
from ..factories import rand
from ..ops import conv as conv_ops
from ..ops import layout, linalg, loss, pooling
from ..ops.shapes import ShapeError, fmt
from ..tensor import Tensor


def _batched(op: str, input: Tensor, rank: int = 4):
    """Unbatched inputs ``(C, H, W)`` run as a batch of one, as PyTorch allows."""
    if input.dim() == rank - 1:
        return input.unsqueeze(0), True
    if input.dim() != rank:
        raise ShapeError(op, f"expected a {rank - 1}-D (unbatched) or {rank}-D (batched) input "
                             f"(N, C, H, W), but got a {input.dim()}-D input of shape "
                             f"{fmt(input.shape)}")
    return input, False


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """2-D cross-correlation of ``input`` with ``weight`` (PyTorch's ``F.conv2d``).

    Shape:
        input ``(N, C_in, H, W)`` or ``(C_in, H, W)``, weight ``(C_out, C_in, kH, kW)``,
        bias ``(C_out,)`` -> ``(N, C_out, H_out, W_out)``.
    """
    if groups != 1:
        raise NotImplementedError(f"conv2d: groups={groups} is not supported (only groups=1)")
    x, unbatched = _batched("conv2d", input)
    y = conv_ops.Conv2d(stride=stride, padding=padding, dilation=dilation)(x, weight, bias)
    return y.squeeze(0) if unbatched else y


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """Max pooling over ``kernel_size`` windows; ``stride`` defaults to ``kernel_size``.

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)``.
    """
    x, unbatched = _batched("max_pool2d", input)
    op = pooling.MaxPool2d(kernel_size=kernel_size, stride=stride, padding=padding,
                           dilation=dilation, ceil_mode=ceil_mode, return_indices=return_indices)
    if not return_indices:
        y = op(x)
        return y.squeeze(0) if unbatched else y
    y, indices = op(x)
    if unbatched:
        y, indices = y.squeeze(0), indices.squeeze(0)
    return y, indices


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Row-vector affine map ``input @ weight.T + bias`` (addmm for a batch of rows).

    Shape:
        input ``(*, in_features)``, weight ``(out_features, in_features)``,
        bias ``(out_features,)`` -> ``(*, out_features)``.
    """
    shape, weight_shape = input.shape, weight.shape  # read once: each read builds a Size
    if len(weight_shape) != 2:
        raise ShapeError("linear", f"expected weight to be 2-D (out_features, in_features), got "
                                   f"shape {fmt(weight_shape)}")
    if not shape or shape[-1] != weight_shape[1]:
        raise ShapeError("linear", f"input has {shape[-1] if shape else 0} features "
                                   f"(last dimension of input shape {fmt(shape)}) but weight "
                                   f"{fmt(weight_shape)} expects in_features={weight_shape[1]}")
    if len(shape) == 2:
        w_t = weight.t()
        if bias is None:
            return functions.mm(input, w_t)
        return linalg.Addmm()(bias, input, w_t)
    y = functions.matmul(input, weight.t())
    return y + bias if bias is not None else y


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` elementwise.

    Shape:
        unchanged.
    """
    return functions.relu(input)


def tanh(input: Tensor) -> Tensor:
    """``tanh(input)`` elementwise.

    Shape:
        unchanged.
    """
    return functions.tanh(input)


def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-input))`` elementwise.

    Shape:
        unchanged.
    """
    return functions.sigmoid(input)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False,
            generator=None) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Identity when ``training`` is False. ``inplace`` is accepted and returns a new tensor.

    Shape:
        unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = rand(tuple(input.shape), generator=generator, dtype=input.dtype,
                device=input.device) >= p
    return input * keep * (1.0 / (1.0 - p))


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return layout.Flatten(start_dim=start_dim, end_dim=end_dim)(input)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean squared error.

    Shape:
        input and target of the same shape -> ``()`` (or the input's shape for ``'none'``).
    """
    return loss.MseLoss(reduction=reduction)(input, target)


def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean absolute error.

    Shape:
        input and target of the same shape -> ``()`` (or the input's shape for ``'none'``).
    """
    return loss.L1Loss(reduction=reduction)(input, target)


def log_softmax(input: Tensor, dim: int | None = None) -> Tensor:
    """``log(softmax(input))`` along ``dim``, computed stably.

    Shape:
        unchanged.
    """
    return functions.log_softmax(input, _softmax_dim(input, dim))


def softmax(input: Tensor, dim: int | None = None) -> Tensor:
    """``exp(input) / sum(exp(input))`` along ``dim``.

    Shape:
        unchanged.
    """
    return functions.softmax(input, _softmax_dim(input, dim))


def _softmax_dim(input: Tensor, dim: int | None) -> int:
    """``dim``, or PyTorch's legacy implicit choice when it is None."""
    if dim is None:
        return 0 if input.dim() in (0, 1, 3) else 1
    return dim


def nll_loss(input: Tensor, target: Tensor, reduction: str = "mean",
             ignore_index: int = -100) -> Tensor:
    """Negative log-likelihood of class indices.

    Shape:
        input ``(N, C)`` log-probabilities, target ``(N,)`` -> ``()`` (or ``(N,)``).
    """
    return loss.NllLoss(reduction=reduction, ignore_index=ignore_index)(input, target)


def cross_entropy(input: Tensor, target: Tensor, reduction: str = "mean",
                  ignore_index: int = -100) -> Tensor:
    """Softmax cross-entropy over class logits.

    ``target`` holds class indices ``(N,)`` (int64), or class probabilities of the input's
    shape (float), as in PyTorch.

    Shape:
        input ``(N, C)``, target ``(N,)`` or ``(N, C)`` -> ``()`` (or ``(N,)`` for ``'none'``).
    """
    log_probabilities = log_softmax(input, 1 if input.dim() > 1 else 0)
    if target.dtype.is_floating_point:
        if tuple(target.shape) != tuple(input.shape):
            raise ShapeError("cross_entropy", f"probability targets must have the input's shape "
                                              f"{fmt(input.shape)}, got {fmt(target.shape)}")
        per_sample = -(log_probabilities * target).sum(dim=1)
        if reduction == "none":
            return per_sample
        return per_sample.sum() if reduction == "sum" else per_sample.mean()
    return nll_loss(log_probabilities, target, reduction=reduction, ignore_index=ignore_index)

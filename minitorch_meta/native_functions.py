"""PyTorch's ``native_*`` entry points: the normalisations that also return the statistics
they save for backward, ``native_dropout`` with its mask, ``native_norm`` and
``native_channel_shuffle``.

Each output is the existing op's (``layer_norm``, ``batch_norm``, ``group_norm``, dropout's
multiply by a mask, ``linalg.vector_norm``, ``channel_shuffle``), its ``grad_fn`` named as
PyTorch's. The statistics are computed beside it under ``no_grad`` from the input, with
PyTorch's shapes and dtypes: the mean and the reciprocal standard deviation
``1 / sqrt(var + eps)`` (biased variance), in the input's dtype, computed in float32 for
float16 inputs. They carry no gradient (PyTorch's ``native_group_norm`` gives them a
``grad_fn`` whose backward is not implemented).
"""

from __future__ import annotations

from . import dtypes, functions
from .autograd import no_grad
from .ops.layer_norm import opmath_dtype
from .ops.shapes import ShapeError, fmt, int_tuple_argument
from .tensor import Tensor


def _statistics(x: Tensor, dims: tuple, eps: float, dtype) -> tuple[Tensor, Tensor]:
    """``(mean, rstd)`` of ``x`` over ``dims`` (kept as size 1), in ``dtype``, without a
    graph."""
    with no_grad():
        x = x.to(opmath_dtype(x.dtype))
        mean = x.mean(dims, keepdim=True)
        centred = x - mean  # centring first avoids the cancellation of E[x²] - E[x]²
        rstd = ((centred * centred).mean(dims, keepdim=True) + eps).rsqrt()
    return mean.to(dtype), rstd.to(dtype)


def native_layer_norm(input: Tensor, normalized_shape, weight: Tensor | None,
                      bias: Tensor | None, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(layer_norm(input, ...), mean, rstd)``.

    Shape:
        output: the input's; mean and rstd: the input's leading dims, then a 1 for each
        normalised dim (``(N, L, 1)`` for ``(N, L, D)`` normalised over ``D``).
    """
    from .nn.functional import layer_norm

    normalized_shape = int_tuple_argument("native_layer_norm", "normalized_shape", 2,
                                          normalized_shape)
    output = layer_norm(input, normalized_shape, weight, bias, eps)  # checks the shapes
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    return (output,) + _statistics(input, dims, eps, input.dtype)


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int,
                      C: int, HxW: int, group: int, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(group_norm(input, group, ...), mean, rstd)`` with the input read as ``(N, C, HxW)``.

    Shape:
        output: the input's (which holds ``N * C * HxW`` elements); mean and rstd
        ``(N, group)``.
    """
    from .nn.functional import group_norm

    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected X.numel() == N * C * HxW to be true, but got false. "
                           f"(the input of shape {fmt(tuple(input.shape))} holds "
                           f"{input.numel()} elements, not {N} * {C} * {HxW})")
    grouped = input if tuple(input.shape[:2]) == (N, C) else input.reshape(N, C, HxW)
    output = group_norm(grouped, group, weight, bias, eps)
    if grouped is not input:
        output = functions._composed(output.reshape(input.shape), "NativeGroupNormBackward0")
    mean, rstd = _statistics(input.reshape(N, group, -1), (2,), eps, input.dtype)
    return output, mean.reshape(N, group), rstd.reshape(N, group)


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                      running_mean: Tensor | None, running_var: Tensor | None,
                      training: bool, momentum: float, eps: float,
                      ) -> tuple[Tensor, Tensor, Tensor]:
    """``(batch_norm(...), save_mean, save_invstd)``: the batch's mean and
    ``1 / sqrt(var + eps)`` per channel when ``training`` (the running statistics are then
    updated in place, as ``batch_norm`` does), empty tensors otherwise.

    Shape:
        output: the input's ``(N, C, *)``; save_mean and save_invstd ``(C,)`` when
        training, ``(0,)`` otherwise.

    Raises:
        RuntimeError: not ``training`` and no running statistics (PyTorch 2.13 crashes).
    """
    from .nn import batchnorm

    shape = tuple(input.shape)
    if len(shape) < 2:
        raise ShapeError("native_batch_norm", f"expected an input of at least 2 dimensions "
                                              f"(N, C, *), got shape {fmt(shape)}")
    for name, values in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                         ("running_var", running_var)):
        batchnorm.check_channels("native_batch_norm", name, values, shape[1], shape)
    stat_shape = (1, shape[1]) + (1,) * (len(shape) - 2)
    if not training:
        output = batchnorm.normalise_with_running_stats(input, stat_shape, running_mean,
                                                        running_var, weight, bias, eps)
        return (functions._composed(output, "NativeBatchNormBackward0", input, weight, bias),
                _empty_statistic(input), _empty_statistic(input))
    axes = (0,) + tuple(range(2, len(shape)))
    mean, invstd = _statistics(input, axes, eps, input.dtype)  # before the running update
    # unlike ``F.batch_norm``, one value per channel is allowed (its invstd is 1/sqrt(eps))
    output = batchnorm._normalise_with_batch_stats(input, axes, stat_shape, running_mean,
                                                   running_var, weight, bias, momentum, eps)
    return (functions._composed(output, "NativeBatchNormBackward0", input, weight, bias),
            mean.reshape(shape[1]), invstd.reshape(shape[1]))


def _empty_statistic(input: Tensor) -> Tensor:
    """The ``(0,)`` tensor PyTorch returns for a statistic evaluation does not save."""
    from .factories import empty

    return empty(0, dtype=input.dtype, device=input.device)


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    """``(output, mask)``: while training (``train`` True or None) each element is kept
    with probability ``1 - p`` (the bool ``mask``) and scaled by ``1 / (1 - p)``; otherwise
    the output is a copy of the input and the mask all True.

    Shape:
        output and mask: the input's.

    Raises:
        RuntimeError: training with ``p`` outside [0, 1], or a non-float input.
    """
    from .factories import ones, rand

    if train is not None and not train:
        output = functions._composed(input.clone(), "NativeDropoutBackward0")
        return output, ones(tuple(input.shape), dtype=dtypes.bool_, device=input.device)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1 - p}")
    if not input.dtype.is_floating_point:
        names = dtypes.SCALAR_TYPE_NAMES
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{names[input.dtype]}")
    keep = rand(tuple(input.shape), dtype=input.dtype, device=input.device) >= p
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    output = functions._composed(input * keep * scale, "NativeDropoutBackward0")
    return output, keep


def native_norm(input: Tensor, p=2, dim=None, keepdim: bool = False,
                dtype=None) -> Tensor:
    """``linalg.vector_norm(input, p, dim, keepdim, dtype=dtype)``; ``p`` None is 2 and a
    ``dim`` of None or ``[]`` is every dim. (PyTorch 2.13 runs it on sparse tensors only.)

    Shape:
        the input's without the reduced dims (kept as 1 with ``keepdim``).
    """
    from .linalg import vector_norm

    dims = None if dim is None or (isinstance(dim, (list, tuple)) and not dim) else dim
    return vector_norm(input, 2 if p is None else p, dims, keepdim, dtype=dtype)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``channel_shuffle``: the ``C`` channels as ``(groups, C / groups)`` transposed.

    Shape:
        ``(N, C, *)``, unchanged.
    """
    from .nn.functional import channel_shuffle

    return channel_shuffle(input, groups)

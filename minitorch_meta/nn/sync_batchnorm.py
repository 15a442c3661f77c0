"""``nn.SyncBatchNorm``: batch normalisation whose batch statistics span every process of a
distributed run (PyTorch's class), and ``convert_sync_batchnorm`` to swap it in.

Outside a distributed run (``minitorch_meta.distributed`` not initialised), in eval mode,
or in a world of one process, it is the batch norm of ``_BatchNorm`` for inputs of any rank
from 2 up, as in PyTorch. In training across several processes it reduces the per-channel
sums with ``distributed.all_reduce`` (NCCL or MPI, see ``distributed/``) in forward and
backward, so every rank normalises with the statistics of the whole global batch; as in
PyTorch that needs CUDA tensors.
"""

from __future__ import annotations

from ..autograd import no_grad
from ..autograd.function import Function
from ..tensor import Tensor
from .batchnorm import _BatchNorm


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation over the batch of every process, per channel.

    Shape:
        input ``(N, C, *)`` (at least 2-D) -> output of the same shape.

    Raises:
        ValueError: an input of fewer than 2 dims, or with no channels; a training input
            not on CUDA while a distributed run is initialised (PyTorch's error).
        NotImplementedError: a ``process_group`` other than the whole world is given for a
            synchronised forward (``minitorch_meta.distributed`` has no subgroups).
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, process_group=None,
                 device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input: Tensor) -> None:
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        world = self._sync_world(input)
        if world is None:
            return super().forward(input)
        self._check_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # the cumulative average, as batch norm's
                factor = 1.0 / self.num_batches_tracked.item()
        running_mean, running_var = ((self.running_mean, self.running_var)
                                     if self.track_running_stats else (None, None))
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, running_mean,
                                            running_var, self.eps, factor)

    def _sync_world(self, input: Tensor):
        """The process group to reduce the statistics over, or None when this forward is
        a plain batch norm (eval mode, no distributed run, or a world of one)."""
        if not self.training:
            return None
        from ..distributed import process_group as dist

        if not dist.is_initialized():
            return None
        if input.device.type != "cuda":
            raise ValueError(f"SyncBatchNorm expected input tensor to be on GPU, got one on "
                             f"'{input.device}' in training mode of a distributed run; move "
                             "the model and its inputs to CUDA, or call model.eval() (or use "
                             "BatchNorm layers) to normalise each process's batch alone")
        world = dist.group()
        if self.process_group is not None and self.process_group is not world:
            raise NotImplementedError("SyncBatchNorm: process_group must be the whole world "
                                      "(None): minitorch_meta.distributed has no subgroups")
        return world if world.size > 1 else None

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every batch norm layer in it replaced by a ``SyncBatchNorm``
        that shares its parameters and buffers (a new layer when ``module`` itself is a
        batch norm). Instance norms and other layers are kept."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                      module.affine, module.track_running_stats, process_group,
                                      bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    converted.weight = module.weight
                    converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted


class _SyncBatchNormFunction(Function):
    """Training batch norm over the global batch: the per-channel sums of every rank are
    all-reduced (two reductions in forward: the mean first, then the squared deviations
    from it, which keeps the variance exact; one in backward)."""

    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var, eps, momentum):
        dims = [d for d in range(x.dim()) if d != 1]
        shape = [1, x.shape[1]] + [1] * (x.dim() - 2)
        count = x.new_full((1,), x.numel() // x.shape[1])
        totals = _all_reduce(_cat(x.sum(dims), count))
        n = totals[-1]
        mean = totals[:-1] / n
        centered = x - mean.view(shape)
        var = _all_reduce(centered.square().sum(dims)) / n
        if n.item() <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {tuple(x.shape)} on this rank and {int(n.item())} values "
                             "per channel in the global batch")
        invstd = (var + eps).rsqrt()
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(momentum * mean)
            running_var.mul_(1 - momentum).add_(momentum * var * (n / (n - 1)))
        xhat = centered * invstd.view(shape)
        ctx.save_for_backward(xhat, weight, invstd, n)
        ctx.layout = (dims, shape)
        out = xhat if weight is None else xhat * weight.view(shape)
        return out if bias is None else out + bias.view(shape)

    @staticmethod
    def backward(ctx, gy):
        xhat, weight, invstd, n = ctx.saved_tensors
        dims, shape = ctx.layout
        sum_gy, sum_gy_xhat = gy.sum(dims), (gy * xhat).sum(dims)
        # The parameters' gradients stay this rank's (DistributedDataParallel averages them);
        # the input's needs the sums over the global batch.
        totals = _all_reduce(_cat(sum_gy, sum_gy_xhat))
        channels = sum_gy.shape[0]
        mean_gy, mean_gy_xhat = totals[:channels] / n, totals[channels:] / n
        scale = invstd if weight is None else invstd * weight
        gx = scale.view(shape) * (gy - mean_gy.view(shape) - xhat * mean_gy_xhat.view(shape))
        gw = sum_gy_xhat if weight is not None else None
        gb = sum_gy if ctx.needs_input_grad[2] else None
        return gx, gw, gb, None, None, None, None


def _cat(*tensors) -> Tensor:
    from ..functions import cat

    return cat(list(tensors))


def _all_reduce(tensor: Tensor) -> Tensor:
    """``tensor`` summed over every rank (a copy: the caller's tensor is kept)."""
    from ..distributed.collectives import all_reduce

    total = tensor.clone()
    all_reduce(total)
    return total


__all__ = ["SyncBatchNorm"]

"""``AdaptiveLogSoftmaxWithLoss`` (Grave et al., 2017): a softmax over many classes that
scores the frequent ones in a small head and the rare ones in clusters reached through it.

Composed of existing layers and ops as PyTorch composes it: the head is a ``Linear`` over
the shortlist and one logit per cluster, each cluster a ``Sequential`` of two bias-free
``Linear`` layers through a narrower hidden size (``in_features // div_value ** (i + 1)``).
PyTorch writes the per-row results in place (``index_copy_``, slice assignment); in-place
writes are not differentiated here, so the same values are built out of place
(``index_copy``, ``cat``), which gives the same values and gradients.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

from .. import functions
from ..tensor import Tensor
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

#: What ``forward`` returns: the target log-probabilities and the mean negative one.
_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax: log-probabilities of targets among ``n_classes``, split by
    ``cutoffs`` into a head (classes below ``cutoffs[0]``) and clusters.

    ``forward(input, target)`` returns ``_ASMoutput(output, loss)``: each row's
    log-probability of its target and the mean of their negatives. ``log_prob(input)``
    gives every class's log-probability, ``predict(input)`` the most likely class.

    Shape:
        ``input`` ``(N, in_features)`` or ``(in_features,)``; ``target`` ``(N,)`` or ``()``,
        each in ``[0, n_classes)``; ``output`` ``(N,)`` or ``()``; ``loss`` ``()``;
        ``log_prob`` ``(N, n_classes)``; ``predict`` ``(N,)``.

    Raises:
        ValueError: ``cutoffs`` empty, unsorted, repeated, not whole numbers, or outside
            ``[1, n_classes - 1]``.
        RuntimeError (in ``forward``): a target of another rank than 0 or 1, input and
            target of different batch sizes or mismatched ranks, or targets out of range.
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int],
                 div_value: float = 4.0, head_bias: bool = False, device=None,
                 dtype=None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        _check_cutoffs(cutoffs, n_classes)
        factory = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory),
                                        Linear(hidden, size, bias=False, **factory)))

    def reset_parameters(self) -> None:
        """Draw the parameters afresh, as at construction."""
        self.head.reset_parameters()
        for into_hidden, into_classes in self.tail:
            into_hidden.reset_parameters()
            into_classes.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        _check_ranks(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        batch = target.size(0)
        output = input.new_zeros(batch)
        gather_inds = target.new_empty(batch)
        used_rows = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, rows, target[mask])
            else:
                gather_inds.index_fill_(0, rows, self.shortlist_size + i - 1)
                logprob = self.tail[i - 1](input.index_select(0, rows)).log_softmax(1)
                local = logprob.gather(1, (target[mask] - low).unsqueeze(1))
                output = output.index_copy(0, rows, local.squeeze(1))
            used_rows += rows.numel()
        if used_rows != batch:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")
        head_logprob = self.head(input).log_softmax(1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """``(N, n_classes)`` log-probabilities: the head's shortlist, then each cluster's
        log-softmax plus the head's log-probability of the cluster."""
        head_logprob = head_output.log_softmax(1)
        pieces = [head_logprob[:, :self.shortlist_size]]
        for i, cluster in enumerate(self.tail):
            cluster_logprob = cluster(input).log_softmax(1)
            pieces.append(cluster_logprob
                          + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return functions.cat(pieces, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """Every class's log-probability.

        Shape:
            ``(N, in_features)`` -> ``(N, n_classes)``.
        """
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row (``log_prob(input).argmax(1)``, computing the
        clusters only for rows whose head prefers a cluster).

        Shape:
            ``(N, in_features)`` -> ``(N,)``, int64.
        """
        head_output = self.head(input)
        output = head_output.argmax(1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return self._get_full_log_prob(input, head_output).argmax(1)
        log_prob = self._get_full_log_prob(input[outside], head_output[outside])
        output[outside] = log_prob.argmax(1)
        return output


def _check_cutoffs(cutoffs: list, n_classes: int) -> None:
    if len(cutoffs) == 0:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
        raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in "
                         "an increasing order, where each value is between 1 and "
                         f"n_classes-1 (n_classes={n_classes}), but got {cutoffs}")


def _check_ranks(input: Tensor, target: Tensor) -> None:
    """PyTorch's checks of ``forward``'s inputs, in its order."""
    if target.dim() == 1:
        if input.size(0) != target.size(0):
            raise RuntimeError(f"Input and target should have the same size in the batch "
                               f"dimension (input {tuple(input.shape)}, target "
                               f"{tuple(target.shape)}).")
        if input.dim() != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs "
                               f"with size {input.size()}")
    elif target.dim() == 0:
        if input.dim() != 1:
            raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs "
                               f"with size {input.size()}")
    else:
        raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported "
                           f"(got a target of shape {tuple(target.shape)})")

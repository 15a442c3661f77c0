"""``minitorch_meta.nn.utils``: helpers around training (gradient clipping) and, in
``nn.utils.rnn``, batches of sequences of different lengths."""

from . import rnn, stateless
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm

__all__ = ["rnn", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "stateless"]

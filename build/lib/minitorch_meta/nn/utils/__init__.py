"""``minitorch_meta.nn.utils``: helpers around training (gradient clipping), in
``nn.utils.rnn`` batches of sequences of different lengths, and the tools that reshape a
model's parameters: flat vectors, parametrizations (``parametrize``, ``parametrizations``),
the hook-based weight and spectral norms, batch-norm fusion and ``skip_init``."""

from . import parametrizations, parametrize, rnn, stateless
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .init import skip_init
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["rnn", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "stateless", "parametrizations", "parametrize", "parameters_to_vector",
           "vector_to_parameters",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "skip_init", "remove_spectral_norm", "spectral_norm",
           "remove_weight_norm", "weight_norm"]

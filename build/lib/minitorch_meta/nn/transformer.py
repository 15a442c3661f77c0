"""The Transformer's layers: ``TransformerEncoderLayer``, ``TransformerDecoderLayer``, their
stacks ``TransformerEncoder``/``TransformerDecoder`` (deep copies of one layer, as PyTorch),
and ``Transformer``.

Submodules, parameter names, initialisation, reprs and the order of operations are
PyTorch's, so state dicts move between the two unchanged and values agree. PyTorch's
inference fast paths (fused kernels and nested tensors) are not taken: their values are
the ones computed here, except that PyTorch's nested-tensor path writes zeros at padded
positions of ``TransformerEncoder``'s output (docs/differences.md).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable

from ..caller_warnings import warn_at_caller
from ..errors import MetaDataError
from ..factories import full
from ..tensor import Tensor
from . import functional as F
from . import init
from .activation import GELU, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .multihead_attention import MultiheadAttention
from .multihead_functions import canonical_mask
from .normalization import LayerNorm


def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
    """A float ``(sz, sz)`` causal mask: 0 on and below the diagonal, ``-inf`` above."""
    return full((sz, sz), -math.inf, dtype=dtype, device=device).triu(diagonal=1)


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual connection and a
    LayerNorm (after the sum, or before the block with ``norm_first``).

    ``activation`` is ``"relu"``, ``"gelu"`` or a callable (a module is registered as a
    submodule, as in PyTorch).

    Shape:
        src ``(S, N, E)`` (``(N, S, E)`` with ``batch_first``, or unbatched ``(S, E)``)
        -> the same shape.

    Raises:
        RuntimeError: an unknown activation name.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **factory)
        _add_feed_forward(self, d_model, dim_feedforward, dropout, bias, factory)
        self.norm_first = norm_first
        _add_norms(self, 2, d_model, layer_norm_eps, bias, factory)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        activation = _activation(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None, is_causal: bool = False) -> Tensor:
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask, "src_key_padding_mask",
            None if src_mask is None else src_mask.dtype, "src_mask", src.dtype)
        src_mask = canonical_mask(src_mask, "src_mask", None, "", src.dtype, False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """Self-attention over the target, attention over the encoder's ``memory``, then a
    feed-forward block; each with a residual connection and a LayerNorm.

    Shape:
        tgt ``(T, N, E)``, memory ``(S, N, E)`` (batch first with ``batch_first``, or
        unbatched) -> tgt's shape.

    Raises:
        RuntimeError: an unknown activation name.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, **factory)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias, **factory)
        _add_feed_forward(self, d_model, dim_feedforward, dropout, bias, factory)
        self.norm_first = norm_first
        _add_norms(self, 3, d_model, layer_norm_eps, bias, factory)
        self.dropout1, self.dropout2, self.dropout3 = (Dropout(dropout) for _ in range(3))
        self.activation = _activation(activation)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask, is_causal: bool) -> Tensor:
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` run in turn, then ``norm`` if given.

    ``enable_nested_tensor`` and ``mask_check`` are kept for PyTorch's API (with its
    warning when the layer could not use nested tensors); nested tensors are never used.

    Shape:
        src as the layer's -> the same shape.
    """

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:
            warn_at_caller(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                           f"because {why_not}", UserWarning)
            self.use_nested_tensor = False

    def forward(self, src: Tensor, mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask, "src_key_padding_mask",
            None if mask is None else mask.dtype, "mask", src.dtype)
        mask = canonical_mask(mask, "mask", None, "", src.dtype, False)
        seq_len = _sequence_length(src, self.layers[0].self_attn.batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal,
                           src_key_padding_mask=src_key_padding_mask)
        return output if self.norm is None else self.norm(output)


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer`` run in turn over the target, each
    attending to ``memory``, then ``norm`` if given.

    Shape:
        tgt ``(T, N, E)``, memory ``(S, N, E)`` -> tgt's shape.
    """

    def __init__(self, decoder_layer: Module, num_layers: int,
                 norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        seq_len = _sequence_length(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """An encoder and a decoder stack ("Attention Is All You Need"), each ending in a
    LayerNorm; every parameter of more than one dim is redrawn Xavier-uniform, as PyTorch.

    Shape:
        src ``(S, N, E)``, tgt ``(T, N, E)`` (batch first with ``batch_first``, or
        unbatched) -> ``(T, N, E)``.

    Raises:
        RuntimeError: src and tgt with different batch sizes, or features other than
            ``d_model``.
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = F.relu,
                 custom_encoder: Module | None = None, custom_decoder: Module | None = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*layer_args, **factory), num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*layer_args, **factory), num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory))
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError(f"the batch number of src and tgt must be equal (src "
                               f"{tuple(src.shape)}, tgt {tuple(tgt.shape)}, batch_first="
                               f"{self.batch_first})")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(f"the feature number of src and tgt must be equal to d_model "
                               f"({self.d_model}), but got src {tuple(src.shape)} and tgt "
                               f"{tuple(tgt.shape)}")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)


def _add_feed_forward(layer: Module, d_model: int, dim_feedforward: int, dropout: float,
                      bias: bool, factory: dict) -> None:
    """``linear1``, ``dropout`` and ``linear2``, registered in PyTorch's order."""
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)


def _add_norms(layer: Module, count: int, d_model: int, eps: float, bias: bool,
               factory: dict) -> None:
    for k in range(1, count + 1):
        setattr(layer, f"norm{k}", LayerNorm(d_model, eps=eps, bias=bias, **factory))


def _activation(activation):
    """``"relu"``/``"gelu"`` as functions; a callable as it is."""
    if not isinstance(activation, str):
        return activation
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _why_not_nested(layer) -> str:
    """PyTorch's reason why a stack of ``layer`` could not run on nested tensors ("" if
    it could), for its warning."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attention = layer.self_attn
    reasons = [
        (layer.norm_first, f"{name}.norm_first was True"),
        (not attention.batch_first, f"{name}.self_attn.batch_first was not True(use "
                                    "batch_first for better inference performance)"),
        (not attention._qkv_same_embed_dim, f"{name}.self_attn._qkv_same_embed_dim was not "
                                            "True"),
        (attention.in_proj_bias is None, f"{name}.self_attn was passed bias=False"),
        (not layer.activation_relu_or_gelu, f"{name}.activation_relu_or_gelu was not True"),
        (layer.norm1.eps != layer.norm2.eps, f"{name}.norm1.eps was not equal to "
                                             f"{name}.norm2.eps"),
        (attention.num_heads % 2 == 1, f"{name}.self_attn.num_heads is odd"),
    ]
    return next((reason for failed, reason in reasons if failed), "")


def _sequence_length(src: Tensor, batch_first: bool) -> int:
    shape = src.shape
    return shape[0] if len(shape) == 2 else shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask: Tensor | None, is_causal: bool | None, size: int) -> bool:
    """``is_causal`` when given; otherwise whether ``mask`` is the square causal mask (read
    from its values; a meta mask has none and counts as not causal, which computes the same
    result through the mask itself)."""
    if is_causal is not None or mask is None:
        return is_causal is True
    causal = generate_square_subsequent_mask(size, device=mask.device, dtype=mask.dtype)
    if tuple(mask.shape) != tuple(causal.shape):
        return False
    try:
        return bool((mask == causal).all())
    except MetaDataError:
        return False


__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerEncoderLayer"]

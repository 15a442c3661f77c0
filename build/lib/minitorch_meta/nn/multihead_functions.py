"""``F.multi_head_attention_forward``: the math of ``nn.MultiheadAttention``, as functions.

PyTorch's steps, in its order and with its checks and error types (AssertionError for a
wrong rank or padding mask, RuntimeError for a wrong ``attn_mask`` shape): project query,
key and value (one packed weight, or three with ``kdim``/``vdim``), append ``bias_k``/
``bias_v`` and a zero position, split the heads, merge the padding mask into
``attn_mask``, then either the explicit path that returns the attention weights
(a plain softmax: a query that may attend to nothing gives NaN there, as in PyTorch) or
``scaled_dot_product_attention`` (``need_weights=False``: such a query gives zeros). All
of it is composed of ops.
"""

from __future__ import annotations

import math
import warnings

from .. import dtypes
from ..factories import zeros
from ..functions import cat
from ..tensor import Tensor
from . import functional as F
from .attention_functions import scaled_dot_product_attention


def canonical_mask(mask: Tensor | None, mask_name: str, other_dtype, other_name: str,
                   target_dtype, check_other: bool = True) -> Tensor | None:
    """A mask as a float mask to add to the scores: a bool mask's True positions (the
    ones to ignore) become ``-inf``; a float mask is kept. Warns, as PyTorch does, when a
    padding mask and an attention mask have different dtypes.

    Raises:
        AssertionError: a mask that is neither bool nor floating-point (PyTorch's type).
    """
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype is not dtypes.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported "
                             f"(got {mask.dtype})")
    if check_other and other_dtype is not None and mask.dtype is not other_dtype:
        # A fixed stacklevel on purpose: PyTorch's warning names its own F._canonical_mask,
        # inside the library, not the user's line (tests/nn/test_transformer.py checks it).
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", UserWarning, stacklevel=2)
    if is_float:
        return mask
    return zeros(tuple(mask.shape), dtype=target_dtype, device=mask.device).masked_fill(
        mask, -math.inf)


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
        bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float,
        out_proj_weight: Tensor, out_proj_bias: Tensor | None, training: bool = True,
        key_padding_mask: Tensor | None = None, need_weights: bool = True,
        attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
        q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
        v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
        static_v: Tensor | None = None, average_attn_weights: bool = True,
        is_causal: bool = False) -> tuple:
    """Multi-head attention of ``query`` over ``key``/``value`` (see
    ``nn.MultiheadAttention``); ``(output, weights)``, weights None unless
    ``need_weights``. Masks: bool True (or a float added) means "do not attend" here,
    the opposite of ``scaled_dot_product_attention``'s bool masks.

    Shape:
        query ``(L, N, E)`` or ``(L, E)``, key ``(S, N, E_k)`` or ``(S, E_k)``, value
        ``(S, N, E_v)`` or ``(S, E_v)``, key_padding_mask ``(N, S)`` or ``(S,)``,
        attn_mask ``(L, S)`` or ``(N * num_heads, L, S)`` -> output ``(L, N, E)`` or
        ``(L, E)``; weights ``(N, L, S)`` (``(N, num_heads, L, S)`` unless
        ``average_attn_weights``), without ``N`` for unbatched input.

    Raises:
        AssertionError and RuntimeError as PyTorch (ranks, sizes, masks).
        NotImplementedError: ``static_k``/``static_v``, which are not supported.
    """
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k and static_v are "
                                  "not supported")
    batched = _check_ranks(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask",
                                      None if attn_mask is None else attn_mask.dtype,
                                      "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention makes the causal mask itself
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    head_dim = _check_embedding(query, key, value, embed_dim_to_check, num_heads,
                                use_separate_proj_weight)
    if use_separate_proj_weight:
        q, k, v = _project_separately(query, key, value, q_proj_weight, k_proj_weight,
                                      v_proj_weight, in_proj_bias)
    else:
        q, k, v = _project_packed(query, key, value, in_proj_weight, in_proj_bias)
    attn_mask = _mask_3d(attn_mask, bsz * num_heads, tgt_len, key.shape[0])
    if bias_k is not None and bias_v is not None:
        k, v = cat([k, bias_k.repeat(1, bsz, 1)]), cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError(f"bias_{'k' if bias_k is not None else 'v'} is set but "
                             f"bias_{'v' if bias_k is not None else 'k'} is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        k, v = (cat([t, zeros((bsz * num_heads, 1, head_dim), dtype=t.dtype,
                              device=t.device)], 1) for t in (k, v))
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        attn_mask = _merge_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len)
    if not training:
        dropout_p = 0.0
    if need_weights:
        output, weights = _attention_with_weights(q, k, v, attn_mask, dropout_p)
    else:
        output, weights = _attention_fused(q, k, v, attn_mask, dropout_p, is_causal,
                                           bsz, num_heads), None
    output = output.reshape(tgt_len * bsz, embed_dim)
    output = F.linear(output, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    if weights is not None:
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
    if not batched:
        output = output.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return output, weights


def _attention_with_weights(q, k, v, attn_mask, dropout_p: float) -> tuple:
    """``(output (L, B, E), weights (B, L, S))`` with heads in the batch ``B``; a plain
    softmax, as PyTorch's explicit path."""
    scores = (q * math.sqrt(1.0 / q.shape[-1])).matmul(k.transpose(-2, -1))
    if attn_mask is not None:
        scores = attn_mask + scores  # PyTorch's baddbmm(attn_mask, q, kᵀ)
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    return weights.matmul(v).transpose(0, 1), weights


def _attention_fused(q, k, v, attn_mask, dropout_p: float, is_causal: bool, bsz: int,
                     num_heads: int) -> Tensor:
    """``scaled_dot_product_attention`` over ``(N, heads, L, head_dim)``; ``(L, N, E)``."""
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, attn_mask.shape[-1])
    tgt_len, src_len, head_dim = q.shape[1], k.shape[1], q.shape[2]
    output = scaled_dot_product_attention(
        q.view(bsz, num_heads, tgt_len, head_dim), k.view(bsz, num_heads, src_len, head_dim),
        v.view(bsz, num_heads, src_len, head_dim), attn_mask, dropout_p, is_causal)
    return output.permute(2, 0, 1, 3)


def _check_ranks(query, key, value, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """Whether the input is batched; PyTorch's rank checks (AssertionError)."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be "
                             f"{query.dim()}-D but found {key.dim()}-D and {value.dim()}-D "
                             "tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != query.dim() - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` "
                             f"or {query.dim() - 1}-D but found {key_padding_mask.dim()}-D "
                             "tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{tuple(attn_mask.shape)}")
    return batched


def _check_embedding(query, key, value, embed_dim: int, num_heads: int,
                     separate: bool) -> int:
    """The head size, after PyTorch's checks of the embedding sizes (AssertionError)."""
    if query.shape[2] != embed_dim:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim}, but got "
                             f"{query.shape[2]}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if separate and tuple(key.shape[:2]) != tuple(value.shape[:2]):
        raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not "
                             f"match value's {tuple(value.shape[:2])}")
    if not separate and tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape "
                             f"{tuple(value.shape)}")
    return head_dim


def _project_packed(query, key, value, weight, bias) -> tuple:
    """q, k, v through the rows of one ``(3E, E)`` weight; one product for
    self-attention, two when key is value."""
    if weight is None:
        raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
    if key is value and query is key:
        return F.linear(query, weight, bias).chunk(3, dim=-1)
    weights = weight.chunk(3)
    biases = (None,) * 3 if bias is None else bias.chunk(3)
    if key is value:  # key and value rows in one product
        rows = weights[0].shape[0]
        kv = F.linear(key, weight[rows:], None if bias is None else bias[rows:])
        return (F.linear(query, weights[0], biases[0]), *kv.chunk(2, dim=-1))
    return tuple(F.linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _project_separately(query, key, value, q_weight, k_weight, v_weight, bias) -> tuple:
    for name, w in (("q", q_weight), ("k", k_weight), ("v", v_weight)):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is "
                                 "None")
    biases = (None,) * 3 if bias is None else bias.chunk(3)
    return tuple(F.linear(x, w, b) for x, w, b in
                 zip((query, key, value), (q_weight, k_weight, v_weight), biases))


def _mask_3d(attn_mask, batch_heads: int, tgt_len: int, src_len: int):
    """``attn_mask`` as ``(1 or N * heads, L, S)``, after PyTorch's size checks."""
    if attn_mask is None:
        return None
    shape = tuple(attn_mask.shape)
    if attn_mask.dim() == 2:
        if shape != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {shape}, but should be "
                               f"{(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if shape != (batch_heads, tgt_len, src_len):
        raise RuntimeError(f"The shape of the 3D attn_mask is {shape}, but should be "
                           f"{(batch_heads, tgt_len, src_len)}.")
    return attn_mask


def _pad_masks(attn_mask, key_padding_mask) -> tuple:
    """Both masks with one more key position, open to every query (the appended bias or
    zero position)."""
    return tuple(None if m is None else F.pad(m, (0, 1)) for m in (attn_mask, key_padding_mask))


def _merge_padding(attn_mask, key_padding_mask, bsz: int, num_heads: int, src_len: int):
    """``attn_mask`` plus the padding mask, one row of it per sample and head."""
    shape = tuple(key_padding_mask.shape)
    if shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                             f"{shape[0]}")
    if shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                             f"{shape[1]}")
    padding = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
        bsz * num_heads, 1, src_len)
    return padding if attn_mask is None else attn_mask + padding


__all__ = ["multi_head_attention_forward"]

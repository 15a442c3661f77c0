"""``nn.MultiheadAttention``: PyTorch's parameters (names, shapes, initialisation) around
``F.multi_head_attention_forward``, so that state dicts move between the two unchanged."""

from __future__ import annotations

from ..factories import empty
from ..tensor import Tensor
from . import init
from .linear import NonDynamicallyQuantizableLinear
from .module import Module
from .multihead_functions import canonical_mask, multi_head_attention_forward
from .parameter import Parameter


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads`` features each.

    Parameters, as PyTorch names them: ``in_proj_weight`` ``(3E, E)`` (or
    ``q_proj_weight`` ``(E, E)``, ``k_proj_weight`` ``(E, kdim)`` and ``v_proj_weight``
    ``(E, vdim)`` when ``kdim`` or ``vdim`` differ from ``embed_dim``), ``in_proj_bias``
    ``(3E,)``, ``out_proj`` (a Linear), and ``bias_k``/``bias_v`` ``(1, 1, E)`` with
    ``add_bias_kv``. Initialised as PyTorch: Xavier-uniform projections, zero biases,
    Xavier-normal ``bias_k``/``bias_v``, ``out_proj.weight`` as a Linear's.

    ``forward`` returns ``(output, weights)``; masks are bool (True: do not attend) or
    float (added to the scores). PyTorch's inference fast path is not taken; it computes
    the same values.

    Shape:
        query ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``, or unbatched ``(L, E)``),
        key ``(S, N, kdim)``, value ``(S, N, vdim)`` -> output of the query's shape, and
        weights ``(N, L, S)`` (``(N, num_heads, L, S)`` unless ``average_attn_weights``).

    Raises:
        ValueError: ``embed_dim`` or ``num_heads`` not positive. AssertionError:
            ``embed_dim`` not divisible by ``num_heads``, and PyTorch's input checks.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0,
                 bias: bool = True, add_bias_kv: bool = False, add_zero_attn: bool = False,
                 kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 device=None, dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError(f"embed_dim must be divisible by num_heads (got embed_dim="
                                 f"{embed_dim} and num_heads={num_heads})")
        factory = {"device": device, "dtype": dtype}
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **factory))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **factory))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **factory))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        **factory)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **factory))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """PyTorch's initialisation (``out_proj.weight`` keeps its Linear draw)."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for weight in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for extra in (self.bias_k, self.bias_v):
            if extra is not None:
                init.xavier_normal_(extra)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple:
        """``(output, weights)``; weights None unless ``need_weights``."""
        batched = query.dim() == 3
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask",
                                          None if attn_mask is None else attn_mask.dtype,
                                          "attn_mask", query.dtype)
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if self.batch_first and batched:
            query, key, value = _sequence_first(query, key, value)
        separate = not self._qkv_same_embed_dim
        output, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        if self.batch_first and batched:
            output = output.transpose(1, 0)
        return output, weights


def _sequence_first(query: Tensor, key: Tensor, value: Tensor) -> tuple:
    """The three inputs with dims 0 and 1 swapped, keeping which of them are one tensor
    (the projections take one product for self-attention)."""
    if key is value:
        if query is key:
            swapped = query.transpose(1, 0)
            return swapped, swapped, swapped
        query, key = query.transpose(1, 0), key.transpose(1, 0)
        return query, key, key
    return tuple(x.transpose(1, 0) for x in (query, key, value))


__all__ = ["MultiheadAttention"]

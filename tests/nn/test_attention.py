"""scaled_dot_product_attention and MultiheadAttention: values and gradients against PyTorch
(float64 through state dicts, float32 through the harness), float64 gradcheck, meta shapes,
every kind of mask, reprs, state-dict names, initialisation and PyTorch's error types."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from tests.gradcheck import gradcheck
from tests.ops.harness import Arg, Case, three_way_tests


def sdpa(**options):
    return lambda T, F, q, k, v: F.scaled_dot_product_attention(q, k, v, **options)


def with_mask(**options):
    return lambda T, F, q, k, v, m: F.scaled_dot_product_attention(q, k, v, m, **options)


def blocked_row_mask(T, device="cpu"):
    """A bool mask (3, 5) whose row 1 may attend to nothing (zeros, zero gradients)."""
    rows = [[True, False, True, True, False], [False] * 5, [False, False, False, False, True]]
    return T.tensor(rows, device=device)


Q, K, V = (2, 3, 4), (2, 5, 4), (2, 5, 6)
CASES = [
    Case("sdpa_3d", sdpa(), [Arg(Q), Arg(K), Arg(V)]),
    Case("sdpa_4d_heads", sdpa(), [Arg((2, 2, 3, 4)), Arg((2, 2, 5, 4)), Arg((2, 2, 5, 3))]),
    Case("sdpa_2d", sdpa(), [Arg((3, 4)), Arg((5, 4)), Arg((5, 2))]),
    Case("sdpa_batch_broadcast", sdpa(), [Arg((3, 4)), Arg((2, 5, 4)), Arg((1, 5, 6))]),
    Case("sdpa_scale", sdpa(scale=0.3), [Arg(Q), Arg(K), Arg(V)]),
    Case("sdpa_negative_scale", sdpa(scale=-1.5), [Arg(Q), Arg(K), Arg(V)]),
    Case("sdpa_causal", sdpa(is_causal=True), [Arg((2, 4, 3)), Arg((2, 4, 3)), Arg((2, 4, 2))]),
    Case("sdpa_causal_more_queries", sdpa(is_causal=True), [Arg((1, 5, 4)), Arg((1, 3, 4)),
                                                            Arg((1, 3, 2))]),
    Case("sdpa_causal_fewer_queries", sdpa(is_causal=True), [Arg(Q), Arg(K), Arg(V)]),
    Case("sdpa_bool_mask", with_mask(), [Arg(Q), Arg(K), Arg(V), Arg((3, 5), "bool")]),
    Case("sdpa_bool_mask_per_sample", with_mask(),
         [Arg((2, 2, 3, 4)), Arg((2, 2, 5, 4)), Arg((2, 2, 5, 3)), Arg((2, 1, 3, 5), "bool")]),
    Case("sdpa_float_mask", with_mask(), [Arg(Q), Arg(K), Arg(V), Arg((3, 5))]),
    Case("sdpa_bool_mask_1d", with_mask(), [Arg(Q), Arg(K), Arg(V), Arg((5,), "bool")]),
    Case("sdpa_float_mask_broadcast_rows", with_mask(), [Arg(Q), Arg(K), Arg(V), Arg((2, 1, 5))]),
    # (the mask is made on the CPU inside: the meta check is test_sdpa_on_meta_is_shapes_only)
    Case("sdpa_blocked_row", lambda T, F, q, k, v: F.scaled_dot_product_attention(
        q, k, v, blocked_row_mask(T, q.device)), [Arg(Q), Arg(K), Arg(V)], meta=False),
    Case("sdpa_blocked_row_float", lambda T, F, q, k, v: F.scaled_dot_product_attention(
        q, k, v, T.zeros(3, 5, device=q.device).masked_fill(
            blocked_row_mask(T, q.device).logical_not(), float("-inf"))),
        [Arg(Q), Arg(K), Arg(V)], meta=False),
    Case("sdpa_gqa", sdpa(enable_gqa=True),
         [Arg((2, 6, 3, 4)), Arg((2, 2, 5, 4)), Arg((2, 3, 5, 2))]),
    Case("sdpa_gqa_3d", sdpa(enable_gqa=True), [Arg((4, 3, 4)), Arg((2, 5, 4)), Arg((1, 5, 2))]),
    Case("sdpa_empty_queries", sdpa(), [Arg((2, 0, 4)), Arg(K), Arg(V)]),
    Case("sdpa_no_features", sdpa(), [Arg((2, 3, 0)), Arg((2, 5, 0)), Arg(V)]),
]

# PyTorch takes a special path (grad_fn AddBackward0) when there are no queries.
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=("sdpa_empty_queries",))


@pytest.mark.parametrize("blocked", [True, False])
def test_a_query_that_may_attend_to_nothing_gets_zeros(blocked):
    mask = blocked_row_mask(mt) if blocked else blocked_row_mask(mt).logical_not()
    q = mt.randn(3, 4, requires_grad=True)
    out = nn.functional.scaled_dot_product_attention(q, mt.randn(5, 4), mt.randn(5, 2), mask)
    out.sum().backward()
    row_is_zero = out[1].abs().sum().item() == 0 and q.grad[1].abs().sum().item() == 0
    assert row_is_zero is blocked
    assert not out.isnan().any().item()


def test_dropout_zeroes_weights_and_scales_the_rest():
    """With value = identity the output is the attention weights themselves."""
    q, k, eye = mt.randn(2, 6, 4), mt.randn(2, 8, 4), mt.eye(8)
    F = nn.functional
    plain = F.scaled_dot_product_attention(q, k, eye).numpy()
    dropped = F.scaled_dot_product_attention(q, k, eye, dropout_p=0.25).numpy()
    kept = dropped != 0
    assert 0 < kept.mean() < 1
    np.testing.assert_allclose(dropped[kept], plain[kept] / 0.75, rtol=1e-6)
    assert F.scaled_dot_product_attention(q, k, eye, dropout_p=1.0).abs().sum().item() == 0


def test_sdpa_keeps_float32_with_a_float32_mask_and_float64_with_either(any_device):
    F = nn.functional
    for dtype, mask_dtype in [(mt.float32, mt.float32), (mt.float64, mt.float32),
                              (mt.float64, mt.float64), (mt.float64, mt.bool)]:
        q = mt.ones(3, 4, dtype=dtype, device=any_device)
        mask = mt.zeros(3, 3, dtype=mask_dtype, device=any_device)
        assert F.scaled_dot_product_attention(q, q, q, mask).dtype is dtype


def test_sdpa_on_meta_is_shapes_only():
    q = mt.empty(2**10, 16, 2**12, 64, device="meta", requires_grad=True)
    mask = mt.empty(2**12, 2**12, dtype=mt.bool, device="meta")
    out = nn.functional.scaled_dot_product_attention(q, q, q, mask)
    out.sum().backward()
    assert out.shape == (2**10, 16, 2**12, 64) and q.grad.shape == q.shape and q.grad.is_meta


def _sdpa_call(q, k, v, **options):
    def call(T, device=None):
        F = T.nn.functional
        make = (lambda s, d: T.zeros(*s, dtype=getattr(T, d), device=device)) if device else (
            lambda s, d: T.zeros(*s, dtype=getattr(T, d)))
        args = [make(*spec) for spec in (q, k, v)]
        mask = options.get("attn_mask")
        extra = dict(options, attn_mask=None if mask is None else make(*mask))
        return F.scaled_dot_product_attention(*args, **extra)
    return call


F64 = "float64"
SDPA_ERRORS = [
    pytest.param(_sdpa_call(((4,), F64), ((4,), F64), ((4,), F64)), RuntimeError,
                 "scaled_dot_product_attention: expected query, key and value to be at least 2-D",
                 id="1d"),
    pytest.param(_sdpa_call(((3, 4), "float32"), ((5, 4), F64), ((5, 2), F64)), RuntimeError,
                 "scaled_dot_product_attention: expected query, key and value to have the same "
                 "dtype", id="dtypes"),
    pytest.param(_sdpa_call(((3, 4), "int64"), ((5, 4), "int64"), ((5, 2), "int64")),
                 RuntimeError, "scaled_dot_product_attention: expected floating-point",
                 id="integers"),
    pytest.param(_sdpa_call(((2, 3, 4), F64), ((2, 5, 3), F64), ((2, 5, 6), F64)), RuntimeError,
                 "scaled_dot_product_attention: query has E=4 features but key has 3",
                 id="features"),
    pytest.param(_sdpa_call(((2, 3, 4), F64), ((2, 5, 4), F64), ((2, 4, 6), F64)), RuntimeError,
                 "scaled_dot_product_attention: key has S=5 positions but value has 4",
                 id="positions"),
    pytest.param(_sdpa_call(((2, 6, 3, 4), F64), ((2, 4, 5, 4), F64), ((2, 4, 5, 6), F64)),
                 RuntimeError, "scaled_dot_product_attention: the batch dims of query",
                 id="batch"),
    pytest.param(_sdpa_call(((2, 3, 4), F64), ((2, 5, 4), F64), ((2, 5, 6), F64),
                            attn_mask=((3, 5), "bool"), is_causal=True), RuntimeError,
                 "scaled_dot_product_attention: an explicit attn_mask should not be set",
                 id="mask-and-causal"),
    pytest.param(_sdpa_call(((2, 3, 4), F64), ((2, 5, 4), F64), ((2, 5, 6), F64),
                            attn_mask=((3, 5), "int64")), RuntimeError,
                 "scaled_dot_product_attention: expected attn_mask dtype to be bool or float",
                 id="mask-int"),
    pytest.param(_sdpa_call(((2, 3, 4), "float32"), ((2, 5, 4), "float32"),
                            ((2, 5, 6), "float32"), attn_mask=((3, 5), F64)), RuntimeError,
                 "scaled_dot_product_attention: expected attn_mask dtype to be bool or float",
                 id="mask-float64-on-float32"),
    pytest.param(_sdpa_call(((2, 3, 4), F64), ((2, 5, 4), F64), ((2, 5, 6), F64),
                            attn_mask=((3, 4), "bool")), RuntimeError,
                 "scaled_dot_product_attention: attn_mask of shape (3, 4) does not broadcast",
                 id="mask-shape"),
    pytest.param(_sdpa_call(((2, 3, 4), F64), ((2, 5, 4), F64), ((2, 5, 6), F64),
                            attn_mask=((2, 2, 3, 5), "bool")), RuntimeError,
                 "scaled_dot_product_attention: attn_mask of shape (2, 2, 3, 5) does not",
                 id="mask-too-many-dims"),
    pytest.param(_sdpa_call(((2, 3, 4), F64), ((2, 5, 4), F64), ((2, 5, 6), F64),
                            dropout_p=1.5), RuntimeError,
                 "dropout probability has to be between 0 and 1, but got 1.5", id="dropout"),
    pytest.param(_sdpa_call(((2, 6, 3, 4), F64), ((2, 4, 5, 4), F64), ((2, 4, 5, 6), F64),
                            enable_gqa=True), RuntimeError,
                 "scaled_dot_product_attention: with enable_gqa=True the number of heads",
                 id="gqa-heads"),
    pytest.param(_sdpa_call(((3, 4), F64), ((5, 4), F64), ((5, 6), F64), enable_gqa=True),
                 IndexError, "scaled_dot_product_attention: enable_gqa=True needs a heads dim",
                 id="gqa-2d"),
]


@pytest.mark.parametrize("call, error, message", SDPA_ERRORS)
def test_sdpa_errors_are_pytorchs_types_on_cpu_and_meta(torch_ref, call, error, message):
    with pytest.raises(error):
        call(torch_ref)
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt, device)
        assert str(info.value).startswith(message), (device, str(info.value))


# -- MultiheadAttention ---------------------------------------------------------------

E, HEADS, L, S, N = 6, 3, 4, 5, 2


def _mha_pair(torch, device="cpu", dtype="float64", **kwargs):
    """Our layer and PyTorch's with PyTorch's parameters, through its state dict."""
    theirs = torch.nn.MultiheadAttention(E, HEADS, **kwargs).to(getattr(torch, dtype))
    ours = nn.MultiheadAttention(E, HEADS, **kwargs, device=device, dtype=getattr(mt, dtype))
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    return ours, theirs


def _inputs(kwargs, batched=True, same=False, seed=0):
    rng = np.random.default_rng(seed)

    def shape(length, features):
        if not batched:
            return (length, features)
        return (N, length, features) if kwargs.get("batch_first") else (length, N, features)
    q = rng.standard_normal(shape(L, E))
    if same:
        return [q]
    return [q, rng.standard_normal(shape(S, kwargs.get("kdim", E))),
            rng.standard_normal(shape(S, kwargs.get("vdim", E)))]


def _masks(torch, kinds, batched=True, seed=1, source=S, dtype=np.float64):
    """Masks for PyTorch and for us. True = do not attend; no query is fully blocked."""
    rng = np.random.default_rng(seed)
    S = source  # noqa: N806 - the key length, S elsewhere
    out = {}
    for kind in kinds:
        if kind == "attn_bool":
            m = rng.random((L, S)) < 0.3
            m[:, 0] = False
        elif kind == "attn_float":
            m = rng.standard_normal((L, S))
        elif kind == "attn_3d":
            m = rng.random((N * HEADS if batched else HEADS, L, S)) < 0.3
            m[..., 1] = False
        elif kind == "kpm_bool":
            m = np.zeros((N, S) if batched else (S,), dtype=bool)
            m[..., -2:] = True
        elif kind == "kpm_float":
            m = rng.standard_normal((N, S) if batched else (S,))
        out[kind] = m if m.dtype == bool else m.astype(dtype)
    name = {"attn_bool": "attn_mask", "attn_float": "attn_mask", "attn_3d": "attn_mask",
            "kpm_bool": "key_padding_mask", "kpm_float": "key_padding_mask"}
    return ({name[k]: torch.tensor(m) for k, m in out.items()},
            {name[k]: mt.tensor(m) for k, m in out.items()})


def _compare_mha(torch, ours, theirs, arrays, masks=(), options=None, batched=True,
                 device="cpu", rtol=1e-10, atol=1e-12):
    options = options or {}
    theirs_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours_in = [mt.tensor(a, device=device, requires_grad=True) for a in arrays]
    mask_t, mask_o = _masks(torch, masks, batched, source=L if len(arrays) == 1 else S,
                            dtype=arrays[0].dtype)
    mask_o = {k: m.to(device) for k, m in mask_o.items()}
    call_t = theirs_in * 3 if len(arrays) == 1 else theirs_in
    call_o = ours_in * 3 if len(arrays) == 1 else ours_in
    out_t, w_t = theirs(*call_t, **mask_t, **options)
    out_o, w_o = ours(*call_o, **mask_o, **options)
    close = dict(rtol=rtol, atol=atol)
    np.testing.assert_allclose(out_o.detach().cpu().numpy(), out_t.detach().numpy(), **close)
    if w_t is None:
        assert w_o is None
    else:
        assert tuple(w_o.shape) == tuple(w_t.shape)
        np.testing.assert_allclose(w_o.detach().cpu().numpy(), w_t.detach().numpy(), **close)
    loss_t = (out_t ** 2).sum() + (0 if w_t is None else (w_t * 3).sum())
    loss_o = (out_o ** 2).sum() + (0 if w_o is None else (w_o * 3).sum())
    loss_t.backward()
    loss_o.backward()
    for a, b in zip(ours_in, theirs_in):
        np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), **close)
    for (name, p), (_, q) in zip(theirs.named_parameters(), ours.named_parameters()):
        np.testing.assert_allclose(q.grad.cpu().numpy(), p.grad.numpy(), err_msg=name, **close)


LAYER_OPTIONS = [
    pytest.param({}, id="default"),
    pytest.param({"batch_first": True}, id="batch-first"),
    pytest.param({"bias": False}, id="no-bias"),
    pytest.param({"kdim": 4, "vdim": 7}, id="kdim-vdim"),
    pytest.param({"kdim": 4, "vdim": 7, "batch_first": True, "bias": False},
                 id="kdim-vdim-batch-first-no-bias"),
    pytest.param({"add_bias_kv": True}, id="bias-kv"),
    pytest.param({"add_zero_attn": True}, id="zero-attn"),
    pytest.param({"add_bias_kv": True, "add_zero_attn": True, "batch_first": True},
                 id="bias-kv-zero-attn-batch-first"),
]
MASKS = [
    pytest.param((), id="no-mask"),
    pytest.param(("attn_bool",), id="attn-bool"),
    pytest.param(("attn_float",), id="attn-float"),
    pytest.param(("attn_3d",), id="attn-3d"),
    pytest.param(("kpm_bool",), id="kpm-bool"),
    pytest.param(("kpm_float",), id="kpm-float"),
    pytest.param(("attn_bool", "kpm_bool"), id="both-bool"),
    pytest.param(("attn_float", "kpm_float"), id="both-float"),
]
FORWARD_OPTIONS = [
    pytest.param({}, id="weights"),
    pytest.param({"need_weights": False}, id="no-weights"),
    pytest.param({"average_attn_weights": False}, id="per-head-weights"),
]


@pytest.mark.parametrize("kwargs", LAYER_OPTIONS)
@pytest.mark.parametrize("masks", MASKS)
@pytest.mark.parametrize("options", FORWARD_OPTIONS)
def test_mha_matches_pytorch_float64(torch_ref, kwargs, masks, options, device):
    ours, theirs = _mha_pair(torch_ref, device, **kwargs)
    _compare_mha(torch_ref, ours, theirs, _inputs(kwargs), masks, options, device=device)


@pytest.mark.parametrize("kwargs", LAYER_OPTIONS[:4])
@pytest.mark.parametrize("masks", [(), ("attn_3d", "kpm_bool"), ("attn_float",)])
@pytest.mark.parametrize("options", FORWARD_OPTIONS)
def test_mha_unbatched_matches_pytorch(torch_ref, kwargs, masks, options, device):
    ours, theirs = _mha_pair(torch_ref, device, **kwargs)
    _compare_mha(torch_ref, ours, theirs, _inputs(kwargs, batched=False), masks, options,
                 batched=False, device=device)


@pytest.mark.parametrize("options", FORWARD_OPTIONS)
@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_self_attention_with_one_tensor_matches_pytorch(torch_ref, options, batch_first,
                                                            device):
    kwargs = {"batch_first": batch_first}
    ours, theirs = _mha_pair(torch_ref, device, **kwargs)
    _compare_mha(torch_ref, ours, theirs, _inputs(kwargs, same=True), ("kpm_bool",), options,
                 device=device)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_key_is_value_matches_pytorch(torch_ref, need_weights):
    ours, theirs = _mha_pair(torch_ref)
    q, kv = _inputs({})[:2]
    tq, tkv = torch_ref.tensor(q), torch_ref.tensor(kv)
    out_t = theirs(tq, tkv, tkv, need_weights=need_weights)[0]
    out_o = ours(mt.tensor(q), *[mt.tensor(kv)] * 2, need_weights=need_weights)[0]
    np.testing.assert_allclose(out_o.detach().numpy(), out_t.detach().numpy(), rtol=1e-10)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("with_padding", [False, True])
def test_mha_is_causal_hint_with_the_causal_mask_matches_pytorch(torch_ref, need_weights,
                                                                 with_padding):
    ours, theirs = _mha_pair(torch_ref)
    x = _inputs({}, same=True)[0]
    causal = np.triu(np.ones((L, L), dtype=bool), 1)
    padding = np.zeros((N, L), dtype=bool)
    padding[0, -1] = True
    extra_t = {"key_padding_mask": torch_ref.tensor(padding)} if with_padding else {}
    extra_o = {"key_padding_mask": mt.tensor(padding)} if with_padding else {}
    tx = torch_ref.tensor(x)
    out_t = theirs(tx, tx, tx, attn_mask=torch_ref.tensor(causal), is_causal=True,
                   need_weights=need_weights, **extra_t)[0]
    ox = mt.tensor(x)
    out_o = ours(ox, ox, ox, attn_mask=mt.tensor(causal), is_causal=True,
                 need_weights=need_weights, **extra_o)[0]
    np.testing.assert_allclose(out_o.detach().numpy(), out_t.detach().numpy(), rtol=1e-10,
                               atol=1e-12)


# a float attn_mask beside a bool key_padding_mask, on purpose: both frameworks warn, and
# test_mismatched_mask_dtypes_warn_as_pytorch asserts that
@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask and attn_mask")
def test_mha_float32_matches_pytorch(torch_ref, device):
    ours, theirs = _mha_pair(torch_ref, device, dtype="float32", kdim=4, vdim=7)
    arrays = [a.astype(np.float32) for a in _inputs({"kdim": 4, "vdim": 7})]
    _compare_mha(torch_ref, ours, theirs, arrays, ("attn_float", "kpm_bool"),
                 device=device, rtol=1e-5, atol=1e-6)


def test_mha_fully_padded_query_is_nan_with_weights_and_zero_without(torch_ref):
    """PyTorch's two paths differ here (a plain softmax versus the safe one): so do ours."""
    ours, theirs = _mha_pair(torch_ref)
    x = _inputs({}, same=True)[0]
    padding = np.zeros((N, L), dtype=bool)
    padding[1] = True
    for need_weights in (True, False):
        out_t = theirs(*[torch_ref.tensor(x)] * 3, key_padding_mask=torch_ref.tensor(padding),
                       need_weights=need_weights)[0].detach().numpy()
        out_o = ours(*[mt.tensor(x)] * 3, key_padding_mask=mt.tensor(padding),
                     need_weights=need_weights)[0].detach().numpy()
        np.testing.assert_allclose(out_o, out_t, rtol=1e-10, atol=1e-12)
        assert bool(np.isnan(out_o[:, 1]).all()) is need_weights


@pytest.mark.parametrize("kwargs", [{}, {"kdim": 2, "vdim": 3, "add_bias_kv": True}])
def test_mha_passes_float64_gradcheck(kwargs, device):
    layer = nn.MultiheadAttention(4, 2, **kwargs, dtype=mt.float64, device=device)
    rng = np.random.default_rng(3)
    q = rng.standard_normal((3, 2, 4))
    k = rng.standard_normal((2, 2, kwargs.get("kdim", 4)))
    v = rng.standard_normal((2, 2, kwargs.get("vdim", 4)))
    mask = mt.tensor([[False, True], [False, False], [True, False]], device=device)

    def fn(q, k, v):
        out, weights = layer(q, k, v, attn_mask=mask)
        return out.sum(-1, keepdim=True) * 2 + weights.sum(-1, keepdim=True).mean()
    gradcheck(fn, [q, k, v], [True, True, True], device=device)


def test_mha_reprs_and_state_dict_names_are_pytorchs(torch_ref):
    for kwargs in [{}, {"kdim": 4, "vdim": 5, "bias": False, "add_bias_kv": True}]:
        theirs = torch_ref.nn.MultiheadAttention(E, HEADS, **kwargs)
        ours = nn.MultiheadAttention(E, HEADS, **kwargs)
        assert repr(ours) == repr(theirs)
        assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
            [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
        assert [k for k, _ in ours.named_parameters()] == \
            [k for k, _ in theirs.named_parameters()]


def test_mha_initialisation_is_pytorchs():
    layer = nn.MultiheadAttention(8, 2, add_bias_kv=True)
    bound = (6 / (8 + 24)) ** 0.5  # xavier_uniform of (3E, E)
    weight = layer.in_proj_weight.detach().numpy()
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > bound * 0.8
    assert not layer.in_proj_bias.detach().numpy().any()
    assert not layer.out_proj.bias.detach().numpy().any()
    assert np.abs(layer.out_proj.weight.detach().numpy()).max() <= 1 / 8 ** 0.5
    assert layer.bias_k.shape == (1, 1, 8) and layer.bias_k.abs().sum().item() > 0
    separate = nn.MultiheadAttention(8, 2, kdim=4, vdim=4)
    assert separate.in_proj_weight is None and separate.k_proj_weight.shape == (8, 4)
    assert np.abs(separate.k_proj_weight.detach().numpy()).max() <= (6 / 12) ** 0.5
    assert type(layer.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(layer.out_proj, nn.Linear)


def test_mha_dropout_only_in_training():
    layer = nn.MultiheadAttention(4, 2, dropout=0.5)
    x = mt.randn(3, 2, 4)
    layer.eval()
    first, second = layer(x, x, x)[1], layer(x, x, x)[1]
    assert mt.equal(first, second)
    layer.train()
    assert not mt.equal(layer(x, x, x)[1], first)


def test_mha_on_meta_gives_real_shapes():
    layer = nn.MultiheadAttention(E, HEADS, kdim=4, vdim=7, batch_first=True, device="meta")
    q, k, v = (mt.empty(N, L, E, device="meta", requires_grad=True),
               mt.empty(N, S, 4, device="meta"), mt.empty(N, S, 7, device="meta"))
    padding = mt.empty(N, S, dtype=mt.bool, device="meta")
    out, weights = layer(q, k, v, key_padding_mask=padding, average_attn_weights=False)
    out.sum().backward()
    assert out.shape == (N, L, E) and weights.shape == (N, HEADS, L, S)
    assert q.grad.shape == q.shape and layer.in_proj_bias.grad.is_meta


def test_mismatched_mask_dtypes_warn_as_pytorch(torch_ref):
    x = mt.randn(L, N, E)
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and "
                                         "attn_mask is deprecated"):
        nn.MultiheadAttention(E, HEADS)(x, x, x, key_padding_mask=mt.zeros(N, L, dtype=mt.bool),
                                        attn_mask=mt.zeros(L, L))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.MultiheadAttention(E, HEADS)(x, x, x, key_padding_mask=mt.zeros(N, L),
                                        attn_mask=mt.zeros(L, L))


def _mha_error_call(kwargs=None, q=(L, N, E), k=(S, N, E), v=(S, N, E), masks=(),
                    **options):
    def call(T):
        layer = T.nn.MultiheadAttention(E, HEADS, **(kwargs or {}))
        made = {name: T.zeros(*shape, dtype=getattr(T, dtype))
                for name, (shape, dtype) in dict(masks).items()}
        return layer(T.zeros(*q), T.zeros(*k), T.zeros(*v), **made, **options)
    return call


MHA_ERRORS = [
    pytest.param(lambda T: T.nn.MultiheadAttention(6, 4), AssertionError,
                 "embed_dim must be divisible by num_heads", id="divisible"),
    pytest.param(lambda T: T.nn.MultiheadAttention(0, 2), ValueError,
                 "embed_dim and num_heads must be greater than 0", id="positive"),
    pytest.param(_mha_error_call(q=(2, L, N, E)), AssertionError,
                 "query should be unbatched 2D or batched 3D tensor", id="query-4d"),
    pytest.param(_mha_error_call(k=(S, E)), AssertionError,
                 "For batched (3-D) `query`, expected `key` and `value` to be 3-D", id="key-2d"),
    pytest.param(_mha_error_call(q=(L, 4)), AssertionError,
                 "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D",
                 id="unbatched-key-3d"),
    pytest.param(_mha_error_call(q=(L, N, 4)), AssertionError,
                 "was expecting embedding dimension of 6, but got 4", id="embed-dim"),
    pytest.param(_mha_error_call(v=(S + 1, N, E)), AssertionError,
                 "key shape (5, 2, 6) does not match value shape (6, 2, 6)", id="key-value"),
    pytest.param(_mha_error_call({"kdim": 4, "vdim": 4}, k=(S, N, 4), v=(S + 1, N, 4)),
                 AssertionError, "key's sequence and batch dims", id="key-value-separate"),
    pytest.param(_mha_error_call(masks={"attn_mask": ((L, S + 1), "bool")}), RuntimeError,
                 "The shape of the 2D attn_mask is", id="attn-2d-shape"),
    pytest.param(_mha_error_call(masks={"attn_mask": ((N, L, S), "bool")}), RuntimeError,
                 "The shape of the 3D attn_mask is", id="attn-3d-shape"),
    pytest.param(_mha_error_call(masks={"attn_mask": ((1, 1, L, S), "bool")}), AssertionError,
                 "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D",
                 id="attn-4d"),
    pytest.param(_mha_error_call(masks={"attn_mask": ((L, S), "int64")}), AssertionError,
                 "only bool and floating types of attn_mask are supported", id="attn-int"),
    pytest.param(_mha_error_call(masks={"key_padding_mask": ((N + 1, S), "bool")}),
                 AssertionError, "Expected key_padded_mask.shape[0] to be 2, but got 3",
                 id="kpm-batch"),
    pytest.param(_mha_error_call(masks={"key_padding_mask": ((N, S + 1), "bool")}),
                 AssertionError, "Expected key_padded_mask.shape[1] to be 5, but got 6",
                 id="kpm-length"),
    pytest.param(_mha_error_call(masks={"key_padding_mask": ((S,), "bool")}), AssertionError,
                 "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D",
                 id="kpm-1d"),
    pytest.param(_mha_error_call(q=(L, E), k=(S, E), v=(S, E),
                                 masks={"attn_mask": ((2, L, S), "bool")}),
                 AssertionError, "Expected `attn_mask` shape to be (3, 4, 5)",
                 id="unbatched-attn-3d"),
    pytest.param(_mha_error_call(is_causal=True), RuntimeError,
                 "Need attn_mask if specifying the is_causal hint", id="causal-without-mask"),
]


@pytest.mark.parametrize("call, error, message", MHA_ERRORS)
def test_mha_errors_are_pytorchs(torch_ref, call, error, message):
    with pytest.raises(error):
        call(torch_ref)
    with pytest.raises(error) as info:
        call(mt)
    assert str(info.value).startswith(message), str(info.value)


def test_functional_multi_head_attention_forward_matches_the_layer():
    layer = nn.MultiheadAttention(E, HEADS, dtype=mt.float64)
    x = mt.randn(L, N, E, dtype=mt.float64)
    out, weights = nn.functional.multi_head_attention_forward(
        x, x, x, E, HEADS, layer.in_proj_weight, layer.in_proj_bias, None, None, False, 0.0,
        layer.out_proj.weight, layer.out_proj.bias)
    expected = layer(x, x, x)
    assert mt.allclose(out, expected[0]) and mt.allclose(weights, expected[1])
    with pytest.raises(NotImplementedError, match="static_k and static_v are not supported"):
        nn.functional.multi_head_attention_forward(
            x, x, x, E, HEADS, layer.in_proj_weight, layer.in_proj_bias, None, None, False,
            0.0, layer.out_proj.weight, layer.out_proj.bias, static_k=x)

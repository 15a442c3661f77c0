"""Transformer layers and stacks: values and every gradient against PyTorch in float64
(PyTorch's parameters through state dicts, dropout 0), masks, batch_first and unbatched
inputs, gradcheck, meta shapes, reprs, state-dict names, deep copies, warnings, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from tests.gradcheck import gradcheck

# PyTorch's (and our) warning when a Transformer's encoder cannot take the nested-tensor path
NESTED_TENSOR_WARNING = "enable_nested_tensor is True, but self.use_nested_tensor is False"

D, HEADS, FF, S, T, N = 8, 2, 12, 5, 4, 2


def _copy_parameters(ours, theirs):
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    return ours, theirs


def _pair(torch, device, name, *args, **kwargs):
    """Our module and PyTorch's, same arguments, PyTorch's parameters, float64."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # enable_nested_tensor's, tested below
        theirs = getattr(torch.nn, name)(*args, **kwargs, dtype=torch.float64)
        ours = getattr(nn, name)(*args, **kwargs, dtype=mt.float64, device=device)
    return _copy_parameters(ours, theirs)


def _stack(torch, device, name, layer_kwargs, num_layers=2, norm=True):
    """Encoder or Decoder stacks built from their layer, as a user builds them."""
    layer_name = name + "Layer"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(torch.nn, name)(
            getattr(torch.nn, layer_name)(D, HEADS, FF, 0.0, **layer_kwargs,
                                          dtype=torch.float64), num_layers,
            torch.nn.LayerNorm(D, dtype=torch.float64) if norm else None)
        ours = getattr(nn, name)(
            getattr(nn, layer_name)(D, HEADS, FF, 0.0, **layer_kwargs, dtype=mt.float64,
                                    device=device), num_layers,
            nn.LayerNorm(D, dtype=mt.float64, device=device) if norm else None)
    # the layers start as copies of one: make each differ, so that a mix-up shows
    theirs.load_state_dict({k: v + 0.01 * torch.tensor(np.random.default_rng(i).standard_normal(
        tuple(v.shape))) for i, (k, v) in enumerate(theirs.state_dict().items())})
    return _copy_parameters(ours, theirs)


def _sequence(length, batched, batch_first, seed):
    rng = np.random.default_rng(seed)
    if not batched:
        return rng.standard_normal((length, D))
    return rng.standard_normal((N, length, D) if batch_first else (length, N, D))


def _check(torch, ours, theirs, arrays, call_o, call_t, device, rtol=1e-9, atol=1e-11):
    """Run both, compare outputs, input gradients and every parameter's gradient."""
    ins_t = [torch.tensor(a, requires_grad=True) for a in arrays]
    ins_o = [mt.tensor(a, device=device, requires_grad=True) for a in arrays]
    out_t, out_o = call_t(theirs, *ins_t), call_o(ours, *ins_o)
    np.testing.assert_allclose(out_o.detach().cpu().numpy(), out_t.detach().numpy(),
                               rtol=rtol, atol=atol)
    weights = np.random.default_rng(9).standard_normal(tuple(out_t.shape))
    (out_t * torch.tensor(weights)).sum().backward()
    (out_o * mt.tensor(weights, device=device)).sum().backward()
    for a, b in zip(ins_o, ins_t):
        np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), rtol=rtol, atol=atol)
    for (name, p), (_, q) in zip(theirs.named_parameters(), ours.named_parameters()):
        np.testing.assert_allclose(q.grad.cpu().numpy(), p.grad.numpy(), rtol=rtol, atol=atol,
                                   err_msg=name)


def _placed(T, device):
    """Where library ``T``'s masks go: ours on the test's device, PyTorch's on its CPU."""
    return {"device": device} if T is mt else {}


def _masks(T, length, batched, kinds, source=None, device="cpu"):
    """``(attn_mask, key_padding_mask)`` of the given kinds for a library ``T``."""
    source = source or length
    attn = padding = None
    if "causal" in kinds:
        attn = T.nn.Transformer.generate_square_subsequent_mask(length, dtype=T.float64,
                                                                **_placed(T, device))
    if "bool" in kinds:
        attn = T.tensor(np.triu(np.ones((length, source), dtype=bool), 1), **_placed(T, device))
    if "padding" in kinds:
        pad = np.zeros((N, source) if batched else (source,), dtype=bool)
        pad[..., -1] = True
        padding = T.tensor(pad, **_placed(T, device))
    return attn, padding


LAYER_KWARGS = [
    pytest.param({}, id="default"),
    pytest.param({"batch_first": True}, id="batch-first"),
    pytest.param({"norm_first": True}, id="norm-first"),
    pytest.param({"activation": "gelu", "bias": False}, id="gelu-no-bias"),
    pytest.param({"layer_norm_eps": 1e-3, "batch_first": True, "norm_first": True},
                 id="eps-batch-first-norm-first"),
]
MASK_KINDS = [pytest.param((), id="no-mask"), pytest.param(("causal",), id="causal"),
              pytest.param(("bool", "padding"), id="bool-and-padding"),
              pytest.param(("padding",), id="padding")]


@pytest.mark.parametrize("kwargs", LAYER_KWARGS)
@pytest.mark.parametrize("kinds", MASK_KINDS)
def test_encoder_layer_matches_pytorch(torch_ref, kwargs, kinds, device):
    ours, theirs = _pair(torch_ref, device, "TransformerEncoderLayer", D, HEADS, FF, 0.0,
                         **kwargs)
    x = _sequence(S, True, kwargs.get("batch_first", False), 0)

    def call(T):
        attn, padding = _masks(T, S, True, kinds, device=device)
        return lambda layer, x: layer(x, src_mask=attn, src_key_padding_mask=padding)
    _check(torch_ref, ours, theirs, [x], call(mt), call(torch_ref), device)


@pytest.mark.parametrize("kwargs", LAYER_KWARGS[:3])
def test_encoder_layer_unbatched_and_causal_hint_match_pytorch(torch_ref, kwargs, device):
    ours, theirs = _pair(torch_ref, device, "TransformerEncoderLayer", D, HEADS, FF, 0.0,
                         **kwargs)

    def call(T):
        attn, padding = _masks(T, S, False, ("causal", "padding"), device=device)
        return lambda layer, x: layer(x, attn, padding, is_causal=True)
    # a float causal mask beside a bool padding mask: both frameworks warn, each once per call
    with pytest.warns(UserWarning, match="Support for mismatched src_key_padding_mask and "
                                         "src_mask is deprecated") as caught:
        _check(torch_ref, ours, theirs, [_sequence(S, False, False, 1)], call(mt),
               call(torch_ref), device)
    assert any("minitorch_meta" in w.filename for w in caught)
    assert any("torch/nn" in w.filename for w in caught)


@pytest.mark.parametrize("kwargs", LAYER_KWARGS)
@pytest.mark.parametrize("kinds", MASK_KINDS[:3])
def test_encoder_stack_matches_pytorch(torch_ref, kwargs, kinds, device):
    ours, theirs = _stack(torch_ref, device, "TransformerEncoder", kwargs)
    x = _sequence(S, True, kwargs.get("batch_first", False), 2)

    def call(T):
        attn, padding = _masks(T, S, True, kinds, device=device)
        return lambda stack, x: stack(x, mask=attn, src_key_padding_mask=padding)
    _check(torch_ref, ours, theirs, [x], call(mt), call(torch_ref), device)


@pytest.mark.parametrize("kwargs", LAYER_KWARGS)
@pytest.mark.parametrize("kinds", MASK_KINDS[:3])
def test_decoder_layer_matches_pytorch(torch_ref, kwargs, kinds, device):
    ours, theirs = _pair(torch_ref, device, "TransformerDecoderLayer", D, HEADS, FF, 0.0,
                         **kwargs)
    first = kwargs.get("batch_first", False)
    arrays = [_sequence(T, True, first, 3), _sequence(S, True, first, 4)]

    def call(lib):
        tgt_mask, tgt_padding = _masks(lib, T, True, kinds, device=device)
        _, memory_padding = _masks(lib, T, True, ("padding",), source=S, device=device)
        return lambda layer, tgt, memory: layer(
            tgt, memory, tgt_mask=tgt_mask, tgt_key_padding_mask=tgt_padding,
            memory_key_padding_mask=memory_padding)
    _check(torch_ref, ours, theirs, arrays, call(mt), call(torch_ref), device)


@pytest.mark.parametrize("kwargs", LAYER_KWARGS[:3])
def test_decoder_stack_matches_pytorch(torch_ref, kwargs, device):
    ours, theirs = _stack(torch_ref, device, "TransformerDecoder", kwargs)
    first = kwargs.get("batch_first", False)
    arrays = [_sequence(T, True, first, 5), _sequence(S, True, first, 6)]

    def call(lib):
        mask = lib.nn.Transformer.generate_square_subsequent_mask(T, dtype=lib.float64,
                                                                **_placed(lib, device))
        memory_mask = lib.tensor(np.triu(np.ones((T, S), dtype=bool), 2), **_placed(lib, device))
        return lambda stack, tgt, memory: stack(tgt, memory, tgt_mask=mask,
                                                memory_mask=memory_mask)
    _check(torch_ref, ours, theirs, arrays, call(mt), call(torch_ref), device)


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True, "norm_first": True}])
@pytest.mark.parametrize("batched", [True, False])
def test_transformer_matches_pytorch(torch_ref, kwargs, batched, device):
    ours, theirs = _pair(torch_ref, device, "Transformer", D, HEADS, 2, 1, FF, 0.0, **kwargs)
    first = kwargs.get("batch_first", False)
    arrays = [_sequence(S, batched, first, 7), _sequence(T, batched, first, 8)]

    def call(lib):
        mask = lib.nn.Transformer.generate_square_subsequent_mask(T, dtype=lib.float64,
                                                                **_placed(lib, device))
        _, padding = _masks(lib, S, batched, ("padding",), device=device)
        return lambda model, src, tgt: model(src, tgt, tgt_mask=mask,
                                             src_key_padding_mask=padding,
                                             memory_key_padding_mask=padding)
    _check(torch_ref, ours, theirs, arrays, call(mt), call(torch_ref), device)


def test_encoder_layer_passes_float64_gradcheck(device):
    layer = nn.TransformerEncoderLayer(4, 2, 6, 0.0, dtype=mt.float64, device=device)
    mask = mt.tensor([[False, True, False], [False, False, True], [True, False, False]],
                     device=device)
    x = np.random.default_rng(0).standard_normal((3, 2, 4))
    gradcheck(lambda x: layer(x, src_mask=mask), [x], [True], device=device)


def test_whole_encoder_runs_on_meta_with_real_shapes():
    layer = nn.TransformerEncoderLayer(512, 8, batch_first=True, device="meta")
    encoder = nn.TransformerEncoder(layer, 6, nn.LayerNorm(512, device="meta"))
    src = mt.empty(64, 1024, 512, device="meta", requires_grad=True)
    padding = mt.empty(64, 1024, dtype=mt.bool, device="meta")
    causal = mt.ones(1024, 1024, dtype=mt.bool, device="meta").triu(1)  # bool, as the padding
    out = encoder(src, mask=causal, src_key_padding_mask=padding)
    out.sum().backward()
    assert out.shape == (64, 1024, 512) and out.is_meta
    assert src.grad.shape == src.shape
    assert encoder.layers[5].linear1.weight.grad.shape == (2048, 512)


def test_transformer_runs_on_meta():
    with pytest.warns(UserWarning, match=NESTED_TENSOR_WARNING):
        model = nn.Transformer(16, 4, 2, 2, 32, device="meta")
    out = model(mt.empty(7, 3, 16, device="meta"), mt.empty(5, 3, 16, device="meta"),
                tgt_mask=nn.Transformer.generate_square_subsequent_mask(5, device="meta"))
    assert out.shape == (5, 3, 16) and out.is_meta


def test_reprs_and_state_dict_names_are_pytorchs(torch_ref):
    builds = [
        lambda L: L.nn.TransformerEncoderLayer(D, HEADS, FF),
        lambda L: L.nn.TransformerEncoderLayer(D, HEADS, FF, activation=L.nn.GELU()),
        lambda L: L.nn.TransformerDecoderLayer(D, HEADS, FF, bias=False, norm_first=True),
        lambda L: L.nn.TransformerEncoder(L.nn.TransformerEncoderLayer(D, HEADS, FF), 2),
        lambda L: L.nn.TransformerDecoder(L.nn.TransformerDecoderLayer(D, HEADS, FF), 2,
                                          L.nn.LayerNorm(D)),
        lambda L: L.nn.Transformer(D, HEADS, 1, 2, FF),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for build in builds:
            ours, theirs = build(mt), build(torch_ref)
            assert repr(ours) == repr(theirs)
            assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
                [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]


def test_stacks_hold_independent_deep_copies():
    layer = nn.TransformerEncoderLayer(D, HEADS, FF)
    encoder = nn.TransformerEncoder(layer, 3, enable_nested_tensor=False)
    weights = [m.linear1.weight for m in encoder.layers]
    assert all(w is not layer.linear1.weight for w in weights)
    assert len({id(w) for w in weights}) == 3
    assert all(mt.equal(w, layer.linear1.weight) for w in weights)
    assert len(list(encoder.parameters())) == 3 * len(list(layer.parameters()))


def test_transformer_redraws_matrices_xavier_uniform():
    with pytest.warns(UserWarning, match=NESTED_TENSOR_WARNING):
        model = nn.Transformer(D, HEADS, 1, 1, FF)
    weight = model.encoder.layers[0].linear1.weight.detach().numpy()
    bound = (6 / (D + FF)) ** 0.5
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.8 * bound
    assert model.d_model == D and model.nhead == HEADS and model.batch_first is False


def test_generate_square_subsequent_mask_is_pytorchs(torch_ref):
    ours = nn.Transformer.generate_square_subsequent_mask(4)
    theirs = torch_ref.nn.Transformer.generate_square_subsequent_mask(4)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert ours.dtype is mt.float32
    assert nn.Transformer.generate_square_subsequent_mask(3, dtype=mt.float64).dtype is \
        mt.float64


@pytest.mark.parametrize("kwargs", [
    {}, {"batch_first": True}, {"batch_first": True, "norm_first": True},
    {"batch_first": True, "activation": lambda x: x}, {"batch_first": True, "bias": False},
])
def test_encoder_warns_about_nested_tensors_as_pytorch(torch_ref, kwargs):
    def messages(L):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            stack = L.nn.TransformerEncoder(L.nn.TransformerEncoderLayer(D, HEADS, FF,
                                                                         **kwargs), 1)
        return [str(w.message) for w in caught], stack.use_nested_tensor
    assert messages(mt) == messages(torch_ref)


def test_activation_choices_match_pytorch(torch_ref):
    for activation, code in [("relu", 1), ("gelu", 2), (nn.GELU(), 2),
                             (nn.functional.relu, 1), (mt.tanh, 0)]:
        layer = nn.TransformerEncoderLayer(D, HEADS, FF, activation=activation)
        assert layer.activation_relu_or_gelu == code
    assert "(activation): GELU" in repr(nn.TransformerEncoderLayer(D, HEADS, FF,
                                                                   activation=nn.GELU()))


def test_dropout_only_in_training():
    layer = nn.TransformerEncoderLayer(D, HEADS, FF, dropout=0.5)
    x = mt.randn(S, N, D)
    layer.eval()
    assert mt.equal(layer(x), layer(x))
    layer.train()
    assert not mt.equal(layer(x), layer(x))


ERRORS = [
    pytest.param(lambda L: L.nn.TransformerEncoderLayer(D, HEADS, activation="tanh"),
                 RuntimeError, "activation should be relu/gelu, not tanh", id="activation"),
    pytest.param(lambda L: L.nn.TransformerEncoderLayer(D, 3), AssertionError,
                 "embed_dim must be divisible by num_heads", id="heads"),
    pytest.param(lambda L: L.nn.Transformer(D, HEADS, 1, 1, FF)(L.zeros(S, 2, D),
                                                                L.zeros(T, 3, D)),
                 RuntimeError, "the batch number of src and tgt must be equal", id="batch"),
    pytest.param(lambda L: L.nn.Transformer(D, HEADS, 1, 1, FF)(L.zeros(S, 2, D),
                                                                L.zeros(T, 2, 4)),
                 RuntimeError, "the feature number of src and tgt must be equal to d_model",
                 id="features"),
    pytest.param(lambda L: L.nn.TransformerEncoderLayer(D, HEADS, FF)(
        L.zeros(S, N, D), src_mask=L.zeros(S, S + 1)), RuntimeError,
        "The shape of the 2D attn_mask is", id="mask-shape"),
    pytest.param(lambda L: L.nn.TransformerEncoderLayer(D, HEADS, FF)(
        L.zeros(S, N, D), src_key_padding_mask=L.zeros(N, S, dtype=L.int64)), AssertionError,
        "only bool and floating types of src_key_padding_mask are supported", id="mask-dtype"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors_are_pytorchs(torch_ref, call, error, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error):
            call(torch_ref)
        with pytest.raises(error) as info:
            call(mt)
    assert str(info.value).startswith(message), str(info.value)

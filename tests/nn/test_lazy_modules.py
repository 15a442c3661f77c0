"""The lazy convolutions (1-D to 3-D, direct and transposed) and the lazy batch and instance
norms against PyTorch: reprs before and after the first call, the materialised shapes and
initial values, outputs and every gradient with PyTorch's values copied in, meta dry runs,
state dicts both ways, and the errors of a bad first input."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from minitorch_meta.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from tests.devices import tensor_device

torch = pytest.importorskip("torch", reason="PyTorch is the reference: pip install torch")

# (class, positional args, keyword args, a batched first input's shape)
CONVS = [
    ("LazyConv1d", (4, 3), {}, (2, 3, 9)),
    ("LazyConv1d", (4, 2), dict(stride=2, padding=1, groups=2, bias=False), (2, 6, 9)),
    ("LazyConv2d", (4, 3), dict(padding=1, dilation=2), (2, 3, 7, 6)),
    ("LazyConv2d", (6, (3, 2)), dict(groups=3, padding_mode="reflect", padding=1), (2, 3, 5, 6)),
    ("LazyConv3d", (4, 2), dict(stride=(1, 2, 1)), (2, 3, 4, 5, 4)),
    ("LazyConv3d", (4, 3), dict(padding="same", groups=2, bias=False), (1, 4, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), dict(stride=2, output_padding=1), (2, 3, 5)),
    ("LazyConvTranspose1d", (4, 3), dict(groups=2, dilation=2, bias=False), (2, 6, 5)),
    ("LazyConvTranspose2d", (4, 3), dict(stride=2, padding=1), (2, 3, 4, 5)),
    ("LazyConvTranspose2d", (6, 2), dict(groups=3), (2, 3, 4, 4)),
    ("LazyConvTranspose3d", (4, 2), dict(stride=2, output_padding=(1, 0, 1)), (1, 3, 3, 2, 3)),
    ("LazyConvTranspose3d", (2, 2), dict(groups=2, padding=1), (2, 4, 3, 3, 3)),
]
NORMS = [
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm1d", (), dict(momentum=None, bias=False), (4, 3, 5)),
    ("LazyBatchNorm2d", (), dict(eps=1e-3, affine=False), (3, 2, 4, 5)),
    ("LazyBatchNorm2d", (), dict(track_running_stats=False), (3, 2, 4, 5)),
    ("LazyBatchNorm3d", (), dict(momentum=0.3), (2, 3, 2, 3, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 6)),
    ("LazyInstanceNorm1d", (), dict(affine=False), (2, 3, 6)),
    ("LazyInstanceNorm2d", (), dict(track_running_stats=False, bias=False), (2, 3, 4, 5)),
    ("LazyInstanceNorm3d", (), dict(momentum=None), (2, 2, 3, 2, 3)),
]
CASES = CONVS + NORMS
IDS = [f"{name}-{i}" for i, (name, *_) in enumerate(CASES)]


def _make(framework, name, args, kwargs, **extra):
    return getattr(framework.nn, name)(*args, **kwargs, **extra)


def _data(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("name, args, kwargs, shape", CASES, ids=IDS)
def test_reprs_shapes_and_classes_follow_pytorch(name, args, kwargs, shape):
    ours, theirs = _make(mt, name, args, kwargs), _make(torch, name, args, kwargs)
    assert repr(ours) == repr(theirs)
    assert ours.has_uninitialized_params() == theirs.has_uninitialized_params()
    assert {k: repr(v) for k, v in ours.state_dict().items()} == \
           {k: repr(v) for k, v in theirs.state_dict().items()}
    ours(mt.tensor(_data(shape), dtype=mt.float32))
    theirs(torch.tensor(_data(shape), dtype=torch.float32))
    assert type(ours).__name__ == type(theirs).__name__ == name[len("Lazy"):]
    assert type(ours) is getattr(nn, name).cls_to_become
    assert repr(ours) == repr(theirs).replace("(0, ", f"({shape[1]}, ")  # see below
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == \
           {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    assert not hasattr(ours, "has_uninitialized_params") and not ours._forward_pre_hooks
    assert all(type(p) is nn.Parameter for p in ours.parameters())
    assert all(not is_lazy(b) for b in ours.buffers())


def test_pytorch_keeps_zero_features_where_nothing_is_lazy():
    # Why the replace above: a norm with no affine map and no statistics has nothing lazy,
    # and PyTorch then leaves num_features at 0; ours reads it from the input all the same.
    ours, theirs = nn.LazyBatchNorm2d(track_running_stats=False, affine=False), \
        torch.nn.LazyBatchNorm2d(track_running_stats=False, affine=False)
    assert not ours.has_uninitialized_params() and not theirs.has_uninitialized_params()
    ours(mt.randn(3, 2, 4, 4))
    theirs(torch.randn(3, 2, 4, 4))
    assert (ours.num_features, theirs.num_features) == (2, 0)
    assert type(ours) is nn.BatchNorm2d


def _copy_pytorch_state(ours, theirs, device):
    ours.load_state_dict({key: mt.tensor(value.detach().numpy(), device=device)
                          for key, value in theirs.state_dict().items()})


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("name, args, kwargs, shape", CASES, ids=IDS)
def test_values_and_gradients_equal_pytorchs(name, args, kwargs, shape, train, device):
    ours = _make(mt, name, args, kwargs, device=device, dtype=mt.float64)
    theirs = _make(torch, name, args, kwargs, dtype=torch.float64)
    ours.train(train)
    theirs.train(train)
    first = _data(shape, seed=1)
    ours(mt.tensor(first, device=device))
    theirs(torch.tensor(first))
    assert ours.weight is None or ours.weight.device == tensor_device(device)
    _copy_pytorch_state(ours, theirs, device)
    data = _data(shape)
    x_t = torch.tensor(data, requires_grad=True)
    x_o = mt.tensor(data, device=device, requires_grad=True)
    y_t, y_o = theirs(x_t), ours(x_o)
    assert y_o.device == tensor_device(device)
    np.testing.assert_allclose(y_o.detach().cpu().numpy(), y_t.detach().numpy(), rtol=1e-9,
                               atol=1e-11)
    weights = _data(tuple(y_t.shape), seed=2)
    (y_t * torch.tensor(weights)).sum().backward()
    (y_o * mt.tensor(weights, device=device)).sum().backward()
    np.testing.assert_allclose(x_o.grad.cpu().numpy(), x_t.grad.numpy(), rtol=1e-9, atol=1e-11)
    ours_params = dict(ours.named_parameters())
    for key, p in theirs.named_parameters():
        np.testing.assert_allclose(ours_params[key].grad.cpu().numpy(), p.grad.numpy(),
                                   rtol=1e-9, atol=1e-11, err_msg=key)
    ours_buffers = dict(ours.named_buffers())
    for key, b in theirs.named_buffers():  # the running statistics moved alike
        np.testing.assert_allclose(ours_buffers[key].cpu().numpy(), b.numpy(), rtol=1e-9,
                                   atol=1e-11, err_msg=key)


@pytest.mark.parametrize("name, args, kwargs, shape", CONVS, ids=IDS[:len(CONVS)])
def test_convolutions_start_from_pytorchs_distribution(name, args, kwargs, shape):
    layer = _make(mt, name, args, kwargs, dtype=mt.float64)
    layer(mt.zeros(*shape, dtype=mt.float64))
    fan_in = math.prod(layer.weight.shape[1:])  # dimension 1 for transposed ones too
    bound = 1 / math.sqrt(fan_in)
    for tensor in (layer.weight, layer.bias):
        if tensor is None:
            continue
        largest = float(tensor.abs().max().item())
        # Inside kaiming_uniform(a=sqrt(5))'s bound, and spread over it (drawn, not left
        # uninitialised or zero).
        assert bound / 4 < largest <= bound
    reference = _make(torch, name, args, kwargs)
    reference(torch.zeros(*shape))
    assert tuple(layer.weight.shape) == tuple(reference.weight.shape)


@pytest.mark.parametrize("name, args, kwargs, shape", NORMS, ids=IDS[len(CONVS):])
def test_norms_start_as_the_identity_with_fresh_statistics(name, args, kwargs, shape):
    layer = _make(mt, name, args, kwargs).eval()
    layer(mt.zeros(*shape))  # eval: the statistics are not moved
    features = shape[1]
    if layer.affine:
        assert layer.weight.tolist() == [1.0] * features
        if layer.bias is not None:
            assert layer.bias.tolist() == [0.0] * features
    if layer.track_running_stats:
        assert layer.running_mean.tolist() == [0.0] * features
        assert layer.running_var.tolist() == [1.0] * features
        assert layer.num_batches_tracked.item() == 0
        assert layer.num_batches_tracked.dtype is mt.int64


def test_lazy_instance_norm_reads_the_channels_of_one_sample():
    # PyTorch reads dimension 1 even of an unbatched (C, L) input and then rejects its own
    # layer; ours reads the channel dimension (see docs/differences.md).
    layer = nn.LazyInstanceNorm1d()
    y = layer(mt.randn(3, 5))
    assert layer.num_features == 3 and tuple(layer.weight.shape) == (3,)
    assert tuple(y.shape) == (3, 5)
    with pytest.raises(ValueError, match="match num_features"):
        torch.nn.LazyInstanceNorm1d()(torch.randn(3, 5))


@pytest.mark.parametrize("name, args, kwargs, shape", CONVS[::2], ids=IDS[:len(CONVS):2])
def test_unbatched_first_input_of_a_convolution(name, args, kwargs, shape):
    ours, theirs = _make(mt, name, args, kwargs), _make(torch, name, args, kwargs)
    y_o = ours(mt.zeros(*shape[1:]))
    y_t = theirs(torch.zeros(*shape[1:]))
    assert ours.in_channels == theirs.in_channels == shape[1]
    assert tuple(y_o.shape) == tuple(y_t.shape)


def test_groups_shape_the_weight_as_pytorch():
    for name in ("LazyConv2d", "LazyConvTranspose2d"):
        ours, theirs = _make(mt, name, (4, 3), dict(groups=2)), _make(torch, name, (4, 3),
                                                                        dict(groups=2))
        ours(mt.zeros(1, 6, 5, 5))
        theirs(torch.zeros(1, 6, 5, 5))
        assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
        assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name, args, kwargs, shape", CASES, ids=IDS)
def test_meta_dry_run_materialises_on_meta(name, args, kwargs, shape):
    with mt.device("meta"):
        layer = _make(mt, name, args, kwargs)
        y = layer(mt.empty(*shape))
    real = _make(mt, name, args, kwargs)
    y_real = real(mt.zeros(*shape))
    assert tuple(y.shape) == tuple(y_real.shape) and y.is_meta
    assert type(layer) is type(real)
    states = dict(layer.state_dict())
    assert states.keys() == real.state_dict().keys()
    for key, value in real.state_dict().items():
        assert states[key].is_meta and tuple(states[key].shape) == tuple(value.shape), key


def test_meta_placeholders_move_to_a_device_and_stay_lazy(device):
    layer = nn.LazyBatchNorm2d(device="meta")
    assert layer.running_mean.is_meta and layer.weight.is_meta
    layer.to_empty(device=device)
    assert layer.has_uninitialized_params()
    assert isinstance(layer.running_var, UninitializedBuffer)
    assert isinstance(layer.weight, UninitializedParameter)
    layer.double()
    assert layer.running_mean.dtype is mt.float64 and is_lazy(layer.running_mean)
    assert layer.num_batches_tracked.dtype is mt.int64  # a count is not cast
    layer(mt.randn(2, 3, 2, 2, dtype=mt.float64, device=device))
    for value in (layer.weight, layer.running_mean, layer.running_var):
        assert value.device == tensor_device(device) and value.dtype is mt.float64
    assert type(layer.running_mean) is mt.Tensor


def test_uninitialized_buffer_as_pytorchs():
    ours, theirs = UninitializedBuffer(), torch.nn.UninitializedBuffer()
    assert repr(ours) == repr(theirs) == "<UninitializedBuffer>"
    assert ours.requires_grad is theirs.requires_grad is False
    assert ours.dtype is mt.float32
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        ours.shape  # noqa: B018
    assert type(ours.to(mt.float64)) is UninitializedBuffer
    assert nn.UninitializedBuffer is UninitializedBuffer
    ours.materialize((2, 3))
    assert type(ours) is mt.Tensor and tuple(ours.shape) == (2, 3)


@pytest.mark.parametrize("name, args, kwargs, shape", CASES, ids=IDS)
def test_state_dict_of_a_called_layer_loads_into_a_fresh_lazy_one(name, args, kwargs, shape,
                                                                  device):
    source = _make(mt, name, args, kwargs, device=device, dtype=mt.float64)
    x = mt.tensor(_data(shape), device=device)
    source(x)  # materialised, and (training) running statistics moved
    lazy = _make(mt, name, args, kwargs, device=device, dtype=mt.float64)
    lazy.load_state_dict(source.state_dict())
    assert not lazy.has_uninitialized_params()
    assert type(lazy).__name__ == name  # still its lazy class until its first call, as PyTorch
    source.eval()
    lazy.eval()
    np.testing.assert_array_equal(lazy(x).detach().cpu().numpy(),
                                  source(x).detach().cpu().numpy())
    assert repr(lazy) == repr(source) and type(lazy) is type(source)


def test_state_dict_of_an_uncalled_lazy_layer_holds_placeholders():
    saved = nn.LazyBatchNorm1d().state_dict()
    assert [type(v).__name__ for v in saved.values()] == \
           ["UninitializedParameter", "UninitializedParameter", "UninitializedBuffer",
            "UninitializedBuffer", "Tensor"]
    with pytest.raises(RuntimeError, match="the checkpoint holds an uninitialized parameter"):
        nn.BatchNorm1d(3).load_state_dict(saved)
    lazy = nn.LazyBatchNorm1d()
    lazy.load_state_dict(saved)  # placeholders into placeholders: nothing to do
    assert lazy.has_uninitialized_params()


def test_a_partly_loaded_state_is_not_overwritten():
    source = nn.BatchNorm1d(3)
    partial = {"weight": source.weight.detach()}
    lazy = nn.LazyBatchNorm1d()
    lazy.load_state_dict(partial, strict=False)
    with pytest.raises(RuntimeError, match="weight were loaded from a state dict but bias, "
                                           "running_mean, running_var were not"):
        lazy(mt.randn(4, 3))


CONV_RANK_ERRORS = [
    ("LazyConv1d", (2, 2, 2, 2), r"expected a 2-D \(C_in, L\) or 3-D \(N, C_in, L\) input to "
                                 r"LazyConv1d, but got input of shape \(2, 2, 2, 2\)"),
    ("LazyConv2d", (4, 4), r"expected a 3-D \(C_in, H, W\) or 4-D \(N, C_in, H, W\) input"),
    ("LazyConv3d", (1, 2, 2, 2, 2, 2), r"4-D \(C_in, D, H, W\) or 5-D"),
    ("LazyConvTranspose1d", (5,), r"input to LazyConvTranspose1d, but got input of shape \(5,\)"),
    ("LazyConvTranspose2d", (2, 2, 2, 2, 2), r"3-D .* or 4-D .* input to LazyConvTranspose2d"),
    ("LazyConvTranspose3d", (2, 2, 2), r"4-D .* or 5-D .* input to LazyConvTranspose3d"),
]


@pytest.mark.parametrize("name, shape, message", CONV_RANK_ERRORS)
def test_convolutions_refuse_a_first_input_of_another_rank(name, shape, message):
    layer = _make(mt, name, (2, 1), {})
    with pytest.raises(mt.ShapeError, match=message) as caught:
        layer(mt.zeros(*shape))
    with pytest.raises(RuntimeError) as reference:  # PyTorch's type; ours is one too
        _make(torch, name, (2, 1), {})(torch.zeros(*shape))
    assert isinstance(caught.value, type(reference.value))
    assert layer.has_uninitialized_params() and type(layer).__name__ == name


NORM_RANK_ERRORS = [  # (class, a bad first input, PyTorch's message, a good input)
    ("LazyBatchNorm1d", (2, 3, 4, 4), r"expected 2D or 3D input \(got 4D input\)", (2, 3)),
    ("LazyBatchNorm2d", (3, 4, 4), r"expected 4D input \(got 3D input\)", (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (2, 3, 4, 4), r"expected 5D input \(got 4D input\)", (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (2, 3, 4, 4), r"expected 2D or 3D input \(got 4D input\)", (3, 4)),
    ("LazyInstanceNorm2d", (3, 4), r"expected 3D or 4D input \(got 2D input\)", (1, 3, 4, 4)),
    ("LazyInstanceNorm3d", (3, 4, 4), r"expected 4D or 5D input \(got 3D input\)", (3, 2, 2, 2)),
]


@pytest.mark.parametrize("name, shape, message, good", NORM_RANK_ERRORS)
def test_norms_refuse_a_first_input_of_another_rank_as_pytorch(name, shape, message, good):
    layer = _make(mt, name, (), {})
    with pytest.raises(ValueError, match=message):
        layer(mt.zeros(*shape))
    with pytest.raises(ValueError, match=message):
        _make(torch, name, (), {})(torch.zeros(*shape))
    # Ours checks before materialising: the layer is still lazy and takes a good input.
    assert layer.has_uninitialized_params() and type(layer).__name__ == name
    layer(mt.randn(*good))
    assert layer.num_features == 3


def test_a_one_dimensional_input_is_refused_by_the_rank_rule():
    # PyTorch fails reading dimension 1 of it (IndexError); ours says what it expected.
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 1D input\)"):
        nn.LazyBatchNorm1d()(mt.zeros(3))
    with pytest.raises(IndexError):
        torch.nn.LazyBatchNorm1d()(torch.zeros(3))


def test_groups_must_divide_the_input_channels():
    with pytest.raises(ValueError, match=r"in_channels must be divisible by groups, got "
                                         r"in_channels=3 and groups=2"):
        nn.LazyConvTranspose3d(4, 1, groups=2)(mt.zeros(1, 3, 2, 2, 2))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        torch.nn.LazyConvTranspose3d(4, 1, groups=2)(torch.zeros(1, 3, 2, 2, 2))
    # PyTorch takes it until the convolution fails (a RuntimeError); ours refuses it
    # before materialising anything.
    layer = nn.LazyConv1d(3, 1, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups, got "
                                         "out_channels=3 and groups=2"):
        layer(mt.zeros(1, 4, 3))
    assert layer.has_uninitialized_params()


def test_constructor_errors_as_the_ordinary_layers():
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for '
                                         "LazyConvTranspose1d"):
        nn.LazyConvTranspose1d(2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for '
                                         "LazyConvTranspose1d"):
        torch.nn.LazyConvTranspose1d(2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
        nn.LazyConv3d(2, 3, stride=2, padding="same")


def test_lazy_classes_derive_as_pytorchs():
    pairs = [("LazyBatchNorm2d", "BatchNorm2d"), ("LazyInstanceNorm1d", "InstanceNorm1d"),
             ("LazyConv3d", "Conv3d"), ("LazyConvTranspose1d", "ConvTranspose1d"),
             ("LazyConvTranspose2d", "ConvTranspose1d"), ("LazyInstanceNorm3d", "InstanceNorm3d")]
    for lazy, plain in pairs:
        assert issubclass(getattr(nn, lazy), getattr(nn, plain)) == \
               issubclass(getattr(torch.nn, lazy), getattr(torch.nn, plain)), (lazy, plain)


def test_in_a_model_dry_run_on_meta_then_real_training_step(device):
    with mt.device("meta"):
        net = nn.Sequential(nn.LazyConv2d(4, 3), nn.LazyBatchNorm2d(), nn.ReLU(),
                            nn.LazyConvTranspose2d(2, 2, stride=2), nn.LazyInstanceNorm2d(),
                            nn.Flatten(), nn.LazyLinear(3))
        net(mt.empty(2, 3, 6, 6))
    assert [type(m).__name__ for m in net] == ["Conv2d", "BatchNorm2d", "ReLU",
                                               "ConvTranspose2d", "InstanceNorm2d", "Flatten",
                                               "Linear"]
    net.to_empty(device=device)
    for module in net:
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    loss = net(mt.randn(2, 3, 6, 6, device=device)).square().mean()
    loss.backward()
    assert tuple(net[3].weight.grad.shape) == (4, 2, 2, 2)
    assert net[1].num_batches_tracked.item() == 1


def test_a_summary_leaves_a_layer_with_lazy_buffers_only_lazy():
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.LazyBatchNorm2d(affine=False))
    mt.summary(model, input_size=(2, 3, 8, 8))
    assert type(model[1]) is nn.LazyBatchNorm2d and is_lazy(model[1].running_mean)

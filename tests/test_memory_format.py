"""Memory formats and layouts: the objects, strides of every entry point against PyTorch,
is_contiguous under each format, dim_order, errors, gradients through channels-last
tensors, meta's strides."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests

torch = pytest.importorskip("torch")

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]
LAYOUTS = ["strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc"]


# -- the objects ----------------------------------------------------------------------

@pytest.mark.parametrize("name", FORMATS + LAYOUTS)
def test_objects_print_and_pickle_as_torch(name):
    ours, theirs = getattr(mt, name), getattr(torch, name)
    assert repr(ours) == repr(theirs) == str(ours) == f"torch.{name}"
    kind = "memory_format" if name in FORMATS else "layout"
    assert isinstance(ours, getattr(mt, kind))
    assert pickle.loads(pickle.dumps(ours)) is ours
    assert copy.deepcopy(ours) is ours and copy.copy(ours) is ours
    assert ours == ours and ours != getattr(mt, FORMATS[0] if kind == "layout" else "strided")


@pytest.mark.parametrize("kind", ["memory_format", "layout"])
def test_types_cannot_be_instantiated(kind):
    for T in (mt, torch):
        with pytest.raises(TypeError, match=f"cannot create 'torch.{kind}' instances"):
            getattr(T, kind)()


def test_layout_of_a_tensor_is_strided(any_device):
    assert mt.zeros(2, 3, device=any_device).layout is mt.strided
    assert mt.zeros(2, 3, layout=mt.strided, device=any_device).layout is mt.strided


# -- strides against PyTorch ---------------------------------------------------------

def _views(T, base):
    """The same views of ``base`` in both frameworks: C-ordered, transposed, sliced,
    expanded, channels-last, size-1 and empty dims."""
    cl = T.channels_last
    return {
        "contiguous": base,
        "transposed": base.transpose(1, 3),
        "permuted_nhwc": base.permute(0, 2, 3, 1),
        "sliced": base[:, :, ::2],
        "transposed_sliced": base.transpose(1, 3)[:, ::2],
        "channels_last": base.contiguous(memory_format=cl),
        "channels_last_sliced": base.contiguous(memory_format=cl)[:, ::2, :, ::2],
        "expanded": base[:, :1].expand(2, 3, 4, 5),
        "size_one_dims": base[:, :1, :, :1],
        "channels_last_1x1": base[:, :, :1, :1].contiguous(memory_format=cl),
        "empty_batch": base[:0],
        "empty_channels_last": base[:, :0].contiguous(memory_format=cl),
        "matrix_t": base[0, 0].t(),
        "vector_step": base[0, 0, 0, ::2],
        # equal strides (60) on a size-1 and a size-2 dim, not dense: the smaller size goes
        # inside when the order of dims is kept
        "equal_strides_sliced": base[:, :, ::2].unsqueeze(1).transpose(0, 1),
    }


def _pair(device):
    values = np.arange(120, dtype=np.float64).reshape(2, 3, 4, 5)
    ours = _views(mt, mt.tensor(values, device=device))
    theirs = _views(torch, torch.tensor(values))
    return ours, theirs


VIEW_NAMES = list(_views(torch, torch.zeros(2, 3, 4, 5)))


@pytest.mark.parametrize("view", VIEW_NAMES)
def test_views_have_torch_strides(device, view):
    ours, theirs = _pair(device)
    assert ours[view].stride() == theirs[view].stride()


@pytest.mark.parametrize("view", VIEW_NAMES)
@pytest.mark.parametrize("name", FORMATS)
def test_is_contiguous_under_each_format_as_torch(device, view, name):
    ours, theirs = _pair(device)
    assert (ours[view].is_contiguous(memory_format=getattr(mt, name))
            == theirs[view].is_contiguous(memory_format=getattr(torch, name)))


@pytest.mark.parametrize("view", VIEW_NAMES)
@pytest.mark.parametrize("how", ["clone", "torch.clone", "clone_contiguous", "clone_cl",
                                 "contiguous", "contiguous_cl", "to_float32", "to_cl",
                                 "empty_like", "zeros_like", "ones_like", "full_like",
                                 "rand_like", "randn_like", "randint_like", "empty_like_cl",
                                 "zeros_like_contiguous"])
def test_copies_have_torch_strides_and_values(device, view, how):
    ours, theirs = _pair(device)
    rank4 = ours[view].dim() == 4
    if how.endswith("_cl") and not rank4:
        pytest.skip("channels_last needs 4-D (the error is tested below)")
    got, want = _copy(mt, ours[view], how), _copy(torch, theirs[view], how)
    assert got.stride() == want.stride()
    assert got.shape == want.shape and got.dtype == got.dtype
    assert got.device == tensor_device(device)
    if how not in ("empty_like", "empty_like_cl", "rand_like", "randn_like", "randint_like"):
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


def _copy(T, x, how):
    cl, kept = T.channels_last, T.contiguous_format
    return {
        "clone": lambda: x.clone(),
        "torch.clone": lambda: T.clone(x, memory_format=T.preserve_format),
        "clone_contiguous": lambda: x.clone(memory_format=kept),
        "clone_cl": lambda: x.clone(memory_format=cl),
        "contiguous": lambda: x.contiguous(),
        "contiguous_cl": lambda: x.contiguous(memory_format=cl),
        "to_float32": lambda: x.to(T.float32),
        "to_cl": lambda: x.to(memory_format=cl),
        "empty_like": lambda: T.empty_like(x),
        "zeros_like": lambda: T.zeros_like(x),
        "ones_like": lambda: T.ones_like(x, dtype=T.float32),
        "full_like": lambda: T.full_like(x, 2.5),
        "rand_like": lambda: T.rand_like(x),
        "randn_like": lambda: T.randn_like(x),
        "randint_like": lambda: T.randint_like(x, 3, 7),
        "empty_like_cl": lambda: T.empty_like(x, memory_format=cl),
        "zeros_like_contiguous": lambda: T.zeros_like(x, memory_format=kept),
    }[how]()


@pytest.mark.parametrize("view", VIEW_NAMES)
def test_dim_order_as_torch(device, view):
    ours, theirs = _pair(device)
    for check in (False, True, [], [mt.contiguous_format, mt.channels_last]):
        torch_check = check if not isinstance(check, list) else [
            getattr(torch, repr(f)[6:]) for f in check]
        try:
            want = theirs[view].dim_order(ambiguity_check=torch_check)
        except RuntimeError as error:
            with pytest.raises(RuntimeError, match=str(error).split(",")[0]):
                ours[view].dim_order(ambiguity_check=check)
        else:
            assert ours[view].dim_order(ambiguity_check=check) == want


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 0, 4, 5), (0, 3, 4, 5), (2, 3, 0, 5),
                                   (1, 1, 1, 1)])
def test_empty_in_channels_last_as_torch(any_device, shape):
    made = mt.empty(*shape, memory_format=mt.channels_last, device=any_device)
    want = torch.empty(*shape, memory_format=torch.channels_last)
    assert made.stride() == want.stride()
    assert made.is_contiguous() == want.is_contiguous()
    assert (made.is_contiguous(memory_format=mt.channels_last)
            == want.is_contiguous(memory_format=torch.channels_last))


def test_empty_in_channels_last_3d_as_torch(any_device):
    made = mt.empty((2, 3, 4, 5, 6), memory_format=mt.channels_last_3d, device=any_device)
    want = torch.empty((2, 3, 4, 5, 6), memory_format=torch.channels_last_3d)
    assert made.stride() == want.stride() == (360, 1, 90, 18, 3)
    assert made.is_contiguous(memory_format=mt.channels_last_3d)
    assert made.dim_order() == want.dim_order() == (0, 2, 3, 4, 1)


@pytest.mark.parametrize("size,order", [((2, 3, 4, 5), (0, 2, 3, 1)), ((2, 3), (1, 0)),
                                        ((2, 0, 4, 5), (0, 2, 3, 1)), ((0, 3), (1, 0)),
                                        ((4, 2, 3), (2, 0, 1)), ((), ())])
def test_empty_permuted_as_torch(any_device, size, order):
    made = mt.empty_permuted(size, list(order), dtype=mt.float64, device=any_device,
                             requires_grad=True)
    want = torch.empty_permuted(size, order)
    assert made.shape == want.shape and made.stride() == want.stride()
    assert made.dtype is mt.float64 and made.requires_grad and made.is_leaf
    assert made.device == tensor_device(any_device)


@pytest.mark.parametrize("size,order,message", [
    ((2, 3), (0, 0), "Duplicate dim not allowed"),
    ((2, 3), (0, 1, 2), "len\\(size\\) = 2 is not equal to len\\(physical_layout\\) = 3"),
    ((2, 3), (0, 2), "expected to be between 0 and 1, but got 2 at index 1"),
    ((2, 3), (0, -1), "expected to be between 0 and 1, but got -1 at index 1"),
])
def test_empty_permuted_errors_as_torch(size, order, message):
    for T in (mt, torch):
        with pytest.raises(RuntimeError, match=message):
            T.empty_permuted(size, order)


def test_empty_permuted_refuses_an_int_size():
    for T in (mt, torch):
        with pytest.raises(TypeError, match="must be tuple of ints"):
            T.empty_permuted(2, [0])


# -- returning self, and errors ------------------------------------------------------

def test_no_copy_when_already_in_the_format(device):
    x = mt.randn(2, 3, 4, 5, device=device)
    cl = x.contiguous(memory_format=mt.channels_last)
    assert x.contiguous(memory_format=mt.contiguous_format) is x
    assert cl.contiguous(memory_format=mt.channels_last) is cl
    assert x.contiguous(memory_format=mt.preserve_format) is x
    assert x.to(memory_format=mt.contiguous_format) is x
    assert cl.to(memory_format=mt.channels_last) is cl
    assert cl.to(memory_format=mt.preserve_format) is cl
    assert cl.to(device) is cl and cl.to(mt.float32) is cl
    assert x.clone(memory_format=mt.contiguous_format) is not x


@pytest.mark.parametrize("call", [
    lambda T, x: x.contiguous(memory_format=T.channels_last),
    lambda T, x: x.clone(memory_format=T.channels_last),
    lambda T, x: x.to(memory_format=T.channels_last),
    lambda T, x: T.empty_like(x, memory_format=T.channels_last),
    lambda T, x: T.zeros_like(x, memory_format=T.channels_last),
    lambda T, x: T.empty(2, 3, 4, memory_format=T.channels_last),
    lambda T, x: x.new_zeros(2, 3).contiguous(memory_format=T.channels_last),
])
def test_channels_last_needs_rank_4(any_device, call):
    for T, x in ((mt, mt.zeros(2, 3, 4, device=any_device)), (torch, torch.zeros(2, 3, 4))):
        with pytest.raises(RuntimeError, match="^required rank 4 tensor to use channels_last "
                                               "format$"):
            call(T, x)


def test_channels_last_3d_needs_rank_5(any_device):
    for T, x in ((mt, mt.zeros(2, 3, 4, 5, device=any_device)), (torch, torch.zeros(2, 3, 4, 5))):
        with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d"):
            x.contiguous(memory_format=T.channels_last_3d)
        assert not x.is_contiguous(memory_format=T.channels_last_3d)


def test_preserve_format_errors_as_torch(device):
    # (not on meta, where a transpose is C-ordered: docs/differences.md)
    for T, x in ((mt, mt.zeros(2, 3, device=device)), (torch, torch.zeros(2, 3))):
        with pytest.raises(RuntimeError, match="preserve memory format is unsupported by the "
                                               "contiguous operator"):
            x.t().contiguous(memory_format=T.preserve_format)
        with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
            T.empty(2, 3, memory_format=T.preserve_format)


@pytest.mark.parametrize("call,function", [
    (lambda T, x: x.contiguous(memory_format="channels_last"), "contiguous"),
    (lambda T, x: x.contiguous(memory_format=None), "contiguous"),
    (lambda T, x: x.is_contiguous(memory_format=None), "is_contiguous"),
    (lambda T, x: T.empty(2, 3, 4, 5, memory_format=3), "empty"),
])
def test_memory_format_type_errors_as_torch(call, function):
    for T, x in ((mt, mt.zeros(2, 3, 4, 5)), (torch, torch.zeros(2, 3, 4, 5))):
        with pytest.raises(TypeError, match=f"{function}\\(\\): argument 'memory_format' must be "
                                            "torch.memory_format, not"):
            call(T, x)


def test_memory_format_none_means_the_default_as_torch():
    for T in (mt, torch):
        x = T.zeros(2, 3, 4, 5).transpose(1, 3)
        assert x.clone(memory_format=None).stride() == (60, 1, 5, 20)
        assert T.empty(2, 3, 4, 5, memory_format=None).stride() == (60, 20, 5, 1)
        assert T.zeros_like(x, memory_format=None).stride() == (60, 1, 5, 20)


def test_memory_format_is_keyword_only_as_torch():
    for T in (mt, torch):
        x = T.zeros(2, 3, 4, 5)
        for method in (x.contiguous, x.is_contiguous, x.clone):
            with pytest.raises(TypeError):
                method(T.channels_last)


def test_dim_order_argument_type_error():
    for T in (mt, torch):
        with pytest.raises(TypeError, match="The ambiguity_check argument must be a bool or a "
                                            "list of memory formats."):
            T.zeros(2, 3).dim_order(ambiguity_check="x")
        with pytest.raises(TypeError, match="must be a bool or a list"):
            T.zeros(2, 3).dim_order(ambiguity_check=[1])
    assert mt.zeros(()).dim_order() == () and mt.zeros(3).dim_order() == (0,)


@pytest.mark.parametrize("factory", [
    lambda T, layout: T.zeros(2, 3, layout=layout),
    lambda T, layout: T.ones(2, 3, layout=layout),
    lambda T, layout: T.empty(2, 3, layout=layout),
    lambda T, layout: T.full((2, 3), 1.0, layout=layout),
    lambda T, layout: T.rand(2, 3, layout=layout),
    lambda T, layout: T.randn(2, 3, layout=layout),
    lambda T, layout: T.zeros_like(T.zeros(2, 3), layout=layout),
    lambda T, layout: T.empty_like(T.zeros(2, 3), layout=layout),
    lambda T, layout: T.ones_like(T.zeros(2, 3), layout=layout),
    lambda T, layout: T.full_like(T.zeros(2, 3), 1.0, layout=layout),
    lambda T, layout: T.rand_like(T.zeros(2, 3), layout=layout),
    lambda T, layout: T.randn_like(T.zeros(2, 3), layout=layout),
    lambda T, layout: T.randint_like(T.zeros(2, 3), 5, layout=layout),
    lambda T, layout: T.empty_permuted((2, 3), (1, 0), layout=layout),
    lambda T, layout: T.empty_strided((2, 3), (3, 1), layout=layout),
])
def test_layouts_on_factories(factory):
    for T in (mt, torch):
        assert factory(T, T.strided).layout is T.strided
        assert factory(T, None).layout is T.strided
        with pytest.raises(TypeError, match="layout"):
            factory(T, "strided")
    with pytest.raises(TypeError, match="argument 'layout' must be torch.layout, not str"):
        factory(mt, "strided")
    with pytest.raises(RuntimeError, match="sparse tensors are not supported"):
        factory(mt, mt.sparse_coo)
    with pytest.raises(NotImplementedError, match="layout=torch.sparse_csr"):
        factory(mt, mt.sparse_csr)


# -- gradients -----------------------------------------------------------------------

@pytest.mark.parametrize("how,name", [
    (lambda T, x: x.clone(memory_format=T.channels_last), "CloneBackward0"),
    (lambda T, x: x.contiguous(memory_format=T.channels_last), "CloneBackward0"),
    (lambda T, x: T.clone(x.transpose(1, 2)), "CloneBackward0"),
    (lambda T, x: x.to(memory_format=T.channels_last), "ToCopyBackward0"),
    (lambda T, x: x.to(T.float32, memory_format=T.channels_last), "ToCopyBackward0"),
])
def test_copies_in_a_format_keep_their_grad_fn_and_gradient(device, how, name):
    values = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
    x = mt.tensor(values, device=device, requires_grad=True)
    xt = torch.tensor(values, requires_grad=True)
    y, yt = how(mt, x), how(torch, xt)
    assert y.grad_fn.name() == type(yt.grad_fn).__name__ == name
    assert y.stride() == yt.stride()
    weights = np.arange(120.0).reshape(yt.shape)
    (y * mt.tensor(weights, device=device, dtype=y.dtype)).sum().backward()
    (yt * torch.tensor(weights, dtype=yt.dtype)).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), xt.grad.numpy(), rtol=1e-6)


def _cl(T, x):
    return x.contiguous(memory_format=T.channels_last)


# Layers on channels-last inputs (and weights): values and gradients as torch's, gradcheck
IMAGE, WEIGHT = (2, 3, 6, 6), (4, 3, 3, 3)
CASES = [
    Case("clone_channels_last", lambda T, F, x: x.clone(memory_format=T.channels_last) * 2,
         [Arg(IMAGE)]),
    Case("contiguous_channels_last", lambda T, F, x: _cl(T, x).sin(), [Arg(IMAGE)]),
    Case("to_channels_last", lambda T, F, x: x.to(memory_format=T.channels_last).exp(),
         [Arg(IMAGE)]),
    Case("conv2d_channels_last", lambda T, F, x, w, b: F.conv2d(_cl(T, x), _cl(T, w), b,
                                                                padding=1),
         [Arg(IMAGE), Arg(WEIGHT), Arg((4,))]),
    Case("conv2d_strided_channels_last", lambda T, F, x, w: F.conv2d(_cl(T, x), w, stride=2),
         [Arg(IMAGE), Arg(WEIGHT)]),
    Case("max_pool2d_channels_last", lambda T, F, x: F.max_pool2d(_cl(T, x), 2),
         [Arg(IMAGE, "distinct")]),
    Case("avg_pool2d_channels_last", lambda T, F, x: F.avg_pool2d(_cl(T, x), 3, stride=2,
                                                                  padding=1),
         [Arg(IMAGE)]),
    Case("adaptive_avg_pool2d_channels_last",
         lambda T, F, x: F.adaptive_avg_pool2d(_cl(T, x), (2, 3)), [Arg(IMAGE)]),
    Case("batch_norm_channels_last",
         lambda T, F, x, w, b: F.batch_norm(_cl(T, x), None, None, w, b, training=True),
         [Arg(IMAGE), Arg((3,)), Arg((3,))]),
    Case("linear_on_flattened_channels_last",
         lambda T, F, x, w: F.linear(_cl(T, x).flatten(1), w), [Arg(IMAGE), Arg((5, 108))]),
    Case("cross_entropy_channels_last",
         lambda T, F, x, t: F.cross_entropy(_cl(T, x), t),
         [Arg(IMAGE), Arg((2, 6, 6), "int:3")]),
    Case("mse_loss_channels_last", lambda T, F, x, y: F.mse_loss(_cl(T, x), y),
         [Arg(IMAGE), Arg(IMAGE)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_a_channels_last_model_trains_as_torch(device):
    """A conv net moved with ``Module.to(memory_format=channels_last)``: its 4-D weights
    are channels-last (the same Parameters), and one step's gradients are torch's."""
    rng = np.random.default_rng(0)
    x_values = rng.standard_normal((2, 3, 8, 8))
    target = rng.integers(0, 5, 2)
    nets = []
    for T in (mt, torch):
        T.manual_seed(0)
        net = T.nn.Sequential(T.nn.Conv2d(3, 4, 3), T.nn.BatchNorm2d(4), T.nn.ReLU(),
                              T.nn.MaxPool2d(2), T.nn.Flatten(), T.nn.Linear(36, 5)).double()
        nets.append(net)
    ours, theirs = nets
    theirs.load_state_dict({k: torch.tensor(v.detach().numpy())
                            for k, v in ours.state_dict().items()})
    ours.to(device)
    weight = ours[0].weight
    assert ours.to(memory_format=mt.channels_last) is ours
    theirs.to(memory_format=torch.channels_last)
    assert ours[0].weight is weight and weight.stride() == theirs[0].weight.stride()
    assert ours[-1].weight.stride() == theirs[-1].weight.stride() == (36, 1)
    losses = []
    for T, net in ((mt, ours), (torch, theirs)):
        x = T.tensor(x_values, device=device if T is mt else "cpu").to(
            memory_format=T.channels_last)
        t = T.tensor(target, device=device if T is mt else "cpu")
        loss = T.nn.functional.cross_entropy(net(x), t)
        loss.backward()
        losses.append(loss.item())
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-10)
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy(), rtol=1e-8,
                                   atol=1e-12, err_msg=name)


def test_module_to_checks_the_memory_format():
    for T in (mt, torch):
        with pytest.raises(TypeError):
            T.nn.Linear(2, 3).to(memory_format="channels_last")
        conv3d = T.nn.Conv3d(2, 3, 1)  # its 5-D weight
        with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
            conv3d.to(memory_format=T.channels_last)
        assert conv3d.to(memory_format=T.channels_last_3d).weight.is_contiguous(
            memory_format=T.channels_last_3d)


# -- meta -----------------------------------------------------------------------------

def test_meta_tensors_made_in_a_format_report_its_strides():
    x = mt.empty(2, 3, 4, 5, device="meta")
    want = torch.empty(2, 3, 4, 5, device="meta")
    for ours, theirs in (
            (x.contiguous(memory_format=mt.channels_last),
             want.contiguous(memory_format=torch.channels_last)),
            (x.to(memory_format=mt.channels_last), want.to(memory_format=torch.channels_last)),
            (mt.empty_like(x, memory_format=mt.channels_last),
             torch.empty_like(want, memory_format=torch.channels_last)),
            (mt.empty_permuted((2, 3), (1, 0), device="meta"),
             torch.empty_permuted((2, 3), (1, 0), device="meta")),
            (mt.empty_strided((2, 3), (1, 2), device="meta"),
             torch.empty_strided((2, 3), (1, 2), device="meta"))):
        assert ours.is_meta and ours.stride() == theirs.stride()
        assert ours.is_contiguous() == theirs.is_contiguous() is False
        assert ours.dim_order() == theirs.dim_order()
    cl = x.contiguous(memory_format=mt.channels_last)
    assert cl.is_contiguous(memory_format=mt.channels_last)
    assert mt.empty_like(cl).stride() == (60, 1, 15, 3)  # preserve_format keeps them
    assert cl.clone().stride() == (60, 1, 15, 3)
    assert cl.contiguous().stride() == (60, 20, 5, 1)


def test_meta_module_to_channels_last():
    with mt.device("meta"):
        conv = mt.nn.Conv2d(3, 4, 3)
    conv.to(memory_format=mt.channels_last)
    assert conv.weight.is_meta and conv.weight.stride() == (27, 1, 9, 3)


GRAD_LAYOUT_LEAVES = {
    "channels_last": lambda lib: lib.randn(2, 3, 4, 5).to(memory_format=lib.channels_last),
    "transposed": lambda lib: lib.randn(3, 4).t(),
    "strided, not dense": lambda lib: lib.randn(3, 4)[:, ::2],
    "contiguous": lambda lib: lib.randn(3, 4),
}


@pytest.mark.parametrize("make", GRAD_LAYOUT_LEAVES.values(), ids=GRAD_LAYOUT_LEAVES)
def test_a_leafs_grad_is_laid_out_as_pytorchs(make, torch_ref):
    """PyTorch's layout contract: a new .grad takes its leaf's dense strides, and later
    backwards (added in place there) keep them."""
    strides = {}
    for lib in (mt, torch_ref):
        leaf = make(lib).detach().requires_grad_()
        (leaf * 2).sum().backward()
        first = leaf.grad.stride()
        (leaf * 3).sum().backward()
        strides[lib] = (first, leaf.grad.stride(), leaf.grad.tolist())
    assert strides[mt] == strides[torch_ref]


def test_a_channels_last_conv_weight_gets_a_channels_last_grad(device):
    conv = mt.nn.Conv2d(3, 4, 3).to(device=device, memory_format=mt.channels_last)
    conv(mt.randn(2, 3, 6, 6, device=device)).sum().backward()
    assert conv.weight.grad.is_contiguous(memory_format=mt.channels_last)
    assert conv.weight.grad.stride() == conv.weight.stride() == (27, 1, 9, 3)


def test_grad_layout_on_meta():
    leaf = mt.randn(2, 3, 4, 5, device="meta").to(memory_format=mt.channels_last)
    leaf.requires_grad_()
    (leaf * 2).sum().backward()
    assert leaf.grad.stride() == (60, 1, 15, 3)

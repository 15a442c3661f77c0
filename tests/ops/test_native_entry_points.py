"""torch.embedding_bag, ctc_loss, grid_sampler, grid_sampler_2d, affine_grid_generator and
norm_except_dim: PyTorch's native entry points of nn.functional ops, with int mode codes,
positional arguments and (embedding_bag) four outputs (grid_sampler_3d:
tests/nn/test_grid_sample_3d.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests

INDICES = [1, 2, 4, 4, 3, 0]
OFFSETS = [0, 2, 2, 5]


def _bag(mode, padding=None, last=False, weights=False):
    def call(T, F, w, *psw):
        i = T.tensor(INDICES).to(w.device)
        o = T.tensor(OFFSETS + ([6] if last else [])).to(w.device)
        extra = psw[0] if psw else None
        return T.embedding_bag(w, i, o, False, mode, False, extra, last, padding)
    return Case(f"embedding_bag_mode{mode}_pad{padding}_last{last}_w{weights}", call,
                [Arg((5, 3), "distinct")] + ([Arg((6,))] if weights else []))


def _ctc(reduction, zero_infinity=False, tensors=False):
    def call(T, F, x):
        lp = x.log_softmax(2)
        targets = T.tensor([[1, 2], [3, 3]]).to(x.device)
        lengths = ([6, 3], [2, 2])  # the second sample's 3 frames cannot fit 3, blank, 3
        if tensors:
            lengths = tuple(T.tensor(v) for v in lengths)
        return T.ctc_loss(lp, targets, *lengths, 0, reduction, zero_infinity)
    return Case(f"ctc_loss_reduction{reduction}_zi{zero_infinity}_t{tensors}", call,
                [Arg((6, 2, 4))], atol=1e-4)


def _sampler(fn, interpolation, padding, align):
    return Case(f"{fn}_{interpolation}_{padding}_{align}",
                lambda T, F, x, g: getattr(T, fn)(x, g * 1.2, interpolation, padding, align),
                [Arg((2, 3, 4, 5)), Arg((2, 3, 2, 2), "away0")], atol=1e-4)


def _norm(p, d, shape=(3, 4, 5)):
    return Case(f"norm_except_dim_{p}_{d}_{len(shape)}d",
                lambda T, F, v: T.norm_except_dim(v, p, d), [Arg(shape, "away0")])


CASES = [
    *(_bag(mode) for mode in (0, 1, 2)),
    *(_bag(mode, padding=4) for mode in (0, 1, 2)),
    *(_bag(mode, last=True) for mode in (0, 1, 2)),
    _bag(0, padding=-1, weights=True),
    *(_ctc(r) for r in (0, 1, 2, 3)),
    _ctc(1, zero_infinity=True),
    _ctc(2, tensors=True),
    _ctc(0, zero_infinity=True, tensors=True),
    *(_sampler("grid_sampler", i, p, a) for i in (0, 2) for p in (0, 1, 2)
      for a in (False, True)),
    _sampler("grid_sampler_2d", 0, 0, False),
    _sampler("grid_sampler_2d", 2, 2, True),
    Case("affine_grid_generator_2d",
         lambda T, F, t: T.affine_grid_generator(t, [2, 1, 3, 4], False), [Arg((2, 2, 3))]),
    Case("affine_grid_generator_3d_align",
         lambda T, F, t: T.affine_grid_generator(t, (2, 1, 2, 3, 4), True), [Arg((2, 3, 4))]),
    *(_norm(p, d) for p in (2, 1, 3) for d in (0, 1, 2, -1, -2, -3)),
    _norm(2, 0, (4,)),
    # (a 0-d input would reach the harness as a NumPy scalar, not an array)
    Case("norm_except_dim_0d", lambda T, F, v: T.norm_except_dim(v.reshape(()), 2, -1),
         [Arg((1,), "away0")]),
]

# nearest sampling is piecewise constant: its gradcheck and comparisons are in CASES' grid
# modes 0 and 2 only; test_grid_sampler_nearest checks mode 1 on its own.
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


# -- embedding_bag's four outputs --------------------------------------------------------------
BOOKKEEPING = [(INDICES, OFFSETS), (INDICES, OFFSETS[:-1] + [6]), ([0, 0, 0], [0, 0]),
               ([3, 1], [0, 1, 2]), ([], [0, 0])]


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding", [None, 4, 0])
@pytest.mark.parametrize("last", [False, True])
@pytest.mark.parametrize("indices, offsets", BOOKKEEPING)
def test_embedding_bag_outputs_match_torch(torch_ref, device, mode, padding, last, indices,
                                           offsets):
    data = np.random.default_rng(0).permutation(15).reshape(5, 3).astype(np.float32)
    # ties between rows in one column (rows 1 and 2 equal): the first position wins
    data[2, 0] = data[1, 0]
    if last:  # the last offset closes the last bag (indices after it: docs/differences.md)
        offsets = offsets + [len(indices)]
    ours = mt.embedding_bag(mt.tensor(data, device=device),
                            mt.tensor(indices, dtype=mt.int64, device=device),
                            mt.tensor(offsets, device=device), False, mode, False, None, last,
                            padding)
    # (PyTorch's kernel without a graph gives sum mode's zeros one more element with
    # include_last_offset: the gradient-recording kernel is the reference)
    ref = torch_ref.embedding_bag(torch_ref.tensor(data, requires_grad=True),
                                  torch_ref.tensor(indices, dtype=torch_ref.int64),
                                  torch_ref.tensor(offsets), False, mode, False, None, last,
                                  padding)
    assert len(ours) == 4
    for k, (o, r) in enumerate(zip(ours, ref)):
        assert o.device == tensor_device(device)
        assert str(o.dtype) == str(r.dtype), k
        np.testing.assert_array_equal(o.detach().cpu().numpy(), r.detach().numpy(),
                                      err_msg=f"output {k}")
        assert not o.requires_grad if k else True


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag_outputs_on_meta(mode):
    w = mt.empty(5, 3, device="meta", requires_grad=True)
    out = mt.embedding_bag(w, mt.empty(6, dtype=mt.int64, device="meta"),
                           mt.empty(4, dtype=mt.int64, device="meta"), False, mode)
    shapes = [tuple(t.shape) for t in out]
    assert shapes == [(4, 3), ((6,) if mode else (0,)), (4,), ((4, 3) if mode == 2 else (4,))]
    assert all(t.is_meta for t in out) and out[0].grad_fn.name() == "EmbeddingBagBackward0"
    assert [t.dtype for t in out[1:]] == [mt.int64] * 3


def test_embedding_bag_int32_indices_and_defaults(torch_ref):
    w = np.arange(15.0, dtype=np.float32).reshape(5, 3)
    ours = mt.embedding_bag(mt.tensor(w), mt.tensor(INDICES, dtype=mt.int32),
                            mt.tensor(OFFSETS, dtype=mt.int32))
    ref = torch_ref.embedding_bag(torch_ref.tensor(w), torch_ref.tensor(INDICES).int(),
                                  torch_ref.tensor(OFFSETS).int())
    for o, r in zip(ours, ref):
        np.testing.assert_array_equal(o.numpy(), r.numpy())


def _args(T):
    return (T.randn(5, 3), T.tensor(INDICES), T.tensor(OFFSETS))


@pytest.mark.parametrize("call, error, message", [
    (lambda T, w, i, o: T.embedding_bag(w, i, o, False, 3), RuntimeError,
     "`mode` must be sum, mean, or max."),
    (lambda T, w, i, o: T.embedding_bag(w, i, o, False, -1), RuntimeError,
     "`mode` must be sum, mean, or max."),
    (lambda T, w, i, o: T.embedding_bag(w, i, o, False, "sum"), TypeError,
     "embedding_bag(): argument 'mode' (position 5) must be int, not str"),
    (lambda T, w, i, o: T.embedding_bag(w, i, o, False, 1, False, T.ones(6)), RuntimeError,
     "embedding_bag: per_sample_weights only supported with mode='sum'"),
    (lambda T, w, i, o: T.embedding_bag(w, i, o.view(2, 2)), RuntimeError,
     "offsets has to be a 1D Tensor, but got Tensor of dimension 2"),
    (lambda T, w, i, o: T.embedding_bag(w, i, o, False, 1, False, None, False, 7),
     RuntimeError, "padding_idx must be within the number of embeddings, -5 through 4, but "
                   "got 7"),
    (lambda T, w, i, o: T.embedding_bag(w, i.float(), o), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
     "Long, Int; but got torch.FloatTensor instead (while checking arguments for "
     "embedding_bag)"),
])
def test_embedding_bag_errors_as_torch(torch_ref, call, error, message):
    for library in (mt, torch_ref):
        with pytest.raises(error) as info:
            call(library, *_args(library))
        assert str(info.value) == message


def test_embedding_bag_refuses_2d_indices_and_sparse():
    w, i, o = _args(mt)
    with pytest.raises(RuntimeError, match="expected 1-D indices with 1-D offsets, but got "
                                           "indices of dimension 2"):
        mt.embedding_bag(w, i.view(2, 3), mt.tensor([0, 1]))
    with pytest.raises(NotImplementedError, match="sparse=True is not supported"):
        mt.embedding_bag(w, i, o, sparse=True)


# -- ctc_loss ---------------------------------------------------------------------------------
def test_ctc_loss_unbatched_and_grad_fn_names(torch_ref):
    data = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    x, tx = mt.tensor(data).log_softmax(1), torch_ref.tensor(data).log_softmax(1)
    for reduction in (0, 1, 2):
        ours = mt.ctc_loss(x, mt.tensor([1, 2]), [6], [2], 0, reduction)
        ref = torch_ref.ctc_loss(tx, torch_ref.tensor([1, 2]), [6], [2], 0, reduction)
        np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-5)
        assert ours.shape == ref.shape
    y = mt.tensor(data[:, None], requires_grad=True)
    assert mt.ctc_loss(y, mt.tensor([[1, 2]]), [6], [2]).grad_fn.name() == "MeanBackward0"
    assert mt.ctc_loss(y, mt.tensor([[1, 2]]), [6], [2], 0, 2).grad_fn.name() == "SumBackward0"


@pytest.mark.parametrize("kwargs, message", [
    ({"reduction": "mean"}, "ctc_loss(): argument 'reduction' (position 6) must be int, "
                            "not str"),
    ({"blank": 0.0}, "ctc_loss(): argument 'blank' (position 5) must be int, not float"),
    ({"zero_infinity": 1}, "ctc_loss(): argument 'zero_infinity' (position 7) must be bool, "
                           "not int"),
])
def test_ctc_loss_argument_types(kwargs, message):
    x = mt.randn(6, 1, 4).log_softmax(2)
    with pytest.raises(TypeError) as info:
        mt.ctc_loss(x, mt.tensor([[1, 2]]), [6], [2], **kwargs)
    assert str(info.value) == message


def test_ctc_loss_mixed_length_kinds_are_a_type_error(torch_ref):
    x = mt.randn(6, 1, 4).log_softmax(2)
    with pytest.raises(TypeError, match="must both be tensors or both be tuples"):
        mt.ctc_loss(x, mt.tensor([[1, 2]]), [6], mt.tensor([2]))
    with pytest.raises(TypeError):
        torch_ref.ctc_loss(torch_ref.randn(6, 1, 4), torch_ref.tensor([[1, 2]]), [6],
                           torch_ref.tensor([2]))


# -- grid samplers and affine_grid_generator -------------------------------------------------
@pytest.mark.parametrize("fn", ["grid_sampler", "grid_sampler_2d"])
@pytest.mark.parametrize("padding", [0, 1, 2])
def test_grid_sampler_nearest(torch_ref, device, fn, padding):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    g = (rng.uniform(-1.3, 1.3, (2, 3, 2, 2))).astype(np.float32)
    ours = getattr(mt, fn)(mt.tensor(x, device=device, requires_grad=True),
                           mt.tensor(g, device=device), 1, padding, False)
    ref = getattr(torch_ref, fn)(torch_ref.tensor(x), torch_ref.tensor(g), 1, padding, False)
    np.testing.assert_allclose(ours.detach().cpu().numpy(), ref.numpy(), rtol=1e-6)
    assert ours.grad_fn.name() == "GridSampler2DBackward0"


@pytest.mark.parametrize("call, error, message", [
    (lambda x, g: mt.grid_sampler(x, g, 3, 0, False), RuntimeError,
     "grid_sampler(): expected interpolation_mode to be one of 0 (bilinear), 1 (nearest), "
     "2 (bicubic), but got 3"),
    (lambda x, g: mt.grid_sampler_2d(x, g, 0, -1, False), RuntimeError,
     "grid_sampler_2d(): expected padding_mode to be one of 0 (zeros), 1 (border), "
     "2 (reflection), but got -1"),
    (lambda x, g: mt.grid_sampler(x, g, "bilinear", 0, False), TypeError,
     "grid_sampler(): argument 'interpolation_mode' (position 3) must be int, not str"),
    (lambda x, g: mt.grid_sampler(x, g, 0, 0, None), TypeError,
     "grid_sampler(): argument 'align_corners' (position 5) must be bool, not NoneType"),
    (lambda x, g: mt.grid_sampler_2d(x.unsqueeze(2), g.unsqueeze(1), 0, 0, False),
     RuntimeError, "grid_sampler(): expected grid to have size 3 in last dimension, but got "
                   "grid with sizes [1, 1, 2, 2, 2]"),
    (lambda x, g: mt.grid_sampler_2d(x, g.unsqueeze(1), 0, 0, False),
     RuntimeError, "grid_sampler(): expected 4D input and grid with same number of "
                   "dimensions, but got input with sizes [1, 2, 3, 4] and grid with sizes "
                   "[1, 1, 2, 2, 2]"),
    (lambda x, g: mt.grid_sampler(x[0], g[0], 0, 0, False), RuntimeError,
     "grid_sampler(): expected grid to have size 1 in last dimension, but got grid with "
     "sizes [2, 2, 2]"),
])
def test_grid_sampler_errors(call, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt.ones(1, 2, 3, 4, device=device), mt.zeros(1, 2, 2, 2, device=device))
        assert str(info.value) == message


@pytest.mark.parametrize("call, error, message", [
    (lambda t: mt.affine_grid_generator(t, [2, 1, 3, 4], None), TypeError,
     "affine_grid_generator(): argument 'align_corners' (position 3) must be bool, not "
     "NoneType"),
    (lambda t: mt.affine_grid_generator(t, [2, 1, 3], False), RuntimeError,
     "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs."),
    (lambda t: mt.affine_grid_generator(t, [2, 1, 3, 4, 5], False), RuntimeError,
     "affine_grid_generator: expected theta of shape (2, 3, 4) for size [2, 1, 3, 4, 5], but "
     "got (2, 2, 3)"),
    (lambda t: mt.affine_grid_generator(t, 4, False), TypeError,
     "affine_grid_generator(): argument 'size' (position 2) must be tuple of ints, not int"),
])
def test_affine_grid_generator_errors(call, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt.zeros(2, 2, 3, device=device))
        assert str(info.value) == message


def test_affine_grid_generator_unit_size_does_not_warn(torch_ref):
    theta = np.eye(2, 3, dtype=np.float32)[None]
    ours = mt.affine_grid_generator(mt.tensor(theta), [1, 1, 1, 4], True)
    ref = torch_ref.affine_grid_generator(torch_ref.tensor(theta), [1, 1, 1, 4], True)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), atol=1e-6)


# -- norm_except_dim --------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0, -1])
def test_norm_except_dim_other_orders(torch_ref, device, p):
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    data[0, 1] = 0
    ours = mt.norm_except_dim(mt.tensor(data, device=device), p, 1)
    ref = torch_ref.norm_except_dim(torch_ref.tensor(data), p, 1)
    np.testing.assert_allclose(ours.cpu().numpy(), ref.numpy(), rtol=1e-5)
    assert ours.device == tensor_device(device)


@pytest.mark.parametrize("call, error, message", [
    (lambda T, v: T.norm_except_dim(v, 2.5, 0), TypeError,
     "norm_except_dim(): argument 'pow' (position 2) must be int, not float"),
    (lambda T, v: T.norm_except_dim(v, 2, 3), IndexError,
     "transpose: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda T, v: T.norm_except_dim(v, 2, -4), IndexError,
     "transpose: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda T, v: T.norm_except_dim(v.sum(), 2, 0), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
])
def test_norm_except_dim_errors(torch_ref, call, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt, mt.ones(3, 4, 5, device=device))
        assert str(info.value) == message
    with pytest.raises(error) as info:
        call(torch_ref, torch_ref.ones(3, 4, 5))
    assert message.endswith(str(info.value))  # ours names the op that refused the dim


def test_embedding_bag_indices_after_the_last_offset(torch_ref):
    # offset2bag and bag_size count them in the last bag, as PyTorch's; the output leaves
    # them out (PyTorch's float32 kernel too; docs/differences.md)
    w = np.arange(15.0, dtype=np.float32).reshape(5, 3)
    ours = mt.embedding_bag(mt.tensor(w), mt.tensor(INDICES), mt.tensor(OFFSETS), False, 1,
                            False, None, True)
    ref = torch_ref.embedding_bag(torch_ref.tensor(w, requires_grad=True),
                                  torch_ref.tensor(INDICES), torch_ref.tensor(OFFSETS), False,
                                  1, False, None, True)
    for k in (1, 2, 3):
        np.testing.assert_array_equal(ours[k].numpy(), ref[k].numpy())
    np.testing.assert_array_equal(ours[0].numpy()[2], w[[4, 4, 3]].mean(0))

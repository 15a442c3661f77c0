"""F.linear_cross_entropy (the reference and the chunked path), LinearCrossEntropyOptions and
nn.LinearCrossEntropyLoss: values, gradients and grad_fn names against PyTorch, gradcheck,
meta shapes, PyTorch's errors and warnings, and the chunking itself."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.nn.linear_cross_entropy_options import LinearCrossEntropyOptions
from minitorch_meta.ops import function as function_module
from tests.ops.harness import Arg, Case, three_way_tests

N, F_, C = 5, 3, 4


def _chunks(T, size=2):
    return T.nn.LinearCrossEntropyOptions(batch_chunk_size=size)


def _lce(**kw):
    return lambda T, F, x, w, t: F.linear_cross_entropy(x, w, t, **kw)


def _lce_chunked(size=2, **kw):
    return lambda T, F, x, w, t: F.linear_cross_entropy(x, w, t, options=_chunks(T, size),
                                                        **kw)


def _lce_bias(chunk=None, **kw):
    def call(T, F, x, w, t, b):
        options = None if chunk is None else _chunks(T, chunk)
        return F.linear_cross_entropy(x, w, t, linear_bias=b, options=options, **kw)
    return call


X, W, T_ = Arg((N, F_)), Arg((C, F_)), Arg((N,), f"int:{C}")
CASES = [
    Case("reference_mean", _lce(), [X, W, T_]),
    Case("reference_sum_bias", _lce_bias(reduction="sum"), [X, W, T_, Arg((C,))]),
    Case("reference_none", _lce(reduction="none"), [X, W, T_]),
    Case("reference_ignore_index", _lce(ignore_index=1), [X, W, T_]),
    Case("reference_label_smoothing", _lce(label_smoothing=0.2), [X, W, T_]),
    Case("reference_probabilities", _lce(), [X, W, Arg((N, C), "prob", grad=False)]),
    Case("reference_unbatched", _lce(reduction="none"), [Arg((F_,)), W, Arg((), f"int:{C}")]),
    Case("reference_k_dimensional", _lce_bias(), [X, Arg((C, 2, F_)), Arg((N, 2), f"int:{C}"),
                                                  Arg((C, 2))]),
    Case("reference_k_dimensional_none", _lce(reduction="none", ignore_index=0),
         [X, Arg((C, 2, 3, F_)), Arg((N, 2, 3), f"int:{C}")]),
    Case("chunked_mean", _lce_chunked(), [X, W, T_]),
    Case("chunked_sum_bias", _lce_bias(chunk=2, reduction="sum"), [X, W, T_, Arg((C,))]),
    Case("chunked_none_bias", _lce_bias(chunk=3, reduction="none"), [X, W, T_, Arg((C,))]),
    Case("chunked_ignore_index", _lce_chunked(ignore_index=2), [X, W, T_]),
    Case("chunked_one_chunk", _lce_chunked(size=64), [X, W, T_]),
    Case("chunked_rows_of_one", _lce_chunked(size=1, reduction="none"), [X, W, T_]),
    Case("chunked_auto", lambda T, F, x, w, t: F.linear_cross_entropy(
        x, w, t, options=T.nn.LinearCrossEntropyOptions()), [Arg((9, 2)), Arg((7, 2)),
                                                             Arg((9,), "int:7")]),
    Case("chunked_unbatched", _lce_chunked(reduction="none"),
         [Arg((F_,)), W, Arg((), f"int:{C}")]),
    Case("chunked_weight_only", _lce_chunked(),
         [Arg((N, F_), grad=False), W, T_]),
    Case("chunked_input_only", _lce_chunked(reduction="sum"),
         [X, Arg((C, F_), grad=False), T_]),
    Case("chunked_empty_batch_sum", _lce_chunked(reduction="sum"),
         [Arg((0, F_)), W, Arg((0,), f"int:{C}")]),
]

# our cross_entropy takes (N, C) logits with class indices: the other shapes go through it
# as rows (a reshape last, ViewBackward0; PyTorch's last node is its K-dim NllLoss2d)
RESHAPED_ROWS = ("reference_unbatched", "reference_k_dimensional",
                 "reference_k_dimensional_none")
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=RESHAPED_ROWS)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


def test_the_chunked_path_never_makes_the_whole_logits():
    """The largest product an op makes is one chunk's (rows, C) logits, never (N, C)."""
    sizes = []

    def watch(function, inputs, outputs):
        for out in outputs if isinstance(outputs, tuple) else (outputs,):
            sizes.append(out.numel())
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal((64, 8)), requires_grad=True)
    w = mt.tensor(rng.standard_normal((50, 8)), requires_grad=True)
    t = mt.tensor(rng.integers(0, 50, 64))
    loss = mt.nn.functional.linear_cross_entropy(
        x, w, t, options=LinearCrossEntropyOptions(batch_chunk_size=8))
    loss.backward()
    with function_module.observe(watch):
        mt.nn.functional.linear_cross_entropy(x, w, t)
    assert max(sizes) == 64 * 50  # the reference path makes them
    from minitorch_meta.ops.linear_cross_entropy import LinearCrossEntropyChunks
    seen = []
    original = LinearCrossEntropyChunks._logits

    def logits(self, backend, rows):
        out = original(self, backend, rows)
        seen.append(out.shape)
        return out
    LinearCrossEntropyChunks._logits = logits
    try:
        mt.nn.functional.linear_cross_entropy(
            x, w, t, options=LinearCrossEntropyOptions(batch_chunk_size=8)).backward()
    finally:
        LinearCrossEntropyChunks._logits = original
    assert seen == [(8, 50)] * 16  # 8 chunks forward, 8 again in backward


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_chunked_equals_reference_at_every_chunk_size(reduction, dtype, device):
    rng = np.random.default_rng(3)
    data = {"x": rng.standard_normal((7, 3)), "w": rng.standard_normal((6, 3)),
            "b": rng.standard_normal(6)}
    target = rng.integers(0, 6, 7)
    target[2] = -100
    results = []
    for size in (None, 1, 3, 7, 100):
        x, w, b = (mt.tensor(v, dtype=getattr(mt, dtype), device=device, requires_grad=True)
                   for v in data.values())
        options = None if size is None else LinearCrossEntropyOptions(batch_chunk_size=size)
        loss = mt.nn.functional.linear_cross_entropy(
            x, w, mt.tensor(target, device=device), linear_bias=b, reduction=reduction,
            options=options)
        loss.sum().backward()
        results.append([loss.detach().cpu().numpy()] + [p.grad.cpu().numpy() for p in (x, w, b)])
    for other in results[1:]:
        for a, e in zip(other, results[0]):
            np.testing.assert_allclose(a, e, rtol=1e-5 if dtype == "float32" else 1e-12,
                                       atol=1e-6 if dtype == "float32" else 1e-13)


def test_chunked_mean_of_only_ignored_rows_is_nan_like_torch():
    torch = _torch()
    for lib in (mt, torch):
        x, w = lib.ones(2, 3, requires_grad=True), lib.ones(4, 3, requires_grad=True)
        loss = lib.nn.functional.linear_cross_entropy(
            x, w, lib.tensor([-100, -100]), options=lib.nn.LinearCrossEntropyOptions())
        assert np.isnan(loss.item())


def test_options_defaults_fields_and_chunk_sizes_are_torchs():
    torch = _torch()
    ours, theirs = LinearCrossEntropyOptions(), torch.nn.LinearCrossEntropyOptions()
    assert repr(ours) == repr(theirs)
    assert mt.nn.LinearCrossEntropyOptions is LinearCrossEntropyOptions
    for kw in ({}, {"chunking_method": "aspect_ratio"}, {"chunking_method": "aspect_ratio:4"},
               {"batch_chunk_size": 3}, {"chunking_method": None},
               {"chunking_method": None, "batch_chunk_size": 50}):
        for n, f, c in ((10, 4, 7), (100, 8, 1000), (1, 5, 3), (33, 2, 2), (64, 16, 256)):
            for dtype in ("float32", "float16"):
                expected = torch.nn.LinearCrossEntropyOptions(**kw)._adjust(
                    n, f, c, getattr(torch, dtype), torch.device("cpu")).batch_chunk_size
                assert LinearCrossEntropyOptions(**kw).chunk_size(
                    n, f, c, getattr(mt, dtype), "cpu") == expected, (kw, n, f, c, dtype)
    with pytest.raises(AttributeError):
        ours.batch_chunk_size = 3  # frozen, as PyTorch's dataclass


@pytest.mark.parametrize("kw", [{"acc_policy": "fast"}, {"chunking_method": "square"},
                                {"chunking_method": "aspect_ratio:0"},
                                {"batch_chunk_size": 0}, {"batch_chunk_size": 2.0},
                                {"acc_dtype": "int64"}], ids=str)
def test_invalid_options_raise_torchs_value_error(kw):
    torch = _torch()
    theirs_kw = dict(kw)
    if "acc_dtype" in kw:
        kw, theirs_kw = {"acc_dtype": mt.int64}, {"acc_dtype": torch.int64}
    with pytest.raises(ValueError) as theirs:
        torch.nn.LinearCrossEntropyOptions(**theirs_kw)
    with pytest.raises(ValueError) as ours:
        LinearCrossEntropyOptions(**kw)
    assert str(ours.value).replace("minitorch_meta", "torch") == str(theirs.value)


def test_disagreeing_chunk_size_and_method_raise_torchs_error():
    torch = _torch()
    call = {"batch_chunk_size": 3, "chunking_method": "aspect_ratio"}
    with pytest.raises(ValueError) as theirs:
        torch.nn.functional.linear_cross_entropy(
            torch.ones(8, 2), torch.ones(5, 2), torch.zeros(8, dtype=torch.int64),
            options=torch.nn.LinearCrossEntropyOptions(**call))
    with pytest.raises(ValueError) as ours:
        mt.nn.functional.linear_cross_entropy(
            mt.ones(8, 2), mt.ones(5, 2), mt.zeros(8, dtype=mt.int64),
            options=LinearCrossEntropyOptions(**call))
    assert str(ours.value) == str(theirs.value)


SHAPE_ERRORS = [
    ((2, 3, 4), (5, 4), (2,), None),
    ((2, 4), (5,), (2,), None),
    ((2, 4), (5, 3), (2,), None),
    ((2, 4), (5, 4), (2,), (4,)),
    ((4,), (5, 2, 4), (2,), None),
]


@pytest.mark.parametrize("x_shape, w_shape, t_shape, b_shape", SHAPE_ERRORS, ids=str)
def test_shape_errors_are_torchs(x_shape, w_shape, t_shape, b_shape):
    torch = _torch()
    messages = []
    for lib in (torch, mt):
        bias = None if b_shape is None else lib.ones(b_shape)
        with pytest.raises(RuntimeError) as info:
            lib.nn.functional.linear_cross_entropy(lib.ones(x_shape), lib.ones(w_shape),
                                                   lib.zeros(t_shape, dtype=lib.int64),
                                                   linear_bias=bias)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_ignore_index_with_probabilities_is_refused_like_torch():
    torch = _torch()
    messages = []
    for lib in (torch, mt):
        with pytest.raises(RuntimeError) as info:
            lib.nn.functional.linear_cross_entropy(lib.ones(2, 3), lib.ones(4, 3),
                                                   lib.ones(2, 4) / 4, ignore_index=1)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_chunked_target_errors():
    x, w = mt.ones(3, 2), mt.ones(4, 2)
    options = LinearCrossEntropyOptions()
    with pytest.raises(IndexError, match=r"target 4 is out of bounds: class indices must be "
                                         r"in \[0, 4\)"):
        mt.nn.functional.linear_cross_entropy(x, w, mt.tensor([0, 4, 1]), options=options)
    with pytest.raises(ValueError, match="expected target of shape \\(3,\\)"):
        mt.nn.functional.linear_cross_entropy(x, w, mt.tensor([[0, 1, 1]]), options=options)
    with pytest.raises(TypeError, match="one dtype, got torch.float32, torch.float64"):
        mt.nn.functional.linear_cross_entropy(x, w.double(), mt.tensor([0, 1, 1]),
                                              options=options)
    # as PyTorch: an unknown reduction warns that options are ignored, then cross_entropy
    # refuses it
    with pytest.warns(UserWarning, match="options`` ignored"), \
            pytest.raises(ValueError, match="reduction must be one of"):
        mt.nn.functional.linear_cross_entropy(x, w, mt.tensor([0, 1, 1]), reduction="avg",
                                              options=options)


@pytest.mark.parametrize("kw", [{"label_smoothing": 0.1}, {"reduction": "none"}], ids=str)
def test_unsupported_chunked_calls_warn_and_take_the_reference_path(kw):
    torch = _torch()
    rng = np.random.default_rng(0)
    data = rng.standard_normal((3, 2, 2)), rng.standard_normal((4, 2))
    results = []
    for lib in (torch, mt):
        x, w = (lib.tensor(a) for a in data)
        if "reduction" in kw:  # K-dimensional weight: PyTorch's chunked path takes none
            target = lib.tensor(rng.integers(0, 4, (3, 2)) * 0)
            w = lib.tensor(np.stack([data[1]] * 2, axis=1))
            x = x[:, 0]
        else:
            target = lib.tensor([0, 3, 1])
            x = x[:, 0]
        with pytest.warns(UserWarning) as record:
            out = lib.nn.functional.linear_cross_entropy(
                x, w, target, options=lib.nn.LinearCrossEntropyOptions(), **kw)
        results.append((str(record[0].message), out.numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_class_weights_give_torchs_values_and_gradients(chunked, reduction):
    """With or without options (ours then takes the reference path: same values)."""
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((6, 3)), rng.standard_normal((4, 3))
    target, weight = np.array([0, 3, 1, 1, -100, 2]), np.array([0.5, 2.0, 1.0, 3.0])
    results = []
    for lib in (mt, _torch()):
        xs = lib.tensor(x, requires_grad=True)
        ws = lib.tensor(w, requires_grad=True)
        options = {"options": lib.nn.LinearCrossEntropyOptions()} if chunked else {}
        loss = lib.nn.functional.linear_cross_entropy(
            xs, ws, lib.tensor(target), weight=lib.tensor(weight), reduction=reduction,
            **options)
        loss.sum().backward()
        results.append([loss.detach().numpy(), xs.grad.numpy(), ws.grad.numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_signatures_are_torchs():
    import inspect
    torch = _torch()
    for ours, theirs in ((mt.nn.functional.linear_cross_entropy,
                          torch.nn.functional.linear_cross_entropy),
                         (mt.nn.LinearCrossEntropyLoss.__init__,
                          torch.nn.LinearCrossEntropyLoss.__init__)):
        a, b = (inspect.signature(f).parameters.values() for f in (ours, theirs))
        assert [(p.name, p.kind, p.default) for p in a] == [(p.name, p.kind, p.default)
                                                            for p in b]


@pytest.mark.parametrize("kw", [{}, {"bias": True, "out_features": (2, 3)},
                                {"bias": True, "reduction": "sum", "ignore_index": 1,
                                 "options": "chunks"},
                                {"label_smoothing": 0.3, "reduction": "none"}], ids=str)
def test_module_matches_torch(kw, device):
    torch = _torch()
    results = []
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    target = rng.integers(0, 5, (4, *kw.get("out_features", ())))
    for lib, dev in ((torch, "cpu"), (mt, device)):
        lib_kw = dict(kw)
        if lib_kw.get("options") == "chunks":
            lib_kw["options"] = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=3)
        lib.manual_seed(0)
        module = lib.nn.LinearCrossEntropyLoss(3, 5, device=dev, **lib_kw)
        with lib.no_grad():
            for p in module.parameters():
                p.copy_(lib.tensor(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape)),
                                   dtype=lib.float32, device=dev))
        xi = lib.tensor(x, device=dev, requires_grad=True)
        loss = module(xi, lib.tensor(target, device=dev))
        loss.sum().backward()
        results.append([loss.detach().cpu().numpy(), xi.grad.cpu().numpy()]
                       + [p.grad.cpu().numpy() for p in module.parameters()])
        results[-1].append(repr(module))
    assert results[0][-1] == results[1][-1]
    for a, e in zip(results[1][:-1], results[0][:-1]):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)


def test_module_argument_errors_are_torchs():
    torch = _torch()
    for kw in ({"weight": "w3"}, {"label_smoothing": 1.5}):
        messages = []
        for lib in (torch, mt):
            lib_kw = {k: (lib.ones(3) if v == "w3" else v) for k, v in kw.items()}
            with pytest.raises(RuntimeError) as info:
                lib.nn.LinearCrossEntropyLoss(2, 5, **lib_kw)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


def test_module_state_dict_and_meta():
    module = mt.nn.LinearCrossEntropyLoss(3, 5, bias=True, out_features=(2,))
    assert sorted(module.state_dict()) == ["linear.bias", "linear.weight"]
    assert module.linear.weight.shape == (10, 3)
    meta = mt.nn.LinearCrossEntropyLoss(3, 5, device="meta",
                                        options=LinearCrossEntropyOptions())
    loss = meta(mt.empty(4, 3, device="meta"), mt.empty(4, dtype=mt.int64, device="meta"))
    assert loss.is_meta and loss.shape == ()
    loss.backward()
    assert meta.linear.weight.grad.shape == (5, 3)

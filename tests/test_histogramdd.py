"""torch.histogramdd: counts, weights, density and edges against PyTorch (bins as one count,
a count per dim or edges per dim; range; points outside, on the last edge, NaN), the named
result, meta shapes and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


RNG = np.random.default_rng(0)
POINTS = RNG.standard_normal((60, 3))
GRID = RNG.uniform(0, 1, (5, 4, 2))
GRID[0, 0] = [1.0, 0.0]  # on the last edge of dim 0, the first of dim 1
EDGES = [[-1.0, 0.0, 0.5, 2.0], [-3.0, 3.0], [-1.0, -0.5, 0.0, 0.5, 1.0]]


def _edges(T, dtype, device):
    kwargs = {"device": device} if T is mt else {}
    return [T.tensor(e, dtype=getattr(T, dtype), **kwargs) for e in EDGES]


def _weight(T, x, shape):
    return (T.arange(float(np.prod(shape)), dtype=x.dtype, device=x.device).reshape(shape)
            % 3 + 0.5)


CALLS = {
    "one_count": (POINTS, lambda T, x, e: T.histogramdd(x, 3)),
    "count_per_dim": (POINTS, lambda T, x, e: T.histogramdd(x, [2, 3, 4])),
    "range": (POINTS, lambda T, x, e: T.histogramdd(x, 3, range=[-1, 1, -2.0, 2, 0, 1])),
    "range_positional": (GRID, lambda T, x, e: T.histogramdd(x, [2, 2], [0.0, 1, 0, 1])),
    "edges": (POINTS, lambda T, x, e: T.histogramdd(x, e)),
    "edges_weight_density": (POINTS, lambda T, x, e: T.histogramdd(
        x, e, weight=_weight(T, x, (60,)), density=True)),
    "count_weight_density": (POINTS, lambda T, x, e: T.histogramdd(
        x, (4, 1, 2), weight=_weight(T, x, (60,)), density=True)),
    "edges_density": (POINTS, lambda T, x, e: T.histogramdd(x, tuple(e), density=True)),
    "batched_points": (GRID, lambda T, x, e: T.histogramdd(x, 3)),
    "batched_weight": (GRID, lambda T, x, e: T.histogramdd(x, 2, weight=_weight(T, x, (5, 4)))),
    "one_dim_points": (POINTS[:, :1], lambda T, x, e: T.histogramdd(x, 5)),
    "equal_points": (np.ones((2, 2)), lambda T, x, e: T.histogramdd(x, 2)),
    "no_points": (np.zeros((0, 2)), lambda T, x, e: T.histogramdd(x, 2)),
    "reversed_edges": (POINTS, lambda T, x, e: T.histogramdd(x, [e[0], e[1].flip(0), e[2]])),
}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_torch(name, dtype, device):
    torch = _torch()
    data, call = CALLS[name]
    ours = call(mt, mt.tensor(data, dtype=getattr(mt, dtype), device=device),
                _edges(mt, dtype, device))
    theirs = call(torch, torch.tensor(data, dtype=getattr(torch, dtype)),
                  _edges(torch, dtype, None))
    assert type(ours).__name__ == "histogramdd" and ours._fields == ("hist", "bin_edges")
    assert repr(ours).startswith("torch.return_types.histogramdd(")
    assert isinstance(ours.bin_edges, tuple) and len(ours.bin_edges) == len(theirs.bin_edges)
    for mine, ref in zip((ours.hist,) + ours.bin_edges, (theirs.hist,) + theirs.bin_edges):
        assert str(mine.dtype) == str(ref.dtype) and mine.shape == ref.shape
        assert mine.device == tensor_device(device) and not mine.requires_grad
        np.testing.assert_allclose(mine.cpu().numpy(), ref.numpy(), rtol=1e-6, atol=1e-7)


def test_counts_on_known_points():
    points = mt.tensor([[0.0, 0.0], [1.0, 1.0], [0.5, 0.2], [1.0, 0.0], [2.0, 0.5]])
    hist, edges = mt.histogramdd(points, bins=2, range=[0.0, 1.0, 0.0, 1.0])
    # (2.0, 0.5) is outside dim 0's range; 1.0 lies on the last edge: the last bin
    assert hist.tolist() == [[1.0, 0.0], [2.0, 1.0]]
    assert [e.tolist() for e in edges] == [[0.0, 0.5, 1.0]] * 2


def test_no_coordinates_gives_an_empty_histogram():
    torch = _torch()
    ours, theirs = mt.histogramdd(mt.ones(4, 0), 2), torch.histogramdd(torch.ones(4, 0), 2)
    assert ours.hist.shape == theirs.hist.shape == () and ours.hist.item() == 0.0
    assert ours.bin_edges == () == theirs.bin_edges


def test_a_zero_dim_weight_serves_a_single_point():
    torch = _torch()
    ours = mt.histogramdd(mt.tensor([[0.25]]), 2, weight=mt.tensor(3.0))
    theirs = torch.histogramdd(torch.tensor([[0.25]]), 2, weight=torch.tensor(3.0))
    assert ours.hist.tolist() == theirs.hist.tolist()


def test_meta_gives_the_shapes():
    hist, edges = mt.histogramdd(mt.empty(2**20, 2**10, 3, device="meta"), [4, 5, 6])
    assert hist.is_meta and hist.shape == (4, 5, 6)
    assert [e.shape for e in edges] == [(5,), (6,), (7,)]
    hist, edges = mt.histogramdd(mt.empty(7, 2, device="meta"),
                                 [mt.empty(3, device="meta"), mt.empty(9, device="meta")],
                                 weight=mt.empty(7, device="meta"), density=True)
    assert hist.shape == (2, 8) and [e.shape for e in edges] == [(3,), (9,)]


def test_no_gradient_as_in_torch():
    x = mt.tensor(POINTS, requires_grad=True)
    assert mt.histogramdd(x, 2).hist.grad_fn is None


def _f32(T, shape):
    return T.ones(*shape)


ERRORS = [
    (lambda T: T.histogramdd(T.ones(4), 2), RuntimeError,
     "torch.histogramdd: input tensor should have at least 2 dimensions"),
    (lambda T: T.histogramdd(T.ones(4, 2, dtype=T.int32), 2), NotImplementedError,
     "\"histogramdd\" not implemented for 'Int'"),
    (lambda T: T.histogramdd(T.ones(4, 2, dtype=T.float16), 2), NotImplementedError,
     "\"histogramdd\" not implemented for 'Half'"),
    (lambda T: T.histogramdd(T.rand(4, 2), [2]), RuntimeError,
     "histogramdd: The size of bins must be equal to the innermost dimension of the input."),
    (lambda T: T.histogramdd(T.rand(4, 2), [2, 0]), RuntimeError,
     "torch.histogram(): bins must be > 0, but got 0 for dimension 1"),
    (lambda T: T.histogramdd(T.rand(4, 2), [2, -1]), RuntimeError,
     "torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in "
     "the bins tensor for dimension 1"),
    (lambda T: T.histogramdd(T.rand(4, 2), 2, range=[0.0, 1.0]), RuntimeError,
     "torch.histogramdd: for a 2-dimensional histogram range should have 4 elements, but "
     "got 2"),
    (lambda T: T.histogramdd(T.rand(4, 2), [2], range=[1.0, 0.0, 0.0, 1.0]), RuntimeError,
     "torch.histogramdd: min should not exceed max, but got min 1 max 0 for dimension 0"),
    (lambda T: T.histogramdd(T.rand(4, 2), 2, range=[0.0, 1.0, float("-inf"), 1.0]),
     RuntimeError, "torch.histogramdd: dimension 1's range [-inf, 1] is not finite"),
    (lambda T: T.histogramdd(T.tensor([[1.0, 2.0], [3.0, float("nan")]]), 2), RuntimeError,
     "torch.histogramdd: dimension 1's range [nan, nan] is not finite"),
    (lambda T: T.histogramdd(T.rand(4, 2, dtype=T.float64), 2, weight=T.ones(4)),
     RuntimeError, "torch.histogramdd: if weight tensor is provided, input tensor and weight "
     "tensor should have the same dtype, but got input(double), and weight(float)"),
    (lambda T: T.histogramdd(T.rand(4, 2), 2, weight=T.ones(4, 1)), RuntimeError,
     "torch.histogramdd: if weight tensor is provided it should have the same shape as the "
     "input tensor excluding its innermost dimension, but got input with shape [4, 2] and "
     "weight with shape [4, 1]"),
    (lambda T: T.histogramdd(T.rand(4, 2), [T.ones(2)]), RuntimeError,
     "torch.histogramdd: expected 2 sequences of bin edges for a 2-dimensional histogram "
     "but got 1"),
    (lambda T: T.histogramdd(T.rand(4, 2), [T.ones(2), T.ones(2, dtype=T.float64)]),
     RuntimeError, "torch.histogramdd: input tensor and bins tensors should have the same "
     "dtype, but got input with dtype float and bins for dimension 1 with dtype double"),
    (lambda T: T.histogramdd(T.rand(4, 2), [T.ones(2), T.ones(1, 2)]), RuntimeError,
     "torch.histogramdd: bins tensor should have one dimension, but got 2 dimensions in "
     "the bins tensor for dimension 1"),
    (lambda T: T.histogramdd(T.rand(4, 2), [T.ones(2), T.ones(1)]), RuntimeError,
     "torch.histogram(): bins must be > 0, but got 0 for dimension 1"),
    (lambda T: T.histogramdd(T.rand(4, 2), [T.ones(2), T.ones(1)], weight=T.ones(3)),
     RuntimeError, "torch.histogramdd: if weight tensor is provided it should have the same "
     "shape"),
    (lambda T: T.histogramdd(T.rand(4, 2), 2.0), TypeError,
     "histogramdd() received an invalid combination of arguments - got "),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors_match_torch(call, error, message):
    torch = _torch()
    with pytest.raises(error) as ref:
        call(torch)
    assert message in str(ref.value)
    with pytest.raises(error) as info:
        call(mt)
    assert message in str(info.value)


def test_histogram_refuses_float16_as_torch():
    torch = _torch()
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        torch.histogram(torch.ones(3, dtype=torch.float16), 2)
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        mt.histogram(mt.ones(3, dtype=mt.float16), 2)


@pytest.mark.parametrize("bins", [2, 5, 6])
def test_edges_round_as_torchs_linspace(bins):
    # one value widened by 0.5 each way: whether it lands left or right of the middle edge
    # depends on the edge's last bit
    torch = _torch()
    value = float(np.float32(0.01592916))
    ours = mt.histogramdd(mt.tensor([[value]]), bins)
    theirs = torch.histogramdd(torch.tensor([[value]]), bins)
    assert ours.bin_edges[0].tolist() == theirs.bin_edges[0].tolist()
    assert ours.hist.tolist() == theirs.hist.tolist()


def test_float32_edges_equal_torchs_bit_for_bit():
    torch = _torch()
    rng = np.random.default_rng(3)
    for _ in range(40):
        low = float(rng.normal())
        high = low + float(rng.uniform(1e-3, 5.0))
        bins = int(rng.integers(1, 70))
        ours = mt.histogramdd(mt.zeros(1, 2), [bins, 1], range=[low, high, 0.0, 1.0])
        theirs = torch.histogramdd(torch.zeros(1, 2), [bins, 1], range=[low, high, 0.0, 1.0])
        assert ours.bin_edges[0].tolist() == theirs.bin_edges[0].tolist(), (low, high, bins)

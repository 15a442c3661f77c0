"""``isclose``/``allclose`` (``equal_nan``, infinities, dtypes, errors), PyTorch's printing
and type names of named results (``torch.return_types.max``), and ``ModuleList + list``."""

from __future__ import annotations

import pickle

import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")

NAN, INF = float("nan"), float("inf")
A = [1.0, NAN, INF, -INF, 2.0, NAN, 1e-9, 100.0]
B = [1.0, NAN, INF, INF, 2.1, 1.0, 0.0, 100.001]


@pytest.mark.parametrize("options", [{}, {"equal_nan": True}, {"rtol": 0.1},
                                     {"atol": 1e-8, "rtol": 0.0}, {"atol": 0.0, "rtol": 0.0},
                                     {"rtol": 0.0, "atol": 0.5, "equal_nan": True}])
def test_isclose_equals_torch(options, device):
    x, y = mt.tensor(A, device=device), mt.tensor(B, device=device)
    expected = torch.isclose(torch.tensor(A), torch.tensor(B), **options)
    got = mt.isclose(x, y, **options)
    assert got.dtype is mt.bool
    assert got.cpu().numpy().tolist() == expected.tolist()
    assert x.isclose(y, **options).cpu().numpy().tolist() == expected.tolist()
    assert mt.allclose(x, y, **options) is torch.allclose(torch.tensor(A), torch.tensor(B),
                                                           **options)


def test_allclose_with_equal_nan(device):
    x = mt.tensor([1.0, NAN], device=device)
    assert mt.allclose(x, x) is False
    assert mt.allclose(x, x, equal_nan=True) is True and x.allclose(x, equal_nan=True) is True
    assert torch.allclose(torch.tensor([1.0, NAN]), torch.tensor([1.0, NAN]), equal_nan=True)


def test_isclose_on_integers_broadcasts_and_runs_on_meta(device):
    a, b = [[1, 2, 3]], [[1], [3]]
    expected = torch.isclose(torch.tensor(a), torch.tensor(b), rtol=0.4)
    got = mt.isclose(mt.tensor(a, device=device), mt.tensor(b, device=device), rtol=0.4)
    assert got.cpu().numpy().tolist() == expected.tolist()
    meta = mt.isclose(mt.empty(2, 1, device="meta"), mt.empty(3, device="meta"))
    assert meta.is_meta and meta.shape == (2, 3) and meta.dtype is mt.bool


@pytest.mark.parametrize("call, error, message", [
    (lambda lib: lib.isclose(lib.ones(2), lib.ones(2, dtype=lib.float64)), RuntimeError,
     "Float did not match Double"),
    (lambda lib: lib.isclose(lib.ones(2), lib.ones(2), rtol=-1.0), RuntimeError,
     "rtol must be greater than or equal to zero, but got -1"),
    (lambda lib: lib.allclose(lib.ones(2), lib.ones(2), atol=-2), RuntimeError,
     "atol must be greater than or equal to zero, but got -2"),
    (lambda lib: lib.isclose(lib.ones(2), 1.0), TypeError,
     "isclose(): argument 'other' (position 2) must be Tensor, not float"),
])
def test_isclose_errors_as_torch(call, error, message):
    for lib in (mt, torch):
        with pytest.raises(error) as info:
            call(lib)
        assert str(info.value).startswith(message), (lib.__name__, str(info.value))


def _results(lib):
    x = lib.tensor([[1.0, 4.0, 2.0], [3.0, 0.0, 5.0]])
    return {"max": x.max(1), "min": lib.min(x, 0), "sort": x.sort(), "topk": x.topk(2),
            "kthvalue": x.kthvalue(1), "median": x.median(1), "mode": x.mode(),
            "aminmax": x.aminmax(), "cummax": x.cummax(1), "linalg_slogdet":
            lib.linalg.slogdet(x[:, :2]), "slogdet": lib.slogdet(x[:, :2])}


def test_named_results_print_and_are_named_as_torch():
    ours, theirs = _results(mt), _results(torch)
    for name, result in ours.items():
        reference = theirs[name]
        assert type(result).__name__ == type(reference).__name__ == name
        assert repr(result) == repr(reference) and str(result) == str(reference), name
        assert isinstance(result, tuple) and len(result) == len(reference)
    values, indices = ours["max"]
    assert ours["max"].values is values and ours["max"].indices is indices


def test_named_result_types_are_in_return_types():
    from minitorch_meta import return_types

    assert return_types.max is return_types.MaxResult is type(mt.ones(2, 2).max(0))
    assert return_types.linalg_cholesky_ex.__name__ == "linalg_cholesky_ex"
    copy = pickle.loads(pickle.dumps(return_types.sort(1, 2)))
    assert type(copy) is return_types.sort and copy.indices == 2
    assert repr(return_types.max(1, 2)) == "torch.return_types.max(\nvalues=1,\nindices=2)"


def test_named_result_of_meta_tensors_prints():
    result = mt.empty(2, 3, device="meta").max(1)
    assert repr(result).startswith("torch.return_types.max(\nvalues=tensor(..., device='meta'")


class _Blocks(mt.nn.ModuleList):
    """A subclass whose constructor takes other arguments than a list of modules."""

    def __init__(self, width: int, depth: int) -> None:
        super().__init__(mt.nn.Linear(width, width) for _ in range(depth))


def test_modulelist_addition_gives_a_plain_modulelist_as_torch():
    blocks = _Blocks(2, 3)
    combined = blocks + [mt.nn.ReLU()]
    assert type(combined) is mt.nn.ModuleList and len(combined) == 4
    assert combined[0] is blocks[0] and isinstance(combined[3], mt.nn.ReLU)
    assert list(dict(combined.named_children())) == ["0", "1", "2", "3"]

    class TorchBlocks(torch.nn.ModuleList):
        def __init__(self, width, depth):
            super().__init__(torch.nn.Linear(width, width) for _ in range(depth))

    assert type(TorchBlocks(2, 3) + [torch.nn.ReLU()]) is torch.nn.ModuleList


def test_modulelist_slicing_calls_the_class_as_torch():
    # PyTorch slices with ``self.__class__(modules)``: such a subclass fails there too.
    with pytest.raises(TypeError):
        _Blocks(2, 3)[:2]
    assert type(mt.nn.ModuleList([mt.nn.ReLU(), mt.nn.Tanh()])[1:]) is mt.nn.ModuleList

    class TorchBlocks(torch.nn.ModuleList):
        def __init__(self, width, depth):
            super().__init__(torch.nn.Linear(width, width) for _ in range(depth))

    with pytest.raises(TypeError):
        TorchBlocks(2, 3)[:2]

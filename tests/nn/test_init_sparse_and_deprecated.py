"""nn.init.sparse_ (zeros per column, the rest normal, as PyTorch's algorithm) and the
deprecated initialiser names without ``_`` (PyTorch's FutureWarning, then the same fill)."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.nn import init


def _zeros_per_column(values) -> list[int]:
    return (np.asarray(values) == 0).sum(axis=0).tolist()


@pytest.mark.parametrize("shape, sparsity", [
    ((5, 4), 0.4), ((10, 3), 0.1), ((4, 3), 0.0), ((4, 3), 1.0), ((4, 3), 2.0),
    ((4, 3), -0.5), ((7, 2), 0.5), ((1, 6), 0.3), ((0, 3), 0.5), ((3, 0), 0.5),
], ids=str)
def test_sparse_zeros_per_column_as_torch(device, torch_ref, shape, sparsity):
    w = mt.full(shape, 7.0, device=device)
    assert init.sparse_(w, sparsity) is w
    expected = torch_ref.nn.init.sparse_(torch_ref.full(shape, 7.0), sparsity)
    assert w.shape == expected.shape
    assert _zeros_per_column(w.cpu().numpy()) == _zeros_per_column(expected.numpy())
    assert not (w.cpu().numpy() == 7.0).any()


def test_sparse_rows_are_chosen_at_random_per_column(device):
    mt.manual_seed(0)
    w = init.sparse_(mt.empty(40, 200, device=device), 0.5).cpu().numpy()
    zero_rows = {tuple(np.flatnonzero(column == 0)) for column in w.T}
    assert len(zero_rows) > 150  # each column its own choice of rows
    row_frequency = (w == 0).mean(axis=1)  # each row zeroed in about half the columns
    assert 0.35 < row_frequency.min() and row_frequency.max() < 0.65


@pytest.mark.parametrize("std", [0.01, 2.0])
def test_sparse_nonzero_values_are_normal_with_std(device, std):
    w = init.sparse_(mt.empty(300, 300, dtype=mt.float64, device=device), 0.2, std=std)
    kept = w.cpu().numpy()[w.cpu().numpy() != 0]
    assert kept.size == 300 * 240
    assert abs(kept.mean()) < 0.02 * std and kept.std() == pytest.approx(std, rel=0.02)


def test_sparse_generator_makes_it_reproducible(device):
    def fill():
        generator = mt.Generator(device=device).manual_seed(3)
        return init.sparse_(mt.empty(6, 5, device=device), 0.5, generator=generator)

    assert mt.equal(fill(), fill())


def test_sparse_keeps_requires_grad_without_graph(device):
    w = mt.nn.Parameter(mt.randn(4, 3, device=device))
    init.sparse_(w, 0.5)
    assert w.requires_grad and w.grad_fn is None and w.is_leaf


def test_sparse_dtype_kept(device):
    w = init.sparse_(mt.empty(4, 3, dtype=mt.float64, device=device), 0.5)
    assert w.dtype == mt.float64


def test_sparse_on_meta_checks_then_does_nothing():
    w = mt.empty(3, 4, device="meta")
    assert init.sparse_(w, 0.5) is w and w.is_meta
    with pytest.raises(ValueError, match="^Only tensors with 2 dimensions are supported$"):
        init.sparse_(mt.empty(3, device="meta"), 0.5)


@pytest.mark.parametrize("shape", [(3,), (2, 3, 4), ()])
def test_sparse_refuses_other_ranks(torch_ref, shape):
    message = "^Only tensors with 2 dimensions are supported$"
    with pytest.raises(ValueError, match=message):
        init.sparse_(mt.empty(shape), 0.5)
    with pytest.raises(ValueError, match=message):
        torch_ref.nn.init.sparse_(torch_ref.empty(shape), 0.5)


def test_sparse_nan_sparsity_is_a_value_error(torch_ref):
    with pytest.raises(ValueError, match="NaN"):
        init.sparse_(mt.empty(2, 3), math.nan)
    with pytest.raises(ValueError, match="NaN"):
        torch_ref.nn.init.sparse_(torch_ref.empty(2, 3), math.nan)


def test_sparse_signature_as_torch(torch_ref):
    ours = inspect.signature(init.sparse_).parameters
    theirs = inspect.signature(torch_ref.nn.init.sparse_).parameters
    assert list(ours) == list(theirs)
    assert [p.default for p in ours.values()] == [p.default for p in theirs.values()]


DEPRECATED = [
    ("uniform", (-1.0, 1.0), (3, 4)), ("normal", (0.0, 2.0), (3, 4)),
    ("constant", (0.5,), (3, 4)), ("eye", (), (3, 4)), ("dirac", (), (2, 2, 3)),
    ("xavier_uniform", (), (3, 4)), ("xavier_normal", (), (3, 4)),
    ("kaiming_uniform", (), (3, 4)), ("kaiming_normal", (), (3, 4)),
    ("orthogonal", (), (3, 4)), ("sparse", (0.5,), (4, 3)),
]


@pytest.mark.parametrize("name, args, shape", DEPRECATED, ids=[case[0] for case in DEPRECATED])
def test_deprecated_name_warns_as_torch_and_fills_like_the_new_one(device, torch_ref, name,
                                                                    args, shape):
    message = f"^`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`.$"
    with pytest.warns(FutureWarning, match=message) as record:
        w = mt.full(shape, 7.0, dtype=mt.float64, device=device)
        mt.manual_seed(5)
        assert getattr(init, name)(w, *args) is w
    assert record[0].filename == __file__  # at the user's line
    with pytest.warns(FutureWarning, match=message):
        getattr(torch_ref.nn.init, name)(torch_ref.empty(shape), *args)
    mt.manual_seed(5)
    expected = getattr(init, f"{name}_")(mt.full(shape, 7.0, dtype=mt.float64, device=device),
                                         *args)
    assert mt.equal(w, expected)
    assert getattr(init, name).__name__ == name


def test_deprecated_names_are_torchs(torch_ref):
    ours = {name for name in dir(init) if f"{name}_" in dir(init) and not name.startswith("_")}
    theirs = {name for name in dir(torch_ref.nn.init)
              if f"{name}_" in dir(torch_ref.nn.init) and not name.startswith("_")}
    assert ours == theirs


def test_deprecated_name_passes_keywords_and_errors_through():
    with pytest.warns(FutureWarning):
        w = init.constant(mt.empty(2), val=3.0)
    assert w.tolist() == [3.0, 3.0]
    with pytest.warns(FutureWarning), pytest.raises(ValueError, match="2 dimensions"):
        init.sparse(mt.empty(3), sparsity=0.1)

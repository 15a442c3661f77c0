"""The CPU's scatter-add through a flat index: the same bits as np.add.at, any index."""

from __future__ import annotations

import numpy as np
import pytest

from minitorch_meta.backends.numpy_scatter import flat_positions, scatter_add

SHAPE = (3, 4, 5)
_R = np.random.default_rng(0)


def _picks(size, shape, low=None):
    return _R.integers(-size if low is None else low, size, shape)


INDICES = {
    "ellipsis_last_dim": (Ellipsis, _picks(5, (9,))),
    "ellipsis_two_dims_broadcast": (Ellipsis, _picks(4, (6, 1)), _picks(5, (7,))),
    "leading_then_trailing_slice": (slice(None), _picks(4, (2, 3)), slice(None)),
    "first_dim_only": (_picks(3, (8,)),),
    "all_dims": (_picks(3, (4, 1, 1)), _picks(4, (6, 1)), _picks(5, (3,))),
    "int32_picks": (Ellipsis, _picks(5, (10,)).astype(np.int32)),
    "a_partial_slice": (slice(0, 2), _picks(4, (5,))),  # not flattened: np.add.at itself
    "separated_arrays": (_picks(3, (4,)), slice(None), _picks(5, (4,))),  # np.add.at too
    "an_int": (1, _picks(4, (5,))),  # np.add.at too
}


@pytest.mark.parametrize("name", list(INDICES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_same_bits_as_add_at(name, dtype):
    index = INDICES[name]
    shape = np.zeros(SHAPE)[index].shape
    values = _R.standard_normal(shape).astype(dtype) * 10.0 ** _R.integers(-6, 6, shape)
    expected, target = np.zeros(SHAPE, dtype), np.zeros(SHAPE, dtype)
    np.add.at(expected, index, values)
    scatter_add(target, index, values)
    assert target.tobytes() == expected.tobytes()


def test_which_indices_are_flattened():
    flat = {name for name, index in INDICES.items() if flat_positions(SHAPE, index) is not None}
    assert flat == set(INDICES) - {"a_partial_slice", "separated_arrays", "an_int"}
    # each picked element's C-order position, in a[index]'s shape
    index = INDICES["ellipsis_two_dims_broadcast"]
    positions = np.arange(60).reshape(SHAPE)[index]
    np.testing.assert_array_equal(flat_positions(SHAPE, index), positions)


def test_broadcast_values_and_another_dtype():
    index = (Ellipsis, np.array([0, 0, 4]))
    expected, target = np.zeros(SHAPE, np.float32), np.zeros(SHAPE, np.float32)
    np.add.at(expected, index, np.float32(1.5))
    scatter_add(target, index, np.full((1, 3), 1.5, np.float32))
    np.testing.assert_array_equal(target, expected)
    scatter_add(target, index, np.ones(3))  # float64 into float32: np.add.at as given
    np.add.at(expected, index, np.ones(3))
    np.testing.assert_array_equal(target, expected)


@pytest.mark.parametrize("picks", [np.array([0, 5]), np.array([-6, 1])])
def test_a_position_out_of_range_raises_numpys_index_error(picks):
    with pytest.raises(IndexError):
        scatter_add(np.zeros(SHAPE), (Ellipsis, picks), np.ones(2))

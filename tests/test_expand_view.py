"""``expand`` is a stride-0 view, as PyTorch's: no copy, memory shared with the input, and
writes that would put two values into one memory location refused with PyTorch's error
(or, for the writes PyTorch deprecates but performs, done with its warning)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt

OVERLAP = "more than one element of the written-to tensor refers to a single memory location"


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("shape, size", [
    ((3, 1), (3, 4)),
    ((3, 1), (2, 3, 4)),
    ((1,), (5,)),
    ((2, 1, 3), (-1, 4, -1)),
    ((1, 1), (1, 1)),
    ((), (2, 3)),
    ((3, 1), (3, 0)),
])
def test_strides_and_values_match_torch(shape, size, device):
    torch = _torch()
    values = np.arange(float(np.prod(shape)), dtype=np.float32).reshape(shape)
    ours = mt.tensor(values, device=device).expand(*size)
    theirs = torch.tensor(values).expand(*size)
    assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
    assert ours.is_contiguous() == theirs.is_contiguous()
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


def test_strides_of_an_expanded_transpose_match_torch(device):
    torch = _torch()
    values = np.arange(3.0, dtype=np.float32).reshape(3, 1)
    ours = mt.tensor(values, device=device).t().expand(4, 3)
    theirs = torch.tensor(values).t().expand(4, 3)
    assert ours.stride() == theirs.stride() == (0, 1)


def test_a_huge_expand_allocates_nothing(device):
    """3 x 10**12 float32 would be 12 TB: a view reads the 3 numbers it has."""
    column = mt.tensor([[1.0], [2.0], [3.0]], device=device)
    huge = column.expand(3, 10**12)
    assert huge.shape == (3, 10**12) and huge.stride() == (1, 0)
    assert huge.data_ptr() == column.data_ptr()
    assert huge[:, -2:].sum(1).tolist() == [2.0, 4.0, 6.0]


def test_writes_to_the_input_show_through_the_view(device):
    base = mt.zeros(3, 1, device=device)
    view = base.expand(3, 4)
    base[1, 0] = 7.0
    assert view.tolist() == [[0.0] * 4, [7.0] * 4, [0.0] * 4]
    assert view._version == base._version == 1  # one version counter, as any view


def _write_cases():
    return [
        ("column_setitem", lambda y, lib: y.__setitem__((slice(None), 0), 5.0)),
        ("row_setitem", lambda y, lib: y.__setitem__(0, 5.0)),
        ("ellipsis_setitem", lambda y, lib: y.__setitem__(Ellipsis, 5.0)),
        ("single_element_setitem", lambda y, lib: y.__setitem__((1, 2), 5.0)),
        ("add_", lambda y, lib: y.add_(1.0)),
        ("mul_", lambda y, lib: y.mul_(2.0)),
        ("clamp_", lambda y, lib: y.clamp_(0.0, 1.0)),
        ("fill_", lambda y, lib: y.fill_(3.0)),
        ("zero_", lambda y, lib: y.zero_()),
        ("copy_", lambda y, lib: y.copy_(lib.ones(3, 4))),
        ("copy_of_one_value", lambda y, lib: y.copy_(lib.ones(1))),
        ("uniform_", lambda y, lib: y.uniform_()),
        ("slice_of_row_zero_", lambda y, lib: y[0, 1:].zero_()),
        ("column_add_", lambda y, lib: y[:, 1].add_(2.0)),
        ("row_add_", lambda y, lib: y[2].add_(2.0)),
    ]


@pytest.mark.parametrize("name, write", _write_cases(), ids=[n for n, _ in _write_cases()])
def test_writes_into_an_expanded_tensor_as_torch(name, write, device):
    """Each write either succeeds in both, reaching the input the same way, or fails in
    both with PyTorch's error."""
    torch = _torch()
    values = np.array([[1.0], [2.0], [3.0]], dtype=np.float32)
    ours_base, theirs_base = mt.tensor(values, device=device), torch.tensor(values)
    ours, theirs = ours_base.expand(3, 4), theirs_base.expand(3, 4)
    try:
        write(theirs, torch)
    except RuntimeError as error:
        assert OVERLAP in str(error)
        with pytest.raises(RuntimeError, match=OVERLAP):
            write(ours, mt)
        assert ours_base.cpu().numpy().tolist() == values.tolist()  # nothing written
        return
    write(ours, mt)
    np.testing.assert_array_equal(ours_base.cpu().numpy(), theirs_base.numpy())


def _deprecated_write_cases():
    """Writes PyTorch performs into an expanded tensor with a deprecation warning, each
    with a result PyTorch defines (one value wherever shared elements are written)."""
    return [
        ("tensor_index", "index_put_", lambda y, lib: y.__setitem__(
            lib.tensor([0, 1], device=y.device), 1.0)),
        ("column_tensor_index", "index_put_", lambda y, lib: y.__setitem__(
            (slice(None), lib.tensor([1, 3], device=y.device)), 7.0)),
        ("bool_mask_setitem", "index_put_", lambda y, lib: y.__setitem__(y > 1.5, -1.0)),
        ("masked_fill_", "masked_fill_", lambda y, lib: y.masked_fill_(
            lib.eye(3, 4, dtype=lib.bool, device=y.device), 9.0)),
        ("masked_fill_row_mask", "masked_fill_", lambda y, lib: y.masked_fill_(
            lib.tensor([True, False, True, False], device=y.device), 9.0)),
        ("masked_fill_tensor_value", "masked_fill_", lambda y, lib: y.masked_fill_(
            lib.eye(3, 4, dtype=lib.bool, device=y.device), lib.tensor(4.0, device=y.device))),
        ("index_fill_columns", "index_fill_", lambda y, lib: y.index_fill_(
            1, lib.tensor([0, 2], device=y.device), 9.0)),
        ("index_fill_rows", "index_fill_", lambda y, lib: y.index_fill_(
            0, lib.tensor([1], device=y.device), 9.0)),
        ("index_put_", "index_put_", lambda y, lib: y.index_put_(
            (lib.tensor([0, 2], device=y.device), lib.tensor([1, 1], device=y.device)),
            lib.tensor(5.0, device=y.device))),
    ]


@pytest.mark.parametrize("name, op, write", _deprecated_write_cases(),
                         ids=[n for n, _, _ in _deprecated_write_cases()])
def test_deprecated_writes_into_an_expanded_tensor_warn_and_write_as_torch(name, op, write,
                                                                          device):
    torch = _torch()
    values = np.arange(4.0, dtype=np.float32)
    ours_base, theirs_base = mt.tensor(values, device=device), torch.tensor(values)
    message = f"Use of {op} on expanded tensors is deprecated. Please clone"
    with warnings.catch_warnings(record=True) as theirs:  # x[mask] = 1 warns twice there
        warnings.simplefilter("always")
        write(theirs_base.expand(3, 4), torch)
    assert any(message in str(w.message) for w in theirs)
    with pytest.warns(UserWarning, match=message) as record:
        write(ours_base.expand(3, 4), mt)
    assert len(record) == 1 and record[0].filename == __file__  # the user's line
    np.testing.assert_array_equal(ours_base.cpu().numpy(), theirs_base.numpy())
    assert ours_base._version == 1


def test_an_accumulating_index_put_into_an_expanded_tensor_is_refused(device):
    """PyTorch adds every aliased element's value into the shared location; that is not
    done here (docs/differences.md): refused, nothing written."""
    base = mt.zeros(4, device=device)
    index = (mt.tensor([0, 1], device=device), mt.tensor([1, 1], device=device))
    with pytest.raises(RuntimeError, match=OVERLAP):
        base.expand(3, 4).index_put_(index, mt.tensor(1.0, device=device), accumulate=True)
    assert base.tolist() == [0.0] * 4


@pytest.mark.parametrize("write", [
    lambda y: y.masked_scatter_(mt.ones(3, 4, dtype=mt.bool, device=y.device),
                                mt.ones(12, device=y.device)),
    lambda y: y.index_copy_(1, mt.tensor([0], device=y.device), mt.ones(3, 1, device=y.device)),
    lambda y: y.index_add_(1, mt.tensor([0], device=y.device), mt.ones(3, 1, device=y.device)),
    lambda y: y.scatter_(1, mt.zeros(3, 1, dtype=mt.int64, device=y.device), 7.0),
], ids=["masked_scatter_", "index_copy_", "index_add_", "scatter_"])
def test_writes_pytorch_refuses_into_an_expanded_tensor_are_refused(write, device):
    base = mt.zeros(1, 4, device=device)
    with pytest.raises(RuntimeError, match=OVERLAP):
        write(base.expand(3, 4))
    assert base.tolist() == [[0.0] * 4]


def test_the_gradient_of_an_expand_sums_over_the_grown_dimensions(device):
    x = mt.tensor([[1.0], [2.0]], device=device, requires_grad=True)
    weights = mt.arange(6.0, device=device).reshape(2, 3)
    (x.expand(2, 3) * weights).sum().backward()
    assert x.grad.tolist() == [[3.0], [12.0]] and x.grad.is_contiguous()


def test_a_clone_of_an_expand_is_writable(device):
    base = mt.zeros(2, 1, device=device)
    copy = base.expand(2, 3).clone()
    copy[0, 0] = 1.0
    assert copy.tolist() == [[1.0, 0.0, 0.0], [0.0] * 3] and base.tolist() == [[0.0]] * 2


def test_meta_expand_has_the_shape_and_no_data():
    out = mt.empty(3, 1, device="meta").expand(2, 3, 5)
    assert out.shape == (2, 3, 5) and out.device.type == "meta"

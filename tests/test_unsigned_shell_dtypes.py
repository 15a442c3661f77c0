"""PyTorch's "shell" dtypes uint16, uint32 and uint64 against PyTorch itself: each op is run
in both frameworks and must give the same values and dtype, or the same kind of error
(PyTorch supports copies, views, indexing and a few kernels on them; promotion with another
integer or bool dtype is refused)."""

from __future__ import annotations

import itertools
import pickle
import re

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import dtypes
from minitorch_meta.ops import unsigned_shell
from tests.devices import tensor_device

torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                            "test extra")

SHELLS = ["uint16", "uint32", "uint64"]
OTHERS = [d.name for d in dtypes.ALL if d not in dtypes.UNSIGNED_SHELL]


def _outcome(function, module, dtype: str, device: str, read=True):
    """What ``function(module, dtype, device)`` gives: ("ok", its values, unless not to
    ``read`` them) or ("error", the exception's type, and PyTorch's refusal to promote where
    it is one)."""
    try:
        result = function(module, getattr(module, dtype), device)
        return ("ok", _plain(result) if read else None)
    except (NotImplementedError, RuntimeError, TypeError, IndexError, ValueError,
            OverflowError) as error:
        promotion = re.match(r"Promotion for .* attempted to promote \w+ and \w+", str(error))
        return ("error", type(error).__name__, promotion and promotion.group())


def _plain(value):
    """A result as comparable Python values: tensors as (dtype, values), floats rounded."""
    if isinstance(value, (mt.Tensor, torch.Tensor)):
        values = value.cpu().tolist()
        if value.dtype.is_floating_point:
            values = np.round(np.asarray(values, dtype=np.float64), 5).tolist()
        return (str(value.dtype), values)
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v) for v in value)
    if isinstance(value, (mt.dtype, torch.dtype)):
        return str(value)
    return value


def _t(m, values, dtype, device):
    return m.tensor(values, dtype=dtype, device=device)


M = [True, False, True]
#: (what, how): each runs in both frameworks on a tensor of a shell dtype
CASES = {
    # making tensors
    "tensor": lambda m, d, v: _t(m, [1, 2, 3], d, v),
    "tensor of floats truncates": lambda m, d, v: _t(m, [1.7, 2.2], d, v),
    "tensor of bools": lambda m, d, v: _t(m, [True, False], d, v),
    "tensor of -1": lambda m, d, v: _t(m, [-1, 2], d, v),
    "uint64 tensor of 2 ** 63": lambda m, d, v: _t(m, [2 ** 63 if d == m.uint64 else 7], d, v),
    "uint64 tensor of 2 ** 64 - 1": lambda m, d, v: _t(m, [2 ** 64 - 1 if d == m.uint64 else 7],
                                                       d, v),
    "tensor of a float": lambda m, d, v: _t(m, 3.0, d, v),
    "0-d": lambda m, d, v: _t(m, 5, d, v),
    "empty": lambda m, d, v: _t(m, [], d, v),
    "zeros": lambda m, d, v: m.zeros(3, dtype=d, device=v),
    "ones": lambda m, d, v: m.ones(2, 2, dtype=d, device=v),
    "empty shape": lambda m, d, v: m.empty(2, 3, dtype=d, device=v).shape,
    "full": lambda m, d, v: m.full((2,), 7, dtype=d, device=v),
    "full of a float": lambda m, d, v: m.full((2,), 7.5, dtype=d, device=v),
    "full_like": lambda m, d, v: m.full_like(_t(m, [1, 2], d, v), 4),
    "zeros_like": lambda m, d, v: m.zeros_like(_t(m, [1, 2], d, v)),
    "ones_like": lambda m, d, v: m.ones_like(_t(m, [1, 2], d, v)),
    "new_zeros": lambda m, d, v: _t(m, [1, 2], d, v).new_zeros(2),
    "randint dtype": lambda m, d, v: m.randint(0, 5, (3,), dtype=d, device=v).dtype,
    "arange": lambda m, d, v: m.arange(3, dtype=d, device=v),
    "linspace": lambda m, d, v: m.linspace(0, 2, 3, dtype=d, device=v),
    "logspace": lambda m, d, v: m.logspace(0, 2, 3, dtype=d, device=v),
    "eye": lambda m, d, v: m.eye(2, dtype=d, device=v),
    "randperm": lambda m, d, v: m.randperm(3, dtype=d, device=v),
    "full of True": lambda m, d, v: m.full((2,), True, dtype=d, device=v),
    "fill_": lambda m, d, v: _t(m, [1, 2], d, v).fill_(7),
    "zero_": lambda m, d, v: _t(m, [1, 2], d, v).zero_(),
    "random_": lambda m, d, v: _t(m, [1, 2], d, v).random_(),
    "uniform_": lambda m, d, v: _t(m, [1, 2], d, v).uniform_(),
    "normal_": lambda m, d, v: _t(m, [1, 2], d, v).normal_(),
    "index_fill_": lambda m, d, v: _t(m, [1, 2], d, v).index_fill_(0, _t(m, [0], m.int64, v), 5),
    "masked_fill_": lambda m, d, v: _t(m, [1, 2], d, v).masked_fill_(_t(m, M[:2], m.bool, v), 5),
    # conversions
    "to float32": lambda m, d, v: _t(m, [1, 2, 3], d, v).to(m.float32),
    "float()": lambda m, d, v: _t(m, [1, 2, 3], d, v).float(),
    "from float32": lambda m, d, v: _t(m, [1.5, 2.0], m.float32, v).to(d),
    "from int64 wraps": lambda m, d, v: _t(m, [5, 70000], m.int64, v).to(d),
    "to int8 wraps": lambda m, d, v: _t(m, [300], d, v).to(m.int8),
    "to bool": lambda m, d, v: _t(m, [0, 2], d, v).to(m.bool),
    "copy_ from float": lambda m, d, v: m.zeros(3, dtype=d, device=v).copy_(
        _t(m, [1.0, 2, 3], m.float32, v)),
    "copy_ into int32": lambda m, d, v: m.zeros(3, dtype=m.int32, device=v).copy_(
        _t(m, [1, 2, 3], d, v)),
    "item": lambda m, d, v: _t(m, [7], d, v).item(),
    "tolist": lambda m, d, v: _t(m, [[1, 2]], d, v).tolist(),
    "int()": lambda m, d, v: int(_t(m, [7], d, v)[0]),
    "type()": lambda m, d, v: _t(m, [7], d, "cpu").type(),
    "is_signed": lambda m, d, v: _t(m, [7], d, v).is_signed(),
    "requires_grad_": lambda m, d, v: _t(m, [7], d, v).requires_grad_(),
    # views, copies and joins
    "clone": lambda m, d, v: _t(m, [1, 2], d, v).clone(),
    "view": lambda m, d, v: _t(m, [1, 2, 3, 4], d, v).view(2, 2),
    "reshape t contiguous": lambda m, d, v: _t(m, [[1, 2]], d, v).t().contiguous(),
    "permute": lambda m, d, v: _t(m, [[1, 2]], d, v).permute(1, 0),
    "expand": lambda m, d, v: _t(m, [1, 2], d, v).expand(2, 2),
    "repeat": lambda m, d, v: _t(m, [1, 2], d, v).repeat(2),
    "cat": lambda m, d, v: m.cat([_t(m, [1], d, v), _t(m, [2], d, v)]),
    "stack": lambda m, d, v: m.stack([_t(m, [1], d, v), _t(m, [2], d, v)]),
    "chunk": lambda m, d, v: _t(m, [1, 2, 3], d, v).chunk(2),
    "split": lambda m, d, v: _t(m, [1, 2, 3], d, v).split([1, 2]),
    "select": lambda m, d, v: _t(m, [[1, 2], [3, 4]], d, v).select(1, 0),
    "movedim": lambda m, d, v: _t(m, [[1, 2]], d, v).movedim(0, 1),
    "index with a 0-d shell tensor": lambda m, d, v: m.zeros(4, device=v)[_t(m, 1, d, v)],
    "setitem with an ellipsis": lambda m, d, v: _set(_t(m, [1, 2], d, v), Ellipsis, 4),
    "unbind": lambda m, d, v: _t(m, [1, 2], d, v).unbind(),
    "narrow": lambda m, d, v: _t(m, [1, 2, 3], d, v).narrow(0, 1, 2),
    "squeeze": lambda m, d, v: _t(m, [[1, 2]], d, v).squeeze(0),
    "flatten": lambda m, d, v: _t(m, [[1, 2]], d, v).flatten(),
    "reshape": lambda m, d, v: _t(m, [[1, 2]], d, v).reshape(2, 1),
    "ravel": lambda m, d, v: m.ravel(_t(m, [[1, 2]], d, v)),
    "meshgrid": lambda m, d, v: m.meshgrid(_t(m, [1, 2], d, v), indexing="ij"),
    "diag": lambda m, d, v: m.diag(_t(m, [1, 2], d, v)),
    "diagflat": lambda m, d, v: m.diagflat(_t(m, [1, 2], d, v)),
    "diag_embed": lambda m, d, v: m.diag_embed(_t(m, [1, 2], d, v)),
    "block_diag": lambda m, d, v: m.block_diag(_t(m, [1, 2], d, v), _t(m, [[3]], d, v)),
    "nan_to_num": lambda m, d, v: m.nan_to_num(_t(m, [1, 2], d, v)),
    "signbit": lambda m, d, v: m.signbit(_t(m, [1, 2], d, v)),
    "isneginf": lambda m, d, v: m.isneginf(_t(m, [1, 2], d, v)),
    "isposinf": lambda m, d, v: m.isposinf(_t(m, [1, 2], d, v)),
    "cov": lambda m, d, v: m.cov(_t(m, [1, 2, 4], d, v)),
    "roll": lambda m, d, v: _t(m, [1, 2, 3], d, v).roll(1),
    "diagonal": lambda m, d, v: _t(m, [[1, 2], [3, 4]], d, v).diagonal(),
    "pad": lambda m, d, v: mt_or_torch_pad(m, _t(m, [1, 2], d, v)),
    "flip": lambda m, d, v: _t(m, [1, 2], d, v).flip(0),
    "tril": lambda m, d, v: _t(m, [[1, 2], [3, 4]], d, v).tril(),
    # indexing
    "index int": lambda m, d, v: _t(m, [1, 2, 3], d, v)[1],
    "index list": lambda m, d, v: _t(m, [1, 2, 3], d, v)[[0, 2]],
    "index mask": lambda m, d, v: _t(m, [1, 2, 3], d, v)[_t(m, M, m.bool, v)],
    "setitem scalar": lambda m, d, v: _set(_t(m, [1, 2, 3], d, v), 0, 9),
    "setitem slice": lambda m, d, v: _set(_t(m, [1, 2, 3], d, v), slice(0, 2),
                                          _t(m, [8, 9], m.int64, v)),
    "setitem mask": lambda m, d, v: _set(_t(m, [1, 2, 3], d, v), _t(m, M, m.bool, v), 7),
    "setitem index tensor": lambda m, d, v: _set(_t(m, [1, 2, 3], d, v),
                                                 _t(m, [0], m.int64, v), _t(m, [9], d, v)),
    "index by a shell tensor": lambda m, d, v: m.zeros(4, device=v)[_t(m, [1, 2], d, v)],
    "gather": lambda m, d, v: _t(m, [1, 2], d, v).gather(0, _t(m, [0], m.int64, v)),
    "index_select": lambda m, d, v: _t(m, [1, 2], d, v).index_select(0, _t(m, [0], m.int64, v)),
    "masked_fill": lambda m, d, v: _t(m, [1, 2, 3], d, v).masked_fill(_t(m, M, m.bool, v), 0),
    "masked_select": lambda m, d, v: _t(m, [1, 2, 3], d, v).masked_select(_t(m, M, m.bool, v)),
    "where": lambda m, d, v: m.where(_t(m, M, m.bool, v), _t(m, [1, 2, 3], d, v),
                                     _t(m, [4, 5, 6], d, v)),
    "where with a scalar": lambda m, d, v: m.where(_t(m, M, m.bool, v), _t(m, [1, 2, 3], d, v), 0),
    "where with int64": lambda m, d, v: m.where(_t(m, M, m.bool, v), _t(m, [1, 2, 3], d, v),
                                                _t(m, [4, 5, 6], m.int64, v)),
    # arithmetic
    "mul": lambda m, d, v: _t(m, [1, 2, 300], d, v) * _t(m, [3, 4, 300], d, v),
    "mul by an int wraps": lambda m, d, v: _t(m, [1, 2], d, v) * -1,
    "mul by a float": lambda m, d, v: _t(m, [1, 2], d, v) * 2.5,
    "mul by a 0-d int64": lambda m, d, v: _t(m, [1, 2], d, v) * _t(m, 2, m.int64, v),
    "int64 mul by a 0-d shell": lambda m, d, v: _t(m, [1, 2], m.int64, v) * _t(m, 2, d, v),
    "div": lambda m, d, v: _t(m, [1, 2], d, v) / _t(m, [2, 2], d, v),
    "div by a scalar": lambda m, d, v: _t(m, [1, 2], d, v) / 2,
    "add": lambda m, d, v: _t(m, [1, 2], d, v) + _t(m, [1, 2], d, v),
    "add a scalar": lambda m, d, v: _t(m, [1, 2], d, v) + 1,
    "add a float tensor": lambda m, d, v: _t(m, [1, 2], d, v) + _t(m, [0.5, 1], m.float32, v),
    "sub": lambda m, d, v: _t(m, [1, 2], d, v) - _t(m, [1, 2], d, v),
    "neg": lambda m, d, v: -_t(m, [1, 2], d, v),
    "abs": lambda m, d, v: _t(m, [1, 2], d, v).abs(),
    "pow": lambda m, d, v: _t(m, [1, 2], d, v) ** 2,
    "floor divide": lambda m, d, v: _t(m, [1, 2], d, v) // _t(m, [1, 2], d, v),
    "remainder": lambda m, d, v: _t(m, [1, 2], d, v) % _t(m, [1, 2], d, v),
    "bitwise and": lambda m, d, v: _t(m, [3, 6], d, v) & _t(m, [5, 5], d, v),
    "bitwise or": lambda m, d, v: _t(m, [3, 6], d, v) | _t(m, [5, 5], d, v),
    "bitwise xor": lambda m, d, v: _t(m, [3, 6], d, v) ^ _t(m, [5, 5], d, v),
    "bitwise and a scalar": lambda m, d, v: _t(m, [3, 6], d, v) & 1,
    "bitwise not": lambda m, d, v: ~_t(m, [3, 6], d, v),
    "left shift": lambda m, d, v: _t(m, [3, 6], d, v) << 1,
    "clamp": lambda m, d, v: _t(m, [3, 6], d, v).clamp(1, 4),
    "maximum": lambda m, d, v: m.maximum(_t(m, [3, 6], d, v), _t(m, [3, 6], d, v)),
    "sign": lambda m, d, v: _t(m, [3, 6], d, v).sign(),
    "logical_not": lambda m, d, v: m.logical_not(_t(m, [3, 6], d, v)),
    "mm": lambda m, d, v: _t(m, [[1]], d, v) @ _t(m, [[1]], d, v),
    # comparisons and predicates
    "eq": lambda m, d, v: _t(m, [1, 2], d, v) == _t(m, [1, 3], d, v),
    "ne a scalar": lambda m, d, v: _t(m, [1, 2], d, v) != 2,
    "eq a float tensor": lambda m, d, v: _t(m, [1, 2], d, v) == _t(m, [1, 3], m.float32, v),
    "eq int32": lambda m, d, v: _t(m, [1, 2], d, v) == _t(m, [1, 3], m.int32, v),
    "lt a float tensor": lambda m, d, v: _t(m, [1, 2], d, v) < _t(m, [1.5, 1.5], m.float32, v),
    "lt a float": lambda m, d, v: _t(m, [1, 2], d, v) < 1.5,
    "sub a float": lambda m, d, v: _t(m, [1, 2], d, v) - 1.5,
    "sqrt": lambda m, d, v: _t(m, [1, 4], d, v).sqrt(),
    "exp": lambda m, d, v: _t(m, [0, 1], d, v).exp(),
    "round": lambda m, d, v: _t(m, [1, 4], d, v).round(),
    "floor": lambda m, d, v: _t(m, [1, 4], d, v).floor(),
    "ceil": lambda m, d, v: _t(m, [1, 4], d, v).ceil(),
    "trunc": lambda m, d, v: _t(m, [1, 4], d, v).trunc(),
    "square": lambda m, d, v: _t(m, [1, 4], d, v).square(),
    "relu": lambda m, d, v: m.relu(_t(m, [1, 4], d, v)),
    "maximum with a float": lambda m, d, v: m.maximum(_t(m, [1, 4], d, v),
                                                      _t(m, [2.5, 2.5], m.float32, v)),
    "where with a float": lambda m, d, v: m.where(_t(m, M, m.bool, v), _t(m, [1, 2, 3], d, v),
                                                  _t(m, [0.5, 1, 2], m.float32, v)),
    "cat with a float": lambda m, d, v: m.cat([_t(m, [1], d, v), _t(m, [2.5], m.float32, v)]),
    "cat with int64": lambda m, d, v: m.cat([_t(m, [1], d, v), _t(m, [2], m.int64, v)]),
    "float tensor mul_ by a shell": lambda m, d, v: _t(m, [1.5], m.float32, v).mul_(_t(m, [2], d,
                                                                                    v)),
    "int64 mul_ by a shell": lambda m, d, v: _t(m, [1], m.int64, v).mul_(_t(m, [2], d, v)),
    "mul_": lambda m, d, v: _t(m, [3], d, v).mul_(2),
    "mul_ by a float": lambda m, d, v: _t(m, [3], d, v).mul_(2.5),
    "div_": lambda m, d, v: _t(m, [3], d, v).div_(2),
    "add_": lambda m, d, v: _t(m, [3], d, v).add_(2),
    "lt": lambda m, d, v: _t(m, [1, 2], d, v) < _t(m, [1, 3], d, v),
    "gt a scalar": lambda m, d, v: _t(m, [1, 2], d, v) > 1,
    "isnan": lambda m, d, v: _t(m, [1, 2], d, v).isnan(),
    "isfinite": lambda m, d, v: _t(m, [1, 2], d, v).isfinite(),
    "isinf": lambda m, d, v: _t(m, [1, 2], d, v).isinf(),
    "equal": lambda m, d, v: m.equal(_t(m, [1, 2], d, v), _t(m, [1, 2], d, v)),
    "equal int64": lambda m, d, v: m.equal(_t(m, [1, 2], d, v), _t(m, [1, 2], m.int64, v)),
    "allclose": lambda m, d, v: m.allclose(_t(m, [1, 2], d, v), _t(m, [1, 2], d, v)),
    "isclose": lambda m, d, v: m.isclose(_t(m, [1, 2], d, v), _t(m, [1, 3], d, v)),
    # reductions and sorting
    "sum": lambda m, d, v: _t(m, [1, 2, 3], d, v).sum(),
    "sum over a dim": lambda m, d, v: _t(m, [[1, 2], [3, 4]], d, v).sum(0),
    "sum wraps around int64": lambda m, d, v: _t(m, [2 ** 64 - 1 if d == m.uint64 else 7], d,
                                                 v).sum(),
    "prod over a dim": lambda m, d, v: _t(m, [[1, 2], [3, 4]], d, v).prod(1, keepdim=True),
    "any over a dim": lambda m, d, v: _t(m, [[0, 2], [0, 0]], d, v).any(1),
    "msort": lambda m, d, v: m.msort(_t(m, [3, 1, 2], d, v)),
    "unique over a dim": lambda m, d, v: m.unique(_t(m, [[3, 1], [3, 1]], d, v), dim=0),
    "median": lambda m, d, v: _t(m, [3, 1, 2], d, v).median(),
    "kthvalue": lambda m, d, v: _t(m, [3, 1, 2], d, v).kthvalue(1),
    "sum as float32": lambda m, d, v: _t(m, [1, 2], d, v).sum(dtype=m.float32),
    "sum as the shell": lambda m, d, v: _t(m, [1, 2], d, v).sum(dtype=d),
    "prod": lambda m, d, v: _t(m, [2, 3], d, v).prod(),
    "cumsum": lambda m, d, v: _t(m, [1, 2, 3], d, v).cumsum(0),
    "cumprod": lambda m, d, v: _t(m, [1, 2, 3], d, v).cumprod(0),
    "nansum": lambda m, d, v: _t(m, [1, 2], d, v).nansum(),
    "any": lambda m, d, v: _t(m, [0, 2], d, v).any(),
    "all": lambda m, d, v: _t(m, [0, 2], d, v).all(),
    "mean": lambda m, d, v: _t(m, [1, 2], d, v).mean(),
    "max": lambda m, d, v: _t(m, [1, 2], d, v).max(),
    "amax": lambda m, d, v: _t(m, [1, 2], d, v).amax(),
    "argmax": lambda m, d, v: _t(m, [1, 2], d, v).argmax(),
    "sort": lambda m, d, v: _t(m, [3, 1, 2], d, v).sort(),
    "sort descending": lambda m, d, v: _t(m, [3, 1, 2], d, v).sort(descending=True),
    "argsort": lambda m, d, v: _t(m, [3, 1, 2], d, v).argsort(),
    "topk": lambda m, d, v: _t(m, [3, 1, 2], d, v).topk(1),
    "unique": lambda m, d, v: m.unique(_t(m, [3, 1, 3], d, v), return_inverse=True,
                                       return_counts=True),
    "unique_consecutive": lambda m, d, v: m.unique_consecutive(_t(m, [3, 3, 1], d, v)),
    "nonzero": lambda m, d, v: _t(m, [0, 2], d, v).nonzero(),
    "count_nonzero": lambda m, d, v: m.count_nonzero(_t(m, [0, 2], d, v)),
}


def _set(tensor, index, value):
    tensor[index] = value
    return tensor


def mt_or_torch_pad(m, tensor):
    return (m.nn.functional.pad)(tensor, (1, 1))


@pytest.mark.parametrize("dtype", SHELLS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_ops_on_shell_dtypes_do_what_pytorch_does(case, dtype, device):
    function = CASES[case]
    assert _outcome(function, mt, dtype, device) == _outcome(function, torch, dtype, "cpu")


@pytest.mark.parametrize("dtype", SHELLS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_meta_tensors_succeed_and_fail_as_cpu_tensors(case, dtype):
    """The shape rules and refusals are the same on meta: what the CPU refuses meta refuses
    alike, and what runs on the CPU runs on meta as it does for int64 (meta refuses to read
    values and data-dependent shapes, as ``nonzero``, of every dtype)."""
    function = CASES[case]
    on_cpu, on_meta = (_outcome(function, mt, dtype, where, read=False)
                       for where in ("cpu", "meta"))
    as_int64 = _outcome(function, mt, "int64", "meta", read=False)
    if on_cpu[0] == "error":  # (or meta's own refusal first, as for every dtype)
        assert on_meta == on_cpu or (on_meta[0] == "error" and on_meta == as_int64)
    else:
        assert on_meta == as_int64


# -- promotion ------------------------------------------------------------------------------
def _promotion(module, a: str, b: str, shapes):
    x, y = (module.ones(s, dtype=getattr(module, d)) for d, s in zip((a, b), shapes))
    outcomes = []
    for function in (lambda: module.result_type(x, y), lambda: (x * y).dtype,
                     lambda: module.promote_types(x.dtype, y.dtype)):
        try:
            outcomes.append(str(function()))
        except RuntimeError as error:
            outcomes.append(str(error).split(";")[0])
    return outcomes


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((3,), ()), ((), (3,)), ((), ())],
                         ids=["1d-1d", "1d-0d", "0d-1d", "0d-0d"])
def test_promotion_with_every_dtype_is_pytorchs_result_or_its_error(shapes):
    pairs = [(a, b) for a, b in itertools.product(SHELLS + OTHERS, SHELLS + OTHERS)
             if a in SHELLS or b in SHELLS]
    wrong = [(a, b, _promotion(mt, a, b, shapes), _promotion(torch, a, b, shapes))
             for a, b in pairs if _promotion(mt, a, b, shapes) != _promotion(torch, a, b, shapes)]
    assert not wrong


def test_the_promotion_error_names_both_dtypes_and_a_way_out():
    with pytest.raises(RuntimeError, match=r"^Promotion for uint16, uint32, uint64 types is not "
                                           r"supported, attempted to promote UInt32 and Int; "
                                           r"convert one operand first, e\.g\. with \.to"):
        mt.ones(2, dtype=mt.uint32) * mt.ones(2, dtype=mt.int32)


@pytest.mark.parametrize("scalar", [2, -1, 2.5, True, 2 ** 64 - 1, 2 ** 63])
@pytest.mark.parametrize("dtype", SHELLS)
def test_result_type_with_python_numbers(dtype, scalar):
    ours = _outcome(lambda m, d, v: m.result_type(m.ones(2, dtype=d, device=v), scalar), mt,
                    dtype, "cpu")
    assert ours == _outcome(lambda m, d, v: m.result_type(m.ones(2, dtype=d), scalar), torch,
                            dtype, "cpu")


def test_a_bool_tensor_with_an_int_beyond_int64_is_refused_as_uint64():
    with pytest.raises(RuntimeError, match="attempted to promote Bool and UInt64"):
        mt.result_type(mt.tensor([True]), 2 ** 63)


@pytest.mark.parametrize("pair", list(itertools.product(SHELLS, SHELLS + OTHERS)))
def test_can_cast_is_pytorchs(pair):
    a, b = pair
    assert mt.can_cast(getattr(mt, a), getattr(mt, b)) == \
        torch.can_cast(getattr(torch, a), getattr(torch, b))
    assert mt.can_cast(getattr(mt, b), getattr(mt, a)) == \
        torch.can_cast(getattr(torch, b), getattr(torch, a))


# -- the dtype objects, limits, names, printing, saving ---------------------------------------
@pytest.mark.parametrize("dtype", SHELLS)
def test_the_dtype_objects(dtype):
    ours, theirs = getattr(mt, dtype), getattr(torch, dtype)
    assert repr(ours) == repr(theirs) == f"torch.{dtype}" and str(ours) == str(theirs)
    assert ours.itemsize == theirs.itemsize and not ours.is_floating_point
    assert dtypes.from_name(dtype) is ours and dtypes.to_dtype(np.dtype(dtype)) is ours
    assert dtype in mt.__all__ and ours in dtypes.UNSIGNED_SHELL
    assert pickle.loads(pickle.dumps(ours)) is ours


@pytest.mark.parametrize("dtype", SHELLS)
def test_iinfo(dtype):
    ours, theirs = mt.iinfo(getattr(mt, dtype)), torch.iinfo(getattr(torch, dtype))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == \
        (theirs.bits, theirs.min, theirs.max, theirs.dtype)
    assert type(ours.max) is int and repr(ours) == repr(theirs)
    with pytest.raises(TypeError, match="floating point"):
        mt.finfo(getattr(mt, dtype))
    with pytest.raises(TypeError, match="floating-point types"):
        mt.set_default_dtype(getattr(mt, dtype))


@pytest.mark.parametrize("dtype", SHELLS)
def test_tensor_type_names(dtype):
    ours = mt.ones(2, dtype=getattr(mt, dtype))
    assert ours.type() == torch.ones(2, dtype=getattr(torch, dtype)).type()
    assert ours.type() == f"torch.{dtypes.SCALAR_TYPE_NAMES[ours.dtype]}Tensor"
    assert ours.to("meta").type() == f"torch.meta.{dtypes.SCALAR_TYPE_NAMES[ours.dtype]}Tensor"
    assert not hasattr(mt, f"{dtypes.SCALAR_TYPE_NAMES[ours.dtype]}Tensor")  # nor has torch


@pytest.mark.parametrize("values", [[1, 2, 3], [], 5, [[0, 65535], [7, 8]]], ids=str)
@pytest.mark.parametrize("dtype", SHELLS)
def test_repr_is_pytorchs(dtype, values):
    assert repr(mt.tensor(values, dtype=getattr(mt, dtype))) == \
        repr(torch.tensor(values, dtype=getattr(torch, dtype)))


def test_repr_of_the_largest_uint64():
    big = [2 ** 64 - 1, 1]
    assert repr(mt.tensor(big, dtype=mt.uint64)) == repr(torch.tensor(big, dtype=torch.uint64))
    assert repr(mt.ones(2, dtype=mt.uint16, device="meta")) == \
        repr(torch.ones(2, dtype=torch.uint16, device="meta"))


@pytest.mark.parametrize("dtype", SHELLS)
def test_numpy_round_trip(dtype, device):
    array = np.array([0, 7, np.iinfo(dtype).max], dtype=dtype)
    ours = mt.tensor(array, device=device)
    assert ours.dtype is getattr(mt, dtype) and ours.device == tensor_device(device)
    assert ours.cpu().numpy().dtype == np.dtype(dtype)
    assert ours.cpu().numpy().tolist() == array.tolist() == ours.tolist()
    assert mt.from_numpy(array).dtype is getattr(mt, dtype)
    assert mt.as_tensor(array).numpy().tolist() == array.tolist()
    assert type(ours[2].item()) is int and ours[2].item() == np.iinfo(dtype).max


@pytest.mark.parametrize("dtype", SHELLS)
def test_save_and_load_keep_dtype_and_values(dtype, device, tmp_path):
    ours = mt.tensor([1, 2, np.iinfo(dtype).max], dtype=getattr(mt, dtype), device=device)
    mt.save({"x": ours}, tmp_path / "x.pt")
    loaded = mt.load(tmp_path / "x.pt")["x"]
    assert loaded.dtype is ours.dtype and loaded.tolist() == ours.tolist()
    assert loaded.device == tensor_device(device)
    assert pickle.loads(pickle.dumps(ours)).tolist() == ours.tolist()


# -- what the refusals say, and the table they read -------------------------------------------
@pytest.mark.parametrize("dtype", SHELLS)
def test_the_refusal_names_the_op_and_the_dtype_on_every_device(dtype, any_device):
    x = mt.ones(2, dtype=getattr(mt, dtype), device=any_device)
    name = dtypes.SCALAR_TYPE_NAMES[x.dtype]
    with pytest.raises(NotImplementedError, match=f"^\"neg\" not implemented for '{name}': .*"
                                                  r"\.to\(torch\.int64\)"):
        x.neg()
    with pytest.raises(NotImplementedError, match=f"^\"arange\" not implemented for '{name}'"):
        mt.arange(3, dtype=x.dtype, device=any_device)


def test_every_supported_op_names_a_function_class():
    from minitorch_meta.ops.function import Function

    for key in unsigned_shell.SUPPORTED:
        module, name = key.split(".")
        cls = getattr(__import__(f"minitorch_meta.ops.{module}", fromlist=[name]), name)
        assert issubclass(cls, Function), key


@pytest.mark.parametrize("dtype", SHELLS)
def test_shell_tensors_take_no_gradient(dtype):
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype"):
        mt.ones(2, dtype=getattr(mt, dtype), requires_grad=True)


@pytest.mark.parametrize("shell", ["uint16", "uint32", "uint64"])
@pytest.mark.parametrize("complex_dtype", ["complex64", "complex128"])
def test_shell_dtypes_do_not_promote_with_complex_tensors(shell, complex_dtype, torch_ref):
    """A complex tensor does not win over a shell dtype (PyTorch refuses); a Python complex
    scalar does (the scalar rule)."""
    for lib in (torch_ref, mt):
        a, b = getattr(lib, shell), getattr(lib, complex_dtype)
        with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64"):
            lib.promote_types(a, b)
        with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64"):
            lib.ones(2, dtype=a) + lib.ones(2, dtype=b)
    assert (mt.ones(2, dtype=getattr(mt, shell)) * 1j).dtype is mt.complex64

"""``Tensor.output_nr`` and the ``input_nr`` of ``grad_fn.next_functions``, against PyTorch.

PyTorch gives the outputs of a multi-output op one graph node and numbers them; here each
output has a node of its own, numbered the same, and ``next_functions`` shows the op's one
node (``autograd/graph_node.py``). Checked: the numbers of every multi-output op's outputs,
and a torchviz-style walk (nodes keyed by id) of graphs through them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.autograd.graph_walk import walk


def _matrix(lib, device, symmetric=False):
    values = np.array([[4.0, 1.0, 0.5, 0.2], [1.0, 3.0, 0.3, 0.1],
                       [0.5, 0.3, 5.0, 0.7], [0.2, 0.1, 0.7, 2.0]])
    if not symmetric:
        values = values + np.triu(np.full((4, 4), 0.25), 1)
    kwargs = {"device": device} if lib is mt else {}
    return lib.tensor(values, dtype=lib.float64, requires_grad=True, **kwargs)


def _indices(lib, device, values):
    kwargs = {"device": device} if lib is mt else {}
    return lib.tensor(values, **kwargs)


# name -> outputs of one call on the 4 x 4 matrix ``x`` (``s``: symmetric positive definite)
CASES = {
    "split": lambda lib, x, s, d: x.split(2),
    "split_sizes": lambda lib, x, s, d: x.split([1, 3], 1),
    "split_with_sizes": lambda lib, x, s, d: lib.split_with_sizes(x, [3, 1]),
    "unsafe_split": lambda lib, x, s, d: lib.unsafe_split(x, 2),
    "unbind": lambda lib, x, s, d: x.unbind(1),
    "unbind_negative_dim": lambda lib, x, s, d: lib.unbind(x, -2),
    "chunk": lambda lib, x, s, d: x.chunk(3, 1),
    "chunk_empty": lambda lib, x, s, d: x[:, :0].chunk(3, 1),
    "tensor_split": lambda lib, x, s, d: x.tensor_split(3),
    "hsplit": lambda lib, x, s, d: x.hsplit(2),
    "max_dim": lambda lib, x, s, d: x.max(0),
    "min_dim": lambda lib, x, s, d: x.min(1),
    "sort": lambda lib, x, s, d: x.sort(),
    "topk": lambda lib, x, s, d: x.topk(2),
    "kthvalue": lambda lib, x, s, d: x.kthvalue(2),
    "mode": lambda lib, x, s, d: x.mode(),
    "median_dim": lambda lib, x, s, d: x.median(0),
    "cummax": lambda lib, x, s, d: x.cummax(0),
    "aminmax": lambda lib, x, s, d: lib.aminmax(x),
    "aminmax_dim": lambda lib, x, s, d: lib.aminmax(x, dim=0, keepdim=True),
    "var_mean": lambda lib, x, s, d: lib.var_mean(x, 1),
    "std_mean": lambda lib, x, s, d: lib.std_mean(x, correction=0),
    "frexp": lambda lib, x, s, d: lib.frexp(x),
    "lu_factor": lambda lib, x, s, d: lib.linalg.lu_factor(x),
    "lu_factor_ex": lambda lib, x, s, d: lib.linalg.lu_factor_ex(x),
    "lu": lambda lib, x, s, d: lib.linalg.lu(x),
    "lu_unpack": lambda lib, x, s, d: lib.lu_unpack(*lib.linalg.lu_factor(x)),
    "qr": lambda lib, x, s, d: lib.linalg.qr(x),
    "qr_r": lambda lib, x, s, d: lib.linalg.qr(x, mode="r"),
    "eigh": lambda lib, x, s, d: lib.linalg.eigh(s),
    "svd": lambda lib, x, s, d: lib.linalg.svd(x),
    "svd_legacy": lambda lib, x, s, d: lib.svd(x),
    "slogdet": lambda lib, x, s, d: lib.linalg.slogdet(x),
    "slogdet_legacy": lambda lib, x, s, d: lib.slogdet(x),
    "inv_ex": lambda lib, x, s, d: lib.linalg.inv_ex(x),
    "cholesky_ex": lambda lib, x, s, d: lib.linalg.cholesky_ex(s),
    "solve_ex": lambda lib, x, s, d: lib.linalg.solve_ex(x, s),
    "geqrf": lambda lib, x, s, d: lib.geqrf(x),
    "triangular_solve": lambda lib, x, s, d: _triangular_solve(lib, x, s),
    "max_pool2d_indices": lambda lib, x, s, d: lib.nn.functional.max_pool2d(
        x[None, None], 2, return_indices=True),
    "adaptive_max_pool1d_indices": lambda lib, x, s, d: lib.nn.functional.adaptive_max_pool1d(
        x[None], 2, return_indices=True),
    "embedding_bag": lambda lib, x, s, d: lib.embedding_bag(
        x, _indices(lib, d, [1, 2, 3, 0]), _indices(lib, d, [0, 2])),
    "native_batch_norm": lambda lib, x, s, d: lib.native_batch_norm(
        x, None, None, None, None, True, 0.1, 1e-5),
    "native_layer_norm": lambda lib, x, s, d: lib.native_layer_norm(x, [4], None, None, 1e-5),
    "meshgrid": lambda lib, x, s, d: lib.meshgrid(x[0], x[1], indexing="ij"),
    "broadcast_tensors": lambda lib, x, s, d: lib.broadcast_tensors(x, x[0]),
    "gru": lambda lib, x, s, d: _seeded_module(lib, lib.nn.GRU, d)(x[None])[1:],
    "lstm": lambda lib, x, s, d: _seeded_module(lib, lib.nn.LSTM, d)(x[None])[1],
}

# what the walk of a graph through each op's outputs may reach, as PyTorch's
WALKS = {
    "cat_of_split": lambda lib, x, s: lib.cat(list(reversed(x.split(2)))),
    "sum_of_unbind": lambda lib, x, s: sum(x.unbind()),
    "cat_of_chunk": lambda lib, x, s: lib.cat(x.chunk(2, 1), 1),
    "qr": lambda lib, x, s: lib.add(*lib.linalg.qr(x)),
    "qr_second_output_alone": lambda lib, x, s: lib.linalg.qr(x)[1],
    "aminmax": lambda lib, x, s: lib.sub(*reversed(lib.aminmax(x, dim=1))),
    "svd": lambda lib, x, s: sum(t.sum() for t in lib.linalg.svd(x, full_matrices=False)),
    "slogdet": lambda lib, x, s: lib.mul(*lib.linalg.slogdet(x)),
    "eigh": lambda lib, x, s: lib.linalg.eigh(s)[1] * lib.linalg.eigh(s)[0],
    "lu": lambda lib, x, s: lib.matmul(*lib.linalg.lu(x)[1:]),
    "lu_unpack": lambda lib, x, s: lib.matmul(*lib.lu_unpack(*lib.linalg.lu_factor(x))[1:]),
    "geqrf": lambda lib, x, s: lib.geqrf(x)[0].sum() + lib.geqrf(x)[1].sum(),
    "split_of_split": lambda lib, x, s: lib.cat(x.split(2)[1].split(1, 1)),
}


def _seeded_module(lib, cls, device):
    """A recurrent layer of 4 -> 3 features with PyTorch's weights (float64)."""
    layer = cls(4, 3).double()
    if lib is mt:
        return layer.to(device)
    return layer


def _triangular_solve(lib, x, s):
    if lib is not mt:  # PyTorch warns once per process: an earlier test may have had it
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.triangular_solve(x, s.triu())
    with pytest.warns(UserWarning, match="deprecated"):
        return lib.triangular_solve(x, s.triu())


def _numbers(outputs) -> list:
    """(output_nr, grad_fn name) of each tensor output (a non-tensor as itself)."""
    if not isinstance(outputs, (tuple, list)):
        outputs = (outputs,)
    return [(o.output_nr, o.grad_fn.name() if o.grad_fn is not None else None)
            if hasattr(o, "output_nr") else o for o in outputs]


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_nr_of_each_output_is_pytorchs(name, device, torch_ref):
    build = CASES[name]
    theirs = _numbers(build(torch_ref, _matrix(torch_ref, None),
                            _matrix(torch_ref, None, symmetric=True), None))
    ours = _numbers(build(mt, _matrix(mt, device), _matrix(mt, device, symmetric=True), device))
    assert ours == theirs


@pytest.mark.parametrize("name", sorted(WALKS))
def test_graph_walk_through_multi_output_ops_is_pytorchs(name, device, torch_ref):
    """One node per multi-output op, reached once per output used, as in PyTorch."""
    build = WALKS[name]
    theirs = walk(build(torch_ref, _matrix(torch_ref, None),
                         _matrix(torch_ref, None, symmetric=True)))
    ours = walk(build(mt, _matrix(mt, device), _matrix(mt, device, symmetric=True)))
    assert ours == theirs


def test_cat_of_pieces_lists_one_node_with_each_pieces_number(any_device):
    x = mt.ones(4, 2, requires_grad=True, device=any_device)
    a, b, c = x.split([1, 1, 2])
    pairs = mt.cat([c, a, b]).grad_fn.next_functions
    assert [nr for _, nr in pairs] == [2, 0, 1]
    node = pairs[0][0]
    assert all(n is node for n, _ in pairs)
    assert node is a.grad_fn  # the first piece's node stands for the op
    assert node.next_functions == ((x._accumulator(), 0),)


def test_a_linalg_result_shows_the_decompositions_node(any_device):
    """The views that cut the flat result of QR into Q and R are ours alone: both outputs'
    nodes show the op's one node, whose edges lead to the input (meta too)."""
    x = _matrix(mt, any_device)
    q, r = mt.linalg.qr(x)
    (node_q, nr_q), (node_r, nr_r) = (q + r).grad_fn.next_functions
    assert (nr_q, nr_r) == (0, 1) and node_q is node_r
    assert node_q.name() == "LinalgQrBackward0"
    assert node_q.next_functions == r.grad_fn.next_functions == ((x._accumulator(), 0),)


@pytest.mark.parametrize("lib_name", ["mt", "torch"])
def test_numbers_outlive_backward(lib_name, device, torch_ref):
    """The nodes of aminmax save arrays, which backward frees; the numbers stay."""
    lib = mt if lib_name == "mt" else torch_ref
    x = _matrix(lib, device if lib is mt else None)
    low, high = lib.aminmax(x, dim=0)
    (high - low).sum().backward()
    assert (low.output_nr, high.output_nr) == (0, 1)
    assert [nr for _, nr in (high * low).grad_fn.next_functions] == [1, 0]


def test_leaves_and_untracked_results_are_output_zero(device, torch_ref):
    for lib in (mt, torch_ref):
        kwargs = {"device": device} if lib is mt else {}
        leaf = lib.ones(3, requires_grad=True, **kwargs)
        plain = lib.ones(3, **kwargs)
        with lib.no_grad():
            pieces = leaf.split(1)
        assert leaf.output_nr == plain.output_nr == 0
        assert [p.output_nr for p in pieces] == [0, 0, 0]
        assert (leaf * 2).output_nr == 0
        assert leaf.split(1)[2].detach().output_nr == 0


def test_views_of_a_numbered_output_are_output_zero(device, torch_ref):
    for lib in (mt, torch_ref):
        x = _matrix(lib, device if lib is mt else None)
        low, high = lib.aminmax(x, dim=0)
        piece = x.split(2)[1]
        assert [t.output_nr for t in (high[0], high.view(2, 2), piece.t(), piece[0])] == [0] * 4
        assert high.output_nr == piece.output_nr == 1


def test_in_place_write_into_an_untracked_piece_keeps_output_zero(device, torch_ref):
    for lib in (mt, torch_ref):
        kwargs = {"device": device} if lib is mt else {}
        with lib.no_grad():
            pieces = lib.zeros(4, **kwargs).split(2)
        pieces[1].add_(1)
        assert pieces[1].output_nr == 0 and pieces[1].grad_fn is None


def test_single_output_ops_set_nothing_on_their_node(device):
    """The numbering costs nothing on the path of a single-output op: the class defaults."""
    x = mt.ones(2, 2, requires_grad=True, device=device)
    node = (x * 2).grad_fn
    assert "_output_nr" not in vars(node) and "_shared_node" not in vars(node)
    assert node.next_functions == ((x._accumulator(), 0),)


def test_output_nr_is_read_only(torch_ref):
    for lib in (mt, torch_ref):
        with pytest.raises(AttributeError):
            lib.ones(1).output_nr = 1


def _numbered_forward(ctx, t):
    marked = t * 2
    ctx.mark_non_differentiable(marked)
    return t * 3, t.argmax(), marked, 5, t * 4


def _numbered_backward(ctx, a, b, c, d, e):
    return a * 3 + e * 4


def _numbered_class(lib):
    """Five outputs: differentiable, an index, a marked one, a Python number, differentiable."""

    class Numbered(lib.autograd.Function):  # both frameworks name the node after the class
        forward = staticmethod(_numbered_forward)
        backward = staticmethod(_numbered_backward)

    return Numbered


def test_custom_function_numbers_outputs_by_position(device, torch_ref):
    """PyTorch counts every output of a custom Function, Python numbers included."""
    results = []
    for lib in (mt, torch_ref):
        kwargs = {"device": device} if lib is mt else {}
        x = lib.ones(3, dtype=lib.float64, requires_grad=True, **kwargs)
        outputs = _numbered_class(lib).apply(x)
        pairs = (outputs[4] + outputs[0]).grad_fn.next_functions
        results.append((_numbers(outputs)[0::4], [nr for _, nr in pairs],
                        pairs[0][0] is pairs[1][0],
                        [type(n).__name__ for n, _ in pairs[0][0].next_functions]))
    assert results[0] == results[1] == (
        [(0, "NumberedBackward"), (4, "NumberedBackward")], [4, 0], True, ["AccumulateGrad"])


def test_custom_function_with_one_differentiable_output_after_another(device, torch_ref):
    numbers = []
    for lib in (mt, torch_ref):
        kwargs = {"device": device} if lib is mt else {}

        class Second(lib.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t.argmax(), t * 2

            @staticmethod
            def backward(ctx, index_grad, grad):
                return grad * 2

        x = lib.ones(3, dtype=lib.float64, requires_grad=True, **kwargs)
        index, doubled = Second.apply(x)
        numbers.append((index.output_nr, doubled.output_nr,
                        (doubled * 1).grad_fn.next_functions[0][1]))
    assert numbers[0] == numbers[1] == (0, 1, 1)


def test_module_backward_hook_nodes_are_pytorchs(device, torch_ref):
    """A module with a full backward hook: one node for its inputs, one for its outputs."""
    walks = []
    for lib in (mt, torch_ref):
        kwargs = {"device": device} if lib is mt else {}

        class Three(lib.nn.Module):
            def forward(self, a, b):
                return a * b, b.exp(), a + b

        module = Three()
        module.register_full_backward_hook(lambda *args: None)
        a = lib.ones(3, requires_grad=True, **kwargs)
        b = lib.ones(3, requires_grad=True, **kwargs)
        outputs = module(a, b)
        walks.append(([o.output_nr for o in outputs], walk(outputs[0] + outputs[2])))
    assert walks[0] == walks[1]
    assert walks[0][0] == [0, 1, 2]


def test_cond_numbers_its_outputs(device, torch_ref):
    numbers = []
    validating = torch_ref.distributions.Distribution._validate_args
    try:
        for lib in (mt, torch_ref):
            x = _matrix(lib, device if lib is mt else None)
            outputs = lib.cond(x.sum() > 0, lambda a: (a * 2, a + 1), lambda a: (a * 3, a - 1),
                               (x,))
            numbers.append((_numbers(outputs),
                            [nr for _, nr in lib.sub(*outputs[::-1]).grad_fn.next_functions]))
    finally:
        # PyTorch's eager cond switches off its distributions' argument checks for good
        torch_ref.distributions.Distribution.set_default_validate_args(validating)
    assert numbers[0] == numbers[1] == ([(0, "CondAutogradOpBackward"),
                                         (1, "CondAutogradOpBackward")], [1, 0])

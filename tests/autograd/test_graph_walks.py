"""Graph walks (``grad_fn``, ``name()``, ``next_functions``, as torchviz draws them)
against PyTorch's, op by op.

An op that PyTorch computes in one node shows one node here too, even where we compose
it of other ops (``autograd/graph_node.py``: ``show_as_op``): the walk from its output
reaches its inputs' nodes next. ``KNOWN_DIFFERENCES`` lists the ops whose walk still
differs, each with why (docs/differences.md, "Graph walks"); they are strict xfails, so
one that comes to match fails until it leaves the list.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.autograd.graph_walk import walk

M = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.3], [0.5, 0.3, 5.0]]


class Inputs:
    """Fresh float64 leaves that require grad, and index tensors, in one framework."""

    def __init__(self, lib, device):
        self.lib = lib
        self.kwargs = {"device": device} if lib is mt else {}

    def leaf(self, values):
        return self.lib.tensor(np.array(values, dtype=np.float64), requires_grad=True,
                               **self.kwargs)

    def index(self, values):
        return self.lib.tensor(values, **self.kwargs)

    def x(self):  # a 3 x 3 symmetric positive definite matrix
        return self.leaf(M)

    def v(self):
        return self.leaf([0.5, -1.0, 2.0])

    def img(self):  # (2, 4, 3, 3)
        return self.leaf(np.arange(72).reshape(2, 4, 3, 3) / 10.0)


def _sum(outputs):
    """One root for a multi-output op: the sum of its differentiable outputs' sums (the
    walk then passes through the op's one node once per output used)."""
    return sum(o.sum() for o in outputs if getattr(o, "requires_grad", False))


# name -> the root of a graph, built from ``Inputs`` ``a`` in library ``L``
CASES = {
    # composed here, one node in PyTorch (``show_as_op``)
    "var": lambda L, a: L.var(a.x(), 0),
    "std": lambda L, a: a.x().std(),
    "std_dim_keepdim": lambda L, a: a.x().std(1, keepdim=True),
    "var_mean": lambda L, a: _sum(L.var_mean(a.x(), 1)),
    "std_mean": lambda L, a: _sum(L.std_mean(a.x())),
    "stack": lambda L, a: L.stack([a.v(), a.v()]),
    "stack_one": lambda L, a: L.stack([a.v()], 1),
    "softmax": lambda L, a: L.softmax(a.x(), 1),
    "softmax_dtype": lambda L, a: L.softmax(a.x(), 1, dtype=L.float32),
    "F_softmax": lambda L, a: L.nn.functional.softmax(a.x(), 0),
    "softmin": lambda L, a: L.nn.functional.softmin(a.x(), 1),
    "aminmax": lambda L, a: _sum(L.aminmax(a.x(), dim=0)),
    "lstsq": lambda L, a: L.linalg.lstsq(a.x(), a.leaf([[1.0], [2.0], [3.0]])).solution,
    "lstsq_residuals": lambda L, a: _sum(L.linalg.lstsq(
        a.leaf(np.arange(12.0).reshape(4, 3) ** 1.5), a.leaf([[1.0], [2.0], [3.0], [5.0]]),
        driver="gelsd")),
    "dist": lambda L, a: L.dist(a.v(), a.v()),
    "dist_p1": lambda L, a: L.dist(a.v(), a.v(), 1),
    "renorm": lambda L, a: a.x().renorm(2, 0, 1.0),
    "pixel_shuffle": lambda L, a: L.nn.functional.pixel_shuffle(a.img(), 2),
    "pixel_unshuffle": lambda L, a: L.nn.functional.pixel_unshuffle(
        a.leaf(np.ones((1, 1, 4, 4))), 2),
    "batch_norm": lambda L, a: L.nn.functional.batch_norm(a.img(), None, None,
                                                          training=True),
    "batch_norm_affine": lambda L, a: L.nn.functional.batch_norm(
        a.img(), None, None, a.leaf([1.0, 2.0, 3.0, 4.0]), a.leaf([0.0, 1.0, 0.0, 1.0]),
        training=True),
    "batch_norm_eval": lambda L, a: L.nn.functional.batch_norm(
        a.img(), L.zeros(4, dtype=L.float64, **a.kwargs),
        L.ones(4, dtype=L.float64, **a.kwargs)),
    "native_batch_norm": lambda L, a: _sum(L.native_batch_norm(
        a.img(), None, None, None, None, True, 0.1, 1e-5)),
    "householder_product": lambda L, a: L.linalg.householder_product(a.x(), a.v()[:2]),
    "ormqr": lambda L, a: L.ormqr(a.x(), a.v(), a.x()),
    "triangular_solve": lambda L, a: _sum(L.triangular_solve(a.x(), a.x().triu())),
    "cond": lambda L, a: L.linalg.cond(a.x()),
    "svdvals": lambda L, a: L.linalg.svdvals(a.x()),
    "matrix_norm_2": lambda L, a: L.linalg.matrix_norm(a.x(), 2),
    "matrix_norm_nuc": lambda L, a: L.linalg.matrix_norm(a.x(), "nuc"),
    "ldexp": lambda L, a: L.ldexp(a.v(), a.v()),
    "expand_copy": lambda L, a: L.expand_copy(a.v(), (2, 3)),
    "transpose_copy": lambda L, a: L.transpose_copy(a.x(), 0, 1),
    "unbind_copy": lambda L, a: L.sub(*L.unbind_copy(a.x())[1:]),
    "alias_copy": lambda L, a: L.alias_copy(a.x()),
    "norm_except_dim": lambda L, a: L.norm_except_dim(a.x(), 2, 1),
    "ldl_factor": lambda L, a: L.linalg.ldl_factor(a.x())[0],
    "fill": lambda L, a: L.fill(a.x(), 1.0),
    "fill_tensor": lambda L, a: L.fill(a.x(), a.leaf(2.0)),
    "fill_tensor_of_constant": lambda L, a: L.fill(a.x().detach(), a.leaf(2.0)),
    "unique": lambda L, a: L.unique(a.x()),
    "unique_dim": lambda L, a: L.unique(a.x(), dim=0, return_counts=True)[0],
    # ops of one node in both, or composed alike
    "group_norm": lambda L, a: L.nn.functional.group_norm(a.img(), 2),
    "layer_norm": lambda L, a: L.nn.functional.layer_norm(a.x(), [3]),
    "dropout_eval": lambda L, a: L.nn.functional.dropout(a.x(), 0.5, training=False),
    "dropout_zero": lambda L, a: L.nn.functional.dropout(a.x(), 0.0),
    "matrix_norm_fro": lambda L, a: L.linalg.matrix_norm(a.x()),
    "logsumexp": lambda L, a: L.logsumexp(a.x(), 1),
    "cross_entropy": lambda L, a: L.nn.functional.cross_entropy(a.x(), a.index([0, 2, 1])),
    "mse_loss": lambda L, a: L.nn.functional.mse_loss(a.x(), a.x()),
    "huber_loss": lambda L, a: L.nn.functional.huber_loss(a.x(), a.x()),
    "bce_logits": lambda L, a: L.nn.functional.binary_cross_entropy_with_logits(a.x(), a.x()),
    "nll_loss": lambda L, a: L.nn.functional.nll_loss(a.x(), a.index([0, 2, 1])),
    "gelu": lambda L, a: L.nn.functional.gelu(a.x()),
    "silu": lambda L, a: L.nn.functional.silu(a.x()),
    "mish": lambda L, a: L.nn.functional.mish(a.x()),
    "hardswish": lambda L, a: L.nn.functional.hardswish(a.x()),
    "glu": lambda L, a: L.nn.functional.glu(a.x()[:, :2], 1),
    "linear": lambda L, a: L.nn.functional.linear(a.x(), a.x(), a.v()),
    "conv2d": lambda L, a: L.nn.functional.conv2d(a.img(), a.leaf(np.ones((2, 4, 2, 2)))),
    "max_pool2d": lambda L, a: L.nn.functional.max_pool2d(a.img(), 2),
    "avg_pool2d": lambda L, a: L.nn.functional.avg_pool2d(a.img(), 2),
    "adaptive_avg_pool2d": lambda L, a: L.nn.functional.adaptive_avg_pool2d(a.img(), 1),
    "interpolate_bilinear": lambda L, a: L.nn.functional.interpolate(
        a.img(), scale_factor=2, mode="bilinear"),
    "embedding": lambda L, a: L.nn.functional.embedding(a.index([0, 2]), a.x()),
    "addcmul": lambda L, a: L.addcmul(a.v(), a.v(), a.v()),
    "lerp": lambda L, a: L.lerp(a.v(), a.v(), a.v()),
    "where": lambda L, a: L.where(a.x() > 1, a.x(), a.x()),
    "cumprod": lambda L, a: a.x().cumprod(0),
    "logcumsumexp": lambda L, a: a.x().logcumsumexp(0),
    "prod": lambda L, a: a.x().prod(),
    "norm": lambda L, a: a.x().norm(),
    "det": lambda L, a: L.linalg.det(a.x()),
    "slogdet": lambda L, a: _sum(L.linalg.slogdet(a.x())),
    "inv": lambda L, a: L.linalg.inv(a.x()),
    "cholesky": lambda L, a: L.linalg.cholesky(a.x()),
    "pinv": lambda L, a: L.linalg.pinv(a.x()),
    "matrix_exp": lambda L, a: L.linalg.matrix_exp(a.x()),
    "eigvalsh": lambda L, a: L.linalg.eigvalsh(a.x()),
    "cdist": lambda L, a: L.cdist(a.x(), a.x()),
    "repeat": lambda L, a: a.x().repeat(2, 1),
    "sort": lambda L, a: _sum(a.x().sort()),
    "median": lambda L, a: a.x().median(),
    "logit": lambda L, a: L.sigmoid(a.x()).logit(),
    "xlogy": lambda L, a: L.xlogy(a.v(), a.v()),
    "cov": lambda L, a: L.cov(a.x()),
    "diff": lambda L, a: L.diff(a.v()),
    "unfold": lambda L, a: L.nn.functional.unfold(a.img(), 2),
    "pad": lambda L, a: L.nn.functional.pad(a.x(), (1, 1)),
    "scatter": lambda L, a: a.x().scatter(1, a.index([[0], [1], [2]]), a.leaf([[1.0]] * 3)),
    "embedding_bag": lambda L, a: L.nn.functional.embedding_bag(
        a.index([0, 1, 2]), a.x(), a.index([0, 1])),
    "grid_sample": lambda L, a: L.nn.functional.grid_sample(
        a.img()[:1], a.leaf(np.zeros((1, 2, 2, 2))), align_corners=False),
    "conv_transpose2d": lambda L, a: L.nn.functional.conv_transpose2d(
        a.img(), a.leaf(np.ones((4, 2, 2, 2)))),
    # composed in both frameworks, of other ops (KNOWN_DIFFERENCES says how)
    "pairwise_distance": lambda L, a: L.nn.functional.pairwise_distance(a.x(), a.x()),
    "triplet_margin_loss": lambda L, a: L.nn.functional.triplet_margin_loss(
        a.x(), a.x(), a.x()),
    "margin_ranking_loss": lambda L, a: L.nn.functional.margin_ranking_loss(
        a.v(), a.v(), a.leaf([1.0, -1.0, 1.0]).detach()),
    "hinge_embedding_loss": lambda L, a: L.nn.functional.hinge_embedding_loss(
        a.x(), a.leaf([1.0, -1.0, 1.0]).detach()),
    "cosine_embedding_loss": lambda L, a: L.nn.functional.cosine_embedding_loss(
        a.x(), a.x(), a.index([1, -1, 1])),
    "trapezoid": lambda L, a: L.trapezoid(a.v()),
    "cumulative_trapezoid": lambda L, a: L.cumulative_trapezoid(a.v()),
    "bilinear": lambda L, a: L.nn.functional.bilinear(
        a.x(), a.x(), a.leaf(np.ones((2, 3, 3))), a.leaf([1.0, 2.0])),
    "kron": lambda L, a: L.kron(a.x(), a.x()),
    "tensordot": lambda L, a: L.tensordot(a.x(), a.x(), 1),
    "cartesian_prod": lambda L, a: L.cartesian_prod(a.v(), a.v()),
    "multi_dot": lambda L, a: L.linalg.multi_dot([a.x(), a.x(), a.x()]),
    "normalize": lambda L, a: L.nn.functional.normalize(a.x()),
    "prelu": lambda L, a: L.nn.functional.prelu(a.x(), a.leaf([0.2])),
    "local_response_norm": lambda L, a: L.nn.functional.local_response_norm(a.img(), 2),
    "cosine_similarity": lambda L, a: L.nn.functional.cosine_similarity(a.x(), a.x()),
    "instance_norm": lambda L, a: L.nn.functional.instance_norm(a.img()),
    "l1_loss": lambda L, a: L.nn.functional.l1_loss(a.x(), a.x()),
    "kl_div": lambda L, a: L.nn.functional.kl_div(a.x(), a.x()),
    "rms_norm": lambda L, a: L.nn.functional.rms_norm(a.x(), [3]),
    "ndtr": lambda L, a: L.special.ndtr(a.v()),
    "quantile": lambda L, a: a.x().quantile(0.3),
    "einsum": lambda L, a: L.einsum("ij,jk->ik", a.x(), a.x()),
    "eigvals_real": lambda L, a: L.linalg.eigvals(a.x()).real,
    "tensorsolve": lambda L, a: L.linalg.tensorsolve(a.x(), a.v()),
    "cross_entropy_label_smoothing": lambda L, a: L.nn.functional.cross_entropy(
        a.x(), a.index([0, 2, 1]), label_smoothing=0.1),
    "inner": lambda L, a: L.inner(a.x(), a.x()),
    "reshape_of_transpose": lambda L, a: a.x().t().reshape(9),
    "take_along_dim": lambda L, a: L.take_along_dim(a.x(), a.index([[0], [1], [2]]), 1),
    "combinations": lambda L, a: L.combinations(a.v()),
    "scaled_dot_product_attention": lambda L, a: (
        L.nn.functional.scaled_dot_product_attention(a.x()[None], a.x()[None], a.x()[None])),
}

_SCALAR = ("PyTorch's C++ composition adds or multiplies a Python number with the Scalar "
           "overload (AddBackward1/MulBackward1/SubBackward0); ours names the Tensor one")
_FUSED = "one op (one node) here; PyTorch composes it of several ops (nodes)"
# name -> why our walk differs from PyTorch's (docs/differences.md, "Graph walks")
KNOWN_DIFFERENCES = {
    "triplet_margin_loss": _SCALAR,
    "hinge_embedding_loss": _SCALAR,
    "cosine_embedding_loss": _SCALAR,
    "bilinear": "an einsum here (EinsumBackward0) where PyTorch calls _trilinear",
    "kron": "ViewBackward0 here where PyTorch's reshape of a product is UnsafeViewBackward0",
    "tensordot": "the reshapes need no PermuteBackward0 here (the dims are in order)",
    "cartesian_prod": "meshgrid's views without PyTorch's clone and UnsafeView",
    "multi_dot": "the products in another (equally cheap) order",
    "normalize": "the norm broadcasts without PyTorch's ExpandBackward0",
    "prelu": "the weight is used without PyTorch's ViewBackward0",
    "local_response_norm": "a 2-d average pool where PyTorch pads and pools in 3-d",
    "cosine_similarity": _FUSED,
    "instance_norm": _FUSED,
    "l1_loss": _FUSED,
    "kl_div": _FUSED,
    "rms_norm": _FUSED,
    "ndtr": _FUSED,
    "quantile": _FUSED,
    "einsum": _FUSED,
    "eigvals_real": "complex results' .real without PyTorch's ViewAsRealBackward0",
    "tensorsolve": "one more reshape (ViewBackward0) of the right-hand side",
    "cross_entropy_label_smoothing": _SCALAR + "; a where for PyTorch's masked_fill",
    "inner": "the reshapes need no permute here (ViewBackward0, no ReshapeAlias)",
    "reshape_of_transpose": "a reshape of a non-contiguous tensor is a view here "
                            "(PyTorch copies: CloneBackward0 and UnsafeViewBackward0)",
    "take_along_dim": "the indices are not broadcast first (no ExpandBackward0)",
    "combinations": "index_select where PyTorch masks expanded views",
    "scaled_dot_product_attention": "PyTorch's math kernel's bmm and SafeSoftmax nodes; "
                                    "ours are matmul and softmax",
}


def _walk_of(lib, name, device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # triangular_solve's deprecation, in both
        return walk(CASES[name](lib, Inputs(lib, device)))


def _case(name):
    if name in KNOWN_DIFFERENCES:
        return pytest.param(name, marks=pytest.mark.xfail(
            strict=True, raises=AssertionError, reason=KNOWN_DIFFERENCES[name]))
    return name


@pytest.mark.parametrize("name", [_case(name) for name in CASES])
def test_graph_walk_is_pytorchs(name, device, torch_ref):
    assert _walk_of(mt, name, device) == _walk_of(torch_ref, name, None)


def _recurrent_names(lib, cls_name, kwargs, device):
    """The node names of a recurrent layer's outputs (padded, batched and not, and packed)
    and of its cell's new states: PyTorch's public nodes (the steps inside are one op
    here, many in PyTorch's CPU layers)."""
    nn = lib.nn
    layer = getattr(nn, cls_name)(4, 3, **kwargs).double()
    cell = getattr(nn, cls_name + "Cell")(4, 3).double()
    if lib is mt:
        layer, cell = layer.to(device), cell.to(device)
    first = kwargs.get("batch_first", False)
    x = Inputs(lib, device).leaf(np.linspace(-1, 1, 24).reshape(2, 3, 4))
    lengths = [3, 2] if first else [2, 2, 1]
    packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=first)
    results = [layer(x), layer(x[:, 0]), layer(packed), cell(x[0])]
    names = []
    for output, *states in results[:3]:
        output = output.data if hasattr(output, "batch_sizes") else output
        flat = [t for s in states for t in (s if isinstance(s, tuple) else (s,))]
        names.append([t.grad_fn.name() for t in (output, *flat)])
    cell_states = results[3] if isinstance(results[3], tuple) else (results[3],)
    return names, [t.grad_fn.name() for t in cell_states]


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True}, {"bidirectional": True},
                                    {"num_layers": 2, "dropout": 0.5}],
                         ids=["plain", "batch_first", "bidirectional", "two_layers"])
@pytest.mark.parametrize("cls_name", ["RNN", "GRU", "LSTM"])
def test_recurrent_output_nodes_are_pytorchs(cls_name, kwargs, device, torch_ref):
    assert (_recurrent_names(mt, cls_name, kwargs, device)
            == _recurrent_names(torch_ref, cls_name, kwargs, None))


def test_composed_node_keeps_gradients_and_hooks(device):
    """The shown edges change the walk only: the gradient is the inner nodes', and a hook
    on the output's node still runs (once per backward)."""
    x = mt.tensor(M, dtype=mt.float64, requires_grad=True, device=device)
    var, mean = mt.var_mean(x, 1)
    calls = []
    var.grad_fn.register_hook(lambda grad_inputs, grad_outputs: calls.append(1))
    (var.sum() + mean.sum()).backward()
    expected = 2 * (x - x.mean(1, keepdim=True)) / 2 + 1 / 3
    assert mt.allclose(x.grad, expected.detach()) and calls == [1]
    assert var.grad_fn.next_functions == ((x._accumulator(), 0),)
    assert mean.grad_fn.next_functions == ((x._accumulator(), 0),)

"""nn.utils.parametrizations (weight_norm, spectral_norm, orthogonal) against PyTorch:
state_dict keys, values, gradients, power-iteration buffers in train and eval mode."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.linalg import householder_product
from minitorch_meta.nn.utils import parametrizations
from tests.nn.utils_pairs import assert_close, copy_state, pair, same_input, to_numpy

LAYERS = [("Linear", (4, 3)), ("Conv2d", (2, 3, 2)), ("ConvTranspose2d", (2, 3, 2))]


def _grads_match(ours, theirs, x, tx):
    y, ty = ours(x), theirs(tx)
    assert_close(y, ty)
    y.pow(2).sum().backward()
    ty.pow(2).sum().backward()
    names = [n for n, _ in ours.named_parameters()]
    assert names == [n for n, _ in theirs.named_parameters()]
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert_close(p.grad, q.grad)


def _input_for(torch_ref, device, cls_name, args):
    if cls_name == "Linear":
        return same_input(torch_ref, device, 2, args[0])
    return same_input(torch_ref, device, 2, args[0], 4, 4)


@pytest.mark.parametrize("cls_name,args", LAYERS)
@pytest.mark.parametrize("dim", [0, 1, -1, None])
def test_weight_norm_matches_torch(torch_ref, device, cls_name, args, dim):
    ours, theirs = pair(torch_ref, device, getattr(mt.nn, cls_name),
                        getattr(torch_ref.nn, cls_name), *args)
    parametrizations.weight_norm(ours, dim=dim)
    torch_ref.nn.utils.parametrizations.weight_norm(theirs, dim=dim)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    g, tg = (m.parametrizations.weight.original0 for m in (ours, theirs))
    assert g.shape == tg.shape
    assert_close(g, tg)
    _grads_match(ours, theirs, *_input_for(torch_ref, device, cls_name, args))


def test_weight_norm_of_a_vector_and_removal(torch_ref, device):
    ours, theirs = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear, 3, 2)
    for lib, module in ((mt, ours), (torch_ref, theirs)):
        lib.nn.utils.parametrizations.weight_norm(module, "bias")
        with lib.no_grad():
            module.parametrizations.bias.original0.mul_(-2.0)  # g = -2 |v|
    _grads_match(ours, theirs, *same_input(torch_ref, device, 2, 3))
    for lib, module in ((mt, ours), (torch_ref, theirs)):
        lib.nn.utils.parametrize.remove_parametrizations(module, "bias")
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert_close(ours.bias, theirs.bias)


def test_weight_norm_errors(torch_ref):
    with pytest.raises(IndexError, match="Dimension out of range"):
        parametrizations.weight_norm(mt.nn.Linear(2, 2), dim=2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch_ref.nn.utils.parametrizations.weight_norm(torch_ref.nn.Linear(2, 2), dim=2)


def _spectral_pair(torch_ref, device, cls_name, args, **kwargs):
    """Both layers spectrally normalised, with PyTorch's random start vectors copied."""
    ours, theirs = pair(torch_ref, device, getattr(mt.nn, cls_name),
                        getattr(torch_ref.nn, cls_name), *args)
    parametrizations.spectral_norm(ours, **kwargs)
    torch_ref.nn.utils.parametrizations.spectral_norm(theirs, **kwargs)
    copy_state(ours, theirs, device)
    return ours, theirs


@pytest.mark.parametrize("cls_name,args", LAYERS)
def test_spectral_norm_matches_torch_in_training(torch_ref, device, cls_name, args):
    ours, theirs = _spectral_pair(torch_ref, device, cls_name, args, n_power_iterations=2)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x, tx = _input_for(torch_ref, device, cls_name, args)
    _grads_match(ours, theirs, x, tx)
    for name in ("_u", "_v"):  # the buffers were updated in place by the same steps
        assert_close(getattr(ours.parametrizations.weight[0], name),
                     getattr(theirs.parametrizations.weight[0], name))


def test_spectral_norm_two_accesses_before_backward(torch_ref, device):
    # each access's graph keeps its own copies of _u and _v
    ours, theirs = _spectral_pair(torch_ref, device, "Linear", (4, 3))
    x, tx = same_input(torch_ref, device, 2, 4)
    (ours(x).pow(2).sum() + ours(x).sum()).backward()
    (theirs(tx).pow(2).sum() + theirs(tx).sum()).backward()
    assert_close(ours.parametrizations.weight.original.grad,
                 theirs.parametrizations.weight.original.grad)


def test_spectral_norm_eval_mode_runs_no_iteration(torch_ref, device):
    ours, theirs = _spectral_pair(torch_ref, device, "Linear", (4, 3))
    ours.eval()
    theirs.eval()
    u_before = to_numpy(ours.parametrizations.weight[0]._u).copy()
    assert_close(ours.weight, theirs.weight)
    np.testing.assert_array_equal(to_numpy(ours.parametrizations.weight[0]._u), u_before)


def test_spectral_norm_makes_the_largest_singular_value_about_one(device):
    layer = mt.nn.Linear(5, 4, device=device).double()
    parametrizations.spectral_norm(layer)
    for _ in range(20):
        weight = layer.weight
    singular = np.linalg.svd(to_numpy(weight), compute_uv=False)
    assert abs(singular[0] - 1.0) < 1e-6


def test_spectral_norm_of_a_vector_is_a_normalisation(torch_ref, device):
    ours, theirs = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear, 3, 2)
    parametrizations.spectral_norm(ours, "bias")
    torch_ref.nn.utils.parametrizations.spectral_norm(theirs, "bias")
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert_close(ours.bias, theirs.bias)


def test_spectral_norm_errors_match_torch(torch_ref):
    for lib in (mt, torch_ref):
        spectral = lib.nn.utils.parametrizations.spectral_norm
        with pytest.raises(IndexError, match=r"in range of \[-2, 1\] but got 2"):
            spectral(lib.nn.Linear(2, 2), dim=2)
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, "
                                             "but got n_power_iterations=0"):
            spectral(lib.nn.Linear(2, 2), n_power_iterations=0)
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'foo'"):
            spectral(lib.nn.Linear(2, 2), "foo")


def test_householder_product_matches_torch(torch_ref, device):
    value = np.random.default_rng(1).standard_normal((2, 5, 3))
    tau = np.random.default_rng(2).standard_normal((2, 3))
    A = mt.tensor(value, device=device, requires_grad=True)
    t = mt.tensor(tau, device=device, requires_grad=True)
    tA = torch_ref.tensor(value, requires_grad=True)
    tt = torch_ref.tensor(tau, requires_grad=True)
    Q, tQ = householder_product(A, t), torch_ref.linalg.householder_product(tA, tt)
    assert_close(Q, tQ)
    weights = np.random.default_rng(3).standard_normal((2, 5, 3))
    (Q * mt.tensor(weights, device=device)).sum().backward()
    (tQ * torch_ref.tensor(weights)).sum().backward()
    assert_close(A.grad, tA.grad)
    assert_close(t.grad, tt.grad)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_orthogonal_matches_torch(torch_ref, device, orthogonal_map, shape):
    ours, theirs = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear,
                        shape[1], shape[0])
    parametrizations.orthogonal(ours, orthogonal_map=orthogonal_map)
    torch_ref.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map=orthogonal_map)
    assert type(ours).__name__ == "ParametrizedLinear"
    assert list(ours.state_dict()) == list(theirs.state_dict())
    copy_state(ours, theirs, device)  # the base's random completion columns, when n != k
    weight = to_numpy(ours.weight)
    small = min(shape)
    gram = weight.T @ weight if shape[0] >= shape[1] else weight @ weight.T
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-10)
    # move away from the identity point, then compare values and gradients
    with mt.no_grad():
        ours.parametrizations.weight.original.add_(mt.tensor(
            np.random.default_rng(4).standard_normal(shape) * 0.3, device=device))
    with torch_ref.no_grad():
        theirs.parametrizations.weight.original.add_(torch_ref.tensor(
            np.random.default_rng(4).standard_normal(shape) * 0.3))
    _grads_match(ours, theirs, *same_input(torch_ref, device, 2, shape[1]))


def test_orthogonal_assignment_sets_the_base(torch_ref, device):
    ours, theirs = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear, 3, 3)
    parametrizations.orthogonal(ours, orthogonal_map="cayley")
    torch_ref.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map="cayley")
    value = np.random.default_rng(5).standard_normal((3, 3))
    ours.weight = mt.tensor(value, device=device)
    theirs.weight = torch_ref.tensor(value)
    assert_close(ours.weight, theirs.weight)
    assert_close(ours.parametrizations.weight[0].base, theirs.parametrizations.weight[0].base)
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of shape"):
        ours.weight = mt.zeros(2, 3, device=device)


def test_orthogonal_without_trivialization_cayley(torch_ref, device):
    ours, theirs = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear, 3, 3)
    for lib, module in ((mt, ours), (torch_ref, theirs)):
        lib.nn.utils.parametrizations.orthogonal(module, orthogonal_map="cayley",
                                                 use_trivialization=False)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _grads_match(ours, theirs, *same_input(torch_ref, device, 2, 3))


def test_orthogonal_errors(torch_ref):
    for lib in (mt, torch_ref):
        orthogonal = lib.nn.utils.parametrizations.orthogonal
        with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", '
                                             '"cayley", "householder". Got: qr'):
            orthogonal(lib.nn.Linear(2, 2), orthogonal_map="qr")
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a "
                                             "tensor of 1 dimensions."):
            orthogonal(lib.nn.Linear(2, 2), "bias")
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'foo'"):
            orthogonal(lib.nn.Linear(2, 2), "foo")


def test_orthogonal_default_map_is_matrix_exp_for_square_weights(torch_ref, device):
    ours, theirs = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear, 3, 3)
    parametrizations.orthogonal(ours)
    torch_ref.nn.utils.parametrizations.orthogonal(theirs)
    assert ours.parametrizations.weight[0].orthogonal_map.name == "matrix_exp"
    with mt.no_grad():
        ours.parametrizations.weight.original.copy_(mt.tensor(
            np.random.default_rng(6).standard_normal((3, 3)), device=device))
    with torch_ref.no_grad():
        theirs.parametrizations.weight.original.copy_(torch_ref.tensor(
            np.random.default_rng(6).standard_normal((3, 3))))
    assert_close(ours.weight, theirs.weight)
    _grads_match(ours, theirs, *same_input(torch_ref, device, 2, 3))


def test_orthogonal_matrix_exp_without_trivialization(torch_ref, device):
    ours, theirs = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear, 4, 2)
    for lib, module in ((mt, ours), (torch_ref, theirs)):
        lib.nn.utils.parametrizations.orthogonal(module, orthogonal_map="matrix_exp",
                                                 use_trivialization=False)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _grads_match(ours, theirs, *same_input(torch_ref, device, 2, 4))
    with pytest.raises(NotImplementedError, match="matrix exponential or the Cayley"):
        ours.weight = mt.zeros(2, 4, device=device)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4)])
def test_orthogonal_householder_without_trivialization(torch_ref, device, shape):
    """The forward map, its gradients, and assignment, whose right inverse is geqrf's
    reflections (the same unconstrained values as PyTorch's)."""
    ours, theirs = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear, shape[1],
                        shape[0])
    for lib, module in ((mt, ours), (torch_ref, theirs)):
        lib.nn.utils.parametrizations.orthogonal(module, orthogonal_map="householder",
                                                 use_trivialization=False)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert_close(ours.weight, theirs.weight)
    _grads_match(ours, theirs, *same_input(torch_ref, device, 2, shape[1]))
    value = np.random.default_rng(7).standard_normal(shape)
    with mt.no_grad():
        ours.weight = mt.tensor(value, device=device)
    with torch_ref.no_grad():
        theirs.weight = torch_ref.tensor(value)
    assert_close(ours.parametrizations.weight.original, theirs.parametrizations.weight.original)
    assert_close(ours.weight, theirs.weight)


@pytest.mark.parametrize("which", ["weight_norm", "spectral_norm", "orthogonal"])
def test_meta_layers_keep_shapes(which):
    layer = mt.nn.Linear(4, 3, device="meta")
    kwargs = {"orthogonal_map": "householder"} if which == "orthogonal" else {}
    getattr(parametrizations, which)(layer, **kwargs)
    out = layer(mt.empty(2, 4, device="meta"))
    assert out.shape == (2, 3) and layer.weight.shape == (3, 4)
    out.sum().backward()
    for p in layer.parameters():
        assert p.grad.shape == p.shape

"""SoftplusTransform, CumulativeDistributionTransform, the matrix transforms
(LowerCholesky, PositiveDefinite, CorrCholesky), CatTransform and StackTransform with
constraints.cat/stack, and their biject_to/transform_to: three ways (float64 gradcheck,
float32 values and gradients against PyTorch, meta shapes), then reprs, shapes, caching
and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.distributions import constraints, transforms
from minitorch_meta.distributions.utils import tril_matrix_to_vec, vec_to_tril_matrix
from tests.distributions.helpers import errors_of_both
from tests.ops.harness import Arg, Case, three_way_tests

S = (3, 4)


def Tr(T):  # noqa: N802 - the library's transforms module, minitorch_meta's or torch's
    return T.distributions.transforms


def D(T):  # noqa: N802
    return T.distributions


def C(T):  # noqa: N802
    return T.distributions.constraints


def _forward(make):
    """``t(x)`` plus its log-det-Jacobian (broadcast over the event): values and both
    gradients in one output."""
    def fn(T, F, x, *params):
        t = make(T, *params)
        y = t(x)
        ladj = t.log_abs_det_jacobian(x, y)
        return y + ladj.reshape(tuple(ladj.shape) + (1,) * (y.dim() - ladj.dim()))
    return fn


def _inverse(make):
    """``t.inv(y)`` plus the inverse's log-det-Jacobian."""
    def fn(T, F, y, *params):
        inv = make(T, *params).inv
        x = inv(y)
        ladj = inv.log_abs_det_jacobian(y, x)
        return x + ladj.reshape(tuple(ladj.shape) + (1,) * (x.dim() - ladj.dim()))
    return fn


def _corr(T, x):
    return Tr(T).CorrCholeskyTransform()(x)


def _positive_definite(T, a):
    """A well-conditioned positive-definite matrix from any square ``a``."""
    return a @ a.mT + T.eye(a.shape[-1], device=a.device)


def _cat(T, dim=-1, lengths=(1, 3)):
    return Tr(T).CatTransform([Tr(T).ExpTransform(), Tr(T).SoftplusTransform()], dim=dim,
                              lengths=list(lengths))


def _cat_event(T):
    """A piece of event dim 1 beside an elementwise one (event dim 0), joined along the
    last dim: the elementwise log-det-Jacobian is summed over the event, then the pieces'
    are added."""
    return Tr(T).CatTransform([Tr(T).IndependentTransform(Tr(T).ExpTransform(), 1),
                               Tr(T).SoftplusTransform()], dim=-1, lengths=[2, 2])


def _stack(T, dim=0):
    return Tr(T).StackTransform([Tr(T).ExpTransform(), Tr(T).SoftplusTransform(),
                                 Tr(T).TanhTransform()], dim=dim)


CASES = [
    Case("softplus", _forward(lambda T: Tr(T).SoftplusTransform()), [Arg(S)]),
    Case("softplus_inverse", _inverse(lambda T: Tr(T).SoftplusTransform()),
         [Arg(S, "positive")]),
    Case("cdf_transform", _forward(lambda T, m, s: Tr(T).CumulativeDistributionTransform(
        D(T).Normal(m, s))), [Arg(S), Arg(S), Arg(S, "positive")]),
    Case("cdf_transform_inverse", lambda T, F, u, m, s: Tr(T).CumulativeDistributionTransform(
        D(T).Laplace(m, s)).inv(0.05 + 0.9 * u), [Arg(S, "prob"), Arg(S), Arg(S, "positive")]),
    Case("lower_cholesky", lambda T, F, x: Tr(T).LowerCholeskyTransform()(x), [Arg((2, 3, 3))]),
    Case("lower_cholesky_inverse", lambda T, F, x: Tr(T).LowerCholeskyTransform().inv(
        x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).abs().diag_embed() + T.eye(3, device=x.device)),
        [Arg((2, 3, 3))]),
    Case("positive_definite", lambda T, F, x: Tr(T).PositiveDefiniteTransform()(x),
         [Arg((2, 3, 3))]),
    Case("positive_definite_inverse", lambda T, F, a: Tr(T).PositiveDefiniteTransform().inv(
        _positive_definite(T, a)), [Arg((2, 3, 3))]),
    Case("corr_cholesky", _forward(lambda T: Tr(T).CorrCholeskyTransform()), [Arg((2, 6))]),
    Case("corr_cholesky_2x2", _forward(lambda T: Tr(T).CorrCholeskyTransform()), [Arg((5, 1))]),
    Case("corr_cholesky_inverse", lambda T, F, x: _inverse(
        lambda T: Tr(T).CorrCholeskyTransform())(T, F, _corr(T, x)), [Arg((2, 10))]),
    Case("corr_cholesky_unbatched", lambda T, F, x: _corr(T, x), [Arg((3,))]),
    Case("cat", _forward(lambda T: _cat(T)), [Arg(S)]),
    Case("cat_batch_dim", _forward(lambda T: _cat(T, dim=0, lengths=(2, 1))), [Arg(S)]),
    Case("cat_positive_dim", lambda T, F, x: _cat(T, dim=1).log_abs_det_jacobian(
        x, _cat(T, dim=1)(x)), [Arg(S)]),
    Case("cat_inverse", _inverse(lambda T: _cat(T)), [Arg(S, "positive")]),
    Case("cat_event", lambda T, F, x: _cat_event(T).log_abs_det_jacobian(x, _cat_event(T)(x))
         + _cat_event(T)(x).sum(-1), [Arg(S)]),
    Case("stack", _forward(lambda T: _stack(T)), [Arg((3, 4))]),
    Case("stack_last_dim", _forward(lambda T: _stack(T, dim=-1)), [Arg((4, 3))]),
    Case("stack_inverse", lambda T, F, y: _stack(T).inv(y.sigmoid() * 0.9 + 0.05), [Arg((3, 4))]),
    Case("biject_to_corr_cholesky", _forward(lambda T: D(T).biject_to(C(T).corr_cholesky)),
         [Arg((2, 3))]),
    Case("transform_to_lower_cholesky", lambda T, F, x: D(T).transform_to(
        C(T).lower_cholesky)(x), [Arg((2, 3, 3))]),
    Case("transform_to_positive_definite", lambda T, F, x: D(T).transform_to(
        C(T).positive_definite)(x), [Arg((3, 3))]),
    Case("transform_to_positive_semidefinite", lambda T, F, x: D(T).transform_to(
        C(T).positive_semidefinite)(x), [Arg((3, 3))]),
    Case("biject_to_cat", _forward(lambda T: D(T).biject_to(C(T).cat(
        [C(T).positive, C(T).interval(-1.0, 2.0)], dim=1, lengths=[3, 1]))), [Arg(S)]),
    Case("transform_to_stack", _forward(lambda T: D(T).transform_to(C(T).stack(
        [C(T).real, C(T).greater_than(2.0), C(T).unit_interval], dim=0))), [Arg((3, 4))]),
    Case("biject_to_half_open_interval", _forward(lambda T: D(T).biject_to(
        C(T).half_open_interval(-1.0, 3.0))), [Arg(S)]),
    Case("copula_log_prob", lambda T, F, m, v: D(T).TransformedDistribution(
        D(T).Normal(m, 1.0), [Tr(T).CumulativeDistributionTransform(D(T).Normal(0.0, 1.0))])
        .log_prob(0.05 + 0.9 * v), [Arg(S), Arg(S, "prob")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


def _both(build):
    return build(mt), build(_torch())


@pytest.mark.parametrize("build", [
    lambda T: Tr(T).SoftplusTransform(),
    lambda T: Tr(T).SoftplusTransform().inv,
    lambda T: Tr(T).LowerCholeskyTransform(),
    lambda T: Tr(T).PositiveDefiniteTransform(),
    lambda T: Tr(T).CorrCholeskyTransform(),
    lambda T: Tr(T).CumulativeDistributionTransform(D(T).Exponential(1.0)),
    lambda T: _cat(T),
    lambda T: _stack(T),
    lambda T: D(T).biject_to(C(T).corr_cholesky),
    lambda T: D(T).transform_to(C(T).lower_cholesky),
    lambda T: D(T).transform_to(C(T).positive_definite),
    lambda T: D(T).biject_to(C(T).half_open_interval(0.0, 2.0)),
])
def test_reprs_domains_and_flags_are_torchs(build):
    ours, theirs = _both(build)
    assert repr(ours) == repr(theirs)
    assert repr(ours.domain) == repr(theirs.domain)
    assert repr(ours.codomain) == repr(theirs.codomain)
    assert ours.bijective == theirs.bijective
    assert ours.domain.event_dim == theirs.domain.event_dim
    assert ours.codomain.event_dim == theirs.codomain.event_dim
    assert ours.domain.is_discrete == theirs.domain.is_discrete


@pytest.mark.parametrize("build", [
    lambda T: Tr(T).SoftplusTransform().sign,
    lambda T: Tr(T).CumulativeDistributionTransform(D(T).Normal(0.0, 1.0)).sign,
    lambda T: tuple(Tr(T).CorrCholeskyTransform().forward_shape((2, 6))),
    lambda T: tuple(Tr(T).CorrCholeskyTransform().inverse_shape((2, 4, 4))),
    lambda T: tuple(Tr(T).CorrCholeskyTransform().inv.forward_shape((3, 3))),
    lambda T: _cat(T).event_dim,
    lambda T: _cat(T).length,
    lambda T: _cat_event(T).event_dim,
    lambda T: C(T).stack([C(T).real, C(T).simplex], dim=-1).event_dim,
    lambda T: C(T).stack([C(T).real, C(T).simplex], dim=0).event_dim,
    lambda T: C(T).stack([C(T).real, C(T).simplex], dim=-2).event_dim,
    lambda T: C(T).cat([C(T).boolean, C(T).real]).is_discrete,
    lambda T: C(T).cat([C(T).real, C(T).positive], dim=-1, lengths=[2, 2]).check(
        T.tensor([[1.0, -1.0, 2.0, -3.0], [0.0, 0.0, 1.0, 1.0]])),
    lambda T: C(T).stack([C(T).real, C(T).positive], dim=1).check(
        T.tensor([[1.0, -1.0], [-2.0, 3.0]])),
    lambda T: C(T).corr_cholesky.check(D(T).biject_to(C(T).corr_cholesky)(T.ones(4, 6))),
    lambda T: Tr(T).SoftplusTransform() == Tr(T).SoftplusTransform(),
    lambda T: Tr(T).CorrCholeskyTransform() == Tr(T).CorrCholeskyTransform(),
    lambda T: (lambda t: t == t)(Tr(T).CorrCholeskyTransform()),
    lambda T: Tr(T).LowerCholeskyTransform() == Tr(T).PositiveDefiniteTransform(),
    lambda T: _reference_helpers(T)[0](T.arange(16.0).view(4, 4), diag=-1),
    lambda T: _reference_helpers(T)[0](T.arange(18.0).view(2, 3, 3)),
    lambda T: _reference_helpers(T)[1](T.arange(1.0, 7.0)),
    lambda T: _reference_helpers(T)[1](T.arange(1.0, 7.0).view(2, 3), diag=-1),
])
def test_signs_shapes_checks_and_helpers_are_torchs(build):
    ours, theirs = build(mt), build(_torch())
    if not isinstance(theirs, (int, bool, tuple)):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    else:
        assert ours == theirs


def _reference_helpers(T):
    if T is mt:
        return tril_matrix_to_vec, vec_to_tril_matrix
    from torch.distributions.utils import tril_matrix_to_vec as to_vec
    from torch.distributions.utils import vec_to_tril_matrix as to_matrix
    return to_vec, to_matrix


ERRORS = [
    lambda T: Tr(T).CatTransform([Tr(T).ExpTransform(), 1]),
    lambda T: Tr(T).CatTransform([Tr(T).ExpTransform()], lengths=[1, 2]),
    lambda T: _cat(T)(T.ones(3, 5)),
    lambda T: _cat(T, dim=2)(T.ones(3, 4)),
    lambda T: _cat(T).inv(T.ones(3, 2)),
    lambda T: _cat(T).log_abs_det_jacobian(T.ones(3, 4), T.ones(3, 5)),
    lambda T: _cat(T).log_abs_det_jacobian(T.ones(3, 4), T.ones(3, 3)),
    lambda T: Tr(T).StackTransform([Tr(T).ExpTransform(), "exp"]),
    lambda T: _stack(T)(T.ones(2, 4)),
    lambda T: _stack(T, dim=-3)(T.ones(3, 4)),
    lambda T: _stack(T).inv(T.ones(4)),
    lambda T: _stack(T).log_abs_det_jacobian(T.ones(3, 4), T.ones(2, 4)),
    lambda T: C(T).cat([C(T).real, "real"]),
    lambda T: C(T).cat([C(T).real], lengths=[1, 1]),
    lambda T: C(T).cat([C(T).real], dim=3).check(T.ones(2)),
    lambda T: C(T).stack([C(T).real, 0]),
    lambda T: C(T).stack([C(T).real], dim=-2).check(T.ones(2)),
    lambda T: Tr(T).CorrCholeskyTransform().forward_shape((5,)),
    lambda T: Tr(T).CorrCholeskyTransform().forward_shape(()),
    lambda T: Tr(T).CorrCholeskyTransform().inverse_shape((3, 4)),
    lambda T: Tr(T).CorrCholeskyTransform().inverse_shape((3,)),
    lambda T: Tr(T).LowerCholeskyTransform().log_abs_det_jacobian(T.ones(2, 2), T.ones(2, 2)),
    lambda T: D(T).biject_to(C(T).lower_cholesky),
    lambda T: D(T).biject_to(C(T).positive_definite),
    lambda T: _reference_helpers(T)[0](T.ones(3, 3), diag=3),
    lambda T: _reference_helpers(T)[0](T.ones(3, 3), diag=-4),
    lambda T: _reference_helpers(T)[1](T.ones(5)),
    lambda T: Tr(T).CumulativeDistributionTransform(D(T).Normal(0.0, 1.0)).with_cache(2),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_torchs_type_and_text(call):
    theirs, ours = errors_of_both(call)
    if isinstance(theirs, NotImplementedError) and not str(theirs):
        return  # PyTorch's bare NotImplementedError has no text
    assert str(ours) == str(theirs)


def test_a_size_just_above_a_triangular_number_is_refused():
    # PyTorch's check misses it (and fails later in an index assignment, a RuntimeError)
    with pytest.raises(ValueError, match="size of last dimension is 4 which cannot"):
        vec_to_tril_matrix(mt.ones(4))


def test_a_cache_reaches_the_parts_and_returns_the_same_tensors():
    x = mt.randn(3, 4)
    cat = _cat(mt).with_cache(1)
    assert all(t._cache_size == 1 for t in cat.transforms) and cat.lengths == [1, 3]
    y = cat(x)
    assert cat(x) is y and cat.inv(y) is x
    stack = _stack(mt).with_cache(1)
    assert all(t._cache_size == 1 for t in stack.transforms) and stack.with_cache(1) is stack
    cdf = transforms.CumulativeDistributionTransform(mt.distributions.Normal(0.0, 1.0))
    cached = cdf.with_cache(1)
    assert cached.distribution is cdf.distribution and cached(x) is cached(x)
    corr = transforms.CorrCholeskyTransform(cache_size=1)
    z = mt.randn(6)
    assert corr.inv(corr(z)) is z and corr.with_cache(0)._cache_size == 0


def test_corr_cholesky_round_trip_and_factors_are_valid(device):
    x = mt.randn(50, 10, device=device, dtype=mt.float64)
    t = transforms.CorrCholeskyTransform()
    y = t(x)
    assert y.shape == (50, 5, 5) and y.device == x.device
    assert bool(constraints.corr_cholesky.check(y).all())
    np.testing.assert_allclose(t.inv(y).cpu().numpy(), x.cpu().numpy(), atol=1e-6)
    # the correlation matrix y yᵀ has a unit diagonal
    np.testing.assert_allclose((y @ y.mT).diagonal(dim1=-2, dim2=-1).cpu().numpy(), 1.0,
                               atol=1e-12)


def test_positive_definite_round_trip(device):
    x = mt.randn(4, 3, 3, device=device, dtype=mt.float64)
    t = transforms.PositiveDefiniteTransform()
    y = t(x)
    assert bool(constraints.positive_definite.check(y).all())
    back = t.inv(y)
    # the inverse keeps only the lower triangle: the upper one is lost in t
    np.testing.assert_allclose(back.cpu().numpy(), x.tril().cpu().numpy(), atol=1e-10)


def test_matrix_transforms_run_on_meta():
    for t, shape in ((transforms.CorrCholeskyTransform(), (2, 6)),
                     (transforms.LowerCholeskyTransform(), (2, 3, 3)),
                     (transforms.PositiveDefiniteTransform(), (2, 3, 3)),
                     (_cat(mt), (3, 4)), (_stack(mt), (3, 4))):
        x = mt.empty(shape, device="meta")
        y = t(x)
        assert y.is_meta and tuple(y.shape) == tuple(t.forward_shape(x.shape))
        assert tuple(t.inv(y).shape) == shape

"""``minitorch_meta.special``: torch.special's names and signatures for the functions we
have, checked three ways, plus ``entr``'s edges and the module's surface."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

S = (3, 4)
P = "positive"

CASES = [
    Case("expit", lambda T, F, a: T.special.expit(a), [Arg(S)]),
    Case("logit", lambda T, F, a: T.special.logit(a / 2.5), [Arg(S, P)]),
    Case("logit_eps", lambda T, F, a: T.special.logit(a.sigmoid(), eps=0.25), [Arg(S)]),
    Case("erf", lambda T, F, a: T.special.erf(a), [Arg(S)]),
    Case("erfc", lambda T, F, a: T.special.erfc(a), [Arg(S)]),
    Case("erfinv", lambda T, F, a: T.special.erfinv(a / 2.5), [Arg(S, P)]),
    Case("xlogy", lambda T, F, a, b: T.special.xlogy(a, b), [Arg(S), Arg(S, P)]),
    Case("xlogy_scalar", lambda T, F, b: T.special.xlogy(2.0, b), [Arg(S, P)]),
    Case("gammaln", lambda T, F, a: T.special.gammaln(a * 3), [Arg(S, P)]),
    Case("digamma", lambda T, F, a: T.special.digamma(a * 3), [Arg(S, P)]),
    Case("psi", lambda T, F, a: T.special.psi(a + 2), [Arg(S, P)]),
    Case("sinc", lambda T, F, a: T.special.sinc(a), [Arg(S, "away0")]),
    Case("exp2", lambda T, F, a: T.special.exp2(a), [Arg(S)]),
    Case("expm1", lambda T, F, a: T.special.expm1(a), [Arg(S)]),
    Case("log1p", lambda T, F, a: T.special.log1p(a), [Arg(S, P)]),
    Case("logsumexp", lambda T, F, a: T.special.logsumexp(a, 1), [Arg(S)]),
    Case("logsumexp_keepdim", lambda T, F, a: T.special.logsumexp(a, (0, 1), keepdim=True),
         [Arg(S)]),
    Case("softmax", lambda T, F, a: T.special.softmax(a, 1), [Arg(S)]),
    Case("softmax_dtype", lambda T, F, a: T.special.softmax(a, 0, dtype=T.float64), [Arg(S)]),
    Case("softmax_int_dtype", lambda T, F, a: T.special.softmax(a, 1, T.float32),
         [Arg(S, "int:5")]),
    Case("log_softmax", lambda T, F, a: T.special.log_softmax(a, -1), [Arg(S)]),
    Case("log_softmax_dtype", lambda T, F, a: T.special.log_softmax(a, 0, dtype=T.float64),
         [Arg(S)]),
    Case("round", lambda T, F, a: T.special.round(a * 3), [Arg(S)]),
    Case("round_decimals", lambda T, F, a: T.special.round(a, decimals=2) + a, [Arg(S)]),
    Case("entr", lambda T, F, a: T.special.entr(a), [Arg(S, P)]),
    Case("entr_int", lambda T, F, a: T.special.entr(a), [Arg(S, "int:3")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_entr_edges_as_torch(dtype, device):
    torch = _torch()
    data = np.array([0.0, -0.0, -1.0, 0.5, 1.0, float("inf"), float("nan"), 1e-30], dtype)
    x = mt.tensor(data, device=device, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    out, ref = mt.special.entr(x), torch.special.entr(tx)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-6)
    assert out.grad_fn.name() == ref.grad_fn.name() == "SpecialEntrBackward0"
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-6)


def test_the_aliases_are_the_library_functions():
    special = mt.special

    def same(*functions):  # each namespace wraps its functions for out= (out_argument.py)
        return len({inspect.unwrap(f) for f in functions}) == 1

    assert same(special.gammaln, mt.lgamma) and same(special.psi, special.digamma, mt.digamma)
    assert same(special.expit, mt.sigmoid) and same(special.erfinv, mt.erfinv)
    assert same(special.logsumexp, mt.logsumexp) and same(special.xlogy, mt.xlogy)


def test_every_name_is_torch_special_s():
    torch = _torch()
    for name in mt.special.__all__:
        assert hasattr(torch.special, name), name


def test_round_is_round_backward1_as_torch_special():
    x = mt.tensor([0.4, 1.6], requires_grad=True)
    assert mt.special.round(x).grad_fn.name() == "RoundBackward1"
    assert mt.special.round(x).tolist() == [0.0, 2.0]

"""autograd.grad(is_grads_batched=True): one vector-Jacobian product per row of the batched
output gradients, stacked, against PyTorch (values, unused inputs, second order, errors)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt


def _inputs(torch, device, rng):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal(4)
    return ((mt.tensor(a, device=device, requires_grad=True),
             mt.tensor(b, device=device, requires_grad=True)),
            (torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)))


def _outputs(lib, a, b):
    return (a * b).tanh(), (a @ b).sum()


@pytest.mark.parametrize("create_graph", [False, True])
def test_batched_vjps_match_torch(device, torch_ref, create_graph):
    rng = np.random.default_rng(0)
    ours_in, theirs_in = _inputs(torch_ref, device, rng)
    vectors = rng.standard_normal((5, 3, 4)), rng.standard_normal(5)
    ours = mt.autograd.grad(_outputs(mt, *ours_in), ours_in,
                            tuple(mt.tensor(v, device=device) for v in vectors),
                            is_grads_batched=True, create_graph=create_graph)
    theirs = torch_ref.autograd.grad(_outputs(torch_ref, *theirs_in), theirs_in,
                                     tuple(torch_ref.tensor(v) for v in vectors),
                                     is_grads_batched=True, create_graph=create_graph)
    for mine, ref in zip(ours, theirs):
        assert tuple(mine.shape) == tuple(ref.shape)
        np.testing.assert_allclose(mine.detach().cpu().numpy(), ref.detach().numpy(),
                                   rtol=1e-10, atol=1e-12)
    if create_graph:  # the stacked gradients are differentiable again
        sum(g.square().sum() for g in ours).backward()
        sum(g.square().sum() for g in theirs).backward()
        for mine, ref in zip(ours_in, theirs_in):
            np.testing.assert_allclose(mine.grad.cpu().numpy(), ref.grad.numpy(), rtol=1e-9)


def test_unused_inputs_as_torch(device, torch_ref):
    for lib, dev in ((mt, device), (torch_ref, "cpu")):
        x = lib.ones(3, device=dev, requires_grad=True)
        unused = lib.ones(2, device=dev, requires_grad=True)
        eye = lib.eye(3, device=dev)
        gx, gu = lib.autograd.grad(x * 2, (x, unused), eye, is_grads_batched=True,
                                   allow_unused=True)
        assert gu is None and gx.tolist() == (2 * np.eye(3)).tolist()
        gx, gu = lib.autograd.grad(x * 2, (x, unused), eye, is_grads_batched=True,
                                   materialize_grads=True)
        assert gu.tolist() == [0.0, 0.0]  # PyTorch's materialised zeros are not batched
        with pytest.raises(RuntimeError, match="not have been used in the graph|unused|used"):
            lib.autograd.grad(x * 2, (x, unused), eye, is_grads_batched=True)


@pytest.mark.parametrize("grad_outputs, error, message", [
    (lambda lib: None, RuntimeError, "grad can be implicitly created only for scalar outputs"),
    (lambda lib: lib.ones(3), RuntimeError, "we interpret the first dimension of each "
                                           "grad_output as the batch dimension"),
    (lambda lib: lib.ones(2, 4), RuntimeError, "mismatch was detected"),
    (lambda lib: (lib.ones(2, 3), lib.ones(4)), ValueError,
     "Expected all tensors to have the same size in the mapped dimension"),
])
def test_errors_as_torch(grad_outputs, error, message, torch_ref):
    for lib in (torch_ref, mt):
        x = lib.ones(3, requires_grad=True)
        outputs = (x * 2, x.sum()) if isinstance(grad_outputs(lib), tuple) else x * 2
        with pytest.raises(error, match=message):
            lib.autograd.grad(outputs, x, grad_outputs(lib), is_grads_batched=True)

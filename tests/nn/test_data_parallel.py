"""``nn.DataParallel`` against PyTorch: without CUDA it wraps the module (PyTorch's repr,
``device_ids``, ``module.``-prefixed state_dict keys, forward and gradients of the module);
with CUDA it splits the batch over ``device_ids`` along ``dim`` and gathers the outputs on
``output_device`` (run here on one GPU listed twice, which takes the same path)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import cuda
from minitorch_meta.nn import data_parallel


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(cuda, "is_available", lambda: False)


def _linear(m):
    layer = m.nn.Linear(3, 2).double()
    with m.no_grad():
        layer.weight.copy_(m.tensor([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]]))
        layer.bias.copy_(m.tensor([0.1, -0.2]))
    return layer


DATA = np.arange(15, dtype=np.float64).reshape(5, 3) / 7


def test_signature_and_names_are_pytorchs(torch_ref):
    ours, theirs = (inspect.signature(m.nn.DataParallel.__init__).parameters
                    for m in (mt, torch_ref))
    assert [(p.name, p.default) for p in ours.values()] == \
        [(p.name, p.default) for p in theirs.values()]
    assert mt.nn.parallel.DataParallel is mt.nn.DataParallel
    assert issubclass(mt.nn.DataParallel, mt.nn.Module)


@pytest.mark.usefixtures("no_cuda")
def test_without_cuda_it_wraps_the_module_as_pytorch(torch_ref):
    ours, theirs = mt.nn.DataParallel(_linear(mt)), torch_ref.nn.DataParallel(_linear(torch_ref))
    assert repr(ours) == repr(theirs)
    assert ours.device_ids == theirs.device_ids == []
    for name in ("dim", "output_device", "src_device_obj"):
        assert not hasattr(ours, name) and not hasattr(theirs, name)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["module.weight",
                                                                     "module.bias"]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    x, y = mt.tensor(DATA), torch_ref.tensor(DATA)
    out, expected = ours(x), theirs(y)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy())
    assert out.grad_fn.name() == type(expected.grad_fn).__name__ == "AddmmBackward0"
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(ours.module.weight.grad.numpy(), theirs.module.weight.grad.numpy())
    assert ours(input=x).shape == theirs(input=y).shape == (5, 2)


@pytest.mark.usefixtures("no_cuda")
def test_without_cuda_the_arguments_are_not_checked(torch_ref):
    for m in (mt, torch_ref):
        assert m.nn.DataParallel(m.nn.Identity(), device_ids=[0], output_device=3,
                                 dim=1).device_ids == []


@pytest.mark.usefixtures("no_cuda")
def test_meta_modules_run_on_meta():
    layer = mt.nn.DataParallel(mt.nn.Linear(3, 2, device="meta"))
    assert layer(mt.ones(4, 3, device="meta")).shape == (4, 2)


def test_a_state_dict_loads_back_into_the_bare_module():
    wrapped = mt.nn.DataParallel(_linear(mt))
    bare = mt.nn.Linear(3, 2).double()
    bare.load_state_dict({k.removeprefix("module."): v for k, v in wrapped.state_dict().items()})
    assert bare.weight.tolist() == wrapped.module.weight.tolist()


# -- with CUDA --------------------------------------------------------------------------------
def _on_cuda(device):
    if device != "cuda":
        pytest.skip("the CUDA path of DataParallel (the CPU path is tested above)")


def test_cuda_and_cuda_0_are_one_backend_whichever_is_made_first(device, monkeypatch):
    """(A module moved to ``device("cuda", 0)`` before any ``"cuda"`` tensor existed used to
    get a backend of its own, and its inputs were refused as on another device.)"""
    _on_cuda(device)
    from minitorch_meta.backends import registry

    monkeypatch.setattr(registry, "_INSTANCES", {})  # as in a new process
    first = mt.ones(1, device=mt.device("cuda", 0))
    assert mt.ones(1, device="cuda")._backend is first._backend
    assert (first + mt.ones(1, device="cuda")).tolist() == [2.0]


def test_one_gpu_moves_the_module_and_runs_it_there(device):
    _on_cuda(device)
    layer = _linear(mt)
    wrapped = mt.nn.DataParallel(layer)
    assert wrapped.device_ids == [0] and wrapped.output_device == 0 and wrapped.dim == 0
    assert wrapped.src_device_obj == mt.device("cuda", 0)
    assert layer.weight.device == mt.device("cuda", 0)
    out = wrapped(mt.tensor(DATA, device=device))
    np.testing.assert_allclose(out.cpu().detach().numpy(), (DATA @ _linear(mt).weight.detach()
                                                            .numpy().T + [0.1, -0.2]))


@pytest.mark.parametrize("dim", [0, 1])
def test_the_batch_is_split_along_dim_and_gathered(device, dim):
    """Two replicas (one GPU listed twice): the same values and gradients as one run."""
    _on_cuda(device)

    class Scale(mt.nn.Module):
        """Each sample (a row for dim 0, a column for dim 1) scaled per feature."""

        def __init__(self):
            super().__init__()
            self.w = mt.nn.Parameter(mt.tensor([2.0, 3.0, 4.0]).double())

        def forward(self, x, *, shift):
            w = self.w if dim == 0 else self.w[:, None]
            return {"y": x * w + shift, "n": None}

    single = Scale().to(device)
    wrapped = mt.nn.DataParallel(Scale().to("cuda:0"), device_ids=[0, "cuda:0"], dim=dim)
    x = mt.tensor(DATA if dim == 0 else DATA.T.copy(), device=device)
    out, expected = wrapped(x, shift=1.5), single(x, shift=1.5)
    assert out["n"] is None and out["y"].device == mt.device("cuda", 0)
    np.testing.assert_allclose(out["y"].cpu().detach().numpy(),
                               expected["y"].cpu().detach().numpy())
    out["y"].sum().backward()
    expected["y"].sum().backward()
    np.testing.assert_allclose(wrapped.module.w.grad.cpu().numpy(),
                               single.w.grad.cpu().numpy())


def test_scalar_outputs_are_gathered_into_a_vector_with_pytorchs_warning(device):
    _on_cuda(device)
    class Total(mt.nn.Module):
        def forward(self, x):
            return x.sum()

    wrapped = mt.nn.DataParallel(Total(), device_ids=[0, 0])
    with pytest.warns(UserWarning, match="all input tensors were scalars; will instead "
                                         "unsqueeze and return a vector"):
        out = wrapped(mt.tensor([1.0, 2.0, 3.0], device=device))
    assert out.tolist() == [3.0, 3.0]


def test_parameters_elsewhere_than_the_first_device_are_refused(device, monkeypatch):
    _on_cuda(device)
    wrapped = mt.nn.DataParallel(mt.nn.Linear(3, 2), device_ids=[0, 0])
    wrapped.module.cpu()
    with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on "
                                           r"device cuda:0 \(device_ids\[0\]\) but found one "
                                           r"of them on device: cpu"):
        wrapped(mt.ones(2, 3, device=device))


# -- the pieces, on any device ------------------------------------------------------------------
def test_a_replica_gives_the_gradients_to_the_modules_own_parameters():
    layer = _linear(mt)
    replica = data_parallel._Replica(layer, mt.device("cpu"))
    replica(mt.tensor(DATA)).sum().backward()
    expected = _linear(mt)
    expected(mt.tensor(DATA)).sum().backward()
    assert layer.weight.grad.tolist() == expected.weight.grad.tolist()


def test_gather_joins_structures_and_keeps_none():
    parts = [(mt.ones(2, 1), [mt.zeros(1, 1)], None), (mt.ones(1, 1), [mt.ones(1, 1)], None)]
    joined = data_parallel.gather(parts, "cpu")
    assert joined[0].shape == (3, 1) and joined[1][0].tolist() == [[0.0], [1.0]]
    assert joined[2] is None
    with pytest.raises(TypeError, match="cannot gather outputs of type str"):
        data_parallel.gather(["a", "b"], "cpu")


def test_device_indices():
    assert data_parallel._device_index(2) == 2
    assert data_parallel._device_index("cuda:1") == 1
    assert data_parallel._device_index(mt.device("cuda", 3)) == 3
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        data_parallel._device_index("cpu")

"""nn.Buffer: assigning one to a module registers it as a buffer (persistent or not), as
in PyTorch; the tensor shares the data's storage."""

from __future__ import annotations

import copy
import pickle

import pytest

import minitorch_meta as mt


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("persistent", [True, False])
def test_assignment_registers_it_as_torch_does(persistent):
    torch = _torch()
    seen = []
    for lib in (torch, mt):
        module = lib.nn.Module()
        module.stat = lib.nn.Buffer(lib.ones(2), persistent=persistent)
        seen.append((list(module._buffers), sorted(module.state_dict()),
                     sorted(module._non_persistent_buffers_set),
                     [name for name, _ in module.named_buffers()], list(module.__dict__)
                     .count("stat"), module.stat.persistent))
    assert seen[0] == seen[1]


def test_a_buffer_is_a_tensor_sharing_the_data(device):
    torch = _torch()
    data = mt.zeros(3, device=device)
    buffer = mt.nn.Buffer(data)
    assert isinstance(buffer, mt.Tensor) and isinstance(buffer, mt.nn.Buffer)
    assert not isinstance(data, mt.nn.Buffer)
    assert buffer.persistent is True and buffer.device == data.device
    data.add_(1.0)
    assert buffer.cpu().tolist() == [1.0, 1.0, 1.0] and buffer._version == data._version
    assert isinstance(torch.nn.Buffer(torch.zeros(3)), torch.Tensor)


def test_requires_grad_is_kept_outside_the_graph():
    torch = _torch()
    for lib in (torch, mt):
        x = lib.ones(2, requires_grad=True)
        buffer = lib.nn.Buffer(x * 2)
        assert buffer.requires_grad and buffer.grad_fn is None and buffer.is_leaf
        assert not lib.nn.Buffer(lib.ones(2)).requires_grad


def test_no_data_is_an_empty_buffer_and_results_are_plain_tensors():
    assert mt.nn.Buffer().shape == (0,)
    doubled = mt.nn.Buffer(mt.ones(2)) * 2
    assert type(doubled) is mt.Tensor and not isinstance(doubled, mt.nn.Buffer)


def test_reassigning_changes_persistence_and_a_plain_tensor_keeps_it():
    torch = _torch()
    for lib in (torch, mt):
        module = lib.nn.Module()
        module.x = lib.nn.Buffer(lib.ones(2), persistent=False)
        assert list(module.state_dict()) == []
        module.x = lib.nn.Buffer(lib.ones(3))
        assert list(module.state_dict()) == ["x"]
        module.register_buffer("y", lib.ones(1), persistent=False)
        module.y = lib.zeros(1)  # a plain tensor into a buffer: still non-persistent
        assert list(module.state_dict()) == ["x"] and module.y.tolist() == [0.0]


def test_errors_match_torch():
    torch = _torch()
    for lib in (torch, mt):
        class Early(lib.nn.Module):
            def __init__(self, library=lib):
                self.b = library.nn.Buffer(library.ones(1))

        with pytest.raises(AttributeError, match="cannot assign buffer before "
                                                 r"Module.__init__\(\) call"):
            Early()
        module = lib.nn.Module()
        module.p = lib.nn.Parameter(lib.ones(1))
        with pytest.raises(TypeError, match="cannot assign .* as parameter 'p'"):
            module.p = lib.nn.Buffer(lib.ones(1))
        module.plain = 3
        with pytest.raises(KeyError, match="attribute 'plain' already exists"):
            module.plain = lib.nn.Buffer(lib.ones(1))
    with pytest.raises(TypeError, match="Buffer expects a Tensor as data, got list"):
        mt.nn.Buffer([1.0])


def test_copies_and_pickles_keep_persistence():
    module = mt.nn.Module()
    module.x = mt.nn.Buffer(mt.arange(3.0), persistent=False)
    copied = copy.deepcopy(module)
    assert isinstance(copied.x, mt.nn.Buffer) and copied.x.persistent is False
    assert list(copied.state_dict()) == [] and copied.x.tolist() == [0.0, 1.0, 2.0]
    restored = pickle.loads(pickle.dumps(module.x))
    assert restored.persistent is False and restored.tolist() == [0.0, 1.0, 2.0]


def test_module_to_moves_it_like_any_buffer():
    module = mt.nn.Module()
    module.x = mt.nn.Buffer(mt.ones(2), persistent=False)
    module.to(mt.float64)
    assert module.x.dtype is mt.float64 and list(module.state_dict()) == []

"""``torch.func.functional_call`` (and the deprecated ``nn.utils.stateless`` spelling):
values and gradients against PyTorch, restoring the module's tensors, ties, strict mode
and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device

W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
B = np.array([0.1, -0.2], dtype=np.float32)
X = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]], dtype=np.float32)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


class _Net:
    """The same two-layer network for both frameworks, with a buffer."""

    @staticmethod
    def make(T, device="cpu"):
        class Net(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = T.nn.Linear(3, 2)
                self.register_buffer("scale", T.ones(2))

            def forward(self, x, shift=0.0):
                return self.fc(x).relu() * self.scale + shift

        return Net().to(device)


def _given(T, device="cpu", requires_grad=True):
    weight = T.tensor(W, device=device, requires_grad=requires_grad)
    bias = T.tensor(B, device=device, requires_grad=requires_grad)
    return {"fc.weight": weight, "fc.bias": bias}


def test_values_and_gradients_match_torch_and_the_module_is_restored(device):
    torch = _torch()
    net, tnet = _Net.make(mt, device), _Net.make(torch)
    own_weight = net.fc.weight
    given, tgiven = _given(mt, device), _given(torch)
    x = mt.tensor(X, device=device)
    out = mt.func.functional_call(net, given, (x,), {"shift": 0.5})
    ref = torch.func.functional_call(tnet, tgiven, (torch.tensor(X),), {"shift": 0.5})
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-6)
    assert out.device == tensor_device(device)
    out.sum().backward()
    ref.sum().backward()
    for name in given:
        np.testing.assert_allclose(given[name].grad.cpu().numpy(),
                                   tgiven[name].grad.numpy(), rtol=1e-6)
    assert net.fc.weight is own_weight and own_weight.grad is None
    assert isinstance(net.fc.weight, mt.nn.Parameter)


def test_a_single_argument_and_a_tuple_of_dicts(device):
    net = _Net.make(mt, device)
    given = _given(mt, device, requires_grad=False)
    x = mt.tensor(X, device=device)
    one = mt.func.functional_call(net, given, x)
    buffers = {"scale": mt.full((2,), 2.0, device=device)}
    two = mt.func.functional_call(net, (given, buffers), (x,))
    np.testing.assert_allclose(two.cpu().numpy(), 2 * one.cpu().numpy(), rtol=1e-6)


def test_missing_names_keep_the_module_tensors(device):
    net = _Net.make(mt, device)
    x = mt.tensor(X, device=device)
    with mt.no_grad():
        expected = net(x)
        out = mt.func.functional_call(net, {"scale": mt.ones(2, device=device)}, (x,))
    np.testing.assert_allclose(out.cpu().numpy(), expected.cpu().numpy())


def test_originals_come_back_when_forward_raises(device):
    net = _Net.make(mt, device)
    own = dict(net.named_parameters())
    with pytest.raises(mt.ShapeError):
        mt.func.functional_call(net, _given(mt, device), (mt.ones(2, 5, device=device),))
    assert all(getattr(net.fc, n.split(".")[1]) is t for n, t in own.items())
    assert "extra" not in dir(net)


def test_an_unknown_name_is_an_attribute_for_the_call_only():
    class Reads(mt.nn.Module):
        def forward(self, x):
            return x * self.extra

    net = Reads()
    out = mt.func.functional_call(net, {"extra": mt.tensor(3.0)}, (mt.ones(2),))
    assert out.tolist() == [3.0, 3.0] and not hasattr(net, "extra")


def test_reassigned_buffer_is_written_back_like_torch():
    torch = _torch()

    def make(T):
        class Counter(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("count", T.zeros(()))

            def forward(self, x):
                self.count = self.count + 1
                return x

        return Counter()

    ours, ref = {"count": mt.zeros(())}, {"count": torch.zeros(())}
    mt.func.functional_call(make(mt), ours, (mt.ones(1),))
    torch.func.functional_call(make(torch), ref, (torch.ones(1),))
    assert ours["count"].item() == ref["count"].item() == 1.0


def _tied(T):
    class Tied(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = T.nn.Linear(2, 2, bias=False)
            self.b = T.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    return Tied()


@pytest.mark.parametrize("tie_weights", [True, False])
def test_tied_weights_follow_tie_weights_as_torch(tie_weights):
    torch = _torch()
    weight = np.array([[2.0, 0.0], [0.0, 3.0]], dtype=np.float32)
    ours, ref = _tied(mt), _tied(torch)
    ref.a.weight.data = torch.tensor(weight * 0.5)
    ours.a.weight.data = mt.tensor(weight * 0.5)
    out = mt.func.functional_call(ours, {"a.weight": mt.tensor(weight)}, (mt.ones(1, 2),),
                                  tie_weights=tie_weights)
    expected = torch.func.functional_call(ref, {"a.weight": torch.tensor(weight)},
                                          (torch.ones(1, 2),), tie_weights=tie_weights)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy())


def test_two_values_for_tied_names_raise_as_torch():
    torch = _torch()
    for T in (mt, torch):
        with pytest.raises(ValueError, match=r"multiple values for keys \['a.weight', "
                                             r"'b.weight'\], which are tied"):
            T.func.functional_call(_tied(T), {"a.weight": T.ones(2, 2),
                                              "b.weight": T.zeros(2, 2)}, (T.ones(1, 2),))


def test_strict_names_missing_and_unexpected_keys_as_torch():
    torch = _torch()
    messages = []
    for T in (mt, torch):
        with pytest.raises(RuntimeError) as info:
            T.func.functional_call(_Net.make(T), {"fc.weight": T.ones(2, 3), "nope": T.ones(1)},
                                   (T.ones(1, 3),), strict=True)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "Unexpected key(s): 'nope'." in messages[0]
    assert "Missing key(s): 'fc.bias', 'scale'." in messages[0]


def test_strict_with_every_name_runs():
    net = _Net.make(mt)
    tensors = {**_given(mt, requires_grad=False), "scale": mt.ones(2)}
    out = mt.func.functional_call(net, tensors, (mt.tensor(X),), strict=True)
    assert tuple(out.shape) == (2, 2)


@pytest.mark.parametrize("dicts, message", [
    (5, "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts"),
    (({"scale": None}, 3), "Expected all elements of parameter_and_buffer_dicts to be"),
    (({"scale": None}, {"scale": None}), r"\['scale'\] appeared in multiple dictionaries"),
])
def test_bad_dicts_raise_value_error_as_torch(dicts, message):
    torch = _torch()
    for T in (mt, torch):
        args = dicts if not isinstance(dicts, tuple) else tuple(
            {k: T.ones(2) for k in d} if isinstance(d, dict) else d for d in dicts)
        with pytest.raises(ValueError, match=message):
            T.func.functional_call(_Net.make(T), args, (T.ones(1, 3),))


def test_a_non_tensor_value_raises_type_error_and_restores():
    net = _Net.make(mt)
    own = net.fc.weight
    with pytest.raises(TypeError, match="is not an instance of torch.Tensor"):
        mt.func.functional_call(net, {"fc.weight": mt.ones(2, 3), "fc.bias": 3.0},
                                (mt.ones(1, 3),))
    assert net.fc.weight is own


def test_an_unknown_submodule_raises_attribute_error():
    with pytest.raises(AttributeError, match="Net has no attribute `nothing`"):
        mt.func.functional_call(_Net.make(mt), {"nothing.weight": mt.ones(1)}, (mt.ones(1, 3),))


def test_meta_device_runs_shapes_only():
    net = _Net.make(mt, "meta")
    out = mt.func.functional_call(net, _given(mt, "meta"), (mt.ones(4, 3, device="meta"),))
    assert tuple(out.shape) == (4, 2) and out.device.type == "meta"


def test_stateless_spelling_warns_as_torch_and_calls():
    torch = _torch()
    with pytest.warns(FutureWarning, match="torch.nn.utils.stateless.functional_call` is "
                                           "deprecated") as ours:
        out = mt.nn.utils.stateless.functional_call(_Net.make(mt), _given(mt), (mt.tensor(X),))
    with pytest.warns(FutureWarning) as ref:
        torch.nn.utils.stateless.functional_call(_Net.make(torch), _given(torch),
                                                 (torch.tensor(X),))
    assert str(ours[0].message) == str(ref[0].message)
    assert tuple(out.shape) == (2, 2)

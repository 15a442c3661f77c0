"""Module registries, iteration, modes, moves and repr, against PyTorch where installed."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from minitorch_meta.errors import MetaDataError
from tests.devices import tensor_device


def _registration_class(torch):
    """A module using every way of adding state: the trap (plain dict) included."""
    nn_ = torch.nn

    class Net(nn_.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn_.Parameter(torch.ones(3))
            self.hidden = {"ignored": nn_.Linear(5, 5)}  # plain dict: not registered
            self.stack = nn_.ModuleList([nn_.Linear(3, 4), nn_.Linear(4, 2)])
            self.add_module("head", nn_.Linear(2, 1, bias=False))
            self.register_parameter("offset", nn_.Parameter(torch.zeros(2, 2)))
            self.register_buffer("running", torch.zeros(4))
            self.register_buffer("scratch", torch.zeros(1), persistent=False)
            self.shared = self.stack[0]  # the same layer twice: its parameters count once

        def forward(self, x):
            return self.head(self.stack[1](self.stack[0](x * self.scale)))

    return Net


def _summary(module):
    return [(name, tuple(p.shape)) for name, p in module.named_parameters()]


def test_registration_order_and_sizes():
    net = _registration_class(mt)()
    assert _summary(net) == [("scale", (3,)), ("offset", (2, 2)), ("stack.0.weight", (4, 3)),
                             ("stack.0.bias", (4,)), ("stack.1.weight", (2, 4)),
                             ("stack.1.bias", (2,)), ("head.weight", (1, 2))]
    assert [name for name, _ in net.named_buffers()] == ["running", "scratch"]
    assert list(net.state_dict()) == ["scale", "offset", "running", "stack.0.weight",
                                      "stack.0.bias", "stack.1.weight", "stack.1.bias",
                                      "head.weight", "shared.weight", "shared.bias"]


def test_registration_equals_pytorch(torch_ref):
    ours, theirs = _registration_class(mt)(), _registration_class(torch_ref)()
    assert _summary(ours) == _summary(theirs)
    assert [tuple(p.shape) for p in ours.parameters()] == \
           [tuple(p.shape) for p in theirs.parameters()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)


def test_plain_dict_and_list_are_not_seen():
    class Hidden(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Linear(2, 2)]
            self.table = {"a": nn.Linear(2, 2)}

    assert list(Hidden().parameters()) == []


def test_named_modules_root_first_and_deduplicated():
    inner = nn.Linear(2, 2)
    net = nn.Sequential(inner, nn.ReLU(), inner)
    assert [name for name, _ in net.named_modules()] == ["", "0", "1"]
    assert len(list(net.parameters())) == 2
    assert [n for n, _ in net.named_parameters(prefix="model")] == ["model.0.weight",
                                                                   "model.0.bias"]
    assert list(net.parameters(recurse=False)) == []


def test_getattr_setattr_delattr_dir():
    layer = nn.Linear(2, 3)
    assert layer.weight is layer._parameters["weight"]
    layer.bias = None
    assert layer._parameters["bias"] is None and layer.bias is None
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'weight'"):
        layer.weight = 3
    del layer.weight
    assert "weight" not in layer._parameters
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'weight'"):
        layer.weight  # noqa: B018
    layer.weight = nn.Parameter(mt.ones(3, 2))
    assert "weight" in dir(layer) and "in_features" in dir(layer)


def test_assignment_moves_a_name_between_registries():
    m = nn.Module()
    m.x = nn.Linear(1, 1)
    m.x = nn.Parameter(mt.ones(1))
    assert "x" not in m._modules and "x" in m._parameters
    m.register_buffer("b", mt.zeros(1))
    with pytest.raises(TypeError, match="cannot assign 'str' as buffer 'b'"):
        m.b = "no"
    m.b = mt.ones(2)
    assert tuple(m.b.shape) == (2,)


@pytest.mark.parametrize("call, error, message", [
    (lambda m: m.register_parameter(1, None), TypeError, "parameter name should be a string"),
    (lambda m: m.register_parameter("a.b", None), KeyError, "can't contain"),
    (lambda m: m.register_parameter("", None), KeyError, "can't be empty string"),
    (lambda m: m.register_parameter("training", None), KeyError, "already exists"),
    (lambda m: m.register_parameter("w", mt.ones(2)), TypeError,
     "cannot assign 'Tensor' object to parameter 'w'"),
    (lambda m: m.register_parameter("w", nn.Parameter(mt.ones(2)) * 2), TypeError,
     "torch.nn.Parameter or None required"),
    (lambda m: m.register_buffer("b", 3), TypeError, "cannot assign 'int' object to buffer"),
    (lambda m: m.register_buffer("a.b", None), KeyError, "buffer name can't contain"),
    (lambda m: m.add_module("x", 3), TypeError, "int is not a Module subclass"),
    (lambda m: m.add_module("a.b", None), KeyError, "module name can't contain"),
    (lambda m: m.add_module("", None), KeyError, "module name can't be empty"),
    (lambda m: m.get_submodule("nope"), AttributeError, "Module has no attribute `nope`"),
    (lambda m: m.train("yes"), ValueError, "training mode is expected to be boolean"),
    (lambda m: m(1), NotImplementedError, 'missing the required "forward" function'),
    (lambda m: m.to(mt.int64), TypeError, "only accepts floating point"),
])
def test_error_paths(call, error, message):
    with pytest.raises(error) as info:
        call(nn.Module())
    assert message in str(info.value.args[0])  # args: KeyError's str() adds quotes


def test_non_leaf_parameter_is_refused():
    m = nn.Module()
    p = nn.Parameter(mt.ones(2))
    non_leaf = nn.Parameter.__new__(nn.Parameter, mt.ones(2))
    non_leaf.grad_fn = (p * 2).grad_fn
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'w'"):
        m.register_parameter("w", non_leaf)


def test_setattr_before_init_is_an_error():
    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(mt.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_module_init_rejects_arguments():
    with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
        nn.Module(x=1)


def test_get_submodule_and_parameter():
    net = nn.Sequential(nn.Sequential(nn.Linear(2, 3)))
    assert net.get_submodule("0.0") is net[0][0]
    assert net.get_submodule("") is net
    assert net.get_parameter("0.0.bias") is net[0][0].bias
    with pytest.raises(AttributeError, match="`in_features` is not an nn.Parameter"):
        net.get_parameter("0.0.in_features")
    with pytest.raises(AttributeError, match="`in_features` is not an nn.Module"):
        net.get_submodule("0.0.in_features")


def test_apply_visits_children_first():
    net = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
    seen = []
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]


def test_train_eval_and_requires_grad():
    net = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_zero_grad(device):
    layer = nn.Linear(3, 2, device=device)
    layer(mt.ones(4, 3, device=device)).sum().backward()
    layer.zero_grad(set_to_none=False)
    assert layer.weight.grad is not None
    assert float(layer.weight.grad.abs().sum().item()) == 0.0
    layer.zero_grad()
    assert layer.weight.grad is None and layer.bias.grad is None


def test_to_keeps_parameter_identity_and_casts_floats_only(device):
    layer = nn.Linear(3, 2)
    layer.register_buffer("steps", mt.zeros(1, dtype=mt.int64))
    weight = layer.weight
    layer.to(device).to(mt.float64)
    assert layer.weight is weight and weight.dtype is mt.float64
    assert layer.weight.device == tensor_device(device)
    assert layer.steps.dtype is mt.int64
    assert layer.double() is layer and layer.float().weight.dtype is mt.float32
    assert layer.cpu().weight.device == mt.device("cpu")


def test_to_moves_gradients_too():
    layer = nn.Linear(2, 2)
    layer(mt.ones(1, 2)).sum().backward()
    layer.double()
    assert layer.weight.grad.dtype is mt.float64


def test_meta_construction_allocates_nothing():
    conv = nn.Conv2d(3, 5, 2, device="meta")
    assert conv.weight.is_meta and tuple(conv.weight.shape) == (5, 3, 2, 2)
    with mt.device("meta"):
        net = nn.Sequential(nn.Linear(10**6, 10**6), nn.ReLU())
    assert net[0].weight.is_meta and net[0].weight.requires_grad


def test_moving_a_meta_module_points_to_to_empty():
    conv = nn.Conv2d(3, 5, 2, device="meta")
    with pytest.raises(MetaDataError, match=r"to_empty\(device='cpu'\)"):
        conv.to("cpu")
    with pytest.raises(MetaDataError, match="to_empty"):
        conv.cpu()


def test_to_empty_then_reset_parameters_gives_a_trainable_model(device):
    conv = nn.Conv2d(3, 5, 2, device="meta")
    weight = conv.weight
    assert conv.to_empty(device=device) is conv
    conv.reset_parameters()
    assert conv.weight is weight and conv.weight.device == tensor_device(device)
    bound = 1 / (3 * 2 * 2) ** 0.5
    assert float(conv.weight.abs().max().item()) <= bound
    conv(mt.ones(1, 3, 4, 4, device=device)).sum().backward()
    assert tuple(conv.weight.grad.shape) == (5, 3, 2, 2)


def test_repr_of_a_nested_model():
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Sequential(nn.ReLU(), nn.Flatten()))
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1))\n"
        "  (1): Sequential(\n"
        "    (0): ReLU()\n"
        "    (1): Flatten(start_dim=1, end_dim=-1)\n"
        "  )\n"
        ")")
    assert repr(nn.Module()) == "Module()"

"""ParameterList: PyTorch's list behaviour, registration (parameters, state_dict, to,
optimizers), the repr, and meta / to_empty."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from tests.devices import tensor_device


class Mixture(nn.Module):
    def __init__(self, sizes, device=None):
        super().__init__()
        self.weights = nn.ParameterList(mt.ones(n, device=device) for n in sizes)

    def forward(self, x):
        return sum((w.sum() for w in self.weights), x)


def test_list_behaviour_like_torch(torch_ref):
    torch = torch_ref
    ours = nn.ParameterList([nn.Parameter(mt.zeros(2, 3)), mt.zeros(4, dtype=mt.float64)])
    theirs = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(2, 3)),
                                     torch.zeros(4, dtype=torch.float64)])
    for plist, lib in ((ours, mt), (theirs, torch)):
        assert plist.append(lib.ones(2)) is plist
        assert plist.extend([lib.ones(1)]) is plist
        plist += [lib.ones(3)]
    assert len(ours) == len(theirs) == 5
    assert [tuple(p.shape) for p in ours] == [tuple(p.shape) for p in theirs]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in ours)
    assert tuple(ours[-1].shape) == (3,) and ours[-5] is ours[0]
    part = ours[1:3]
    assert type(part) is nn.ParameterList and len(part) == 2 and part[0] is ours[1]
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["0", "1", "2", "3", "4"]
    assert [n for n, _ in ours.named_parameters()] == ["0", "1", "2", "3", "4"]
    assert repr(ours) == repr(theirs)


def test_a_tensor_becomes_a_parameter_sharing_its_storage():
    data = mt.zeros(3)
    plist = nn.ParameterList([data])
    assert isinstance(plist[0], nn.Parameter) and plist[0] is not data
    with mt.no_grad():
        data.fill_(2.0)
    assert plist[0].tolist() == [2.0, 2.0, 2.0]
    parameter = nn.Parameter(mt.ones(2))
    plist[0] = parameter
    assert plist[0] is parameter and len(plist) == 1


def test_setitem_with_a_plain_tensor_and_negative_index():
    plist = nn.ParameterList([mt.zeros(1), mt.zeros(2)])
    plist[-1] = mt.ones(5)
    assert isinstance(plist[1], nn.Parameter) and plist[1].tolist() == [1.0] * 5
    assert [tuple(p.shape) for p in plist.parameters()] == [(1,), (5,)]


def test_other_objects_are_kept_and_printed_by_type(torch_ref):
    torch = torch_ref
    ours = nn.ParameterList([mt.zeros(2)])
    theirs = torch.nn.ParameterList([torch.zeros(2)])
    for plist in (ours, theirs):
        plist.append("note")
        plist.append(3)
    assert ours[1] == "note" and ours[2] == 3 and len(list(ours.parameters())) == 1
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("values", [[], [0], [0, 1]])
def test_repr_of_short_lists_like_torch(values, torch_ref):
    torch = torch_ref
    ours = nn.ParameterList([mt.zeros(v + 1, 2) for v in values])
    theirs = torch.nn.ParameterList([torch.zeros(v + 1, 2) for v in values])
    assert repr(ours) == repr(theirs)


def test_errors_like_torch():
    plist = nn.ParameterList([mt.zeros(1)])
    with pytest.raises(IndexError, match="index 1 is out of range"):
        plist[1]
    with pytest.raises(IndexError, match="index -2 is out of range"):
        plist[-2] = mt.zeros(1)
    with pytest.raises(IndexError, match="index 0 is out of range"):
        nn.ParameterList()[0]
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        plist[1.0]
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an "
                                        "iterable, but got int"):
        plist.extend(5)
    with pytest.raises(TypeError, match="but got Tensor"):
        plist.extend(mt.zeros(2))
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        plist(mt.zeros(1))
    with pytest.raises(RuntimeError):  # integers cannot require grad, as in PyTorch
        plist.append(mt.zeros(2, dtype=mt.int64))


def test_registered_in_a_model_and_trained(device):
    model = Mixture([2, 3], device=device)
    assert list(model.state_dict()) == ["weights.0", "weights.1"]
    optimizer = mt.optim.SGD(model.parameters(), lr=0.5)
    model(mt.tensor(0.0, device=device)).backward()
    optimizer.step()
    assert [w.tolist() for w in model.weights] == [[0.5] * 2, [0.5] * 3]
    copy = Mixture([2, 3])
    copy.load_state_dict({k: v.cpu() for k, v in model.state_dict().items()})
    assert copy.weights[1].tolist() == [0.5] * 3


def test_dir_hides_the_numeric_names():
    plist = nn.ParameterList([mt.zeros(1)])
    assert "0" not in dir(plist) and "append" in dir(plist)


def test_meta_then_to_empty_and_to(device):
    with mt.device("meta"):
        model = Mixture([4, 5])
    assert all(w.is_meta for w in model.weights)
    assert model(mt.empty((), device="meta")).is_meta
    model.to_empty(device=device)
    assert all(w.device == tensor_device(device) and w.requires_grad for w in model.weights)
    assert isinstance(model.weights[0], nn.Parameter)
    model.double()
    assert all(w.dtype is mt.float64 for w in model.weights)

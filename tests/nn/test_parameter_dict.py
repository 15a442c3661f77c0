"""nn.ParameterDict against PyTorch: registration (parameters(), state_dict(), named
parameters, to()), the dict methods and their order, tensors made Parameters, other objects
kept, the operators, reprs, and the errors."""

from __future__ import annotations

from collections import OrderedDict

import pytest

import minitorch_meta as mt
from minitorch_meta import nn


def _both(torch_ref, build):
    """``build(lib)`` for minitorch_meta and PyTorch."""
    return build(mt), build(torch_ref)


def test_registers_parameters(device):
    w = mt.randn(2, 3, device=device)
    d = nn.ParameterDict({"w": w, "b": nn.Parameter(mt.zeros(3, device=device))})
    assert isinstance(d["w"], nn.Parameter) and d["w"].requires_grad
    assert d["w"].data_ptr() == w.data_ptr() and d["w"] is not w
    assert [name for name, _ in d.named_parameters()] == ["b", "w"]
    model = nn.Module()
    model.table = d
    assert list(model.state_dict()) == ["table.b", "table.w"]
    assert len(list(model.parameters())) == 2
    assert model.to(mt.float64).table["w"].dtype == mt.float64


def test_parameter_stored_as_is():
    p = nn.Parameter(mt.zeros(2))
    d = nn.ParameterDict()
    d["p"] = p
    assert d["p"] is p


def test_other_objects_kept_and_not_registered():
    d = nn.ParameterDict({"n": None, "k": 3})
    assert d["k"] == 3 and d["n"] is None
    assert list(d.parameters()) == [] and list(d) == ["k", "n"]


@pytest.mark.parametrize("source", [
    lambda lib: {"b": lib.zeros(1), "a": lib.zeros(2), "c": lib.zeros(3)},
    lambda lib: OrderedDict([("b", lib.zeros(1)), ("a", lib.zeros(2)), ("c", lib.zeros(3))]),
    lambda lib: [("b", lib.zeros(1)), ("a", lib.zeros(2)), ["c", lib.zeros(3)]],
    lambda lib: lib.nn.ParameterDict(OrderedDict([("z", lib.zeros(1)), ("y", lib.zeros(2))])),
], ids=["dict (sorted)", "OrderedDict", "pairs", "ParameterDict"])
def test_update_order_like_torch(torch_ref, source):
    def build(lib):
        d = lib.nn.ParameterDict({"m": lib.zeros(4)})
        d.update(source(lib))
        return d
    ours, theirs = _both(torch_ref, build)
    assert list(ours) == list(theirs)
    assert list(ours.keys()) == list(theirs.keys())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]


def test_dict_methods_like_torch(torch_ref):
    def run(lib):
        d = lib.nn.ParameterDict(OrderedDict([("a", lib.zeros(1)), ("b", lib.zeros(2))]))
        log = [len(d), "a" in d, "z" in d, 3 in d, list(reversed(d))]
        log.append(tuple(d.get("b").shape))
        log.append(d.get("missing", "fallback"))
        log.append(tuple(d.setdefault("c", lib.ones(3)).shape))
        log.append(tuple(d.setdefault("c", lib.ones(5)).shape))
        log.append(d.setdefault("n"))
        key, value = d.popitem()
        log.append((key, value))
        log.append(tuple(d.pop("a").shape))
        log.append([(k, tuple(v.shape)) for k, v in d.items()])
        log.append([tuple(v.shape) for v in d.values()])
        copied = d.copy()
        log.append((type(copied).__name__, list(copied), copied["b"] is d["b"]))
        fresh = d.fromkeys(["x", "y"], lib.zeros(2))
        log.append((list(fresh), type(fresh["x"]).__name__))
        log.append(list(d.fromkeys(["p"])))
        del d["b"]
        log.append(list(d))
        d.update({"q": lib.zeros(1)})
        d.clear()
        log.append((len(d), list(d.parameters())))
        return log
    assert run(mt) == run(torch_ref)


def test_operators_like_torch(torch_ref):
    def run(lib):
        left = lib.nn.ParameterDict(OrderedDict([("a", lib.zeros(1)), ("b", lib.zeros(1))]))
        right = lib.nn.ParameterDict(OrderedDict([("c", lib.zeros(2)), ("a", lib.zeros(3))]))
        merged = left | right
        assert type(merged).__name__ == "ParameterDict" and merged is not left
        reverse = right.__ror__(left)
        left |= right
        return [(k, tuple(v.shape)) for k, v in merged.items()], list(reverse), list(left)
    assert run(mt) == run(torch_ref)


def test_repr_like_torch(torch_ref):
    def build(lib):
        return lib.nn.ParameterDict({
            "w": lib.zeros(2, 3), "d": lib.zeros(4, dtype=lib.float64),
            "h": lib.zeros(2, dtype=lib.float16), "s": lib.tensor(1.0), "e": lib.zeros(0, 3),
            "m": lib.zeros(2, device="meta"), "o": 3, "n": None})
    ours, theirs = _both(torch_ref, build)
    assert repr(ours) == repr(theirs)
    assert repr(nn.ParameterDict()) == repr(torch_ref.nn.ParameterDict()) == "ParameterDict()"
    one = _both(torch_ref, lambda lib: lib.nn.ParameterDict({"w": lib.zeros(2)}))
    assert repr(one[0]) == repr(one[1])
    model = _both(torch_ref, lambda lib: lib.nn.Sequential(
        lib.nn.Linear(2, 2), lib.nn.ParameterDict({"w": lib.zeros(2), "v": lib.zeros(1)})))
    assert repr(model[0]) == repr(model[1])


def test_calling_refused_like_torch(torch_ref):
    for lib in (torch_ref, mt):
        with pytest.raises(RuntimeError, match="^ParameterDict should not be called.$"):
            lib.nn.ParameterDict()(1)


@pytest.mark.parametrize("key, error", [
    (1, TypeError), ("a.b", KeyError), ("", KeyError), ("forward", KeyError),
    ("train", KeyError),
])
def test_bad_keys_like_torch(torch_ref, key, error):
    for lib in (torch_ref, mt):
        with pytest.raises(error):
            lib.nn.ParameterDict()[key] = lib.zeros(1)
    d = nn.ParameterDict()
    with pytest.raises(error):
        d[key] = mt.zeros(1)
    assert list(d) == []  # PyTorch keeps the refused key listed; nothing is kept here


def test_missing_key_like_torch(torch_ref):
    for lib in (torch_ref, mt):
        d = lib.nn.ParameterDict()
        with pytest.raises(AttributeError, match="has no attribute 'zzz'"):
            d["zzz"]
        with pytest.raises(KeyError):
            del d["zzz"]
        with pytest.raises(AttributeError):
            d.pop("zzz")
        with pytest.raises(KeyError, match="dictionary is empty"):
            d.popitem()


def test_non_string_key_message():
    with pytest.raises(TypeError, match=r"not a string \(type is 'int'\)"):
        nn.ParameterDict()[3]


@pytest.mark.parametrize("argument, error, message", [
    (3, TypeError, "should be called with an iterable of key/value pairs, but got int"),
    ([3], TypeError, "sequence element #0 should be Iterable; is int"),
    ([("a", 1, 2)], ValueError, "sequence element #0 has length 3; 2 is required"),
])
def test_update_errors_like_torch(torch_ref, argument, error, message):
    with pytest.raises(error):
        torch_ref.nn.ParameterDict().update(argument)
    with pytest.raises(error, match=message):
        nn.ParameterDict().update(argument)


def test_assigning_non_parameter_over_parameter_refused_like_torch(torch_ref):
    for lib in (torch_ref, mt):
        d = lib.nn.ParameterDict({"a": lib.zeros(1)})
        with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'a'"):
            d["a"] = 5
        d["a"] = None
        assert d["a"] is None and list(d.parameters()) == []


def test_gradients_reach_the_stored_parameters(device):
    d = nn.ParameterDict({"w": mt.ones(3, device=device)})
    (d["w"] * 2).sum().backward()
    assert d["w"].grad.tolist() == [2.0, 2.0, 2.0]
    optimizer = mt.optim.SGD(d.parameters(), lr=0.5)
    optimizer.step()
    assert d["w"].tolist() == [0.0, 0.0, 0.0]


def test_meta_and_state_dict_round_trip():
    d = nn.ParameterDict({"w": mt.zeros(2, 3, device="meta")})
    assert d["w"].is_meta
    real = nn.ParameterDict({"w": mt.ones(2, 3)})
    other = nn.ParameterDict({"w": mt.zeros(2, 3)})
    other.load_state_dict(real.state_dict())
    assert other["w"].sum().item() == 6.0

"""``torch.autograd.graph``: ``Node`` (isinstance, hooks, metadata), ``GradientEdge``,
``get_gradient_edge`` and ``increment_version``, against PyTorch."""

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.autograd import graph


def _pair(torch, device, values=(1.0, 2.0, 3.0)):
    ours = mt.tensor(values, dtype=mt.float64, device=device, requires_grad=True)
    theirs = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    return ours, theirs


def _np(t):
    return None if t is None else np.asarray(t.detach().cpu().numpy())


def test_import_path_and_attribute():
    import minitorch_meta.autograd.graph as by_import

    assert by_import is graph
    assert mt.autograd.graph is graph


def test_every_node_is_a_node(device, torch_ref):
    x, tx = _pair(torch_ref, device)
    for lib, t in ((mt, x), (torch_ref, tx)):
        y = (t * 2).exp().sum()
        node_class = graph.Node if lib is mt else torch_ref.autograd.graph.Node
        leaf_node = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
        assert isinstance(y.grad_fn, node_class)
        assert isinstance(leaf_node, node_class)
        assert leaf_node.name() == "torch::autograd::AccumulateGrad"
        assert issubclass(type(y.grad_fn), node_class)
        assert not isinstance(t, node_class)
        assert not isinstance(None, node_class)
        assert not isinstance(object(), node_class)


def test_custom_function_and_multi_output_nodes_are_nodes(device):
    class Twice(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = mt.ones(2, 2, dtype=mt.float64, device=device, requires_grad=True)
    assert isinstance(Twice.apply(x).grad_fn, graph.Node)
    a, b = x.split(1)
    assert isinstance(a.grad_fn, graph.Node) and isinstance(b.grad_fn, graph.Node)


def test_node_is_abstract():
    with pytest.raises(TypeError):
        graph.Node()


def test_metadata_is_a_dict_of_the_node(device):
    x = mt.ones(3, device=device, requires_grad=True)
    y = x * 2
    assert y.grad_fn.metadata == {}
    y.grad_fn.metadata["tag"] = 1
    assert y.grad_fn.metadata == {"tag": 1}
    assert (x * 3).grad_fn.metadata == {}
    leaf = y.grad_fn.next_functions[0][0]
    leaf.metadata["leaf"] = True
    assert x.grad_fn is None and leaf.metadata == {"leaf": True}


def _hook_trace(lib, x):
    """What the node hooks of ``exp(x * 2)`` and of x's AccumulateGrad see, in order."""
    seen = []
    y = x * 2
    z = y.exp()
    z.register_hook(lambda g: seen.append(("tensor", _np(g))))
    z.grad_fn.register_prehook(lambda go: seen.append(("pre", [_np(g) for g in go])))
    z.grad_fn.register_hook(
        lambda gi, go: seen.append(("post", [_np(g) for g in gi], [_np(g) for g in go])))
    leaf = y.grad_fn.next_functions[0][0]
    leaf.register_prehook(lambda go: seen.append(("leaf pre", [_np(g) for g in go])))
    leaf.register_hook(lambda gi, go: seen.append(("leaf post", gi, [_np(g) for g in go])))
    z.sum().backward()
    return seen, _np(x.grad)


def test_node_hooks_see_what_torch_hooks_see(device, torch_ref):
    x, tx = _pair(torch_ref, device)
    ours, grad = _hook_trace(mt, x)
    theirs, tgrad = _hook_trace(torch_ref, tx)
    assert [entry[0] for entry in ours] == [entry[0] for entry in theirs]
    for mine, reference in zip(ours, theirs):
        for a, b in zip(mine[1:], reference[1:]):
            if isinstance(a, tuple) and not a:
                assert b == ()
                continue
            for u, v in zip(a, b):
                np.testing.assert_allclose(u, v)
    np.testing.assert_allclose(grad, tgrad)


def _replaced(lib, x):
    y = (x * 3).sin()
    y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    mul = y.grad_fn.next_functions[0][0]
    mul.register_hook(lambda gi, go: tuple(None if g is None else g + 1 for g in gi))
    (y * y).sum().backward()
    return _np(x.grad)


def test_hooks_may_replace_gradients(device, torch_ref):
    x, tx = _pair(torch_ref, device)
    np.testing.assert_allclose(_replaced(mt, x), _replaced(torch_ref, tx))


def test_hooks_under_create_graph(device, torch_ref):
    results = []
    for lib in (mt, torch_ref):
        x = (mt if lib is mt else torch_ref).tensor([0.5, 1.5], dtype=lib.float64,
                                                    requires_grad=True)
        if lib is mt:
            x = mt.tensor([0.5, 1.5], dtype=mt.float64, device=device, requires_grad=True)
        y = (x * x).sum()
        y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: tuple(g * 2 for g in gi))
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append((_np(g), _np(gg)))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b)


def test_removed_node_hook_no_longer_runs(device):
    x = mt.ones(2, device=device, requires_grad=True)
    calls = []
    y = x * 2
    handle = y.grad_fn.register_hook(lambda gi, go: calls.append(1))
    pre = y.grad_fn.register_prehook(lambda go: calls.append(2))
    handle.remove()
    pre.remove()
    y.sum().backward()
    assert calls == []


_BAD_HOOKS = (  # (post-hook?, hook): each result is refused with PyTorch's error
    (True, lambda gi, go: (gi[0], gi[0])), (True, lambda gi, go: gi[0]),
    (True, lambda gi, go: [gi[0]]), (True, lambda gi, go: (3,)),
    (True, lambda gi, go: (gi[0][:1],)), (False, lambda go: (go[0], go[0])),
    (False, lambda go: go[0]), (False, lambda go: ("nonsense",)),
)


def _bad_hook_error(torch, device, post: bool, hook) -> tuple:
    x = torch.ones(2, device=device, requires_grad=True)
    y = (x * 1).sigmoid()
    (y.grad_fn.register_hook if post else y.grad_fn.register_prehook)(hook)
    try:
        y.sum().backward()
    except (TypeError, RuntimeError) as error:
        return type(error).__name__, str(error)
    return None


@pytest.mark.parametrize("case", range(len(_BAD_HOOKS)))
def test_a_bad_hook_result_is_refused_as_pytorch(device, torch_ref, case):
    post, hook = _BAD_HOOKS[case]
    ours = _bad_hook_error(mt, device, post, hook)
    assert ours is not None and ours == _bad_hook_error(torch_ref, "cpu", post, hook)


def test_gradient_edge(device, torch_ref):
    x, tx = _pair(torch_ref, device)
    for lib, t in ((graph, x), (torch_ref.autograd.graph, tx)):
        edge = lib.get_gradient_edge(t)
        assert isinstance(edge, tuple) and edge._fields == ("node", "output_nr",
                                                            "ownership_token")
        assert edge.node.name() == "torch::autograd::AccumulateGrad"
        assert edge.output_nr == 0 and edge.ownership_token is None
        y = t * 2
        assert lib.get_gradient_edge(y) == (y.grad_fn, 0, None)


def test_gradient_edge_of_a_second_output_matches_torch(torch_ref):
    values = [[2.0, 1.0], [1.0, 3.0]]
    q, r = mt.linalg.qr(mt.tensor(values, requires_grad=True))
    tq, tr = torch_ref.linalg.qr(torch_ref.tensor(values, requires_grad=True))
    edge, tedge = graph.get_gradient_edge(r), torch_ref.autograd.graph.get_gradient_edge(tr)
    assert edge.output_nr == tedge.output_nr == 1
    assert edge.node.name() == tedge.node.name()
    # the edge is the one next_functions shows, in both frameworks
    assert (r * 1).grad_fn.next_functions[0] == (edge.node, 1)
    assert (tr * 1).grad_fn.next_functions[0] == (tedge.node, 1)


def test_gradient_edge_needs_requires_grad(device, torch_ref):
    message = "not possible to get the gradient edge for a Tensor that does not require"
    with pytest.raises(RuntimeError, match=message):
        graph.get_gradient_edge(mt.ones(2, device=device))
    with pytest.raises(RuntimeError, match=message):
        torch_ref.autograd.graph.get_gradient_edge(torch_ref.ones(2))


def test_increment_version(device, torch_ref):
    x, tx = _pair(torch_ref, device)
    for lib, t in ((graph, x), (torch_ref.autograd.graph, tx)):
        before = t._version
        lib.increment_version(t)
        assert t._version == before + 1
        lib.increment_version([t, t])
        assert t._version == before + 3
        y = (t * 1).exp()
        lib.increment_version(y)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_increment_version_shares_the_counter_with_views(device):
    x = mt.ones(4, device=device)
    view = x[1:]
    graph.increment_version(view)
    assert x._version == view._version == 1


@pytest.mark.parametrize("bad", [3, "ab", [1.0]])
def test_increment_version_refuses_non_tensors(bad, torch_ref):
    with pytest.raises(RuntimeError) as ours:
        graph.increment_version(bad)
    with pytest.raises(RuntimeError) as theirs:
        torch_ref.autograd.graph.increment_version(bad)
    assert str(ours.value) == str(theirs.value)

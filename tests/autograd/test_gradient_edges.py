"""``GradientEdge`` standing for a tensor in ``autograd.grad`` and ``backward`` (outputs and
inputs): each scenario runs on minitorch_meta and on PyTorch and must give the same."""

import pytest

import minitorch_meta as mt


def _graph(lib):
    return mt.autograd.graph if lib is mt else lib.autograd.graph


def _values(result):
    """Gradients as nested lists (None stays None), comparable across libraries."""
    if result is None:
        return None
    if isinstance(result, tuple):
        return tuple(_values(r) for r in result)
    return result.detach().cpu().tolist()


def _setup(lib, device="cpu"):
    kwargs = {"device": device} if lib is mt else {}
    a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True, **kwargs)
    b = lib.tensor([3.0, 4.0], dtype=lib.float64, requires_grad=True, **kwargs)
    h = a * b
    return a, b, h, (h * h).sum()


def _grad_scenarios(lib, device="cpu"):
    edge = _graph(lib).get_gradient_edge
    a, b, h, y = _setup(lib, device)
    ones = lib.ones(2, dtype=lib.float64) if lib is not mt else mt.ones(2, dtype=mt.float64,
                                                                          device=device)
    grad = lib.autograd.grad
    return [
        grad(y, edge(h), retain_graph=True),  # at a non-leaf: the gradient arriving there
        grad(y, (edge(a), b), retain_graph=True),  # a leaf's edge, mixed with a tensor
        grad(y, _graph(lib).GradientEdge(y.grad_fn.next_functions[0][0], 0),
             retain_graph=True),  # an edge built from next_functions
        grad(edge(h), a, grad_outputs=ones, retain_graph=True),  # an edge as the output
        grad(edge(h.sum()), a, retain_graph=True),  # a one-element output: gradient 1
        grad(edge(h.sum()), edge(h), retain_graph=True),
        grad(y, edge(h), create_graph=True),
    ]


def test_grad_with_edges(device, torch_ref):
    ours, theirs = _grad_scenarios(mt, device), _grad_scenarios(torch_ref)
    assert [_values(r) for r in ours] == [_values(r) for r in theirs]
    assert ours[-1][0].grad_fn is not None  # create_graph: differentiable again


def _backward_scenarios(lib):
    edge = _graph(lib).get_gradient_edge
    a, b, h, y = _setup(lib)
    seen = []
    y.backward(inputs=edge(a), retain_graph=True)  # a leaf's edge: its .grad is written
    seen.append((_values(a.grad), _values(b.grad)))
    a.grad = None
    y.backward(inputs=[edge(h)], retain_graph=True)  # a non-leaf's edge: no .grad anywhere
    seen.append((_values(a.grad), _values(b.grad)))
    lib.autograd.backward(edge(h.sum()), inputs=[a], retain_graph=True)  # an edge output
    seen.append(_values(a.grad))
    lib.autograd.backward([edge(h)], grad_tensors=[lib.full((2,), 2.0, dtype=lib.float64)])
    seen.append((_values(a.grad), _values(b.grad)))
    return seen


def test_backward_with_edges(torch_ref):
    assert _backward_scenarios(mt) == _backward_scenarios(torch_ref)


def _multi_output(lib):
    edge, graph = _graph(lib).get_gradient_edge, _graph(lib)
    p, q = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64, requires_grad=True).split(2)
    w = (p * 2 + q * 3).sum()
    first = lib.autograd.grad(w, (edge(q), edge(p)), retain_graph=True)
    # (the shown node, 1): output 1 of split, however the pair was found
    by_pair = lib.autograd.grad(w, graph.GradientEdge(edge(p).node, 1), retain_graph=True)
    # a fresh graph, whose edges only next_functions has shown
    p, q = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64, requires_grad=True).split(2)
    w = (p * 2 + q * 3).sum()
    add = w.grad_fn.next_functions[0][0]
    from_next = [pair for f, _ in add.next_functions for pair in f.next_functions]
    pairs = lib.autograd.grad(w, tuple(graph.GradientEdge(*p) for p in from_next
                                       if p[0] is not None and "Split" in p[0].name()))
    return _values(first), _values(by_pair), _values(pairs), edge(q).output_nr


def test_multi_output_edges(torch_ref):
    assert _multi_output(mt) == _multi_output(torch_ref)


def _unused_and_errors(lib):
    edge = _graph(lib).get_gradient_edge
    a, b, h, y = _setup(lib)
    z = lib.tensor([1.0], requires_grad=True) * 2
    found = [_values(lib.autograd.grad(y, edge(z), retain_graph=True, allow_unused=True))]
    for call in (lambda: lib.autograd.grad(y, edge(z), retain_graph=True),
                 lambda: lib.autograd.grad(y, edge(z), retain_graph=True,
                                           materialize_grads=True),
                 lambda: lib.autograd.grad(edge(h), a, retain_graph=True),
                 lambda: lib.autograd.grad(edge(h), a, grad_outputs=lib.ones(3, dtype=lib.float64),
                                           retain_graph=True)):
        with pytest.raises(RuntimeError) as info:
            call()
        found.append(str(info.value).split(";")[0].split(".")[0].split(":")[0])
    return found


def test_unused_edges_and_errors(torch_ref):
    ours, theirs = _unused_and_errors(mt), _unused_and_errors(torch_ref)
    assert ours[:4] == theirs[:4]
    assert ours[4].startswith("Mismatch in shape") and theirs[4].startswith("Mismatch in shape")


def test_batched_grad_with_an_edge_output(torch_ref):
    results = []
    for lib in (mt, torch_ref):
        a, _, h, _ = _setup(lib)
        rows = lib.eye(2, dtype=lib.float64)
        results.append(_values(lib.autograd.grad(_graph(lib).get_gradient_edge(h), a, rows,
                                                 is_grads_batched=True)))
    assert results[0] == results[1]


def test_an_edge_whose_output_shape_is_unknown_says_how_to_make_it():
    a, _, h, _ = _setup(mt)
    edge = mt.autograd.graph.GradientEdge(h.grad_fn, 0)  # not from get_gradient_edge
    assert mt.autograd.grad(mt.autograd.graph.get_gradient_edge(h.sum()), edge)[0].tolist() \
        == [1.0, 1.0]  # as an input it needs no shape
    with pytest.raises(RuntimeError, match="make the edge with get_gradient_edge"):
        mt.autograd.grad(edge, a, grad_outputs=mt.ones(2, dtype=mt.float64))
    with pytest.raises(RuntimeError, match="no output 3 known here"):
        mt.autograd.grad(h.sum(), mt.autograd.graph.GradientEdge(h.grad_fn, 3))


def test_a_non_tensor_input_is_refused():
    a, _, _, y = _setup(mt)
    with pytest.raises(TypeError, match="a GradientEdge or a sequence of Tensors, got int"):
        mt.autograd.grad(y, 3)


def _leaf_edge_as_output(lib):
    edge = _graph(lib).get_gradient_edge
    a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    given = lib.tensor([5.0, 6.0], dtype=lib.float64)
    first = lib.autograd.grad(edge(a), a, grad_outputs=given)
    lib.autograd.backward(edge(a), grad_tensors=given)  # the leaf's node adds into .grad
    b = lib.tensor([3.0], dtype=lib.float64, requires_grad=True)
    return _values(first), _values(a.grad), _values(lib.autograd.grad(edge(b), b))


def test_a_leaf_edge_as_output(torch_ref):
    assert _leaf_edge_as_output(mt) == _leaf_edge_as_output(torch_ref)

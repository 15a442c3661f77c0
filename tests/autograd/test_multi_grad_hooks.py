"""``torch.autograd.graph.register_multi_grad_hook``: each scenario runs on minitorch_meta
and on PyTorch, and what the hooks saw must be the same."""

import pytest

import minitorch_meta as mt


def _graph(lib):
    return mt.autograd.graph if lib is mt else lib.autograd.graph


def _leaves(lib, device="cpu"):
    a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([3.0, -1.0], dtype=lib.float64, requires_grad=True)
    if lib is mt:
        a, b = (mt.tensor(t.tolist(), dtype=mt.float64, device=device, requires_grad=True)
                for t in (a, b))
    return a, b


def _seen(grads):
    """What a hook got, comparable across libraries: a list of value lists (or None)."""
    return [None if g is None else g.detach().cpu().tolist() for g in grads]


def _run_all_mode(lib, device="cpu"):
    a, b = _leaves(lib, device)
    c, d = a * b, a * b
    log = []
    handle = _graph(lib).register_multi_grad_hook(
        (a, b, c, d), lambda grads: log.append((type(grads).__name__, _seen(grads))))
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    lib.autograd.grad((c * 3).sum(), c, retain_graph=True)
    (c.sum() + (d * 2).sum()).backward(retain_graph=True)
    handle.remove()
    c.sum().backward(retain_graph=True)  # removed: not called
    return log


def test_all_mode(device, torch_ref):
    ours = _run_all_mode(mt, device)
    assert ours == _run_all_mode(torch_ref)
    assert [entry[1][0] is not None for entry in ours] == [True, True, False, True]


def _run_any_mode(lib):
    a, b = _leaves(lib)
    c, d = a * b, a * b
    log = []
    handle = _graph(lib).register_multi_grad_hook(
        (a, b, c, d), lambda grad: log.append(_seen([grad])), mode="any")
    (c.sum() * 2).backward(retain_graph=True)  # c's gradient first: once per backward
    d.sum().backward(retain_graph=True)
    lib.autograd.grad((d * 5).sum(), (a, b), retain_graph=True)
    handle.remove()
    d.sum().backward()
    return log


def test_any_mode(torch_ref):
    ours = _run_any_mode(mt)
    assert ours == _run_any_mode(torch_ref)
    assert len(ours) == 3


def _run_hook_return_is_ignored(lib, mode):
    a, _ = _leaves(lib)
    graph = _graph(lib)
    if mode == "all":
        graph.register_multi_grad_hook((a,), lambda grads: [g * 100 for g in grads])
    else:
        graph.register_multi_grad_hook((a,), lambda grad: grad * 100, mode="any")
    (a * 2).sum().backward()
    return a.grad.tolist()


@pytest.mark.parametrize("mode", ["all", "any"])
def test_hook_return_is_ignored(torch_ref, mode):
    assert _run_hook_return_is_ignored(mt, mode) == _run_hook_return_is_ignored(torch_ref, mode)


def _run_unused_and_unreached(lib):
    """A tensor outside this backward's graph is not waited for (None), and "any" skips
    tensors that do not require grad."""
    a, b = _leaves(lib)
    x = lib.tensor([5.0, 6.0], dtype=lib.float64)
    log = []
    graph = _graph(lib)
    graph.register_multi_grad_hook((a, b), lambda grads: log.append(_seen(grads)))
    graph.register_multi_grad_hook((x, b), lambda grad: log.append(_seen([grad])), mode="any")
    (a * 3).sum().backward()
    (b * 4).sum().backward()
    return log


def test_tensors_not_reached_get_none(torch_ref):
    assert _run_unused_and_unreached(mt) == _run_unused_and_unreached(torch_ref)


def _errors(lib):
    a, b = _leaves(lib)
    graph = _graph(lib)
    found = []
    for call in (lambda: graph.register_multi_grad_hook((a,), print, mode="every"),
                 lambda: graph.register_multi_grad_hook((a, lib.ones(2)), print)):
        with pytest.raises(Exception) as info:
            call()
        found.append((info.type, str(info.value).split(":")[0]))
    # autograd.grad with respect to a leaf: PyTorch cannot tell whether it "will execute"
    graph.register_multi_grad_hook((a, b), print)
    with pytest.raises(RuntimeError) as info:
        lib.autograd.grad((a * b).sum(), a)
    found.append((info.type, str(info.value)))
    return found


def test_errors(torch_ref):
    ours, theirs = _errors(mt), _errors(torch_ref)
    assert [kind for kind, _ in ours] == [ValueError, AssertionError, RuntimeError]
    assert ours == theirs


def test_handle_is_a_removable_handle_and_removes_once_per_tensor():
    a, b = _leaves(mt)
    calls = []
    handle = mt.autograd.graph.register_multi_grad_hook((a, b), calls.append)
    assert isinstance(handle, mt.utils.hooks.RemovableHandle)
    assert type(handle).__name__ == "_MultiHandle"
    handle.remove()
    handle.remove()  # a second remove does nothing
    (a * b).sum().backward()
    assert calls == []


def test_graph_task_id_outside_backward_is_minus_one():
    from minitorch_meta.autograd import graph_task

    assert graph_task.current_graph_task_id() == -1
    with pytest.raises(RuntimeError, match="during the backward pass"):
        graph_task.will_engine_execute_node(mt.ones(1, requires_grad=True)._accumulator())


def test_nested_backward_in_a_hook_counts_apart():
    """A backward started inside a hook is another graph task: its hooks and counts are
    its own, and the outer backward's list still fills."""
    a, b = _leaves(mt)
    seen = []
    mt.autograd.graph.register_multi_grad_hook((a, b), lambda grads: seen.append(_seen(grads)))
    z = a * 7
    mt.autograd.graph.register_multi_grad_hook((z,), lambda grads: seen.append(_seen(grads)))
    y = a * b

    def inner_backward(grad):
        with mt.enable_grad():  # hooks run without grad mode
            seen.append(_seen(mt.autograd.grad(z.sum(), z, retain_graph=True)))

    y.register_hook(inner_backward)
    y.sum().backward()
    assert seen == [[[1.0, 1.0]], [[1.0, 1.0]], [[3.0, -1.0], [1.0, 2.0]]]


def _run_node_reached_without_gradient(lib):
    """A node the backward runs with no gradient for its tensor (a custom Function returned
    None for it) still counts: "all" gets None there, "any" may get None first."""
    class DropsGradient(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return None

    a, b = _leaves(lib)
    h = a * 3
    log = []
    graph = _graph(lib)
    graph.register_multi_grad_hook((h, b), lambda grads: log.append(_seen(grads)))
    graph.register_multi_grad_hook((h,), lambda grad: log.append(grad), mode="any")
    (DropsGradient.apply(h).sum() + b.sum()).backward()
    split = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True).split(2)
    graph.register_multi_grad_hook(split, lambda grads: log.append(_seen(grads)))
    (split[0] * 2).sum().backward()  # the other output of split gets no gradient
    return log


def test_node_reached_without_gradient(torch_ref):
    ours = _run_node_reached_without_gradient(mt)
    assert ours == _run_node_reached_without_gradient(torch_ref)
    assert ours[0] == [None, [1.0, 1.0]]

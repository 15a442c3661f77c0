"""``LBFGS``: limited-memory BFGS, a quasi-Newton method, as PyTorch's ``torch.optim.LBFGS``.

One ``step(closure)`` runs up to ``max_iter`` iterations on the parameters seen as one flat
vector ``x`` (``g`` the flat gradient, ``k`` the iteration count kept across steps)::

    d = -g                                      on the very first iteration
    otherwise remember y = g - g_prev, s = t * d when y.s > 1e-10 (the last history_size
    pairs), and d = -H g by the two-loop recursion, H the inverse Hessian those pairs
    imply, started from the scale y.s / y.y of the newest pair
    t = min(1, 1 / sum|g|) * lr on the very first iteration, lr afterwards
    stop if g.d > -tolerance_change             (d is no descent direction)
    x = x + t d, with t from the strong-Wolfe line search if line_search_fn="strong_wolfe"
    stop after max_iter iterations, max_eval evaluations, when max|g| <= tolerance_grad,
    max|t d| <= tolerance_change or |loss - previous loss| < tolerance_change

The state lives with the first parameter, under PyTorch's keys: ``func_evals`` and
``n_iter`` (counts), ``d``, ``t``, ``old_dirs``/``old_stps``/``ro`` (the history),
``H_diag``, ``prev_flat_grad``, ``prev_loss`` and ``al`` (the recursion's coefficients).
The vectors are tensors on the parameters' device and the recursion's scalars 0-d tensors,
as in PyTorch; the tests that steer the iterations read numbers (``item``), which meta
tensors do not have.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..autograd import no_grad
from ..errors import MetaDataError
from ..functions import cat, matmul
from ..int_arguments import is_int
from ..tensor import Tensor
from .line_search import Trial, strong_wolfe
from .optimizer import Optimizer, check_number

_ONE_GROUP = "LBFGS doesn't support per-parameter options (parameter groups)"
# what one step remembers for the next, besides the counts and ``al``
_MEMORY = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")


class LBFGS(Optimizer):
    """L-BFGS, PyTorch's ``torch.optim.LBFGS``: ``step(closure)`` re-evaluates the loss
    (the closure zeroes the gradients, computes the loss, calls ``backward`` and returns it)
    as often as the iterations need, and returns the first loss.

    All parameters form one group, on one device. ``max_eval`` defaults to
    ``max_iter * 5 // 4``. ``lr`` may be a one-element tensor.

    Raises:
        ValueError: ``lr`` is negative or a tensor of several elements, ``history_size``
            is not a positive integer, or a second parameter group is given.
    """

    def __init__(self, params: Iterable, lr: float | Tensor = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)

    def add_param_group(self, param_group: dict) -> None:
        """Refused once there is a group: L-BFGS works on all parameters as one vector.

        Raises:
            ValueError: the optimizer already has its group.
        """
        if self.param_groups:
            raise ValueError(f"{_ONE_GROUP}: it optimizes all parameters as one vector, so "
                             "give them in one list (got a second group)")
        super().add_param_group(param_group)

    def _check_group(self, group: dict) -> None:
        lr = group["lr"]
        if isinstance(lr, Tensor):
            if lr.numel() != 1:
                raise ValueError(f"Tensor lr must be 1-element, got {lr.numel()} elements")
            lr = lr.item()
        check_number("lr", lr, label="learning rate")
        size = group["history_size"]
        if not is_int(size) or size < 1:
            raise ValueError(f"Invalid history_size: {size!r} (it must be an integer >= 1: "
                             "the number of past steps that shape the direction)")

    def step(self, closure: Callable) -> object:
        """Run up to ``max_iter`` iterations; returns the loss the closure gave first.

        Raises:
            TypeError: no closure (L-BFGS needs to re-evaluate the loss).
            RuntimeError: ``line_search_fn`` is neither None nor ``"strong_wolfe"``.
            MetaDataError: the parameters are on meta (the iterations read values).
        """
        if not callable(closure):
            raise TypeError("LBFGS.step needs a closure: a function that zeroes the gradients, "
                            "computes the loss, calls loss.backward() and returns the loss "
                            f"(got {closure!r})")
        group = self.param_groups[0]
        if group["line_search_fn"] not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported as line_search_fn (or None "
                               f"for a fixed step), got {group['line_search_fn']!r}")
        with no_grad():
            return self._iterate(closure, group)

    def _iterate(self, closure: Callable, group: dict):
        params = group["params"]
        lr = _number(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        # global state, kept with the first parameter so that load_state_dict casts it
        state = self.state[params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        first_loss = self._evaluate(closure)
        loss = _number(first_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = _flat_grad(params)
        if _number(flat_grad.abs().max()) <= tolerance_grad:
            return first_loss

        memory = {key: state.get(key) for key in _MEMORY}
        for iteration in range(1, max_iter + 1):
            state["n_iter"] += 1
            first = state["n_iter"] == 1
            if first:  # steepest descent, and an empty history
                memory.update(old_dirs=[], old_stps=[], ro=[], H_diag=1)
                d = memory["d"] = -flat_grad
            else:
                d = memory["d"] = self._direction(state, memory, flat_grad, group)
            if memory["prev_flat_grad"] is None:
                memory["prev_flat_grad"] = flat_grad.clone()
            else:
                memory["prev_flat_grad"].copy_(flat_grad)
            memory["prev_loss"] = loss
            t = memory["t"] = _first_step_length(flat_grad, lr) if first else lr
            slope = _number(matmul(flat_grad, d))
            if slope > -tolerance_change:  # not a descent direction (any more)
                break

            last = iteration == max_iter
            loss, flat_grad, t, used = self._advance(
                closure, group, d, t, Trial(0, loss, flat_grad, slope), max_eval - evals, last)
            memory["t"] = t
            evals += used
            state["func_evals"] += used

            if last or evals >= max_eval:
                break
            if _number(flat_grad.abs().max()) <= tolerance_grad:  # optimal
                break
            if _number((d * t).abs().max()) <= tolerance_change:  # the step no longer moves
                break
            if abs(loss - memory["prev_loss"]) < tolerance_change:  # nor the loss
                break
        state.update(memory)
        return first_loss

    def _advance(self, closure: Callable, group: dict, d: Tensor, t: float, start: Trial,
                 budget: int, last: bool) -> tuple[float, Tensor, float, int]:
        """Move the parameters along ``d``, by ``t`` (fixed step) or by the line search's
        step; returns the loss, flat gradient and step length there, and the evaluations
        spent. A fixed step is not evaluated on the last iteration (the returned loss and
        gradient are then the start's), as in PyTorch."""
        params = group["params"]
        if group["line_search_fn"] is None:
            _move(params, t, d)
            if last:
                return start.loss, start.grad, t, 0
            return _number(self._evaluate(closure)), _flat_grad(params), t, 1
        found, used = strong_wolfe(self._prober(closure, params, d), start, t,
                                   _number(d.abs().max()), max_evals=budget)
        _move(params, found.t, d)
        return found.loss, found.grad, found.t, used

    def _direction(self, state: dict, memory: dict, flat_grad: Tensor, group: dict) -> Tensor:
        """Remember the last step's curvature pair, then ``-H g`` by the two-loop recursion."""
        _remember(memory, flat_grad, group["history_size"])
        old_dirs, old_stps, ro = memory["old_dirs"], memory["old_stps"], memory["ro"]
        if "al" not in state:
            state["al"] = [None] * group["history_size"]
        al = state["al"]
        q = -flat_grad
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = matmul(old_stps[i], q) * ro[i]
            q.sub_(old_dirs[i] * al[i])
        r = q * memory["H_diag"]
        for i in range(len(old_dirs)):
            beta = matmul(old_dirs[i], r) * ro[i]
            r.add_(old_stps[i] * (al[i] - beta))
        return r

    def _prober(self, closure: Callable, params: list, d: Tensor) -> Callable[[float], Trial]:
        """The line search's evaluation: loss, gradient and slope at ``x + t d``, the
        parameters put back at ``x`` afterwards."""
        start = [p.clone() for p in params]

        def probe(t: float) -> Trial:
            _move(params, t, d)
            loss = _number(self._evaluate(closure))
            grad = _flat_grad(params)
            for p, saved in zip(params, start):
                p.copy_(saved)
            return Trial(t, loss, grad, _number(matmul(grad, d)))

        return probe


def _remember(memory: dict, flat_grad: Tensor, history_size: int) -> None:
    """Add the last step's pair ``(y, s)`` if its curvature ``y.s`` is clearly positive
    (which keeps ``H`` positive definite), dropping the oldest beyond ``history_size``."""
    y = flat_grad - memory["prev_flat_grad"]
    s = memory["d"] * memory["t"]
    ys = matmul(y, s)
    if _number(ys) <= 1e-10:
        return
    if len(memory["old_dirs"]) == history_size:
        for key in ("old_dirs", "old_stps", "ro"):
            memory[key].pop(0)
    memory["old_dirs"].append(y)
    memory["old_stps"].append(s)
    memory["ro"].append(1.0 / ys)
    memory["H_diag"] = ys / matmul(y, y)


def _first_step_length(flat_grad: Tensor, lr: float) -> float:
    """``min(1, 1 / sum|g|) * lr``, computed in the gradient's dtype as PyTorch does."""
    inverse = 1.0 / flat_grad.abs().sum()
    return _number(inverse * lr) if _number(inverse) < 1.0 else 1.0 * lr


def _flat_grad(params: list) -> Tensor:
    """All gradients as one vector (zeros for a parameter without one)."""
    return cat([p._grad.reshape(-1) if p._grad is not None else p.new_zeros(p.numel())
                for p in params])


def _move(params: list, t: float, d: Tensor) -> None:
    """``x = x + t d`` on the parameters, each one its slice of the flat ``d``."""
    offset = 0
    for p in params:
        n = p.numel()
        p.add_(d[offset:offset + n].view_as(p), alpha=t)
        offset += n


def _number(value) -> float:
    """A loss, learning rate or reduced gradient as a Python float.

    Raises:
        MetaDataError: ``value`` is a meta tensor.
    """
    if isinstance(value, Tensor) and value.is_meta:
        from ..backends.meta import HOW_TO_GET_DATA

        raise MetaDataError("LBFGS.step: L-BFGS chooses its directions and step lengths from "
                            "the values of the loss and the gradient (its stopping tests and "
                            "line search compare numbers), which meta tensors do not have; "
                            + HOW_TO_GET_DATA)
    return float(value)

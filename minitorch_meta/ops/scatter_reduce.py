"""``scatter_reduce``: ``src``'s elements reduced into the input at the index's positions.

The positions are ``scatter``'s (``sorting.along_axis`` of the index along ``dim``, the
same shape rule and errors); the reduction is the ``scatter_reduce`` kernel ("sum",
"prod", "amax", "amin"), and "mean" is its sum divided by how many values met at each
position (the input's own counting once with ``include_self``; integers floor-divide, as
PyTorch does). With ``include_self=False`` the positions written start from the
reduction's identity instead of the input's value.

The gradients are PyTorch's formulas (``ScatterReduceBackward0``): "prod" divides the
product by each factor, with zeros handled apart (a lone zero among a position's factors
gets the product of the others, two zeros give zero); "amax"/"amin" share the gradient
evenly among the values equal to the result, the input's included; with
``include_self=False`` the input gets no gradient where it was overwritten.

Their graph forms (``backward_graph``, gradients of gradients) are the same formulas with
tensor ops: reads at the positions (``picked``), writes into zeros (``placed``), and for
"prod" the reduction itself again, recorded. As in PyTorch, with "prod" the gradient of ``src``
refuses to be differentiated again when two of its zeros meet at one position (the
division by each factor then hides how the product depends on them).
"""

from __future__ import annotations

from .. import dtypes
from .elementwise import Where, _finite_range
from .function import _edge
from .gather import check_range
from .graph_backward import NotDifferentiableTwice
from .scatter import Scatter
from .selection_graph import picked, placed, written_mask, zeroed
from .sorting import along_axis

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


class ScatterReduce(Scatter):
    """The input with ``src``'s elements reduced in at the index's positions along ``dim``
    (``reduce``: "sum", "prod", "mean", "amax" or "amin"); ``include_self`` says whether
    the input's value takes part where something is written.

    Shape:
        as ``scatter``: the input's shape and dtype; ``src`` of the input's dtype.

    Raises:
        RuntimeError for an unknown ``reduce`` and for ``scatter``'s errors; IndexError for
        a dim out of range.
    """

    op_name, backward_name = "scatter_reduce", "ScatterReduceBackward0"
    saved_for_backward = (0, 1, 2, "output")
    reduce, include_self = "sum", True
    source_name = "src"  # in the refusal of a second derivative

    def infer(self, x, index, src):
        if self.reduce not in REDUCTIONS:
            raise RuntimeError(f"{self.op_name}(): reduce argument must be either sum, prod, "
                               f"mean, amax or amin, got {self.reduce}")
        return super().infer(x, index, src)

    def forward(self, backend, x, index, src):
        picks = self._picks(backend, index)
        values = backend.getitem(backend.reshape(src, self.src_shape), self._block())
        shape, x = x.shape, backend.reshape(x, self.x_shape)
        out = self._reduced(backend, x, picks, values)
        if self.reduce == "mean":
            count = self._count(backend, picks, values)
            kind = "div" if self.out_dtype.is_floating_point else "floor_divide"
            out = backend.astype(backend.binary(kind, out, count), self.out_dtype)
        if self.recording:
            self.picks, self.x, self.values, self.out = picks, x, values, out
            if self.reduce == "prod":  # as they came, for the graph formula's products
                self.inputs = (x, index, src)
            if self.reduce == "mean":
                self.count = count
        return backend.reshape(out, shape)

    def _scatter_index(self, backend, index):
        """``index`` as ``scatter_reduce`` takes it, for the graph formula's products."""
        return backend.reshape(index, self.index_shape)

    def _picks(self, backend, index) -> tuple:
        """The advanced index of the output's positions that ``src``'s elements reach."""
        check_range(backend, self.op_name, index, self.x_shape[self.axis], self.axis)
        return along_axis(backend, backend.reshape(index, self.index_shape), self.axis)

    def _reduced(self, backend, x, picks, values):
        """A copy of ``x`` with ``values`` reduced in at ``picks`` (a mean's sum)."""
        out = backend.copy(x)
        if not self.include_self:
            backend.setitem(out, picks, self._identity(out.dtype.type))
        kernel = "sum" if self.reduce == "mean" else self.reduce
        backend.scatter_reduce(out, picks, values, kernel)
        return out

    def _identity(self, scalar):
        """The value a reduction starts from when the input does not take part."""
        if self.reduce in ("sum", "mean"):
            return scalar(0)
        if self.reduce == "prod":
            return scalar(1)
        if self.out_dtype is dtypes.bool_:
            return scalar(self.reduce == "amin")
        if self.out_dtype.is_floating_point:
            return scalar(float("-inf") if self.reduce == "amax" else float("inf"))
        low, high = _finite_range(self.out_dtype)
        return scalar(low if self.reduce == "amax" else high)

    def _count(self, backend, picks, values):
        """How many values meet at each position (the input counting once with
        ``include_self``), at least 1: a mean's divisor."""
        ones = backend.full(values.shape, 1, self.out_dtype)
        count = backend.index_add(self.x_shape, picks, ones, self.out_dtype)
        return backend.binary("maximum", count, 1) if not self.include_self else \
            backend.binary("add", count, 1)

    def backward(self, backend, gy):
        gy = backend.reshape(gy, self.x_shape)
        gx, gvalues = getattr(self, f"_grads_{self.reduce}")(backend, gy)
        gsrc = None
        if self.needs_input_grad[0]:
            if not self.include_self:  # overwritten: the input's value never reached it
                gx = backend.copy(gx)
                backend.setitem(gx, self.picks, gx.dtype.type(0))
            gx = backend.reshape(gx, tuple(self.input_specs[0][0]))
        else:
            gx = None
        if self.needs_input_grad[2]:
            src_shape, dtype = self.input_specs[2]
            gsrc = backend.full(self.src_shape, 0, dtype)
            backend.setitem(gsrc, self._block(), gvalues)
            gsrc = backend.reshape(gsrc, tuple(src_shape))
        return gx, None, gsrc

    def _grads_sum(self, backend, gy):
        return gy, backend.getitem(gy, self.picks)

    def _grads_mean(self, backend, gy):
        shared = backend.binary("div", gy, self.count)
        return shared, backend.getitem(shared, self.picks)

    def _grads_prod(self, backend, gy):
        x, values, out, picks = self.x, self.values, self.out, self.picks
        one, zero = x.dtype.type(1), x.dtype.type(0)
        # the input's gradient: the product without its own factor (zeros set to 1 first)
        nonzero_x = backend.where(backend.binary("eq", x, zero), one, x)
        gx = backend.binary("div", backend.binary(
            "mul", gy, self._reduced(backend, nonzero_x, picks, values)), nonzero_x)
        # a value that is its position's only zero: the product of the others
        is_zero, lone = self._zeros(backend)
        without_lone = self._reduced(backend, x, picks, backend.where(lone, one, values))
        by_lone = backend.getitem(backend.binary("mul", gy, without_lone), picks)
        by_division = backend.binary("div", backend.getitem(backend.binary("mul", gy, out),
                                                            picks),
                                     backend.where(is_zero, one, values))
        return gx, backend.where(lone, by_lone, by_division)

    def _grads_amax(self, backend, gy):
        x, values, out, picks = self.x, self.values, self.out, self.picks
        value = backend.getitem(out, picks)
        x_wins = backend.astype(backend.binary("eq", x, out), self.out_dtype)
        values_win = backend.astype(backend.binary("eq", values, value), self.out_dtype)
        winners = backend.binary("add", x_wins, backend.index_add(
            self.x_shape, picks, values_win, self.out_dtype))
        shared = backend.binary("div", gy, winners)
        return (backend.binary("mul", x_wins, shared),
                backend.binary("mul", values_win, backend.getitem(shared, picks)))

    _grads_amin = _grads_amax

    def _zeros(self, backend):
        """Which values are zero, and which are their position's only zero in ``src``."""
        values, one = self.values, self.values.dtype.type(1)
        is_zero = backend.binary("eq", values, values.dtype.type(0))
        zeros_here = backend.index_add(self.x_shape, self.picks,
                                       backend.astype(is_zero, self.out_dtype), self.out_dtype)
        counts = backend.getitem(zeros_here, self.picks)
        return is_zero, backend.binary("logical_and", is_zero, backend.binary("eq", counts, one))

    # -- graph formulas (``create_graph=True``) -------------------------------------------
    def backward_graph(self, grad):
        g = grad.reshape(self.x_shape)
        gx, gvalues = getattr(self, f"_graph_{self.reduce}")(g)
        gsrc = None
        if self.needs_input_grad[0]:
            if not self.include_self:  # overwritten: the input's value never reached it
                gx = zeroed(self, gx, written_mask(self.backend, self.x_shape, self.picks))
            gx = gx.reshape(tuple(self.input_specs[0][0]))
        else:
            gx = None
        if self.needs_input_grad[2]:
            src_shape, dtype = self.input_specs[2]
            gsrc = placed(self, gvalues, self._block(), self.src_shape, dtype)
            gsrc = gsrc.reshape(tuple(src_shape))
            if self.reduce == "prod" and self._zeros_meet():
                gsrc = self._refusing(gsrc, grad)
        return gx, None, gsrc

    def _zeros_meet(self) -> bool:
        """Whether two zeros of ``src`` meet at one position (of a product)."""
        backend = self.backend
        is_zero, lone = self._zeros(backend)
        several = backend.binary("logical_and", is_zero, backend.unary("logical_not", lone))
        return bool(int(backend.to_numpy(backend.sum(several, None, False))))

    def _refusing(self, gsrc, grad):
        """``gsrc``'s values behind a node that refuses to be differentiated, as PyTorch's
        (its ``grad_fn`` is ``Error``): dividing by each factor hides how a product depends
        on two zeros, so the graph formula would give a wrong second derivative."""
        from ..tensor import Tensor

        src = self.source_name
        refusal = (f"{self.op_name}(): Double backward is unsupported for {src} when >1 zeros "
                   f"in {src} are scattered to the same position in self; differentiate "
                   f"{src}'s gradient no further, or keep such zeros apart")
        node = _Refusal(self.name(), self.backend, (_edge(grad),) + tuple(self._next_nodes),
                        refusal)
        return Tensor._make(gsrc._data, self.backend, True, node)

    def _graph_sum(self, g):
        return g, picked(self, g, self.picks)

    def _graph_mean(self, g):
        shared = g / self.constant(self.count)
        return shared, picked(self, shared, self.picks)

    def _graph_amax(self, g):
        backend, x, values, out = self.backend, self.x, self.values, self.out
        x_wins = backend.astype(backend.binary("eq", x, out), self.out_dtype)
        values_win = backend.astype(backend.binary("eq", values, backend.getitem(out,
                                                                                 self.picks)),
                                    self.out_dtype)
        winners = backend.binary("add", x_wins, backend.index_add(
            self.x_shape, self.picks, values_win, self.out_dtype))
        shared = g / self.constant(winners)
        return (self.constant(x_wins) * shared,
                self.constant(values_win) * picked(self, shared, self.picks))

    _graph_amin = _graph_amax

    def _graph_prod(self, g):
        """``_grads_prod`` with tensor ops; the products are the op again, recorded."""
        backend = self.backend
        x, index, src = self.inputs
        is_zero, lone = self._zeros(backend)
        x_t = self.graph_input(0, x).reshape(self.x_shape)
        values = picked(self, self.graph_input(2, src).reshape(self.src_shape), self._block())
        index = self.constant(self._scatter_index(backend, index))

        def product(start, factors):
            return ScatterReduce(dim=self.axis, reduce="prod", include_self=self.include_self)(
                start, index, factors)

        nonzero_x = x_t.masked_fill(self.constant(backend.binary("eq", self.x, 0)), 1)
        gx = g * product(nonzero_x, values) / nonzero_x
        lone_t = self.constant(lone)
        out = self.graph_output(backend.reshape(self.out, tuple(self.input_specs[0][0])))
        by_lone = picked(self, g * product(x_t, values.masked_fill(lone_t, 1)), self.picks)
        by_division = picked(self, g * out.reshape(self.x_shape), self.picks) / \
            values.masked_fill(self.constant(is_zero), 1)
        return gx, Where()(lone_t, by_lone, by_division)



class _Refusal(NotDifferentiableTwice):
    """A gradient's node that raises when reached (PyTorch's ``Error`` node)."""

    def name(self) -> str:
        return "torch::autograd::Error"

    def __repr__(self) -> str:
        return "<Error object>"

"""``ctc_loss``'s op: the negative log-likelihood of each target sequence under every
alignment of it to the input frames (Graves et al., 2006), and its gradient.

The target ``l`` of length ``S`` is extended with blanks, ``l' = (b, l1, b, l2, ..., lS, b)``
(``L = 2S + 1`` positions). A path through ``l'`` moves, from one frame to the next, to the
same position, the next one, or skips a blank between two different labels. The forward
variable ``alpha[t, s]`` is the log of the summed probability of the paths that are at
position ``s`` after frame ``t``; the backward variable ``beta[t, s]`` that of the paths
from position ``s`` at frame ``t`` to the end (both include frame ``t``'s own
probability). Every sample and every position is one array operation; only time is a
Python loop, as in ``ops/recurrent.py``.

The gradient is PyTorch's: with ``nll = -log p`` and ``lab[t, s] = alpha + beta``,

    grad[t, c] = exp(lp[t, c]) - sum over s with l'_s = c of exp(lab[t, s] + nll - lp[t, c])

(``lp`` the log-probabilities, times the incoming gradient of the sample's loss).

The second term is exactly the derivative of ``nll`` with respect to ``log_probs[t, c]``
(the share of the probability of the paths that emit ``c`` at frame ``t``, negated).
The first term, ``exp(log_probs)``, is PyTorch's: it sums to 1 over the classes (the
inputs being log-probabilities), so the backward of a ``log_softmax`` in front of the loss
cancels it, and the gradient with respect to the logits is the exact one. So, as in
PyTorch, the gradient is exact through ``log_softmax``, not with respect to free
``log_probs``. Both ``alpha`` and ``beta`` count frame ``t``'s own log-probability, hence
the ``- lp``. Each term ``exp(lab + nll - lp)`` is a share of probability in ``[0, 1]``,
so it is summed as it is (no log-sum-exp needed).
"""

from __future__ import annotations

from .. import dtypes
from . import graph_backward
from .function import Function, _edge
from .gather import index_bounds
from .shapes import ShapeError, fmt

NEG_INF = float("-inf")


class CtcLoss(Function):
    """The connectionist temporal classification loss of each sample, unreduced.

    Inputs: ``log_probs`` ``(T, N, C)`` (float32 or float64, log-probabilities of the ``C``
    classes at each frame), ``targets`` ``(N, S)`` (padded; row ``n``'s first
    ``target_lengths[n]`` labels count) or ``(sum(target_lengths),)`` (concatenated), any
    integer dtype. Hyper-parameters: ``input_lengths`` and ``target_lengths``, tuples of
    ``N`` ints (an entry is None when unknown: a meta tensor's lengths have no values, and
    then only the checks that need none run); ``blank``; ``zero_infinity`` (the gradient of
    an infinite loss is 0 rather than NaN).

    Shape:
        ``(T, N, C)`` and ``(N, S)`` or ``(sum(target_lengths),)`` -> ``(N,)``, the
        log-probabilities' dtype.

    Raises:
        ShapeError (a RuntimeError) for bad dimensions, sizes, lengths and ``blank``, as
        PyTorch's checks; NotImplementedError for log-probabilities that are not float32 or
        float64; RuntimeError, on data backends, for a target label outside ``[0, C)``.
    """

    op_name, backward_name = "ctc_loss", "CtcLossBackward0"
    saved_for_backward = (0, "output")
    blank, zero_infinity = 0, False

    # -- shape rule ------------------------------------------------------------------
    def infer(self, log_probs, targets):
        shape = tuple(log_probs._data.shape)
        if len(shape) != 3:
            raise ShapeError(self.op_name, f"expected log_probs of 3 dimensions (T, N, C), but "
                             f"got {len(shape)} dimension(s), shape {fmt(shape)}")
        if log_probs._dtype not in (dtypes.float32, dtypes.float64):
            raise NotImplementedError(f"ctc_loss: not implemented for {log_probs._dtype}; "
                                      "log_probs must be float32 or float64")
        if 0 in shape:
            raise ShapeError(self.op_name, f"log_probs tensor must not be empty, but got shape "
                             f"{fmt(shape)} (T, N, C)")
        frames, batch, classes = shape
        if not 0 <= self.blank < classes:
            raise ShapeError(self.op_name, f"blank must be in label range [0, {classes}) of "
                             f"the {classes} classes, but got blank={self.blank}")
        for name in ("input_lengths", "target_lengths"):
            count = len(getattr(self, name))
            if count != batch:
                raise ShapeError(self.op_name, f"{name} must be of size batch_size ({batch}), "
                                 f"but got {count} value(s)")
        self._check_lengths(frames)
        self._check_targets(tuple(targets._data.shape), batch)
        return (batch,), log_probs._dtype

    def _check_lengths(self, frames: int) -> None:
        for name, most in (("input_lengths", frames), ("target_lengths", None)):
            for value in getattr(self, name):
                if value is None:
                    continue
                if value < 0:
                    raise ShapeError(self.op_name, f"Expected {name} to have value at least 0, "
                                     f"but got value {value}")
                if most is not None and value > most:
                    raise ShapeError(self.op_name, f"Expected {name} to have value at most "
                                     f"{most}, but got value {value} (log_probs has {most} "
                                     "frames)")

    def _check_targets(self, shape: tuple, batch: int) -> None:
        if len(shape) not in (1, 2):
            raise ShapeError(self.op_name, f"Expected 1 to 2 dimensions, but got "
                             f"{len(shape)}-dimensional tensor for argument #2 'targets': "
                             "(N, S) padded or (sum(target_lengths),) concatenated")
        lengths = self.target_lengths
        known = None not in lengths
        if len(shape) == 1:
            if known and shape[0] != sum(lengths):
                raise ShapeError(self.op_name, f"Expected tensor to have size {sum(lengths)} at "
                                 f"dimension 0, but got size {shape[0]} for argument #2 "
                                 "'targets' (concatenated targets hold sum(target_lengths) "
                                 "labels)")
            return
        if shape[0] != batch:
            raise ShapeError(self.op_name, f"Expected tensor to have size {batch} at dimension "
                             f"0, but got size {shape[0]} for argument #2 'targets' (padded "
                             "targets have one row per sample)")
        longest = max(lengths) if known else 0
        if shape[1] < longest:
            raise ShapeError(self.op_name, f"Expected tensor to have size at least {longest} at "
                             f"dimension 1, but got size {shape[1]} for argument #2 'targets' "
                             "(the longest of target_lengths)")

    # -- forward -----------------------------------------------------------------------
    def forward(self, backend, log_probs, targets):
        frames, batch, classes = log_probs.shape
        ext = self._extended_labels(backend, targets, batch, classes)
        samples = backend.reshape(backend.arange(0, batch, 1, dtypes.int64), (batch, 1))
        lp_ext = backend.getitem(log_probs, (slice(None), samples, ext))  # (T, N, L)
        skip = _skips(backend, ext)
        alpha = self._alpha(backend, lp_ext, skip)
        nll = self._nll(backend, alpha, frames, batch)
        if self.recording:
            self.saved = (log_probs, lp_ext, ext, skip, alpha, nll)
        return nll

    def _extended_labels(self, backend, targets, batch: int, classes: int):
        """``l'`` of every sample, ``(N, 2 * max(target_lengths) + 1)``: blanks between and
        around the labels, and blanks past a sample's own end (never read by a path)."""
        longest = max(self.target_lengths)
        ext = backend.full((batch, 2 * longest + 1), self.blank, dtypes.int64)
        if longest == 0:
            return ext
        labels = targets if targets.dtype.kind == "i" and targets.dtype.itemsize == 8 \
            else backend.astype(targets, dtypes.int64)
        columns = backend.arange(0, longest, 1, dtypes.int64)
        lengths = backend.reshape(backend.asarray(self.target_lengths, dtypes.int64),
                                  (batch, 1))
        valid = backend.binary("lt", columns, lengths)
        if labels.ndim == 2:
            labels = backend.getitem(labels, (slice(None), slice(0, longest)))
        else:  # concatenated: sample n's labels start after those of the samples before it
            starts = [sum(self.target_lengths[:n]) for n in range(batch)]
            at = backend.binary("add", backend.reshape(backend.asarray(starts, dtypes.int64),
                                                       (batch, 1)), columns)
            # past a sample's end, any position in range: the label is replaced below
            at = backend.binary("minimum", at, labels.shape[0] - 1)
            labels = backend.getitem(labels, at)
        labels = backend.where(valid, labels, self.blank)
        _check_labels(backend, labels, classes)
        backend.setitem(ext, (slice(None), slice(1, None, 2)), labels)
        return ext

    def _alpha(self, backend, lp_ext, skip):
        """``alpha`` with two columns of -inf in front, ``(T, N, L + 2)``: position ``s - 1``
        and ``s - 2`` of every position ``s`` are then slices, not shifted copies."""
        frames, batch, width = lp_ext.shape
        alpha = backend.full((frames, batch, width + 2), NEG_INF, dtypes.from_numpy(lp_ext.dtype))
        first = min(width, 2)  # a path starts on the first blank or the first label
        backend.setitem(alpha, (0, slice(None), slice(2, 2 + first)),
                        backend.getitem(lp_ext, (0, slice(None), slice(0, first))))
        for t in range(1, max(self.input_lengths)):
            previous = backend.getitem(alpha, t - 1)
            stay = backend.getitem(previous, (slice(None), slice(2, None)))
            advance = backend.getitem(previous, (slice(None), slice(1, -1)))
            jump = backend.where(skip, backend.getitem(previous, (slice(None), slice(0, -2))),
                                 NEG_INF)
            step = _log_add3(backend, stay, advance, jump)
            backend.setitem(alpha, (t, slice(None), slice(2, None)),
                            backend.binary("add", step, backend.getitem(lp_ext, t)))
        return alpha

    def _nll(self, backend, alpha, frames: int, batch: int):
        """``-log`` of the paths that end on the last label or the last blank at each
        sample's last frame; 0 for an empty input and an empty target, inf for an empty
        input and a non-empty target (PyTorch's values)."""
        last = [max(length - 1, 0) for length in self.input_lengths]
        ends = [2 * length + 2 for length in self.target_lengths]  # l'_{2S} in alpha's columns
        picks = (backend.asarray(last, dtypes.int64), backend.arange(0, batch, 1, dtypes.int64))
        on_blank = backend.getitem(alpha, picks + (backend.asarray(ends, dtypes.int64),))
        on_label = backend.getitem(alpha, picks + (backend.asarray([e - 1 for e in ends],
                                                                   dtypes.int64),))
        likelihood = _log_add(backend, on_blank, on_label)
        empty = [length == 0 for length in self.input_lengths]
        if any(empty):
            nothing = [0.0 if length == 0 else NEG_INF for length in self.target_lengths]
            likelihood = backend.where(backend.asarray(empty, dtypes.bool_),
                                       backend.asarray(nothing, dtypes.from_numpy(alpha.dtype)),
                                       likelihood)
        return backend.unary("neg", likelihood)

    # -- backward ----------------------------------------------------------------------
    def backward(self, backend, gy):
        log_probs, lp_ext, ext, skip, alpha, nll = self.saved
        frames, batch, classes = log_probs.shape
        beta = self._beta(backend, lp_ext, ext, skip)
        width = ext.shape[1]
        both = backend.binary("add", backend.getitem(alpha, (Ellipsis, slice(2, None))),
                              backend.getitem(beta, (slice(0, frames), Ellipsis,
                                                     slice(0, width))))
        shares = backend.unary("exp", backend.binary("sub", backend.binary(
            "add", both, backend.reshape(nll, (1, batch, 1))), lp_ext))
        times = backend.reshape(backend.arange(0, frames, 1, dtypes.int64), (frames, 1, 1))
        samples = backend.reshape(backend.arange(0, batch, 1, dtypes.int64), (1, batch, 1))
        dtype = dtypes.from_numpy(log_probs.dtype)
        emitted = backend.index_add(log_probs.shape, (times, samples, backend.reshape(
            ext, (1, batch, width))), shares, dtype)
        grad = backend.binary("sub", backend.unary("exp", log_probs), emitted)
        grad = backend.binary("mul", grad, backend.reshape(gy, (1, batch, 1)))
        return self._masked(backend, grad, nll, frames, batch), None

    def backward_graph(self, grad):
        """The array gradient behind a node that raises PyTorch's error when a backward
        reaches it: PyTorch has no derivative of ``_ctc_loss_backward``."""
        gx, _ = self.backward(self.backend, grad._data)
        refusal = graph_backward.PyTorchRefusal(
            "torch::autograd::NotImplemented", RuntimeError,
            "derivative for aten::_ctc_loss_backward is not implemented", self.backend,
            (_edge(grad),) + tuple(self._next_nodes))
        return graph_backward.refused_tensor(gx, self.backend, refusal), None

    def _beta(self, backend, lp_ext, ext, skip):
        """``beta`` with two columns of -inf behind and a row of -inf below,
        ``(T + 1, N, L + 2)``; a sample's rows from its input length on stay -inf, so
        padded frames (whatever they hold) take no part."""
        frames, batch, width = lp_ext.shape
        dtype = dtypes.from_numpy(lp_ext.dtype)
        beta = backend.full((frames + 1, batch, width + 2), NEG_INF, dtype)
        skip_back = backend.full((batch, width), False, dtypes.bool_)
        backend.setitem(skip_back, (slice(None), slice(0, -2)),
                        backend.getitem(skip, (slice(None), slice(2, None))))
        positions = backend.arange(0, width, 1, dtypes.int64)
        twice = backend.reshape(backend.asarray([2 * n for n in self.target_lengths],
                                                dtypes.int64), (batch, 1))
        ends = backend.binary("logical_or", backend.binary("eq", positions, twice),
                              backend.binary("eq", positions, backend.binary("sub", twice, 1)))
        lengths = backend.asarray(self.input_lengths, dtypes.int64)
        for t in range(max(self.input_lengths) - 1, -1, -1):
            following = backend.getitem(beta, t + 1)
            stay = backend.getitem(following, (slice(None), slice(0, width)))
            advance = backend.getitem(following, (slice(None), slice(1, width + 1)))
            jump = backend.where(skip_back, backend.getitem(following, (slice(None),
                                                                        slice(2, None))), NEG_INF)
            here = backend.getitem(lp_ext, t)
            step = backend.binary("add", _log_add3(backend, stay, advance, jump), here)
            # a path ends at frame length - 1 on the last label or the last blank
            start = backend.binary("logical_and", ends, backend.reshape(
                backend.binary("eq", lengths, t + 1), (batch, 1)))
            step = backend.where(start, here, step)
            active = backend.reshape(backend.binary("gt", lengths, t), (batch, 1))
            backend.setitem(beta, (t, slice(None), slice(0, width)),
                            backend.where(active, step, NEG_INF))
        return beta

    def _masked(self, backend, grad, nll, frames: int, batch: int):
        """The gradient on each sample's own frames only; 0 for an empty input and (with
        ``zero_infinity``) an infinite loss, NaN for an infinite loss otherwise (PyTorch's)."""
        infinite = backend.binary("eq", nll, float("inf"))
        if not self.zero_infinity:
            grad = backend.where(backend.reshape(infinite, (1, batch, 1)), float("nan"), grad)
        times = backend.reshape(backend.arange(0, frames, 1, dtypes.int64), (frames, 1))
        keep = backend.binary("lt", times, backend.asarray(self.input_lengths, dtypes.int64))
        if self.zero_infinity:
            keep = backend.binary("logical_and", keep, backend.unary("logical_not", infinite))
        zero = grad.dtype.type(0)
        return backend.where(backend.reshape(keep, (frames, batch, 1)), grad, zero)


def _skips(backend, ext):
    """Where a path may jump two positions (over a blank): ``s >= 2`` and
    ``l'_s != l'_{s - 2}`` (two equal labels in a row need a blank between them)."""
    skip = backend.full(ext.shape, False, dtypes.bool_)
    if ext.shape[1] > 2:
        backend.setitem(skip, (slice(None), slice(2, None)), backend.binary(
            "ne", backend.getitem(ext, (slice(None), slice(2, None))),
            backend.getitem(ext, (slice(None), slice(0, -2)))))
    return skip


def _log_add3(backend, a, b, c):
    """``log(exp(a) + exp(b) + exp(c))`` as PyTorch computes it: shifted by the largest, a
    largest of -inf (nothing to add) shifted by 0 so that the result is -inf, not NaN."""
    top = backend.binary("maximum", backend.binary("maximum", a, b), c)
    top = backend.where(backend.binary("eq", top, NEG_INF), top.dtype.type(0), top)
    total = backend.binary("add", backend.binary(
        "add", _exp_below(backend, a, top), _exp_below(backend, b, top)),
        _exp_below(backend, c, top))
    return backend.binary("add", backend.unary("log", total), top)


def _log_add(backend, a, b):
    """``log(exp(a) + exp(b))``, as ``_log_add3``."""
    top = backend.binary("maximum", a, b)
    top = backend.where(backend.binary("eq", top, NEG_INF), top.dtype.type(0), top)
    total = backend.binary("add", _exp_below(backend, a, top), _exp_below(backend, b, top))
    return backend.binary("add", backend.unary("log", total), top)


def _exp_below(backend, a, top):
    return backend.unary("exp", backend.binary("sub", a, top))


def _check_labels(backend, labels, classes: int) -> None:
    """A label outside ``[0, C)`` would index another sample's or no class (PyTorch's CPU
    kernel reads whatever memory is there); refuse it. On CUDA this reads two numbers."""
    for value in index_bounds(backend, labels):
        if not 0 <= value < classes:
            raise RuntimeError(f"ctc_loss: targets must hold class indices in [0, {classes}) "
                               f"(log_probs has {classes} classes), but got {value}")

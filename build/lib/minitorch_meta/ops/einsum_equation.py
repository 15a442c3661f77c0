"""``einsum``'s shape rule: an equation and the operands' shapes -> a plan for the kernel.

PyTorch's equation language: subscripts are letters (``[a-zA-Z]``), spaces are ignored, an
operand may cover any number of leading, middle or trailing dims with one ``...``, and the
output follows ``->`` (implicit mode without it: the ellipsis dims, then the subscripts
that occur exactly once, in alphabetical order, upper case first). A subscript repeated
in one operand takes its diagonal; one missing from the output is summed over. A dim of
size 1 broadcasts against the other operands' size for the same subscript (or the same
ellipsis position). Errors are PyTorch's, found in PyTorch's order: first the equation,
then the operands' dims, then the sizes.

The plan normalises all that away, so that the kernel sees the plainest equation: every
``...`` dim gets a letter of its own, the output is explicit, and the size-1 dims that
broadcast are dropped from their operand (a reshape), so that a letter has one size in
every operand that keeps it.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from .. import dtypes

LETTERS = string.ascii_letters
ELLIPSIS = "..."


@dataclass(frozen=True)
class EinsumPlan:
    """What the forward and backward kernels run.

    ``subscripts[k]`` names the dims of operand ``k`` reshaped to ``shapes[k]`` (its
    broadcast size-1 dims dropped); ``output`` names the output's dims; ``sizes`` gives
    each letter's size.
    """

    subscripts: tuple
    output: str
    shapes: tuple
    sizes: dict
    out_shape: tuple

    @property
    def equation(self) -> str:
        return ",".join(self.subscripts) + "->" + self.output

    def summed_letters(self) -> set:
        """The letters that are in an operand but not in the output."""
        return set("".join(self.subscripts)) - set(self.output)


def plan(equation: str, shapes) -> EinsumPlan:
    """The kernel's plan for ``equation`` over operands of ``shapes``.

    Raises:
        RuntimeError with PyTorch's message for a malformed equation, a count of operands
        or of dims the equation does not describe, and sizes that do not broadcast.
    """
    lhs, arrow, rhs = equation.partition("->")
    terms = _parse_operands(lhs, len(shapes))
    ellipsis_dims = _check_dims(terms, shapes)
    used = {c for term in terms for c in term if c != ELLIPSIS}
    free = [c for c in LETTERS if c not in used]
    if ellipsis_dims > len(free):
        raise RuntimeError(f"einsum(): the ellipsis covers {ellipsis_dims} dims but only "
                           f"{len(free)} letters are left unused by the equation; name some "
                           "of those dims with letters instead")
    ellipsis = "".join(free[:ellipsis_dims])  # one letter per ellipsis dim, right-aligned
    if arrow:
        output = _parse_output(rhs, len(lhs) + 2, terms, ellipsis)
    else:
        counts = _label_counts(terms)
        output = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1))
    spelled = [_spell(term, len(shape), ellipsis) for term, shape in zip(terms, shapes)]
    sizes = _sizes(spelled, shapes, ellipsis)
    kept_subscripts, kept_shapes = [], []
    for letters, shape in zip(spelled, shapes):
        # A size-1 dim whose letter is larger elsewhere broadcasts: drop it from the operand
        keep = [i for i, (c, n) in enumerate(zip(letters, shape)) if n != 1 or sizes[c] == 1]
        kept_subscripts.append("".join(letters[i] for i in keep))
        kept_shapes.append(tuple(shape[i] for i in keep))
    return EinsumPlan(tuple(kept_subscripts), output, tuple(kept_shapes), sizes,
                      tuple(sizes[c] for c in output))


def result_dtype(plan: EinsumPlan, operand_dtypes) -> object:
    """The output dtype: the operands' (they must agree), except that integer and bool
    results are int64 when a summed subscript has its size in only one operand. PyTorch
    sums such a subscript out of its operand with ``sum``, which widens integers; with one
    operand, whatever is summed is summed that way.

    Raises:
        RuntimeError for operands of different dtypes.
    """
    first = operand_dtypes[0]
    for k, dtype in enumerate(operand_dtypes[1:], 1):
        if dtype is not first:
            raise RuntimeError(f"einsum(): expected all operands to have the same dtype, but "
                               f"operand 0 is {first} and operand {k} is {dtype}; convert "
                               f"them with .to({first}) or .to({dtype})")
    if first.is_floating_point:
        return first
    summed = plan.summed_letters()
    if len(plan.subscripts) == 1:
        widens = bool(summed)
    else:
        widens = any(sum(c in term for term in plan.subscripts) == 1 and plan.sizes[c] != 1
                     for c in summed)
    return dtypes.int64 if widens else first


def from_sublists(arguments) -> tuple:
    """``(equation, operands)`` of the sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``:
    ints in ``[0, 52)`` name subscripts (0-25: ``A-Z``, 26-51: ``a-z``), ``...`` the
    ellipsis; a last unpaired list is the output.

    Raises:
        ValueError for a subscript out of range.
    """
    operands = list(arguments[0::2])
    lists = list(arguments[1::2])
    output = None
    if len(arguments) % 2:  # operands and lists alternate; an odd count ends with the output
        output = operands.pop()
    equation = ",".join(_sublist_term(s) for s in lists)
    if output is not None:
        equation += "->" + _sublist_term(output)
    return equation, operands


def _sublist_term(sublist) -> str:
    term = []
    for s in sublist:
        if s is Ellipsis:
            term.append(ELLIPSIS)
        elif isinstance(s, int) and 0 <= s < len(LETTERS):
            term.append(LETTERS[(s + 26) % 52])  # upper case first, as PyTorch numbers them
        else:
            raise ValueError("einsum(): subscript in subscript list is not within the valid "
                             f"range [0, 52), got {s!r}")
    return "".join(term)


def _parse_operands(lhs: str, count: int) -> list:
    """Each operand's subscripts (letters and ``"..."``), reading ``lhs`` left to right."""
    terms = [[]]
    i = 0
    while i < len(lhs):
        c = lhs[i]
        k = len(terms) - 1
        if c == ".":
            if ELLIPSIS in terms[-1]:
                raise RuntimeError(f"einsum(): found '.' for operand {k} for which an "
                                   "ellipsis was already found")
            if lhs[i:i + 3] != ELLIPSIS:
                raise RuntimeError(f"einsum(): found '.' for operand {k} that is not part of "
                                   "any ellipsis")
            terms[-1].append(ELLIPSIS)
            i += 2
        elif c == ",":
            if len(terms) == count:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
            terms.append([])
        elif c in LETTERS:
            terms[-1].append(c)
        elif c != " ":
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the "
                               "equation string, subscripts must be in [a-zA-Z]")
        i += 1
    if len(terms) != count:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    return terms


def _check_dims(terms, shapes) -> int:
    """How many dims the widest ellipsis covers, after checking each operand's dim count."""
    widest = 0
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        letters = len(term) - term.count(ELLIPSIS)
        if ELLIPSIS in term:
            if letters > len(shape):
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({letters}) is more than the number of dimensions "
                                   f"({len(shape)}) for operand {k}")
            widest = max(widest, len(shape) - letters)
        elif letters != len(shape):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({letters}) "
                               f"does not match the number of dimensions ({len(shape)}) for "
                               f"operand {k} and no ellipsis was given")
    return widest


def _label_counts(terms) -> dict:
    counts = {}
    for term in terms:
        for c in term:
            if c != ELLIPSIS:
                counts[c] = counts.get(c, 0) + 1
    return counts


def _parse_output(rhs: str, offset: int, terms, ellipsis: str) -> str:
    """The explicit output's letters (the ellipsis spelled out); ``offset``: where ``rhs``
    starts in the equation, for the index in messages."""
    counts = _label_counts(terms)
    output = []
    seen_ellipsis = False
    i = 0
    while i < len(rhs):
        c = rhs[i]
        if c == ".":
            if seen_ellipsis:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was "
                                   "already found")
            if rhs[i:i + 3] != ELLIPSIS:
                raise RuntimeError("einsum(): found '.' for output that is not part of any "
                                   "ellipsis (...)")
            seen_ellipsis = True
            output.append(ellipsis)
            i += 2
        elif c in LETTERS:
            if c in output:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in "
                                   "the output")
            if c not in counts:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                                   "equation for any input operand")
            output.append(c)
        elif c != " ":
            raise RuntimeError(f"einsum(): invalid subscript given at index {offset + i} in "
                               "the equation string, subscripts must be in [a-zA-Z]")
        i += 1
    return "".join(output)


def _spell(term, ndim: int, ellipsis: str) -> str:
    """An operand's subscripts with its ellipsis replaced by the letters of the dims it
    covers (the last ones of ``ellipsis``: ellipsis dims align from the right)."""
    covered = ndim - (len(term) - term.count(ELLIPSIS))
    spelled = ellipsis[len(ellipsis) - covered:] if covered else ""
    return "".join(spelled if c == ELLIPSIS else c for c in term)


def _sizes(spelled, shapes, ellipsis: str) -> dict:
    """Each letter's size: the one size other than 1 that its dims have (1 if none).

    Raises:
        RuntimeError for two different sizes other than 1, and for a subscript repeated
        in one operand over dims of different sizes.
    """
    sizes = {}
    for k, (letters, shape) in enumerate(zip(spelled, shapes)):
        first_dim = {}
        for d, (c, n) in enumerate(zip(letters, shape)):
            if c in first_dim:  # a repeated subscript: a diagonal, of equal sizes only
                if n != shape[first_dim[c]]:
                    raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} "
                                       f"but the sizes don't match, {n} != "
                                       f"{shape[first_dim[c]]}")
                continue
            first_dim[c] = d
            seen = sizes.get(c, 1)
            if n != 1 and seen not in (1, n):
                if c in ellipsis:
                    raise RuntimeError(f"einsum(): dimension {d} covered by ellipsis in "
                                       f"operand {k} has size {n} which does not broadcast "
                                       f"with previously seen ellipsis with size {seen} for "
                                       "the respective dimension")
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} "
                                   "which does not broadcast with previously seen size "
                                   f"{seen}")
            if n != 1:
                sizes[c] = n
            else:
                sizes.setdefault(c, 1)
    return sizes

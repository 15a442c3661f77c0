"""Batches of sequences of different lengths: padding, and PyTorch's packed form.

A ``PackedSequence`` holds the steps of every sequence time-major, without padding:
``data`` is the first step of each sequence (longest first), then the second step of each
sequence that has one, and so on; ``batch_sizes[t]`` says how many sequences have step
``t``. The recurrent layers (``nn/rnn.py``) run on it directly, so the padding is never
computed and each sequence's final state is its own last step's. Everything here is made
of ops (slices, ``cat``, ``stack``, ``index_select``), so gradients flow through packing and
unpacking, and shapes work on meta when the lengths are given as Python ints.
"""

from __future__ import annotations

from typing import NamedTuple

from ... import dtypes
from ...factories import full, tensor
from ...functions import cat, stack
from ...tensor import Tensor


class PackedSequence(NamedTuple):
    """Sequences packed time-major (see the module), as PyTorch's ``PackedSequence``.

    Shape:
        ``data`` ``(sum(batch_sizes), *)``; ``batch_sizes`` ``(T,)`` int64 on the CPU;
        ``sorted_indices`` / ``unsorted_indices`` ``(N,)`` int64 or None (the batch was
        given longest first).
    """

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args, **kwargs) -> PackedSequence:
        """``data`` (and the indices, to its device) converted as ``Tensor.to``;
        ``batch_sizes`` stays on the CPU, as in PyTorch."""
        data = self.data.to(*args, **kwargs)
        indices = [None if i is None else i.to(data.device)
                   for i in (self.sorted_indices, self.unsorted_indices)]
        return PackedSequence(data, self.batch_sizes, *indices)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of different lengths, padded with ``padding_value`` to the longest.

    Shape:
        each sequence ``(L_i, *)`` -> ``(L_max, N, *)``, or ``(N, L_max, *)`` with
        ``batch_first``.
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    trailing = tuple(sequences[0].shape[1:])
    for k, seq in enumerate(sequences):
        if seq.dim() == 0 or tuple(seq.shape[1:]) != trailing:
            raise RuntimeError(f"pad_sequence: every sequence must have the shape (L, "
                               f"{', '.join(map(str, trailing)) or '*'}) of the first, but "
                               f"sequence {k} has shape {tuple(seq.shape)}")
    longest = max(seq.shape[0] for seq in sequences)
    padded = [_pad_to(seq, longest, padding_value, padding_side) for seq in sequences]
    return stack(padded, 0 if batch_first else 1)


def _pad_to(seq: Tensor, length: int, value: float, side: str) -> Tensor:
    """``seq`` with ``length - len(seq)`` steps of ``value`` after it (or before it)."""
    missing = length - seq.shape[0]
    if missing == 0:
        return seq
    pad = full((missing, *seq.shape[1:]), value, dtype=seq.dtype, device=seq.device)
    return cat([seq, pad] if side == "right" else [pad, seq], 0)


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch whose sequence ``i`` has ``lengths[i]`` real steps.

    Shape:
        input ``(T, N, *)`` (``(N, T, *)`` with ``batch_first``), lengths ``N`` ints
        -> ``PackedSequence`` with ``data`` ``(sum(lengths), *)``.
    """
    lengths = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if input.dim() < 2 or input.shape[batch_dim] != len(lengths):
        raise RuntimeError(f"pack_padded_sequence: expected an input of shape "
                           f"{'(N, T, *)' if batch_first else '(T, N, *)'} with N = "
                           f"{len(lengths)} (one per length), got shape {tuple(input.shape)}")
    sorted_indices = order = None
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                               "to pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])  # stable
        sorted_indices = tensor(order, dtype=dtypes.int64, device=input.device)
        input = input.index_select(batch_dim, sorted_indices)
        lengths = [lengths[i] for i in order]
    steps = input.transpose(0, 1) if batch_first else input
    if lengths and lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if lengths and lengths[0] > steps.shape[0]:
        raise RuntimeError(f"pack_padded_sequence: a length of {lengths[0]} is longer than "
                           f"the input's {steps.shape[0]} steps (input shape "
                           f"{tuple(input.shape)}, batch_first={batch_first})")
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0] if lengths else 0)]
    data = cat([steps[t, :size] for t, size in enumerate(batch_sizes)], 0)
    unsorted_indices = None if order is None else tensor(
        _inverse(order), dtype=dtypes.int64, device=input.device)
    return PackedSequence(data, tensor(batch_sizes, dtype=dtypes.int64), sorted_indices,
                          unsorted_indices)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None) -> tuple:
    """Undo ``pack_padded_sequence``: ``(padded, lengths)``, in the batch's original order.

    Shape:
        ``data`` ``(sum(lengths), *)`` -> padded ``(T, N, *)`` (``(N, T, *)`` with
        ``batch_first``; ``T`` is ``total_length`` if given) and lengths ``(N,)`` int64.
    """
    data, batch_sizes = sequence.data, sequence.batch_sizes.tolist()
    longest, batch = len(batch_sizes), batch_sizes[0]
    if total_length is not None and total_length < longest:
        raise ValueError(f"Expected total_length to be at least the length of the longest "
                         f"sequence in input, but got total_length={total_length} and max "
                         f"sequence length being {longest}")
    steps, start = [], 0
    for size in batch_sizes:
        steps.append(_pad_to(data[start:start + size], batch, padding_value, "right"))
        start += size
    blank = full((batch, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    steps += [blank] * ((total_length or longest) - longest)
    padded = stack(steps, 0)
    lengths = [sum(1 for size in batch_sizes if size > row) for row in range(batch)]
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = [lengths[i] for i in sequence.unsorted_indices.tolist()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, tensor(lengths, dtype=dtypes.int64)


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)`` (longest first unless ``enforce_sorted`` is
    False)."""
    sequences = list(sequences)
    lengths = [seq.shape[0] for seq in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list:
    """The sequences of a padded batch, each cut to its length."""
    batch = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [batch[i, :n] for i, n in enumerate(_lengths_list(lengths))]


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The sequences of a ``PackedSequence``, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def _lengths_list(lengths) -> list:
    """``lengths`` (a list of ints, or a 1-D integer tensor) as Python ints."""
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1 or lengths.dtype not in (dtypes.int64, dtypes.int32):
            raise RuntimeError(f"lengths must be a 1-D integer tensor (or a list of ints), "
                               f"got a {lengths.dim()}-D {lengths.dtype} tensor")
        return [int(n) for n in lengths.tolist()]
    return [int(n) for n in lengths]


def _inverse(order: list) -> list:
    """The permutation that undoes ``order``."""
    inverse = [0] * len(order)
    for rank, index in enumerate(order):
        inverse[index] = rank
    return inverse

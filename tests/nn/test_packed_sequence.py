"""nn.utils.rnn (pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence,
unpad/unpack) and the recurrent layers on packed input: values and gradients against
PyTorch, errors, and meta shapes."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from minitorch_meta.nn.utils import rnn as rnn_utils

LENGTHS = [2, 5, 3, 5, 1]  # not sorted; two of the same length


def _sequences(lib, device=None, feature=3, lengths=LENGTHS):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((n, feature)) for n in lengths]
    if lib is mt:
        return [mt.tensor(a, device=device, requires_grad=True) for a in arrays]
    return [lib.tensor(a, requires_grad=True) for a in arrays]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_matches_pytorch(torch_ref, batch_first, padding_side, device):
    ours = rnn_utils.pad_sequence(_sequences(mt, device), batch_first, -1.0, padding_side)
    theirs = torch_ref.nn.utils.rnn.pad_sequence(_sequences(torch_ref), batch_first, -1.0,
                                                 padding_side)
    np.testing.assert_array_equal(ours.detach().cpu().numpy(), theirs.detach().numpy())


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_and_unpack_round_trip_as_pytorch(torch_ref, batch_first, device):
    ours_in, theirs_in = _sequences(mt, device), _sequences(torch_ref)
    tu = torch_ref.nn.utils.rnn
    padded_o = rnn_utils.pad_sequence(ours_in, batch_first)
    padded_t = tu.pad_sequence(theirs_in, batch_first)
    packed_o = rnn_utils.pack_padded_sequence(padded_o, LENGTHS, batch_first,
                                              enforce_sorted=False)
    packed_t = tu.pack_padded_sequence(padded_t, LENGTHS, batch_first, enforce_sorted=False)
    np.testing.assert_array_equal(packed_o.data.detach().cpu().numpy(),
                                  packed_t.data.detach().numpy())
    for a, b in zip(packed_o[1:], packed_t[1:]):
        assert a.tolist() == b.tolist()
    out_o, len_o = rnn_utils.pad_packed_sequence(packed_o, batch_first, 7.0, total_length=6)
    out_t, len_t = tu.pad_packed_sequence(packed_t, batch_first, 7.0, total_length=6)
    np.testing.assert_array_equal(out_o.detach().cpu().numpy(), out_t.detach().numpy())
    assert len_o.tolist() == len_t.tolist() == LENGTHS and len_o.dtype is mt.int64
    (out_o * out_o).sum().backward()
    (out_t * out_t).sum().backward()
    for a, b in zip(ours_in, theirs_in):
        np.testing.assert_array_equal(a.grad.cpu().numpy(), b.grad.numpy())


def test_pack_sequence_and_unpack_sequence(torch_ref):
    ordered = sorted(LENGTHS, reverse=True)
    packed = rnn_utils.pack_sequence(_sequences(mt, lengths=ordered))
    theirs = torch_ref.nn.utils.rnn.pack_sequence(_sequences(torch_ref, lengths=ordered))
    assert packed.batch_sizes.tolist() == theirs.batch_sizes.tolist() == [5, 4, 3, 2, 2]
    assert packed.sorted_indices is None and packed.unsorted_indices is None
    back = rnn_utils.unpack_sequence(rnn_utils.pack_sequence(_sequences(mt), False))
    for got, want in zip(back, _sequences(mt)):
        assert mt.equal(got, want.detach())


LAYERS = [("RNN", {}), ("GRU", {"num_layers": 2}), ("LSTM", {"bidirectional": True}),
          ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 2}),
          ("GRU", {"bidirectional": True, "batch_first": True})]


@pytest.mark.parametrize("name, kwargs", LAYERS)
@pytest.mark.parametrize("with_state", [False, True], ids=["no-hx", "hx"])
def test_layers_on_packed_input_match_pytorch(torch_ref, name, kwargs, with_state, device):
    theirs = getattr(torch_ref.nn, name)(3, 4, **kwargs).double()
    ours = getattr(nn, name)(3, 4, **kwargs, dtype=mt.float64, device=device)
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    batch_first = kwargs.get("batch_first", False)
    seq_o, seq_t = _sequences(mt, device), _sequences(torch_ref)
    packed_o = rnn_utils.pack_padded_sequence(rnn_utils.pad_sequence(seq_o, batch_first),
                                              LENGTHS, batch_first, enforce_sorted=False)
    tu = torch_ref.nn.utils.rnn
    packed_t = tu.pack_padded_sequence(tu.pad_sequence(seq_t, batch_first), LENGTHS,
                                       batch_first, enforce_sorted=False)
    args_o, args_t = (), ()
    if with_state:
        layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
        rng = np.random.default_rng(9)
        h = rng.standard_normal((layers, len(LENGTHS), kwargs.get("proj_size") or 4))
        c = rng.standard_normal((layers, len(LENGTHS), 4))
        args_o = ((mt.tensor(h, device=device, requires_grad=True),
                   mt.tensor(c, device=device, requires_grad=True))
                  if name == "LSTM" else mt.tensor(h, device=device, requires_grad=True),)
        args_t = ((torch_ref.tensor(h, requires_grad=True),
                   torch_ref.tensor(c, requires_grad=True)) if name == "LSTM"
                  else torch_ref.tensor(h, requires_grad=True),)
    out_o, hid_o = ours(packed_o, *args_o)
    out_t, hid_t = theirs(packed_t, *args_t)
    assert isinstance(out_o, rnn_utils.PackedSequence)
    assert out_o.batch_sizes.tolist() == out_t.batch_sizes.tolist()
    np.testing.assert_allclose(out_o.data.detach().cpu().numpy(), out_t.data.detach().numpy(),
                               rtol=1e-10, atol=1e-12)
    hid_o = hid_o if isinstance(hid_o, tuple) else (hid_o,)
    hid_t = hid_t if isinstance(hid_t, tuple) else (hid_t,)
    for a, b in zip(hid_o, hid_t):  # each sequence's own last state, in the batch's order
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    ((out_o.data ** 2).sum() + sum((h * 3).sum() for h in hid_o)).backward()
    ((out_t.data ** 2).sum() + sum((h * 3).sum() for h in hid_t)).backward()
    for a, b in zip(seq_o, seq_t):
        np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-12)
    for (key, p), (_, q) in zip(theirs.named_parameters(), ours.named_parameters()):
        np.testing.assert_allclose(q.grad.cpu().numpy(), p.grad.numpy(), rtol=1e-9,
                                   atol=1e-12, err_msg=key)
    for a, b in zip(_states(args_o), _states(args_t)):  # the initial states' gradients
        np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), rtol=1e-9,
                                   atol=1e-12)


def _states(args):
    """The initial state tensors passed to a layer: none, ``h``, or LSTM's ``(h, c)``."""
    if not args:
        return ()
    return args[0] if isinstance(args[0], tuple) else (args[0],)


def test_packed_shapes_on_meta():
    layer = nn.LSTM(3, 4, bidirectional=True, device="meta")
    padded = mt.empty(5, 3, 3, device="meta")
    packed = rnn_utils.pack_padded_sequence(padded, [5, 4, 2])
    out, (h, c) = layer(packed)
    assert out.data.shape == (11, 8) and h.shape == (2, 3, 4) and c.device.type == "meta"
    unpacked, lengths = rnn_utils.pad_packed_sequence(out, batch_first=True)
    assert unpacked.shape == (3, 5, 8) and lengths.tolist() == [5, 4, 2]


ERRORS = [
    (lambda T, U: U.pack_padded_sequence(T.zeros(3, 2, 1), [1, 2]), RuntimeError,
     "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True"),
    (lambda T, U: U.pack_padded_sequence(T.zeros(3, 2, 1), [2, 0]), RuntimeError,
     "Length of all samples has to be greater than 0"),
    (lambda T, U: U.pad_packed_sequence(U.pack_sequence([T.zeros(3, 1)]), total_length=2),
     ValueError, "Expected total_length to be at least the length of the longest sequence in "
                 "input, but got total_length=2 and max sequence length being 3"),
    (lambda T, U: U.pad_sequence([T.zeros(2, 1)], padding_side="middle"), RuntimeError,
     "Expected padding_side to be one of left or right, but got middle."),
]


@pytest.mark.parametrize("make, kind, message", ERRORS)
def test_errors_are_pytorchs(torch_ref, make, kind, message):
    with pytest.raises(kind) as ours:
        make(mt, rnn_utils)
    with pytest.raises(kind) as theirs:
        make(torch_ref, torch_ref.nn.utils.rnn)
    assert message in str(ours.value) and message in str(theirs.value)


def test_lengths_longer_than_the_input_are_refused():
    with pytest.raises(RuntimeError, match="a length of 4 is longer than the input's 3 steps"):
        rnn_utils.pack_padded_sequence(mt.zeros(3, 2, 1), [4, 1])

"""`nn.utils.rnn`: sequences of different lengths in one batch, as PyTorch's.

`pad_sequence` stacks them, padded to the longest; `pack_padded_sequence` keeps only the real
time steps (a `PackedSequence`: the rows, and how many sequences each step has), which
`nn.RNN`, `nn.LSTM` and `nn.GRU` run step by step on the sequences still going, so that a
sequence's last hidden state is the one after its own last step, not after the padding.
`pad_packed_sequence` gives the padded form back, with the lengths.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.ops.base import constant
from minigrad.ops.packing import pack
from minigrad.surface import dtypes
from minigrad.surface.factories import full

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence",
           "pad_packed_sequence", "pad_sequence", "unpack_sequence", "unpad_sequence"]

UNSORTED = ("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
            "sidestep this requirement if you do not need ONNX exportability.")


class PackedSequence_(NamedTuple):  # noqa: N801 - PyTorch's name
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """The real time steps of a batch of sequences: `data` (their rows, step by step),
    `batch_sizes` (how many sequences each step has, int64), and the order the sequences were
    sorted in by length (`sorted_indices`, None when they came sorted) and its inverse."""

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None,
                sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same sequences with `data.to(...)` (itself when nothing changes)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self) -> PackedSequence:
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> PackedSequence:
        return self.to(self.data.cuda(*args, **kwargs))

    def double(self) -> PackedSequence:
        return self.to(dtype=dtypes.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=dtypes.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=dtypes.float16)

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes `permutation` (None for None)."""
    if permutation is None:
        return None
    p = permutation.array
    out = np.empty_like(p)
    out[p] = np.arange(p.size)
    return constant(out)


def pad_sequence(sequences: Tensor | list[Tensor], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """The sequences (each of shape (L_i, *)) in one tensor (T, B, *), or (B, T, *) with
    batch_first, padded with `padding_value` on the right (or the left)."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    trailing = sequences[0].shape[1:]
    for s in sequences[1:]:
        if tuple(s.shape[1:]) != tuple(trailing):
            a, b = trailing, s.shape[1:]
            dim = next(i for i in range(len(a)) if a[i] != b[i]) + 1
            raise RuntimeError(f"The size of tensor a ({a[dim - 1]}) must match the size of "
                               f"tensor b ({b[dim - 1]}) at non-singleton dimension {dim}")
    longest = max(s.shape[0] for s in sequences)
    shape = (len(sequences), longest) if batch_first else (longest, len(sequences))
    out = full(shape + tuple(trailing), padding_value, dtype=sequences[0].dtype,
               device=sequences[0].device)
    for i, s in enumerate(sequences):
        n = s.shape[0]
        steps = slice(longest - n, longest) if padding_side == "left" else slice(0, n)
        out[(i, steps) if batch_first else (steps, i)] = s
    return out


def _lengths(lengths: Any) -> np.ndarray:
    values = lengths.array if isinstance(lengths, Tensor) else np.asanyarray(lengths)
    return values.astype(np.int64).reshape(-1)


def pack_padded_sequence(input: Tensor, lengths: Tensor | list[int], batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """The real steps of padded sequences `input` (T, B, *) (or (B, T, *)), given each one's
    length; the lengths must be decreasing unless `enforce_sorted=False` (then the sequences
    are sorted, and the order kept in `sorted_indices`)."""
    lengths = _lengths(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-lengths, kind="stable")
        lengths, sorted_indices = lengths[order], constant(order.astype(np.int64))
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch, time = (input.shape[0], input.shape[1]) if batch_first else (input.shape[1],
                                                                           input.shape[0])
    if lengths.size != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lengths.size} (batch_size={batch})")
    if lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if np.any(np.diff(lengths) > 0):
        raise RuntimeError(UNSORTED)
    if lengths[0] > time:
        raise RuntimeError(f"a length ({lengths[0]}) is longer than the input's {time} time "
                           "steps (minigrad checks: PyTorch reads past the input's end)")
    batch_sizes = [int(np.sum(lengths > t)) for t in range(int(lengths[0]))]
    data = pack(input, batch_sizes, batch_first)
    return PackedSequence(data, constant(np.asanyarray(batch_sizes, dtype=np.int64)),
                          sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None
                        ) -> tuple[Tensor, Tensor]:
    """The padded sequences (T, B, *) (or (B, T, *)) and their lengths (int64), from a
    PackedSequence: each run of steps with the same batch size copied into place."""
    sizes = sequence.batch_sizes.array.tolist()
    longest = len(sizes)
    if total_length is not None:
        if total_length < longest:
            raise ValueError(f"Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {longest}")
        longest = total_length
    data = sequence.data
    out = full((longest, sizes[0]) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
               device=data.device)
    offset, start = 0, 0
    for i in range(len(sizes) + 1):
        size = sizes[i] if i < len(sizes) else 0
        if i and size != sizes[i - 1]:  # a run of steps of one batch size ends at i
            n, rows = sizes[i - 1], (i - start) * sizes[i - 1]
            chunk = data[offset:offset + rows].view((i - start, n) + tuple(data.shape[1:]))
            out[start:i, :n] = chunk
            offset, start = offset + rows, i
    lengths = np.array([sum(1 for s in sizes if s > b) for b in range(sizes[0])], np.int64)
    if batch_first:
        out = out.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        order = sequence.unsorted_indices
        return out.index_select(0 if batch_first else 1, order), constant(lengths[order.array])
    return out, constant(lengths)


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Sequences of shape (L_i, *) packed: pad_sequence, then pack_padded_sequence."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False
                   ) -> list[Tensor]:
    """The sequences of a padded batch, each cut to its length."""
    padded = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    steps = np.arange(padded.shape[1])
    return [seq[constant(steps < int(n))] for seq, n in zip(padded, _iter(lengths))]


def _iter(lengths: Any) -> Iterable:
    return _lengths(lengths).tolist()


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The sequences of a PackedSequence, each of its own length."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)

"""RNN, LSTM and GRU over a PackedSequence, as PyTorch runs them (its PackedLayer).

Step t runs on the first `batch_sizes[t]` sequences only: when the batch shrinks, the hidden
states of the sequences that just ended are set aside (they are those sequences' last states)
and the others go on. The reverse direction starts from the shortest batch and takes each
sequence's initial state in as the batch grows. Outputs stay packed (one row per real step).
"""

from __future__ import annotations

from typing import Any

from minigrad import ops
from minigrad.autograd.tensor import Tensor


def run(module: Any, packed: Any, hx: Any, cell_step: Any) -> tuple:
    """`module(packed, hx)`: the packed output and the final states, in the batch's order
    (`cell_step`: one time step, rnn.py's)."""
    from minigrad.nn.utils.rnn import PackedSequence  # (nn.utils imports nn's modules)

    data, batch_sizes, sorted_indices, unsorted_indices = packed
    sizes = batch_sizes.array.tolist()
    if data.shape[-1] != module.input_size:
        raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                           f"{module.input_size}, got {data.shape[-1]}")
    h0, c0 = module._initial_state(sizes[0], data.dtype, _permuted(hx, sorted_indices), True,
                                   data.device)

    def run_direction(x: Tensor, h: Tensor, c: Any, weights: tuple, reverse: bool) -> tuple:
        steps = _backward_steps if reverse else _forward_steps
        return steps(cell_step, module.mode, x, sizes, h, c, weights)

    output, h_n, c_n = module._layers(data, h0, c0, run_direction, cat_dim=1)
    h_n = _permuted(h_n, unsorted_indices)
    output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
    if c_n is None:
        return output, h_n
    return output, (h_n, _permuted(c_n, unsorted_indices))


def _permuted(hx: Any, order: Tensor | None) -> Any:
    """The states in the sorted batch's order (PyTorch's permute_hidden: index_select on dim
    1), or back."""
    if hx is None or order is None:
        return hx
    if isinstance(hx, tuple | list):
        return tuple(h.index_select(1, order) for h in hx)
    return hx.index_select(1, order)


def _forward_steps(cell: Any, mode: str, data: Tensor, sizes: list, h: Tensor, c: Any,
                   weights: tuple) -> tuple:
    outputs, finals_h, finals_c, offset, last = [], [], [], 0, sizes[0]
    for n in sizes:
        if n < last:  # the sequences n..last ended at the step before: keep their states
            finals_h.append(h[n:last])
            finals_c.append(None if c is None else c[n:last])
            h, c = h[:n], (None if c is None else c[:n])
        h, c = cell(mode, data[offset:offset + n], h, c, *weights)
        outputs.append(h)
        offset, last = offset + n, n
    finals_h.append(h)
    finals_c.append(c)
    h_n = ops.cat(finals_h[::-1], 0)
    c_n = None if c is None else ops.cat(finals_c[::-1], 0)
    return ops.cat(outputs, 0), h_n, c_n


def _backward_steps(cell: Any, mode: str, data: Tensor, sizes: list, h0: Tensor, c0: Any,
                    weights: tuple) -> tuple:
    last = sizes[-1]
    h, c = h0[:last], (None if c0 is None else c0[:last])
    offset, outputs = int(sum(sizes)), []
    for n in reversed(sizes):
        if n > last:  # sequences last..n start (at their own last step): their initial state
            h = ops.cat([h, h0[last:n]], 0)
            c = None if c is None else ops.cat([c, c0[last:n]], 0)
        h, c = cell(mode, data[offset - n:offset], h, c, *weights)
        outputs.append(h)
        offset, last = offset - n, n
    return ops.cat(outputs[::-1], 0), h, c

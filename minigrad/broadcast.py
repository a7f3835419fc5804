"""Undoing broadcasting: the one place where a gradient is summed back to its input's shape.

An op's backward returns each gradient in the shape of the *broadcast* computation (for
`x + b` with x (2, 3) and b (3,), both (2, 3)); no op deals with broadcasting itself. The
engine hands every gradient to `fit`, which sums it over the dims that broadcasting added or
stretched, so that it has the shape of the input it goes to, as PyTorch's engine does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import tensor as _tensor
from minigrad.grad_mode import state
from minigrad.ops.reduce import SumToSize, sum_to_array


def fit(node: Any, i: int, g: Any, nxt: Any, nr: int, summed: list | None) -> Any:
    """Gradient `g` that `node` sends to its input i (output `nr` of node `nxt`), as a Tensor
    of that input's shape; a shape that does not broadcast to it is PyTorch's error. The dims
    summed over go to `summed[i]` (None: nobody listens for them)."""
    if not isinstance(g, _tensor.Tensor):  # a Function may return numpy arrays or numbers
        g = _tensor.make(np.asarray(g), None, 0)
    shape = g.data.shape
    # The shape the input had when the graph was recorded is always right. (This is also
    # why a leaf whose `.data` was replaced by an array of another shape still accumulates a
    # graph recorded before that as it is, as PyTorch does; `_grad_shape` reads the leaf's
    # shape now, for gradients that need summing.)
    if shape == (nxt._shape if nr == 0 else nxt._grad_shape(nr)):
        return g
    expected = nxt._grad_shape(nr)
    if shape == expected:
        return g
    try:
        data, dims = sum_to_array(g.data, expected)
    except ValueError:  # g is not the input's shape, broadcast
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got "
            f"{list(shape)} but expected shape compatible with {list(expected)}") from None
    if summed is not None:
        summed[i] = dims
    if state.grad_enabled:  # create_graph: record the summation too
        return SumToSize.apply(g, shape=expected)
    return _tensor.make(data, None, 0)


def fit_all(node: Any, grads: list, summed: list | None) -> None:
    """`fit` every gradient in place; an input that needs no gradient gets None."""
    for i, (nxt, nr) in enumerate(zip(node._next_nodes, node._next_nrs)):
        g = grads[i]
        if nxt is None:
            grads[i] = None
        elif g is not None:
            grads[i] = fit(node, i, g, nxt, nr, summed)

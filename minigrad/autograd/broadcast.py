"""Undoing broadcasting: the one place where a gradient is summed back to its input's shape.

An op's backward returns each gradient in the shape of the *broadcast* computation (for
`x + b` with x (2, 3) and b (3,), both (2, 3)); no op deals with broadcasting itself. The
engine hands every gradient to `fit`, which sums it over the dims that broadcasting added or
stretched (`sum_to_array`; `SumToSize` when create_graph records it), so that it has the
shape of the input it goes to, as PyTorch's engine does. Shapes that do not broadcast get
`broadcast_message`, PyTorch's words.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd import tensor as _tensor
from minigrad.autograd.forward_ad import LEVELS
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import GRAD_ENABLED
from minigrad.autograd.gradients import array_of, as_tensor
from minigrad.surface.summation import add_reduce


def fit(node: Any, i: int, g: Any, nxt: Any, nr: int, summed_dims: list | None) -> Any:
    """Gradient `g` that `node` sends to its input i (output `nr` of node `nxt`), in that
    input's shape; a shape that does not broadcast to it is PyTorch's error. The dims summed
    over go to `summed_dims[i]` (None: nobody listens for them). A Tensor comes back a Tensor;
    a numpy array (the engine's array pass), or a number a Function returned, an array."""
    tensor = isinstance(g, _tensor.Tensor)
    if not tensor and type(g) is not np.ndarray:  # a Function may return numbers
        g = np.asanyarray(g)
    data = array_of(g)
    shape = data.shape
    # The shape the input had when the graph was recorded is always right. (This is also
    # why a leaf whose `.data` was replaced by a tensor of another shape still accumulates a
    # graph recorded before that as it is, as PyTorch does; `output_shape` reads the leaf's
    # shape now, for gradients that need summing.)
    if shape == (nxt._shape if nr == 0 else nxt.output_shape(nr)):
        return g
    expected = nxt.output_shape(nr)
    if shape == expected:
        return g
    try:
        data, dims = sum_to_array(data, expected)
    except ValueError:  # g is not the input's shape, broadcast
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got "
            f"{list(shape)} but expected shape compatible with {list(expected)}") from None
    if summed_dims is not None:
        summed_dims[i] = dims
    if GRAD_ENABLED.get() or LEVELS.visible:  # create_graph: record it; forward mode: a
        # gradient may carry a tangent (forward-over-reverse), which the sum must carry too
        return SumToSize.apply(as_tensor(g), shape=expected)
    return _tensor.make(data, None, 0) if tensor else data


def fit_all(node: Any, grads: list, summed_dims: list | None) -> None:
    """`fit` every gradient in place; an input that needs no gradient gets None."""
    for i, (nxt, nr) in enumerate(zip(node._next_nodes, node._next_nrs)):
        g = grads[i]
        if nxt is None:
            grads[i] = None
        elif g is not None:
            grads[i] = fit(node, i, g, nxt, nr, summed_dims)


class SumToSize(Function, numpy_forward=True):
    """sum the broadcast dims of a away so that it has `shape` (undoes broadcasting)"""

    node_name = "SumToSizeBackward0"
    formula = r"d(sum_to a)/da_i = 1"
    source = "{0}.sum_to_size({shape})"
    gradients = ()
    tangent = "{t0}.sum_to_size({shape})"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a.array.shape
        return sum_to_array(a.array, shape)[0]

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.in_shape)

    @staticmethod
    def jvp(ctx, t):
        return SumToSize.apply(t, shape=ctx.shape)


def sum_to_dims(g_shape: tuple, shape: tuple) -> tuple[int, ...]:
    """The dims of a gradient of `g_shape` that broadcasting added to an input of `shape`."""
    lead = len(g_shape) - len(shape)
    if g_shape[lead:] == shape:  # only new leading dims (a bias row's gradient): no search
        return tuple(range(lead))
    return tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and g_shape[lead + i] != 1)


def sum_to_array(g: np.ndarray, shape: tuple) -> tuple[np.ndarray, tuple]:
    """Sum `g` down to `shape` (numpy); also say which dims of `g` were summed.

    ValueError when `g`'s shape is not `shape` broadcast (a reshape alone would not notice
    when the sizes happen to agree, e.g. (2, 3) for (3, 2)).
    """
    g_shape = g.shape  # (a new tuple on every read)
    lead = len(g_shape) - len(shape)
    if lead < 0:
        raise ValueError(f"cannot sum {g_shape} to {shape}: it has fewer dims")
    if lead and shape and g_shape[lead:] == shape:  # (a sum to () gives a numpy scalar)
        # only new leading dims (a bias row's gradient, every step of a Linear): one reduce
        # gives `shape` (the same sum as the general path's keepdims and reshape)
        dims = (0,) if lead == 1 else tuple(range(lead))
        return add_reduce(g, dims), dims
    dims = sum_to_dims(g_shape, shape)
    out = add_reduce(g, dims, True) if dims else g
    if out.shape[lead:] != shape:  # a dim that is neither shape's nor 1 in shape
        raise ValueError(f"cannot sum {g.shape} to {shape}: it does not broadcast to it")
    return out.reshape(shape), dims


def broadcast_message(op: str, a: tuple, b: tuple) -> str:
    """PyTorch's words for shapes that do not broadcast, plus the op and both shapes."""
    words = size_mismatch(a, b)
    return f"{op}: shapes {tuple(a)} and {tuple(b)} do not broadcast" + (
        f". {words}" if words else "")


def size_mismatch(a: tuple, b: tuple) -> str | None:
    """PyTorch's sentence for the first dim (from the right) where `a` and `b` do not
    broadcast, or None when they do."""
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else 1
        db = b[-i] if i <= len(b) else 1
        if da != db and da != 1 and db != 1:
            return (f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                    f"non-singleton dimension {max(len(a), len(b)) - i}")
    return None

"""Sliding windows in numpy, shared by convolution and pooling: im2col and col2im.

`im2col` lays every window of the (padded) input out as one column: for input (N, C, *S) and a
kernel of K elements it returns (N, C*K, L), L the number of windows (PyTorch's `F.unfold`
layout). `col2im` is its adjoint: each column's values are added back where they came from
(overlapping windows add up), then the padding is cut off.

Geometry is given per spatial dim: `kernel`, `stride`, `dilation` as tuples, and `padding` as
(before, after) pairs, so that pooling's ceil_mode can pad more on the right.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def out_size(size: int, kernel: int, stride: int, pad: tuple, dilation: int) -> int:
    """How many windows fit along one dim: (size + pads - dilation*(kernel-1) - 1)//stride + 1."""
    return (size + pad[0] + pad[1] - dilation * (kernel - 1) - 1) // stride + 1


def windows(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
            value: float = 0.0) -> np.ndarray:
    """A view (N, C, *out, *kernel) of x's windows, x padded with `value` (0, or -inf for max)."""
    nd = len(kernel)
    if any(p != (0, 0) for p in padding):
        x = np.pad(x, ((0, 0), (0, 0), *padding), constant_values=value)
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    view = sliding_window_view(x, span, axis=tuple(range(2, 2 + nd)))
    steps = tuple(slice(None, None, s) for s in stride) + tuple(
        slice(None, None, d) for d in dilation)
    return view[(slice(None), slice(None)) + steps]


def im2col(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple
           ) -> np.ndarray:
    """(N, C*K, L): column l holds window l of every channel, kernel offsets in order."""
    nd = len(kernel)
    view = windows(x, kernel, stride, padding, dilation)  # (N, C, *out, *kernel)
    n, c = x.shape[:2]
    order = (0, 1, *range(2 + nd, 2 + 2 * nd), *range(2, 2 + nd))  # (N, C, *kernel, *out)
    return np.ascontiguousarray(view.transpose(order)).reshape(
        n, c * math.prod(kernel), math.prod(view.shape[2:2 + nd]))


def col2im(cols: np.ndarray, size: tuple, kernel: tuple, stride: tuple, padding: tuple,
           dilation: tuple) -> np.ndarray:
    """(N, C, *size): each column's values added back at the window it came from."""
    n, ck, _ = cols.shape
    c = ck // math.prod(kernel)
    outs = tuple(out_size(s, k, st, p, d)
                 for s, k, st, p, d in zip(size, kernel, stride, padding, dilation))
    cols = cols.reshape((n, c) + tuple(kernel) + outs)
    # speed: batch and channels moved last, so that each addition below runs over long
    # contiguous rows (7x faster for the bench's second conv, 12x12 inputs)
    cols = np.ascontiguousarray(np.moveaxis(cols, (0, 1), (-2, -1)))  # (*kernel, *outs, N, C)
    padded = np.zeros(tuple(s + p[0] + p[1] for s, p in zip(size, padding)) + (n, c), cols.dtype)
    for offset in itertools.product(*[range(k) for k in kernel]):  # one kernel offset at a time
        padded[offset_slices(offset, stride, dilation, outs)] += cols[offset]
    inside = tuple(slice(p[0], p[0] + s) for s, p in zip(size, padding))
    return np.ascontiguousarray(np.moveaxis(padded[inside], (-2, -1), (0, 1)))


def offset_slices(offset: tuple, stride: tuple, dilation: tuple, outs: tuple) -> tuple:
    """Where the kernel element at `offset` falls in each window: one slice per spatial dim
    picking, from the padded input, that element of every window."""
    return tuple(slice(o * d, o * d + st * (m - 1) + 1, st)
                 for o, d, st, m in zip(offset, dilation, stride, outs))


def pairs(padding: tuple) -> tuple:
    """Symmetric paddings (p, q) as (before, after) pairs ((p, p), (q, q))."""
    return tuple((p, p) for p in padding)

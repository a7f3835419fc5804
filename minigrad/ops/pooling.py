"""Pooling over 2-D windows: max, average, and their adaptive forms (the 1-D ones are these on a
height of 1, as in PyTorch).

Max pooling keeps the largest value of each window, so the gradient goes to the max of each
window (added where windows overlap). Average pooling's gradient is each output's gradient
divided by its window's size, spread back over the window (col2im). Adaptive pooling picks
the windows so that the output has a given size: window i along a dim of n spans
[floor(i*n/out), ceil((i+1)*n/out)).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant
from minigrad.ops.index import ScatterAdd
from minigrad.ops.tangent_rules import linear
from minigrad.ops.unfolding import Col2Im
from minigrad.ops.windows import offset_slices, out_size, windows


def pool_geometry(size: int, kernel: int, stride: int, pad: int, dilation: int,
                  ceil_mode: bool) -> tuple[int, tuple]:
    """(output size, (pad before, pad after)) along one dim, as PyTorch's pooling_output_shape:
    with ceil_mode a last partial window counts, unless it would start in the right padding."""
    span = dilation * (kernel - 1) + 1
    out = (size + 2 * pad - span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    after = max((out - 1) * stride + span - size - pad, 0)  # what the last window needs
    return out, (pad, after)


class _ToTheMax(Function, numpy_forward=True):
    """(shared backward of the max poolings: the gradient goes to each window's max)"""

    formula = r"dx[argmax(window)] += grad, for each window"
    gradients = ("scatter({g}, argmax(windows))",)

    @staticmethod
    def backward(ctx, grad, _indices=None):
        (positions,) = ctx.unpack_saved()
        flat = ScatterAdd.apply(grad.reshape(-1), shape=(math.prod(ctx.in_shape),),
                                key=(positions.array,))
        return flat.reshape(ctx.in_shape)

    @staticmethod
    def jvp(ctx, t):
        values, indices = ctx.output
        x = ctx.inputs[0].array
        n, c, h, w = batch_of(x).shape
        planes = np.arange(n * c).reshape(n, c, 1, 1) * (h * w)
        positions = planes + (indices.array if x.ndim == 4 else indices.array[None])
        return t.reshape(-1)[positions].reshape(values.array.shape), None


def batch_of(x: np.ndarray) -> np.ndarray:
    """An unbatched (C, H, W) input as a batch of one (PyTorch pools those directly)."""
    return x if x.ndim == 4 else x[None]


def _indices(ctx, input: np.ndarray, x: np.ndarray, rows: np.ndarray, cols: np.ndarray
             ) -> np.ndarray:
    """Each max's index into its plane of x (row * W + col, PyTorch's `return_indices`); the
    max's position in the whole of x is saved for backward."""
    n, c, h, w = x.shape
    indices = (rows * w + cols).astype(np.int64)
    planes = np.arange(n * c).reshape(n, c, 1, 1) * (h * w)
    ctx.save_for_backward(constant((planes + indices).reshape(-1)))
    ctx.in_shape = input.shape
    indices = indices if input.ndim == 4 else indices[0]
    ctx.keep_as_pytorch(result1=indices)  # (as PyTorch's node: `_saved_result1`)
    return indices


def _first_max(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The max along the last dim and where it is (the first one, as PyTorch; NaN wins)."""
    arg = flat.argmax(-1)
    return np.take_along_axis(flat, arg[..., None], -1)[..., 0], arg


class MaxPool2d(_ToTheMax):
    """the largest value of each window"""

    node_name = "MaxPool2DWithIndicesBackward0"
    pytorch_keeps = {"self": 0}
    source = "max_pool2d({0}, kernel_size={kernel})"
    tangent = "{t0} at each window's max"

    @staticmethod
    def forward(ctx, input, *, kernel, stride, padding, dilation, ceil_mode=False):
        x = batch_of(input.array)
        out, arg = window_max(x, kernel, stride, padding, dilation)  # (N, C, Ho, Wo)
        ki, kj = np.unravel_index(arg, kernel)
        ho, wo = np.arange(out.shape[2])[:, None], np.arange(out.shape[3])
        rows = ho * stride[0] - padding[0][0] + ki * dilation[0]
        cols = wo * stride[1] - padding[1][0] + kj * dilation[1]
        return out.reshape(input.shape[:-2] + out.shape[-2:]), _indices(ctx, input.array, x,
                                                                          rows, cols)


def window_max(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple
               ) -> tuple[np.ndarray, np.ndarray]:
    """The max of each window, and which kernel offset (0 .. K-1) held it: one offset at a
    time, keeping the first max (a NaN wins, as in PyTorch)."""
    if any(p != (0, 0) for p in padding):
        lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min  # (never the max)
        x = np.pad(x, ((0, 0), (0, 0), *padding), constant_values=lowest)
    outs = tuple(out_size(n, k, s, (0, 0), d)
                 for n, k, s, d in zip(x.shape[2:], kernel, stride, dilation))
    best = arg = None
    for k, offset in enumerate(itertools.product(*[range(k) for k in kernel])):
        values = x[(slice(None), slice(None)) + offset_slices(offset, stride, dilation, outs)]
        if best is None:
            best, arg = values.copy(), np.zeros(values.shape, np.intp)
            continue
        arg = np.where((values > best) | np.isnan(values), k, arg)
        np.maximum(best, values, out=best)  # (branch-free: 4x faster than masked copies)
    return best, arg


def adaptive_bounds(size: int, out: int) -> list[tuple[int, int]]:
    """The window [start, end) of each of `out` outputs along a dim of `size`."""
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


class AdaptiveMaxPool2d(_ToTheMax):
    """the largest value of each window, windows chosen to give the output size"""

    node_name = "AdaptiveMaxPool2DBackward0"
    pytorch_keeps = {"self": 0}
    source = "adaptive_max_pool2d({0}, {output_size})"
    tangent = "{t0} at each window's max"

    @staticmethod
    def forward(ctx, input, *, output_size):
        x = batch_of(input.array)
        shape = x.shape[:2] + tuple(output_size)
        out, rows, cols = np.empty(shape, x.dtype), np.empty(shape, int), np.empty(shape, int)
        hs, ws = (adaptive_bounds(n, o) for n, o in zip(x.shape[2:], output_size))
        for i, (h0, h1) in enumerate(hs):  # one window at a time: they differ in size
            for j, (w0, w1) in enumerate(ws):
                region = x[:, :, h0:h1, w0:w1].reshape(x.shape[:2] + ((h1 - h0) * (w1 - w0),))
                out[:, :, i, j], arg = _first_max(region)
                rows[:, :, i, j], cols[:, :, i, j] = h0 + arg // (w1 - w0), w0 + arg % (w1 - w0)
        return out.reshape(input.shape[:-2] + out.shape[-2:]), _indices(ctx, input.array, x,
                                                                          rows, cols)


class AvgPool2d(Function, numpy_forward=True):
    """the mean of each window"""

    node_name = "AvgPool2DBackward0"
    pytorch_keeps = {"self": 0}
    formula = r"dx = col2im(grad / window_size)"
    source = "avg_pool2d({0}, kernel_size={kernel})"
    gradients = ("col2im({g} / window_size)",)
    tangent = "avg_pool2d({t0}, kernel_size={kernel})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, input, *, kernel, stride, padding, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
        x = batch_of(input.array)
        view = windows(x, kernel, stride, padding, (1, 1))
        if divisor_override:
            divisor = np.asanyarray(float(divisor_override))
        else:
            sizes = [_window_sizes(n, k, s, p[0], o, count_include_pad) for n, k, s, p, o in zip(
                x.shape[2:], kernel, stride, padding, view.shape[2:4])]
            divisor = np.outer(*sizes)
        ctx.divisor, ctx.in_shape = divisor.astype(x.dtype), input.array.shape
        out = (view.sum((-2, -1)) / divisor).astype(x.dtype, copy=False)
        return out.reshape(input.shape[:-2] + out.shape[-2:])

    @staticmethod
    def backward(ctx, grad):
        n, c, ho, wo = (1,) * (4 - grad.ndim) + tuple(grad.shape)
        k = math.prod(ctx.settings["kernel"])
        share = (grad / constant(ctx.divisor)).reshape(n, c, 1, ho * wo)
        cols = share.expand(n, c, k, ho * wo).reshape(n, c * k, ho * wo)
        geo = ctx.settings
        gx = Col2Im.apply(cols, size=ctx.in_shape[-2:], kernel=geo["kernel"],
                          stride=geo["stride"], padding=geo["padding"], dilation=(1, 1))
        return gx.reshape(ctx.in_shape)


def _window_sizes(n: int, kernel: int, stride: int, pad: int, out: int, with_pad: bool
                  ) -> np.ndarray:
    """How many elements each window along a dim averages: padding included or not, never
    the part past the right padding (PyTorch's rule)."""
    start = np.arange(out) * stride - pad
    end = np.minimum(start + kernel, n + pad)
    if not with_pad:
        start, end = np.maximum(start, 0), np.minimum(end, n)
    return (end - start).astype(np.float64)


class AdaptiveAvgPool2d(Function, numpy_forward=True):
    """the mean of each window, windows chosen to give the output size"""

    node_name = "AdaptiveAvgPool2DBackward0"
    pytorch_keeps = {"self": 0}
    formula = r"out = P_h @ x @ P_w^T, P the averaging matrices (row i: 1/size on window i) ;" \
        r"  dx = P_h^T @ grad @ P_w"
    source = "adaptive_avg_pool2d({0}, {output_size})"
    gradients = ("P_h^T @ {g} @ P_w",)
    tangent = "adaptive_avg_pool2d({t0}, {output_size})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, input, *, output_size):
        x = input.array
        ph, pw = (averaging_matrix(n, o, x.dtype) for n, o in zip(x.shape[-2:], output_size))
        ctx.matrices = ph, pw
        return ph @ x @ pw.T

    @staticmethod
    def backward(ctx, grad):
        ph, pw = ctx.matrices
        return constant(ph.T) @ grad @ constant(pw)


def averaging_matrix(size: int, out: int, dtype: np.dtype) -> np.ndarray:
    """(out, size): row i averages adaptive window i."""
    p = np.zeros((out, size), dtype)
    for i, (a, b) in enumerate(adaptive_bounds(size, out)):
        p[i, a:b] = 1.0 / (b - a)
    return p

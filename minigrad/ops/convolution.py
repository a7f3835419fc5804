"""Convolution (1-D and 2-D, strided, padded, dilated, grouped, transposed) as im2col + matmul.

Each output of a convolution is a dot product of the kernel with one window of the input. So
`im2col` (ops/windows.py) lays every window out as a column, and one matmul with the weight,
seen as a (out_channels, in_channels*K) matrix, makes every output at once. Its backward is
two more of the same: the weight's gradient is the incoming gradient times the columns, and
the input's is `weight^T @ grad`, each window's share added back where it came from (col2im),
which is a transposed convolution. A transposed convolution is that col2im step run forward.

PyTorch records all of them as one `ConvolutionBackward0` node with edges (input, weight,
bias). Its backward is made of convolutions again (`Convolution` and `_ConvWeightGrad`), so
`create_graph=True` can differentiate it once more.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.autograd.forward_ad import LEVELS
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import state
from minigrad.ops.base import constant
from minigrad.ops.tangent_rules import is_zero, plus
from minigrad.ops.windows import col2im, im2col, out_size


def _grouped(w: np.ndarray, groups: int) -> np.ndarray:
    """A weight (A, B, *kernel) as one matrix per group: (groups, A/groups, B*K)."""
    return w.reshape(groups, w.shape[0] // groups, math.prod(w.shape[1:]))


def conv_array(x: np.ndarray, w: np.ndarray, geometry: dict, cols: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """(output, columns) of x (N, C, *S) convolved with w (O, C/G, *K), bias left out."""
    kernel, groups = w.shape[2:], geometry["groups"]
    if cols is None:
        cols = im2col(x, kernel, geometry["stride"], geometry["padding"], geometry["dilation"])
    # (sizes spelled out, never -1: a batch of 0 samples cannot infer one)
    n, length = x.shape[0], cols.shape[-1]
    out = np.matmul(_grouped(w, groups), cols.reshape(n, groups, cols.shape[1] // groups,
                                                      length))  # (N, G, O/G, L)
    outs = tuple(out_size(s, k, st, p, d) for s, k, st, p, d in zip(
        x.shape[2:], kernel, geometry["stride"], geometry["padding"], geometry["dilation"]))
    return out.reshape((n, w.shape[0]) + outs), cols


def conv_transpose_array(x: np.ndarray, w: np.ndarray, geometry: dict, size: tuple
                         ) -> np.ndarray:
    """x (N, C, *S) through the transpose of convolving with w (C, O/G, *K): output (N, O,
    *size). Each input value spreads over one window (weight^T @ x, then col2im)."""
    groups, n = geometry["groups"], x.shape[0]
    length = math.prod(x.shape[2:])
    cols = np.matmul(_grouped(w, groups).transpose(0, 2, 1),
                     x.reshape(n, groups, x.shape[1] // groups, length))  # (N, G, O/G*K, L)
    return col2im(cols.reshape(n, groups * cols.shape[2], length), size, w.shape[2:],
                  geometry["stride"], geometry["padding"], geometry["dilation"])


def weight_grad_array(cols: np.ndarray, g: np.ndarray, groups: int, shape: tuple) -> np.ndarray:
    """sum over the batch and windows of g (N, O, *out) times the columns (N, C*K, L): the
    gradient of a weight of `shape` (O, C/G, *K)."""
    n, length = g.shape[0], cols.shape[-1]
    g4 = g.reshape(n, groups, g.shape[1] // groups, length)
    c4 = cols.reshape(n, groups, cols.shape[1] // groups, length)
    return np.matmul(g4, c4.swapaxes(-1, -2)).sum(0).reshape(shape)  # (one product per sample)


def conv_source(args: list, settings: dict, shape: tuple | None) -> str:
    """`conv2d(x, w, b, stride=(2, 2))`: the call as written, from the node's settings."""
    nd = len(settings["stride"])
    name = f"conv_transpose{nd}d" if settings.get("transposed") else f"conv{nd}d"
    shown = [a for a in args if a != "None"]
    defaults = {"stride": (1,) * nd, "padding": ((0, 0),) * nd, "dilation": (1,) * nd,
                "groups": 1}
    for key, default in defaults.items():
        value = settings[key]
        if value != default:
            if key == "padding" and all(a == b for a, b in value):
                value = tuple(a for a, _ in value)  # symmetric: as PyTorch's padding=(p, q)
            shown.append(f"{key}={value}")
    return f"{name}({', '.join(shown)})"


class Convolution(Function, numpy_forward=True):
    """convolution (or transposed convolution) of the input with the weight, plus a bias:
    each output is a dot product of the kernel with one window of the input"""

    node_name = "ConvolutionBackward0"
    formula = r"dx = col2im(W^T @ grad) ;  dW = grad @ im2col(x)^T ;  db = grad.sum((0, 2, 3))"
    source = staticmethod(conv_source)
    gradients = ("col2im(W^T @ {g})", "{g} @ im2col({0})^T", "{g}.sum((0, 2, 3))")
    tangent = "conv({t0}, W) + conv({0}, {t1}) + {t2}"

    @staticmethod
    def forward(ctx, input, weight, bias, *, stride, padding, dilation, groups,
                transposed=False, size=None):
        x, w = input.array, weight.array
        geometry = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
        if transposed:
            out = conv_transpose_array(x, w, geometry, size)
            ctx.save_for_backward(input, weight)
        else:
            out, cols = conv_array(x, w, geometry)
            ctx.save_for_backward(input, weight, constant(cols))
        ctx.geometry, ctx.transposed = geometry, transposed
        ctx.bias_sizes = None if bias is None else bias.array.shape  # (PyTorch's node keeps it)
        if bias is not None:
            out += bias.array.reshape((1, -1) + (1,) * (out.ndim - 2))
        return out

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.unpack_saved()[:2]
        need_x, need_w, need_b = ctx.needs_input_grad
        geo, size = ctx.geometry, x.array.shape[2:]
        gx = gw = gb = None
        if ctx.transposed:  # y = conv^T(x, w): dx = conv(grad, w), dW = weight grad of (grad, x)
            if need_x:
                gx = Convolution.apply(grad, w, None, **geo)
            if need_w:
                gw = _ConvWeightGrad.apply(grad, x, **geo, shape=w.array.shape)
        else:  # y = conv(x, w): dx = conv^T(grad, w), dW = weight grad of (x, grad)
            if need_x:
                gx = Convolution.apply(grad, w, None, **geo, transposed=True, size=size)
            if need_w:
                # (the windows saved by forward carry no tangent: not in forward mode)
                cols = None if state.grad_enabled or LEVELS.visible else \
                    ctx.unpack_saved()[2].array
                gw = _ConvWeightGrad.apply(x, grad, **geo, shape=w.array.shape, cols=cols)
        if need_b:
            gb = grad.sum((0, *range(2, grad.ndim)))
        return gx, gw, gb

    @staticmethod
    def jvp(ctx, tx, tw, tb):
        x, w, _ = ctx.inputs
        out = plus(None if is_zero(tx) else Convolution.apply(tx, w, None, **ctx.settings),
                   None if is_zero(tw) else Convolution.apply(x, tw, None, **ctx.settings))
        if out is None:  # only the bias moves
            out = constant(np.zeros_like(ctx.output.array))
        return out if is_zero(tb) else out + tb.reshape((1, -1) + (1,) * (out.ndim - 2))


class _ConvWeightGrad(Function, numpy_forward=True):
    """the weight's gradient of a convolution: grad times the input's windows, summed

    Recorded only by a create_graph backward. PyTorch records the whole backward of a
    convolution as one ConvolutionBackwardBackward0 node (edges to grad, input and weight);
    minigrad, on purpose, records the input's gradient as a transposed convolution
    (ConvolutionBackward0) and the weight's as this node, so that each part reads as what it
    is. The gradients are the same."""

    node_name = "ConvolutionBackwardBackward0"
    formula = r"dW = sum over windows of grad * window ;  d/dx = conv^T(grad, V) ;  " \
        r"d/dgrad = conv(x, V)   (V = the gradient arriving for dW)"
    source = None  # (read as ConvolutionBackwardBackward0(x, grad))
    gradients = ("conv^T({1}, {g})", "conv({0}, {g})")
    tangent = "the weight gradient of ({t0}, {1}) + of ({0}, {t1})"

    @staticmethod
    def forward(ctx, input, grad, *, stride, padding, dilation, groups, shape, cols=None):
        ctx.save_for_backward(input, grad)
        ctx.geometry = {"stride": stride, "padding": padding, "dilation": dilation,
                        "groups": groups}
        if cols is None:
            cols = im2col(input.array, shape[2:], stride, padding, dilation)
        return weight_grad_array(cols, grad.array, groups, shape)

    @staticmethod
    def backward(ctx, v):
        x, g = ctx.unpack_saved()
        need_x, need_g = ctx.needs_input_grad
        geo = ctx.geometry
        gx = Convolution.apply(g, v, None, **geo, transposed=True,
                               size=x.array.shape[2:]) if need_x else None
        gg = Convolution.apply(x, v, None, **geo) if need_g else None
        return gx, gg

    @staticmethod
    def jvp(ctx, tx, tg):
        x, g = ctx.inputs
        settings = {**ctx.settings, "cols": None}  # (the windows of x, not of its tangent)
        return _ConvWeightGrad.apply(tx, g, **settings) + _ConvWeightGrad.apply(x, tg, **settings)

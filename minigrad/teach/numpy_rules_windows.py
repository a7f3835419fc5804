"""The numpy rules of the ops over sliding windows (`numpy_rules`): convolution as im2col and
a matmul, its backward as a matmul and col2im (a short loop over the kernel's offsets), and max
pooling, as minigrad computes them (ops/convolution.py, windows.py, pooling.py). Written for
plain convolutions (not transposed) over 1 or 2 spatial dims, and 2-D max pooling."""

from __future__ import annotations

import math

from minigrad.teach.numpy_rules import Call, Rule, scatter_add, total
from minigrad.teach.program_values import source


def _outs(shape: tuple, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple) -> tuple:
    """windows.py's `out_size` for each spatial dim."""
    return tuple((n + p[0] + p[1] - d * (k - 1) - 1) // s + 1
                 for n, k, s, p, d in zip(shape, kernel, stride, padding, dilation))


def _padded(x: str, padding: tuple, value: str) -> str:
    if all(p == (0, 0) for p in padding):
        return x
    return f"np.pad({x}, ((0, 0), (0, 0), {', '.join(map(str, padding))}), " \
           f"constant_values={value})"


def _steps(offsets: tuple, stride: tuple, dilation: tuple, outs: tuple) -> str:
    """windows.py's `offset_slices`, as index text (`offsets`: each dim's offset, as text)."""
    return ", ".join(f"{o} * {d}:{o} * {d} + {s * (m - 1) + 1}:{s}"
                     for o, d, s, m in zip(offsets, dilation, stride, outs))


def _geometry(c: Call) -> tuple:
    return c.setting("stride"), c.setting("padding"), c.setting("dilation")


def _conv_forward(c: Call) -> str:
    x, w, b, out = *c.args[:3], c.out
    stride, padding, dilation = _geometry(c)
    groups, kernel = c.setting("groups"), tuple(c.in_shapes[1][2:])
    n, channels, nd = c.in_shapes[0][0], c.in_shapes[0][1], len(kernel)
    outs = _outs(c.in_shapes[0][2:], kernel, stride, padding, dilation)
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    steps = ", ".join(f"::{s}" for s in stride + dilation)
    order = (0, 1, *range(2 + nd, 2 + 2 * nd), *range(2, 2 + nd))
    axes = source(tuple(range(2, 2 + nd)))
    lines = [f"{out}_win = np.lib.stride_tricks.sliding_window_view("
             f"{_padded(x, padding, '0.0')}, {source(span)}, axis={axes})[:, :, {steps}]",
             f"{out}_cols = np.ascontiguousarray({out}_win.transpose({source(order)}))"
             f".reshape({n}, {channels * math.prod(kernel)}, -1)",
             f"{out}_y = np.matmul({w}.reshape({groups}, {c.in_shapes[1][0] // groups}, -1), "
             f"{out}_cols.reshape({n}, {groups}, -1, {math.prod(outs)}))"
             f".reshape({source((n, c.in_shapes[1][0]) + outs)})"]
    if b != "None":
        lines.append(f"{out}_y += {b}.reshape({source((1, -1) + (1,) * nd)})")
    return "\n".join(lines + [f"{out}_y"])


def _conv_input(c: Call) -> str:
    """The input's gradient: a transposed convolution of grad with w (weight^T @ grad, then
    col2im: each column's values added back where its window was)."""
    g, w, out = c.g, c.args[1], c.out
    stride, padding, dilation = _geometry(c)
    groups, kernel, (n, channels, *size) = c.setting("groups"), tuple(c.in_shapes[1][2:]), \
        c.in_shapes[0]
    outs = _outs(tuple(size), kernel, stride, padding, dilation)
    filters, nd = c.in_shapes[1][0], len(kernel)
    padded = tuple(s + p[0] + p[1] for s, p in zip(size, padding))
    offsets = [f"k{i}" for i in range(nd)]
    loops = "".join(f"{'    ' * i}for k{i} in range({k}):\n" for i, k in enumerate(kernel))
    inside = ", ".join(f"{p[0]}:{p[0] + s}" for s, p in zip(size, padding))
    return "\n".join([
        f"{out}_c = np.matmul({w}.reshape({groups}, {filters // groups}, -1).transpose(0, 2, 1),"
        f" {g}.reshape({n}, {groups}, {filters // groups}, -1))",
        f"{out}_c = {out}_c.reshape({source((n, channels) + kernel + outs)})",
        f"{out}_c = np.ascontiguousarray(np.moveaxis({out}_c, (0, 1), (-2, -1)))",
        f"{out}_p = np.zeros({source(padded + (n, channels))}, {out}_c.dtype)",
        loops + "    " * nd + f"{out}_p[{_steps(tuple(offsets), stride, dilation, outs)}] += "
                             f"{out}_c[{', '.join(offsets)}]",
        f"np.ascontiguousarray(np.moveaxis({out}_p[{inside}], (-2, -1), (0, 1)))"])


def _conv_weight(c: Call) -> str:
    """The weight's gradient: grad times the input's windows (the columns forward made),
    one product per sample, summed."""
    g, out, groups, n = c.g, c.out, c.setting("groups"), c.in_shapes[0][0]
    filters = c.in_shapes[1][0]
    return (f"np.matmul({g}.reshape({n}, {groups}, {filters // groups}, -1), "
            f"{out}_cols.reshape({n}, {groups}, -1, {out}_cols.shape[-1]).swapaxes(-1, -2))"
            f".sum(0).reshape({source(tuple(c.in_shapes[1]))})")


def _conv_bias(c: Call) -> str:
    return total(c.g, c.shape, c.dtype, (0, *range(2, len(c.shape))))


def _pool_forward(c: Call) -> str:
    """pooling.py's MaxPool2d: each window's max, and where it was (the first max; a NaN
    wins), one kernel offset at a time."""
    x, out = c.args[0], c.out
    kernel, (stride, padding, dilation) = c.setting("kernel"), _geometry(c)
    shape = tuple(c.in_shapes[0])
    n, ch, h, w = (1,) * (4 - len(shape)) + shape
    batch = x if len(shape) == 4 else f"{x}[None]"
    padded = tuple(d + p[0] + p[1] for d, p in zip((h, w), padding))
    outs = _outs(padded, kernel, stride, ((0, 0), (0, 0)), dilation)
    lines = [f"{out}_x = {_padded(batch, padding, '-np.inf')}",
             f"{out}_best = {out}_x[:, :, {_steps((0, 0), stride, dilation, outs)}].copy()",
             f"{out}_arg = np.zeros({out}_best.shape, np.intp)",
             f"for k, (i, j) in enumerate(np.ndindex({kernel[0]}, {kernel[1]})):\n"
             f"    if k:\n"
             f"        {out}_v = {out}_x[:, :, {_steps(('i', 'j'), stride, dilation, outs)}]\n"
             f"        {out}_arg = np.where(({out}_v > {out}_best) | np.isnan({out}_v), k, "
             f"{out}_arg)\n"
             f"        np.maximum({out}_best, {out}_v, out={out}_best)",
             f"{out}_ki, {out}_kj = np.unravel_index({out}_arg, {source(tuple(kernel))})",
             f"{out}_rows = np.arange({outs[0]})[:, None] * {stride[0]} - {padding[0][0]} + "
             f"{out}_ki * {dilation[0]}",
             f"{out}_cols = np.arange({outs[1]}) * {stride[1]} - {padding[1][0]} + "
             f"{out}_kj * {dilation[1]}",
             f"{out}_idx = ({out}_rows * {w} + {out}_cols).astype(np.int64)",
             f"{out}_pos = (np.arange({n * ch}).reshape({n}, {ch}, 1, 1) * {h * w} + {out}_idx)"
             f".reshape(-1)"]
    values = f"{out}_best.reshape({source(shape[:-2] + outs)})"
    return "\n".join(lines + [f"({values}, {out}_idx{'' if len(shape) == 4 else '[0]'})"])


def _pool_backward(c: Call) -> str:
    return scatter_add(c, f"{c.g}.reshape(-1)", (math.prod(c.in_shapes[0]),), f"({c.out}_pos,)",
                       reshape=c.in_shapes[0])


WINDOWS: dict[str, Rule] = {
    "ConvolutionBackward0": Rule(_conv_forward, _conv_input, _conv_weight, _conv_bias,
                                 covers=lambda s: not s.get("transposed")),
    "MaxPool2DWithIndicesBackward0": Rule(_pool_forward, _pool_backward, many=True),
}

"""`F.unfold` (im2col: every window of the input as a column), `F.fold` (col2im: columns added
back into an image) and `F.pad` (constant padding). Each one's backward is the other's
forward: unfold's gradient is folded back, fold's is unfolded, pad's is cut out again.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.tangent_rules import linear
from minigrad.ops.windows import col2im, im2col


class Im2Col(Function):
    """every window of the input laid out as one column (im2col)"""

    node_name = "Im2ColBackward0"
    formula = r"each window of the input is copied into one column ;  d/dx = col2im(grad): " \
        r"each column's gradient is added back to the window it came from"
    source = "unfold({0}, kernel_size={kernel})"
    gradients = ("col2im({g})",)
    tangent = "unfold({t0}, kernel_size={kernel})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, input, *, kernel, stride, padding, dilation):
        x = input.array
        ctx.size = x.shape[-2:]
        cols = im2col(x if x.ndim == 4 else x[None], kernel, stride, padding, dilation)
        return cols if x.ndim == 4 else cols[0]  # (an unbatched (C, H, W) is a batch of one)

    @staticmethod
    def backward(ctx, grad):
        geo = ctx.settings
        return Col2Im.apply(grad, size=ctx.size, **geo)


class Col2Im(Function):
    """columns added back into an image, overlapping windows summed (col2im)"""

    node_name = "Col2ImBackward0"
    formula = r"each column is added back to the window it came from ;  d/dcols = " \
        r"im2col(grad): each column gets the gradient of its window"
    source = "fold({0}, output_size={size}, kernel_size={kernel})"
    gradients = ("im2col({g})",)
    tangent = "fold({t0}, output_size={size}, kernel_size={kernel})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, cols, *, size, kernel, stride, padding, dilation):
        c = cols.array
        image = col2im(c if c.ndim == 3 else c[None], size, kernel, stride, padding, dilation)
        return image if c.ndim == 3 else image[0]  # (unbatched (C*K, L): a batch of one)

    @staticmethod
    def backward(ctx, grad):
        geo = dict(ctx.settings)
        del geo["size"]
        return Im2Col.apply(grad, **geo)


class ConstantPadNd(Function):
    """the input surrounded by a constant (a negative pad cuts instead)"""

    node_name = "ConstantPadNdBackward0"
    formula = r"d pad(x, p)/dx = pad(grad, -p): the padding is cut off again"
    source = "pad({0}, {pad})"
    gradients = ("pad({g}, -pad)",)
    tangent = "pad({t0}, {pad}) (with zeros)"

    @staticmethod
    def forward(ctx, input, *, pad, value=0.0):
        x = input.array
        # pad lists (before, after) pairs from the last dim backwards, as PyTorch's does
        widths = [(0, 0)] * (x.ndim - len(pad) // 2)
        widths += [(pad[i], pad[i + 1]) for i in range(len(pad) - 2, -1, -2)]
        out = np.pad(x, [(max(a, 0), max(b, 0)) for a, b in widths], constant_values=value)
        cut = tuple(slice(-min(a, 0), n + min(b, 0)) for (a, b), n in zip(widths, out.shape))
        return np.ascontiguousarray(out[cut])

    @staticmethod
    def backward(ctx, grad):
        return ConstantPadNd.apply(grad, pad=tuple(-p for p in ctx.settings["pad"]))

    @staticmethod
    def jvp(ctx, t):
        return ConstantPadNd.apply(t, pad=ctx.pad, value=0.0)

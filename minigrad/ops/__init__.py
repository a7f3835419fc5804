"""Every op as a function with PyTorch's signature: `minigrad.mul(a, b)`, `minigrad.sum(x, 1)`.

The Tensor methods and operators call these. Each function lives beside its op class (the
`Function` that records the node and holds the derivative): arithmetic (+ - * / **), floor_mod
(// %), unary (exp, tanh, relu, ...), selection (maximum, where, clamp), reduce (sum, mean,
max, ...), products (mm, matmul, linear), views (view, reshape, t, ...), index (x[key], cat,
...), softmaxes, losses, and in_place (add_, zero_, a[key] = v). This module only re-exports
them. (No module is named like a function it holds: `minigrad.ops.matmul` is the function.)
"""

from minigrad.ops.arithmetic import (
    add,
    compare,
    div,
    divide,
    mul,
    multiply,
    neg,
    negative,
    pow,
    rsub,
    square,
    sub,
    subtract,
    true_divide,
)
from minigrad.ops.base import as_operand, cast, constant
from minigrad.ops.floor_mod import floor_divide, remainder
from minigrad.ops.in_place import (
    LEAF_INPLACE,
    NO_GRAD_VIEW_INPLACE,
    clamp_to,
    copy,
    fill,
    fill_random,
    inplace,
    setitem_,
    zero,
)
from minigrad.ops.index import cat, concat, concatenate, getitem, narrow, select, stack
from minigrad.ops.products import bmm, dot, linear, matmul, mm, mv
from minigrad.ops.reduce import (
    amax,
    amin,
    argmax,
    argmin,
    max,
    mean,
    min,
    norm,
    sum,
    sum_to_size,
)
from minigrad.ops.selection import clamp, clip, maximum, minimum, where
from minigrad.ops.softmaxes import log_softmax, softmax
from minigrad.ops.unary import abs, cos, exp, log, reciprocal, relu, sigmoid, sin, sqrt, tanh
from minigrad.ops.views import (
    T_property,
    clone,
    contiguous,
    expand,
    expand_as,
    flatten,
    permute,
    reshape,
    reshape_as,
    squeeze,
    squeeze_dims,
    swapaxes,
    t,
    transpose,
    unsafe_view,
    unsqueeze,
    view,
    view_as,
)

__all__ = [
    "LEAF_INPLACE", "NO_GRAD_VIEW_INPLACE", "T_property", "abs", "add", "amax", "amin",
    "argmax", "argmin", "as_operand", "bmm", "cast", "cat", "clamp", "clamp_to", "clip",
    "clone", "compare", "concat", "concatenate", "constant", "contiguous", "copy", "cos",
    "div", "divide", "dot", "exp", "expand", "expand_as", "fill", "fill_random", "flatten",
    "floor_divide", "getitem", "inplace", "linear", "log", "log_softmax", "matmul", "max",
    "maximum", "mean", "min", "minimum", "mm", "mul", "multiply", "mv", "narrow", "neg",
    "negative", "norm", "permute", "pow", "reciprocal", "relu", "remainder", "reshape",
    "reshape_as", "rsub", "select", "setitem_", "sigmoid", "sin", "softmax", "sqrt", "square",
    "squeeze", "squeeze_dims", "stack", "sub", "subtract", "sum", "sum_to_size", "swapaxes",
    "t", "tanh", "transpose", "true_divide", "unsafe_view", "unsqueeze", "view", "view_as",
    "where", "zero",
]

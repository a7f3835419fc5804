"""The functions of `minigrad.*` that take PyTorch's `out=` (`torch.mul(a, b, out=c)`, as the
Tensors tutorial writes it): each op of ops/ wrapped once by `ops.out.takes_out`, which writes
the result into `out` (PyTorch's dtype, resize and autograd rules) and returns it.

The list is the functions whose PyTorch 2.13 binding takes `out=` (found by calling them);
Tensor's methods and operators call the ops themselves, without the wrapper. The factories
(zeros, arange, randn, ...) take `out=` in factories.py.
"""

from __future__ import annotations

from minigrad import ops
from minigrad.ops.out import takes_out

OUT_TAKERS = (
    "abs", "acos", "acosh", "add", "all", "amax", "amin", "any", "arccos", "arccosh", "arcsin",
    "arcsinh", "arctan", "arctan2", "arctanh", "argmax", "argmin", "argsort", "asin", "asinh",
    "atan", "atan2", "atanh", "bernoulli", "bitwise_and", "bitwise_not", "bitwise_or",
    "bitwise_xor", "bmm", "cat", "ceil", "clamp", "clamp_max", "clamp_min", "clip", "concat", "cos",
    "cosh", "count_nonzero", "cummax", "cummin", "cumprod", "cumsum", "diag", "div", "dot",
    "dstack", "eq", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "fix", "floor", "frac",
    "gather", "ge", "greater", "greater_equal", "gt", "histc", "hstack", "hypot", "index_add",
    "index_select", "isneginf", "isposinf", "kthvalue", "le", "lerp", "less", "less_equal", "log",
    "log10", "log1p", "log2", "log_softmax", "logcumsumexp", "logical_and", "logical_not",
    "logical_or", "logical_xor", "logsumexp", "lt", "masked_select", "matmul", "max", "maximum",
    "mean", "median", "min", "minimum", "mm", "mode", "msort", "mul", "multinomial", "mv",
    "nan_to_num", "nanmedian", "narrow_copy", "ne", "neg", "nonzero", "norm", "not_equal", "pow",
    "prod", "reciprocal", "round", "rsqrt", "scatter", "scatter_add", "searchsorted", "sgn",
    "sigmoid", "sign", "sin", "sinh", "softmax", "sort", "sqrt", "square", "stack", "std", "sub",
    "sum", "take", "tan", "tanh", "topk", "tril", "triu", "trunc", "var", "vdot", "vstack", "where",
    "xlogy",
)

# one wrapper per name, made here once (minigrad/__init__.py exports them over the ops')
WRAPPED = {name: takes_out(getattr(ops, name), name) for name in OUT_TAKERS}

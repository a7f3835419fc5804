"""The op table: every differentiable op of minigrad, described once, used by every test.

One `OpSpec` per op says how to call it in minigrad (`fn`) and in PyTorch (`torch_fn`), which
inputs it accepts (`shapes`, `params`, `domains`), which node PyTorch puts at the root
(`node`) and how to print a call as Python source (`source`). The project's op tests, the
gradcheck property tests, `strategies.expressions` and `compare/` all read this one list.

Vocabulary (interpreted by `strategies.py`, which draws shapes, params and values from it):

- `shapes`, a rule on the input shapes (`SHAPE_RULES`): "any", "nonscalar" (ndim >= 1),
  "matrix" (2-D), "ndim2" (ndim >= 2), "has_one" (a dim of size 1), "broadcast" (inputs
  broadcast together), "into" (input 1 broadcasts to input 0's shape, as in `x.add_(y)`),
  "same" (equal shapes), "cat" (equal but along one dim), "dot",
  "mm", "mv", "vm", "bmm", "batched" (N-D @ 1-D or 2-D or N-D, batch dims broadcast),
  "mat_batched"/"vec_batched" (2-D/1-D @ N-D), "linear", "linear_nobias", "linear_nd"
  (`F.linear` inputs: x, weight, bias).
- `params`, keyword arguments drawn from the input shapes: "dim" (a dim of input 0),
  "dims" (a permutation of its dims), "dimset" (a tuple of distinct dims), "dim0"/"dim1"
  (two different dims), "newdim" (a position for a new dim), "onedim" (a dim of size 1),
  "shape" (same number of elements), "size" (a shape input 0 expands to), "index" (an int
  into dim 0), "span" (a slice of dim 0), "indices" (a list of ints into dim 0, repeats
  allowed), "mask" (a boolean list of input 0's shape), "cond" (a boolean list of the
  broadcast shape), "catdim" (the dim along which cat's inputs differ), "reduction" (of a
  loss), "labels" (class labels for the rows of a (N, C) input).
- `domains`, one `Domain` per input: where the op is differentiable and well conditioned.

Append entries with `OPS.append(OpSpec(...))`; names must stay unique (`by_name`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import minigrad
import minigrad.nn.functional

TOL = 1e-3  # how far from a kink/pole/tie a value must be for a check to count it valid


@dataclass(frozen=True)
class Domain:
    """Where an op's input may lie: `[low, high]`, `gap` away from the points in `avoid`,
    strictly positive, or with all values `gap` apart (`distinct`, for max/min)."""

    name: str
    low: float = -2.0
    high: float = 2.0
    avoid: tuple[float, ...] = ()
    gap: float = 0.1
    positive: bool = False
    distinct: bool = False
    inside: tuple[float, float] | None = None  # an open interval, e.g. (0, 1) for BCE

    def contains(self, values: Any, tol: float = TOL) -> bool:
        """True when every value is in the domain, at least `tol` from its edges."""
        v = np.asarray(values, dtype=np.float64)
        if not np.all(np.isfinite(v)):
            return False
        if self.positive and not np.all(v > tol):
            return False
        if self.inside and not np.all((v > self.inside[0] + tol) & (v < self.inside[1] - tol)):
            return False
        if any(np.any(np.abs(v - p) <= tol) for p in self.avoid):
            return False
        if self.distinct and v.size > 1:
            return bool(np.all(np.diff(np.sort(v.ravel())) > tol))
        return True


REAL = Domain("real")
POSITIVE = Domain("positive", low=0.1, high=2.0, positive=True)
NONZERO = Domain("nonzero", avoid=(0.0,), gap=0.25)
AWAY_FROM_ZERO = Domain("away_from_zero", avoid=(0.0,), gap=0.05)  # kinks of relu, abs
AWAY_FROM_BOUNDS = Domain("away_from_bounds", avoid=(-0.5, 0.5), gap=0.05)  # clamp's kinks
DISTINCT = Domain("distinct", distinct=True, gap=0.05)  # no ties for max/min/amax
PROBABILITY = Domain("probability", low=0.05, high=0.95, inside=(0.0, 1.0))
AWAY_FROM_STEPS = Domain("away_from_steps", avoid=(-1.5, 0.0, 1.5), gap=0.05)  # of x % 1.5
DOMAINS = {d.name: d for d in (REAL, POSITIVE, NONZERO, AWAY_FROM_ZERO, AWAY_FROM_BOUNDS,
                               DISTINCT, PROBABILITY, AWAY_FROM_STEPS)}


def apart(*values: Any, tol: float = TOL, **params: Any) -> bool:
    """Joint check for maximum/minimum: the two inputs never (nearly) tie."""
    a, b = np.broadcast_arrays(*values)
    return bool(np.all(np.abs(a - b) > tol))


def off_steps(*values: Any, tol: float = TOL, **params: Any) -> bool:
    """Joint check for remainder: a/b is never (nearly) a whole number, where a mod b jumps."""
    a, b = np.broadcast_arrays(*values)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = a / b
    return bool(np.all(np.isfinite(ratio)) and np.all(np.abs(ratio - np.round(ratio)) > 0.05))


@dataclass(frozen=True)
class OpSpec:
    """One op: how to call it, on which inputs, what PyTorch calls its node, how to print it.

    `fn(*tensors, **params)` runs it in minigrad. `torch_fn(torch, *tensors, **params)` runs
    it in PyTorch; None means `fn` works on torch tensors as written (method calls and
    operators). `source` is a `str.format` template: `{0}`, `{1}` are the inputs' source
    text, `{dim}` etc. the params'.
    """

    name: str
    fn: Callable[..., Any]
    node: str
    source: str
    arity: int = 1
    torch_fn: Callable[..., Any] | None = None
    shapes: str = "any"
    params: tuple[str, ...] = ()
    domains: tuple[Domain, ...] = ()
    valid: Callable[..., bool] | None = None
    positive_output: bool = False  # its values are > 0 (log of it needs no guard)
    in_expressions: bool = True  # strategies.expressions may use it

    def domain(self, i: int) -> Domain:
        return self.domains[i] if i < len(self.domains) else REAL

    def call_torch(self, torch: Any, *tensors: Any, **params: Any) -> Any:
        """Run the op in PyTorch (`torch` is the imported module)."""
        if self.torch_fn is None:
            return self.fn(*tensors, **params)
        return self.torch_fn(torch, *tensors, **params)

    def accepts(self, shapes: tuple[tuple[int, ...], ...]) -> bool:
        """Whether the op takes inputs of these shapes (some param choice exists)."""
        return len(shapes) == self.arity and SHAPE_RULES[self.shapes](*shapes)

    def in_domain(self, *values: Any, tol: float = TOL, **params: Any) -> bool:
        """Whether input values (numpy arrays) are where the op is smooth."""
        if not all(self.domain(i).contains(v, tol) for i, v in enumerate(values)):
            return False
        return self.valid is None or self.valid(*values, tol=tol, **params)

    def render(self, *sources: str, **params: Any) -> str:
        """Python source of this op applied to inputs whose source text is `sources`."""
        return self.source.format(*sources, **{k: render(v) for k, v in params.items()})


def render(value: Any) -> str:
    """A param as Python source: slices as `1:3`, everything else as repr."""
    if isinstance(value, slice):
        text = f"{'' if value.start is None else value.start}:"
        text += "" if value.stop is None else str(value.stop)
        return text + ("" if value.step in (None, 1) else f":{value.step}")
    return repr(value)


# -- shape rules -----------------------------------------------------------------------------
def _broadcasts(*shapes: tuple) -> bool:
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return False
    return True


def _cat_ok(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) >= 1 and sum(x != y for x, y in zip(a, b)) <= 1


def _batched_ok(a: tuple, b: tuple) -> bool:
    if len(a) < 3 or len(b) < 1:
        return False
    inner = b[0] if len(b) == 1 else b[-2]
    return a[-1] == inner and _broadcasts(a[:-2], b[:-2])


SHAPE_RULES: dict[str, Callable[..., bool]] = {
    "any": lambda a: True,
    "nonscalar": lambda a: len(a) >= 1,
    "matrix": lambda a: len(a) == 2,
    "ndim2": lambda a: len(a) >= 2,
    "has_one": lambda a: 1 in a,
    "broadcast": _broadcasts,
    "into": lambda a, b: _broadcasts(a, b) and np.broadcast_shapes(a, b) == tuple(a),
    "same": lambda *s: all(x == s[0] for x in s),
    "cat": _cat_ok,
    "dot": lambda a, b: len(a) == len(b) == 1 and a == b,
    "mm": lambda a, b: len(a) == len(b) == 2 and a[1] == b[0],
    "mv": lambda a, b: len(a) == 2 and len(b) == 1 and a[1] == b[0],
    "vm": lambda a, b: len(a) == 1 and len(b) == 2 and a[0] == b[0],
    "bmm": lambda a, b: len(a) == len(b) == 3 and a[0] == b[0] and a[2] == b[1],
    "batched": _batched_ok,
    "mat_batched": lambda a, b: len(a) == 2 and len(b) >= 3 and a[1] == b[-2],
    "vec_batched": lambda a, b: len(a) == 1 and len(b) >= 3 and a[0] == b[-2],
    "linear": lambda x, w, b: len(x) == len(w) == 2 and x[1] == w[1] and b == w[:1],
    "linear_nobias": lambda x, w: len(x) == len(w) == 2 and x[1] == w[1],
    "linear_nd": lambda x, w, b: len(x) in (1, 3) and len(w) == 2 and x[-1] == w[1]
    and b == w[:1],
}


# -- the table ------------------------------------------------------------------------------
def _unary(name: str, fn: Callable, node: str, source: str, **kw: Any) -> OpSpec:
    return OpSpec(name, fn, node, source, **kw)


def _binary(name: str, fn: Callable, node: str, source: str, **kw: Any) -> OpSpec:
    kw.setdefault("shapes", "broadcast")
    return OpSpec(name, fn, node, source, arity=2, **kw)


ARITHMETIC = [
    _binary("add", lambda x, y: x + y, "AddBackward0", "({0} + {1})"),
    _binary("mul", lambda x, y: x * y, "MulBackward0", "({0} * {1})"),
    _binary("sub", lambda x, y: x - y, "SubBackward0", "({0} - {1})"),
    _binary("div", lambda x, y: x / y, "DivBackward0", "({0} / {1})",
            domains=(REAL, NONZERO)),
    _unary("add_scalar", lambda x: x + 1.5, "AddBackward0", "({0} + 1.5)"),
    _unary("radd", lambda x: 1.5 + x, "AddBackward0", "(1.5 + {0})"),
    _unary("sub_scalar", lambda x: x - 1.5, "SubBackward0", "({0} - 1.5)"),
    _unary("rsub", lambda x: 1 - x, "RsubBackward1", "(1 - {0})"),
    _unary("mul_scalar", lambda x: x * 3, "MulBackward0", "({0} * 3)"),
    _unary("rmul", lambda x: 3 * x, "MulBackward0", "(3 * {0})"),
    _unary("div_scalar", lambda x: x / 2, "DivBackward0", "({0} / 2)"),
    _unary("rdiv", lambda x: 1 / x, "MulBackward0", "(1 / {0})", domains=(NONZERO,)),
    _unary("neg", lambda x: -x, "NegBackward0", "(-{0})"),
    _unary("pow_2", lambda x: x ** 2, "PowBackward0", "({0} ** 2)"),
    _unary("pow_3", lambda x: x ** 3, "PowBackward0", "({0} ** 3)"),
    _unary("pow_neg", lambda x: x ** -2, "PowBackward0", "({0} ** -2)", domains=(NONZERO,)),
    _unary("pow_frac", lambda x: x ** 1.5, "PowBackward0", "({0} ** 1.5)",
           domains=(POSITIVE,)),
    _binary("pow_tensor", lambda x, y: x ** y, "PowBackward1", "({0} ** {1})",
            domains=(POSITIVE, REAL)),
    _unary("rpow", lambda x: 2 ** x, "PowBackward2", "(2 ** {0})", positive_output=True),
    _binary("remainder", lambda x, y: x % y, "RemainderBackward1", "({0} % {1})",
            domains=(REAL, NONZERO), valid=off_steps, in_expressions=False),
    _unary("remainder_scalar", lambda x: x % 1.5, "RemainderBackward0", "({0} % 1.5)",
           domains=(AWAY_FROM_STEPS,), in_expressions=False),
]

FUNCTIONS = [
    _unary("exp", lambda x: x.exp(), "ExpBackward0", "{0}.exp()", positive_output=True),
    _unary("log", lambda x: x.log(), "LogBackward0", "{0}.log()", domains=(POSITIVE,)),
    _unary("sqrt", lambda x: x.sqrt(), "SqrtBackward0", "{0}.sqrt()", domains=(POSITIVE,),
           positive_output=True),
    _unary("abs", lambda x: x.abs(), "AbsBackward0", "{0}.abs()", domains=(AWAY_FROM_ZERO,)),
    _unary("tanh", lambda x: x.tanh(), "TanhBackward0", "{0}.tanh()"),
    _unary("sigmoid", lambda x: x.sigmoid(), "SigmoidBackward0", "{0}.sigmoid()",
           positive_output=True),
    _unary("relu", lambda x: x.relu(), "ReluBackward0", "{0}.relu()",
           domains=(AWAY_FROM_ZERO,)),
    _unary("sin", lambda x: x.sin(), "SinBackward0", "{0}.sin()"),
    _unary("cos", lambda x: x.cos(), "CosBackward0", "{0}.cos()"),
    _unary("reciprocal", lambda x: x.reciprocal(), "ReciprocalBackward0", "{0}.reciprocal()",
           domains=(NONZERO,)),
    _binary("maximum", lambda x, y: x.maximum(y), "MaximumBackward0", "{0}.maximum({1})",
            valid=apart),
    _binary("minimum", lambda x, y: x.minimum(y), "MinimumBackward0", "{0}.minimum({1})",
            valid=apart),
    _binary("where", lambda x, y, cond: minigrad.where(minigrad.tensor(cond), x, y),
            "WhereBackward0", "minigrad.where(minigrad.tensor({cond}), {0}, {1})",
            torch_fn=lambda torch, x, y, cond: torch.where(torch.tensor(cond), x, y),
            params=("cond",)),
    _unary("clamp", lambda x: x.clamp(min=-0.5, max=0.5), "ClampBackward1",
           "{0}.clamp(min=-0.5, max=0.5)", domains=(AWAY_FROM_BOUNDS,)),
    _unary("clamp_min", lambda x: x.clamp(min=-0.5), "ClampBackward1", "{0}.clamp(min=-0.5)",
           domains=(AWAY_FROM_BOUNDS,)),
]

REDUCTIONS = [
    _unary("sum", lambda x: x.sum(), "SumBackward0", "{0}.sum()"),
    _unary("sum_dim", lambda x, dim: x.sum(dim=dim), "SumBackward1", "{0}.sum(dim={dim})",
           shapes="nonscalar", params=("dim",)),
    _unary("sum_keepdim", lambda x, dim: x.sum(dim=dim, keepdim=True), "SumBackward1",
           "{0}.sum(dim={dim}, keepdim=True)", shapes="nonscalar", params=("dim",)),
    _unary("sum_dims", lambda x, dimset: x.sum(dim=dimset), "SumBackward1",
           "{0}.sum(dim={dimset})", shapes="nonscalar", params=("dimset",)),
    _unary("mean", lambda x: x.mean(), "MeanBackward0", "{0}.mean()"),
    _unary("mean_dim", lambda x, dim: x.mean(dim=dim), "MeanBackward1", "{0}.mean(dim={dim})",
           shapes="nonscalar", params=("dim",)),
    _unary("mean_keepdim", lambda x, dim: x.mean(dim=dim, keepdim=True), "MeanBackward1",
           "{0}.mean(dim={dim}, keepdim=True)", shapes="nonscalar", params=("dim",)),
    _unary("max", lambda x: x.max(), "MaxBackward1", "{0}.max()", domains=(DISTINCT,)),
    _unary("min", lambda x: x.min(), "MinBackward1", "{0}.min()", domains=(DISTINCT,)),
    _unary("max_dim", lambda x, dim: x.max(dim=dim).values, "MaxBackward0",
           "{0}.max(dim={dim}).values", shapes="nonscalar", params=("dim",),
           domains=(DISTINCT,)),
    _unary("min_dim", lambda x, dim: x.min(dim=dim).values, "MinBackward0",
           "{0}.min(dim={dim}).values", shapes="nonscalar", params=("dim",),
           domains=(DISTINCT,)),
    _unary("amax", lambda x, dim: x.amax(dim=dim), "AmaxBackward0", "{0}.amax(dim={dim})",
           shapes="nonscalar", params=("dim",), domains=(DISTINCT,)),
    _unary("amin", lambda x, dim: x.amin(dim=dim), "AminBackward0", "{0}.amin(dim={dim})",
           shapes="nonscalar", params=("dim",), domains=(DISTINCT,)),
    _unary("amax_all", lambda x: x.amax(), "AmaxBackward0", "{0}.amax()", domains=(DISTINCT,)),
    _unary("norm", lambda x: x.norm(), "LinalgVectorNormBackward0", "{0}.norm()",
           domains=(NONZERO,)),
    _unary("norm_dim", lambda x, dim: x.norm(dim=dim), "LinalgVectorNormBackward0",
           "{0}.norm(dim={dim})", shapes="nonscalar", params=("dim",), domains=(NONZERO,)),
]

LINALG = [
    _binary("matmul_dot", lambda x, y: x @ y, "DotBackward0", "({0} @ {1})", shapes="dot"),
    _binary("matmul_mm", lambda x, y: x @ y, "MmBackward0", "({0} @ {1})", shapes="mm"),
    _binary("matmul_mv", lambda x, y: x @ y, "MvBackward0", "({0} @ {1})", shapes="mv"),
    _binary("matmul_vm", lambda x, y: x @ y, "SqueezeBackward4", "({0} @ {1})", shapes="vm"),
    _binary("matmul_batched", lambda x, y: x @ y, "UnsafeViewBackward0", "({0} @ {1})",
            shapes="batched"),
    _binary("matmul_mat_batched", lambda x, y: x @ y, "CloneBackward0", "({0} @ {1})",
            shapes="mat_batched"),
    _binary("matmul_vec_batched", lambda x, y: x @ y, "UnsafeViewBackward0", "({0} @ {1})",
            shapes="vec_batched"),
    _binary("mm", lambda x, y: x.mm(y), "MmBackward0", "{0}.mm({1})", shapes="mm"),
    _binary("mv", lambda x, y: x.mv(y), "MvBackward0", "{0}.mv({1})", shapes="mv"),
    _binary("dot", lambda x, y: x.dot(y), "DotBackward0", "{0}.dot({1})", shapes="dot"),
    _binary("bmm", lambda x, y: x.bmm(y), "BmmBackward0", "{0}.bmm({1})", shapes="bmm"),
]

SHAPES = [
    _unary("t", lambda x: x.t(), "TBackward0", "{0}.t()", shapes="matrix"),
    _unary("T", lambda x: x.T, "PermuteBackward0", "{0}.T", shapes="matrix"),
    _unary("transpose", lambda x, dim0, dim1: x.transpose(dim0, dim1), "TransposeBackward0",
           "{0}.transpose({dim0}, {dim1})", shapes="ndim2", params=("dim0", "dim1")),
    _unary("permute", lambda x, dims: x.permute(dims), "PermuteBackward0",
           "{0}.permute({dims})", shapes="nonscalar", params=("dims",)),
    _unary("view", lambda x, shape: x.view(shape), "ViewBackward0", "{0}.view({shape})",
           params=("shape",)),
    _unary("reshape", lambda x, shape: x.reshape(shape), "ViewBackward0",
           "{0}.reshape({shape})", params=("shape",)),
    _unary("flatten", lambda x: x.flatten(), "ViewBackward0", "{0}.flatten()", shapes="ndim2"),
    _unary("unsqueeze", lambda x, newdim: x.unsqueeze(newdim), "UnsqueezeBackward0",
           "{0}.unsqueeze({newdim})", params=("newdim",)),
    _unary("squeeze", lambda x: x.squeeze(), "SqueezeBackward0", "{0}.squeeze()",
           shapes="has_one"),
    _unary("squeeze_dim", lambda x, onedim: x.squeeze(onedim), "SqueezeBackward1",
           "{0}.squeeze({onedim})", shapes="has_one", params=("onedim",)),
    _unary("expand", lambda x, size: x.expand(size), "ExpandBackward0", "{0}.expand({size})",
           params=("size",)),
    _unary("index_int", lambda x, index: x[index], "SelectBackward0", "{0}[{index}]",
           shapes="nonscalar", params=("index",)),
    _unary("index_slice", lambda x, span: x[span], "SliceBackward0", "{0}[{span}]",
           shapes="nonscalar", params=("span",)),
    _unary("index_array", lambda x, indices: x[indices], "IndexBackward0", "{0}[{indices}]",
           shapes="nonscalar", params=("indices",)),
    _unary("index_mask", lambda x, mask: x[minigrad.tensor(mask)], "IndexBackward0",
           "{0}[minigrad.tensor({mask})]", shapes="nonscalar", params=("mask",),
           torch_fn=lambda torch, x, mask: x[torch.tensor(mask)]),
    _binary("cat", lambda x, y, catdim: minigrad.cat([x, y], dim=catdim), "CatBackward0",
            "minigrad.cat([{0}, {1}], dim={catdim})", shapes="cat", params=("catdim",),
            torch_fn=lambda torch, x, y, catdim: torch.cat([x, y], dim=catdim)),
    _binary("stack", lambda x, y, newdim: minigrad.stack([x, y], dim=newdim),
            "StackBackward0", "minigrad.stack([{0}, {1}], dim={newdim})", shapes="same",
            params=("newdim",),
            torch_fn=lambda torch, x, y, newdim: torch.stack([x, y], dim=newdim)),
    _unary("clone", lambda x: x.clone(), "CloneBackward0", "{0}.clone()"),
]

F = minigrad.nn.functional
_LABELS = "minigrad.tensor({labels}), reduction={reduction})"

INPLACE = [  # on a clone, as a user would write them: the graph is rebased onto the clone
    _binary("add_", lambda x, y: x.clone().add_(y), "AddBackward0", "{0}.clone().add_({1})",
            shapes="into"),
    _binary("sub_", lambda x, y: x.clone().sub_(y), "SubBackward0", "{0}.clone().sub_({1})",
            shapes="into"),
    _binary("mul_", lambda x, y: x.clone().mul_(y), "MulBackward0", "{0}.clone().mul_({1})",
            shapes="into"),
    _binary("div_", lambda x, y: x.clone().div_(y), "DivBackward0", "{0}.clone().div_({1})",
            shapes="into", domains=(REAL, NONZERO)),
    _unary("clamp_", lambda x: x.clone().clamp_(min=-0.5, max=0.5), "ClampBackward1",
           "{0}.clone().clamp_(min=-0.5, max=0.5)", domains=(AWAY_FROM_BOUNDS,)),
    _binary("copy_", lambda x, y: x.clone().copy_(y), "CopyBackwards",
            "{0}.clone().copy_({1})", shapes="into", in_expressions=False),
    _unary("zero_", lambda x: x.clone().zero_(), "ZeroBackward0", "{0}.clone().zero_()",
           in_expressions=False),
    _unary("fill_", lambda x: x.clone().fill_(2.0), "FillBackward2", "{0}.clone().fill_(2.0)",
           in_expressions=False),
]

NN = [
    _unary("softmax", lambda x, dim: x.softmax(dim=dim), "SoftmaxBackward0",
           "{0}.softmax(dim={dim})", shapes="nonscalar", params=("dim",),
           positive_output=True),
    _unary("log_softmax", lambda x, dim: x.log_softmax(dim=dim), "LogSoftmaxBackward0",
           "{0}.log_softmax(dim={dim})", shapes="nonscalar", params=("dim",)),
    _binary("mse_loss", lambda x, y, reduction: F.mse_loss(x, y, reduction=reduction),
            "MseLossBackward0", "minigrad.nn.functional.mse_loss({0}, {1}, "
            "reduction={reduction})", shapes="same", params=("reduction",),
            torch_fn=lambda torch, x, y, reduction: torch.nn.functional.mse_loss(
                x, y, reduction=reduction)),
    _binary("binary_cross_entropy",
            lambda x, y, reduction: F.binary_cross_entropy(x, y, reduction=reduction),
            "BinaryCrossEntropyBackward0", "minigrad.nn.functional.binary_cross_entropy({0}, "
            "{1}, reduction={reduction})", shapes="same", params=("reduction",),
            domains=(PROBABILITY, PROBABILITY), in_expressions=False,
            torch_fn=lambda torch, x, y, reduction: torch.nn.functional.binary_cross_entropy(
                x, y, reduction=reduction)),
    _binary("binary_cross_entropy_with_logits",
            lambda x, y, reduction: F.binary_cross_entropy_with_logits(
                x, y, reduction=reduction), "BinaryCrossEntropyWithLogitsBackward0",
            "minigrad.nn.functional.binary_cross_entropy_with_logits({0}, {1}, "
            "reduction={reduction})", shapes="same", params=("reduction",),
            torch_fn=lambda torch, x, y, reduction:
            torch.nn.functional.binary_cross_entropy_with_logits(x, y, reduction=reduction)),
    _unary("cross_entropy",
           lambda x, labels, reduction: F.cross_entropy(
               x, minigrad.tensor(labels), reduction=reduction), "NllLossBackward0",
           "minigrad.nn.functional.cross_entropy({0}, " + _LABELS, shapes="matrix",
           params=("labels", "reduction"),
           torch_fn=lambda torch, x, labels, reduction: torch.nn.functional.cross_entropy(
               x, torch.tensor(labels), reduction=reduction)),
    _unary("nll_loss",
           lambda x, labels, reduction: F.nll_loss(
               x, minigrad.tensor(labels), reduction=reduction), "NllLossBackward0",
           "minigrad.nn.functional.nll_loss({0}, " + _LABELS, shapes="matrix",
           params=("labels", "reduction"),
           torch_fn=lambda torch, x, labels, reduction: torch.nn.functional.nll_loss(
               x, torch.tensor(labels), reduction=reduction)),
    OpSpec("linear", lambda x, w, b: F.linear(x, w, b), "AddmmBackward0",
           "minigrad.nn.functional.linear({0}, {1}, {2})", arity=3, shapes="linear",
           torch_fn=lambda torch, x, w, b: torch.nn.functional.linear(x, w, b),
           in_expressions=False),
    OpSpec("linear_nd", lambda x, w, b: F.linear(x, w, b), "ViewBackward0",
           "minigrad.nn.functional.linear({0}, {1}, {2})", arity=3, shapes="linear_nd",
           torch_fn=lambda torch, x, w, b: torch.nn.functional.linear(x, w, b),
           in_expressions=False),
    _binary("linear_nobias", lambda x, w: F.linear(x, w), "MmBackward0",
            "minigrad.nn.functional.linear({0}, {1})", shapes="linear_nobias",
            torch_fn=lambda torch, x, w: torch.nn.functional.linear(x, w),
            in_expressions=False),
]

OPS: list[OpSpec] = ARITHMETIC + FUNCTIONS + REDUCTIONS + LINALG + SHAPES + INPLACE + NN
"""Every op, in the order expression shrinking prefers (simplest first)."""


def by_name(name: str) -> OpSpec:
    """The table entry called `name` (KeyError naming the known ones otherwise)."""
    for spec in OPS:
        if spec.name == name:
            return spec
    raise KeyError(f"no op {name!r} in minigrad.testing.ops.OPS; known: "
                   f"{', '.join(s.name for s in OPS)}")

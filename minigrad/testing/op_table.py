"""The op table: every differentiable op of minigrad, described once, used by every test.

One `OpSpec` (`op_spec.py`) per op says how to call it in minigrad and in PyTorch, which inputs
it accepts, which node PyTorch puts at the root and how to print a call as Python source. The
project's op tests, the gradcheck property tests, `strategies.expressions` and `compare/` all
read this one list. Append entries with `OPS.append(OpSpec(...))`; names must stay unique
(`by_name`). New ops go in the op_table_*.py file of their kind (math, shaping, layers).
"""

from __future__ import annotations

from typing import Any

import minigrad
import minigrad.nn.functional
from minigrad.testing.domains import (
    AWAY_FROM_BOUNDS,
    AWAY_FROM_STEPS,
    AWAY_FROM_ZERO,
    DISTINCT,
    INSIDE_POLES,
    NONZERO,
    POSITIVE,
    PROBABILITY,
    REAL,
    apart,
    off_steps,
)
from minigrad.testing.op_spec import OpSpec
from minigrad.testing.op_spec import binary as _binary
from minigrad.testing.op_spec import unary as _unary
from minigrad.testing.op_table_contractions import CONTRACTIONS
from minigrad.testing.op_table_layers import LAYERS
from minigrad.testing.op_table_math import MATH
from minigrad.testing.op_table_nn_utils import NN_UTILS
from minigrad.testing.op_table_shaping import SHAPING


# -- the table ------------------------------------------------------------------------------
def _assigned(x: Any, key: Any) -> Any:
    """Item assignment into a non-leaf, recorded: `a` is x twice along a new last dim, and
    the first of the two is overwritten with 2 * x."""
    a = x.unsqueeze(-1).expand(*x.shape, 2) * 1
    a[key] = x.unsqueeze(-1) * 2
    return a




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
    _unary("tan", lambda x: x.tan(), "TanBackward0", "{0}.tan()", domains=(INSIDE_POLES,)),
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
    _unary("squeeze_dims", lambda x, onedim: x.squeeze((onedim,)), "SqueezeBackward2",
           "{0}.squeeze(({onedim},))", shapes="has_one", params=("onedim",)),
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
    _unary("setitem_slice", lambda x: _assigned(x, (Ellipsis, slice(None, 1))), "CopySlices",
           "_assigned({0}, (..., slice(None, 1)))", in_expressions=False),
    _unary("setitem_index", lambda x: _assigned(x, (Ellipsis, [0])), "IndexPutBackward0",
           "_assigned({0}, (..., [0]))", in_expressions=False),
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

OPS: list[OpSpec] = (ARITHMETIC + FUNCTIONS + REDUCTIONS + LINALG + SHAPES + INPLACE + NN + MATH
                     + SHAPING + LAYERS + CONTRACTIONS + NN_UTILS)
"""Every op, in the order expression shrinking prefers (simplest first)."""

# The table's ops that PyTorch 2.13 does not run in forward mode (their kernels have no forward
# AD: _pack_padded_sequence, _weight_norm_interface, _embedding_bag); minigrad refuses them too.
NO_FORWARD_AD = ("pack_padded_sequence", "pack_unsorted", "pad_packed_sequence", "rnn_packed",
                 "lstm_packed_2_layers", "gru_packed_bidirectional", "weight_norm",
                 "embedding_bag_mean", "embedding_bag_max_padding", "embedding_bag_weighted")


def by_name(name: str) -> OpSpec:
    """The table entry called `name` (KeyError naming the known ones otherwise)."""
    for spec in OPS:
        if spec.name == name:
            return spec
    raise KeyError(f"no op {name!r} in minigrad.testing.op_table.OPS; known: "
                   f"{', '.join(s.name for s in OPS)}")

"""PyTorch 2.13's `_saved_*` names of each node, and where minigrad keeps each value.

`NAMES[node name][name]` reads `node._saved_<name>` (the readers are in saved_readers.py). The
names are PyTorch's own, checked node by node against torch over the op table
(tests/core/test_saved_names_torch.py); a node PyTorch saves nothing on has no entry.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.autograd.saved_readers import (
    as_tensor,
    attr,
    const,
    input_sizes,
    ints,
    kept,
    kept_value,
    number,
    numel,
    pairs_first,
    reduction,
    result,
    saved,
    saved_for_others,
    setting,
    sizes_of,
    strides_of,
    u64,
)

SELF = {"self": saved(0)}
SELF_OTHER = {"self": saved(0, when=1), "other": saved(1, when=0)}
RESULT = {"result": result}
ALPHA = {"alpha": attr("alpha", default=1)}
SIZES = {"self_sym_sizes": input_sizes}
DIMS_KEEPDIM = {"dim": attr("dims", ints), "keepdim": attr("keepdim")}
DIM_KEEPDIM = {"dim": setting("dim"), "keepdim": setting("keepdim")}
INDICES = {"indices": kept("indices", "int64")}
SELECTED = {**DIM_KEEPDIM, **INDICES, **SIZES}  # max(dim), sort, topk, ...: one value kept
DIM = {"dim": setting("dim")}
POOL = {"kernel_size": setting("kernel", ints), "padding": setting("padding", pairs_first),
        "stride": kept_value("stride", setting("stride", ints))}
LOSS = {"self": saved(0), "target": saved(1), "reduction": setting("reduction", reduction)}


BAG_MODES = {"sum": 0, "mean": 1, "max": 2}  # PyTorch's enum, which it shows


def bag_results(node) -> tuple:
    """EmbeddingBag's kernel results as PyTorch's CPU kernel gives them: which bag each index
    is in (none computed by its fast float32/16 sum without padding_idx), each bag's size (0s
    for a sum) and, for max, the row that gave each bag's max per column (else the bag sizes
    again, or 0s)."""
    mode, padding = node.settings["mode"], node.settings["padding_idx"]
    bags, n_bags = node.bags, len(node.settings["offsets"])
    empty = np.zeros(n_bags, np.int64)
    if mode == "sum":
        fast = padding is None and node.weight_dtype != np.float64
        return (np.zeros(0, np.int64) if fast else bags), empty, empty
    sizes = np.bincount(bags[node.keep], minlength=n_bags).astype(np.int64)
    if mode == "mean":
        return bags, sizes, sizes
    rows = np.zeros((n_bags, node.winner.shape[1]), np.int64)
    for i, column in zip(*np.nonzero(node.winner)):
        rows[bags[i], column] = node.settings["indices"][i]
    return bags, sizes, rows


def unless_no_dim(name: str, convert=lambda v: v):
    """The attribute, or None on the node of a reduction called without a dim (no_dim_given)."""
    return lambda node: None if getattr(node, "no_dim", False) else convert(getattr(node, name))


SPREAD = {"dim": unless_no_dim("dims", ints), "keepdim": attr("keepdim"),
          "correction": unless_no_dim("correction")}
NLL = {"self": kept("self"), "target": kept("target", "int64"),
       "weight": setting("weight", as_tensor),
       "reduction": setting("reduction", reduction),
       "ignore_index": setting("ignore_index", lambda v: (-100 if v is None else v) % 2**64),
       "total_weight": kept("total_weight")}
SELF_ONLY = ("Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cos", "Cosh", "Erf",
             "Erfc", "Log10", "Log1P", "Log2", "Log", "Mish", "Silu", "Sin", "Sinh", "Digamma",
             "Lgamma", "Sinc", "Logit", "I0", "Selu", "Hardswish", "Hardsigmoid", "Softsign")
RESULT_ONLY = ("Exp2", "Exp", "Expm1", "Reciprocal", "Relu", "Rsqrt", "Sigmoid", "Sqrt", "Tan",
               "Tanh")

NAMES: dict[str, dict] = {
    **{f"{n}Backward0": SELF for n in SELF_ONLY},
    **{f"{n}Backward0": RESULT for n in RESULT_ONLY},
    "ErfinvBackward0": {"self": kept("self")},
    "NanToNumBackward0": {"self": kept("self")},
    "SgnBackward0": {"self": kept("self"), "result": kept("result")},
    "AddBackward0": ALPHA, "SubBackward0": ALPHA, "RsubBackward1": ALPHA,
    "MulBackward0": SELF_OTHER, "DivBackward0": {"self": saved(0, when=1), "other": saved(1)},
    "MulBackward1": {"other": setting("k")},
    "DivBackward1": {"other": setting("k")},
    "DivBackward2": {"self": kept("self", when=1), "other": kept("other", when=0),
                     "rounding_mode": setting("rounding_mode")},
    "Atan2Backward0": {"self": saved(0), "other": saved(1)},
    "MaximumBackward0": {"self": saved(0), "other": saved(1)},
    "MinimumBackward0": {"self": saved(0), "other": saved(1)},
    "RemainderBackward1": {"self": saved(0, when=1), "other": saved(1, when=1)},
    "HypotBackward0": {"self": saved(0), "other": saved(1), **RESULT},
    "XlogyBackward0": {"self": saved(0), "other": saved(1)},
    "XlogyBackward1": {"self": setting("c"), "other": saved(0)},
    "XlogyBackward2": {"self": kept("self"), "other": setting("c")},
    "LerpBackward0": {"weight": setting("weight")},
    "LerpBackward1": {"self": saved(0), "end": saved(1), "weight": saved(2)},
    "PowBackward0": {**SELF, "exponent": attr("p")},
    "PowBackward1": {"self": saved(0), "exponent": saved(1), "result": kept("result")},
    "PowBackward2": {"self": attr("base"), "exponent": kept("exponent"), **RESULT},
    "ClampBackward0": {"self": kept("self"), "min": kept("min"), "max": kept("max")},
    "ClampBackward1": {**SELF, "min": attr("lo"), "max": attr("hi")},
    "HardtanhBackward0": {**SELF, "min_val": setting("min_val"), "max_val": setting("max_val")},
    "LeakyReluBackward0": {**SELF, "negative_slope": setting("negative_slope")},
    "LeakyReluBackward1": {"negative_slope": setting("negative_slope"), "result": saved(0)},
    "EluBackward0": {**SELF, "alpha": setting("alpha"), "scale": attr("scale", number),
                     "input_scale": attr("input_scale", number)},
    "EluBackward1": {"alpha": setting("alpha"), "scale": attr("scale", number),
                     "input_scale": attr("input_scale", number), "result": saved(0)},
    "GeluBackward0": {**SELF, "approximate": setting("approximate")},
    "SoftplusBackward0": {**SELF, "beta": setting("beta", lambda v: int(v) if v == 1 else v),
                          "threshold": setting("threshold",
                                               lambda v: int(v) if v == 20 else v)},
    # reductions
    "SumBackward0": SIZES, "SumBackward1": {**SIZES, **DIMS_KEEPDIM},
    "MeanBackward0": {**SIZES, "self_sym_numel": numel},
    "MeanBackward1": {**SIZES, **DIMS_KEEPDIM, "self_sym_numel": numel},
    "ProdBackward0": {**SELF, **RESULT},
    "ProdBackward1": {**SELF, **RESULT, "dim": attr("dims", lambda d: int(d[0])),
                      "keepdim": attr("keepdim")},
    "AmaxBackward0": {**DIMS_KEEPDIM, "self": kept("self"), "result": kept("result")},
    "AminBackward0": {**DIMS_KEEPDIM, "self": kept("self"), "result": kept("result")},
    "MaxBackward1": {**SELF, "result": attr("result", as_tensor)},
    "MinBackward1": {**SELF, "result": attr("result", as_tensor)},
    "MedianBackward0": {**SELF, "result": attr("result", as_tensor)},
    "NanmedianBackward0": {**SELF, "result": attr("result", as_tensor)},
    "MaxBackward0": SELECTED, "MinBackward0": SELECTED, "MedianBackward1": SELECTED,
    "NanmedianBackward1": SELECTED, "ModeBackward0": SELECTED, "KthvalueBackward0": SELECTED,
    "SortBackward0": {**DIM, **INDICES, **SIZES}, "SortBackward1": {**DIM, **INDICES, **SIZES},
    "TopkBackward0": {**DIM, **INDICES, **SIZES},
    "LogsumexpBackward0": {**SELF, **DIMS_KEEPDIM, **RESULT},
    "LinalgVectorNormBackward0": {**SELF, **RESULT, "keepdim": attr("keepdim"),
                                  "ord": kept_value("ord", attr("p", number)),
                                  "dim": unless_no_dim("dims", ints)},
    "StdBackward0": {**SELF, **RESULT, **SPREAD},
    "StdMeanBackward0": {**SELF, **SPREAD, "result0": result},
    "VarBackward0": {**SELF, **SPREAD}, "VarMeanBackward0": {**SELF, **SPREAD},
    "CumsumBackward0": DIM,
    "CumprodBackward0": {**SELF, **RESULT, **DIM},
    "LogcumsumexpBackward0": {**SELF, **RESULT, **DIM},
    "CummaxBackward0": {**DIM, "self": kept("self"), "indices": attr("indices", as_tensor)},
    "CumminBackward0": {**DIM, "self": kept("self"), "indices": attr("indices", as_tensor)},
    "DistBackward0": {"self": saved(0), "other": saved(1), **RESULT,
                      "p": setting("p", number)},
    "NormBackward0": {**SELF, **RESULT, "p": attr("p", number)},
    "NormBackward1": {**SELF, **RESULT, "p": attr("p", number), "dim": attr("dims", ints),
                      "keepdim": attr("keepdim")},
    "LinalgMatrixExpBackward0": SELF,
    "ClampMinBackward0": {**SELF, "min": setting("bound")},
    "ClampMaxBackward0": {**SELF, "max": setting("bound")},
    # matrix products
    "MmBackward0": {"self": saved(0, when=1), "mat2": saved(1, when=0),
                    "self_sym_sizes": sizes_of(0), "mat2_sym_sizes": sizes_of(1),
                    "self_sym_strides": strides_of(0, when=0),
                    "mat2_sym_strides": strides_of(1, when=1)},
    "AddmmBackward0": {"mat1": saved(0, when=2), "mat2": saved(1, when=1),
                       "mat1_sym_sizes": sizes_of(0), "mat2_sym_sizes": sizes_of(1),
                       "mat1_sym_strides": strides_of(0, when=1),
                       "mat2_sym_strides": strides_of(1, when=2),
                       "alpha": const(1), "beta": const(1)},
    "DotBackward0": {"self": saved(0, when=1), "tensor": saved(1, when=0)},
    "VdotBackward0": {"self": saved(0, when=1), "other": saved(1, when=0)},
    "MvBackward0": {"self": saved(0, when=1), "vec": saved(1, when=0)},
    "BmmBackward0": {"self": saved(0, when=1), "mat2": saved(1, when=0)},
    # shapes and views
    "ViewBackward0": SIZES, "UnsafeViewBackward0": SIZES, "ExpandBackward0": SIZES,
    "ReshapeAliasBackward0": SIZES,
    "SqueezeBackward0": SIZES,
    "SqueezeBackward1": {**SIZES, "dim": setting("dims", lambda d: int(d[0]))},
    "SqueezeBackward2": {**SIZES, "dim": setting("dims", ints)},
    "SqueezeBackward4": {**SIZES, "dim": setting("dims", lambda d: int(d[0]))},
    "UnsqueezeBackward0": DIM,
    "PermuteBackward0": {"dims": setting("dims", ints)},
    "TransposeBackward0": {"dim0": setting("d0"), "dim1": setting("d1")},
    "FlipBackward0": {"dims": setting("axes", ints)},
    "RollBackward0": {"shifts": setting("shifts", lambda s: tuple(u64(v) for v in s)),
                      "dims": setting("axes", ints)},
    "RepeatBackward0": {**SIZES, "repeats": setting("repeats", ints)},
    "CatBackward0": DIM, "StackBackward0": DIM, "UnbindBackward0": DIM,
    "SplitBackward0": {**SIZES, **DIM, "split_size": setting("split_size")},
    "SplitWithSizesBackward0": {**SIZES, **DIM, "split_sizes": setting("split_sizes", ints)},
    "UnsafeSplitBackward0": {**SIZES, **DIM, "split_size": setting("split_size")},
    "NarrowCopyBackward0": {**SIZES, **DIM, "start": setting("start"),
                            "length": setting("length")},
    "DiagonalBackward0": {**SIZES, "offset": setting("offset", u64), "dim1": setting("dim1"),
                          "dim2": setting("dim2")},
    "DiagEmbedBackward0": {"offset": setting("offset", u64), "dim1": setting("dim1", u64),
                           "dim2": setting("dim2", u64)},
    "TrilBackward0": {"diagonal": setting("diagonal", u64)},
    "TriuBackward0": {"diagonal": setting("diagonal", u64)},
    "UnfoldBackward0": {**SIZES, "dimension": setting("dimension"), "size": setting("size"),
                        "step": setting("step")},
    # indexing
    "SelectBackward0": {**SIZES, "dim": lambda node: basic_index(node)[0],
                        "index": lambda node: basic_index(node)[1] % 2**64},
    "SliceBackward0": {**SIZES, "dim": lambda node: basic_index(node)[0],
                       "start": lambda node: slice_part(node, "start", 0),
                       "end": lambda node: slice_part(node, "stop", 2**63 - 1),
                       "step": lambda node: slice_part(node, "step", 1)},
    "IndexBackward0": {**SIZES, "indices": lambda node: index_tensors(node)},
    "IndexPutBackward0": {"indices": lambda node: index_tensors(node), "accumulate": const(False)},
    "GatherBackward0": {**DIM, "self": kept("self"), "index": setting("index", as_tensor),
                        "sparse_grad": const(False)},
    "ScatterBackward0": {**DIM, "index": setting("index", as_tensor)},
    "ScatterBackward1": {**DIM, "index": setting("index", as_tensor)},
    "ScatterAddBackward0": {**DIM, "index": setting("index", as_tensor)},
    "IndexSelectBackward0": {**DIM, **SIZES, "index": setting("index", as_tensor)},
    "IndexAddBackward0": {**DIM, "index": setting("index", as_tensor), "source": kept("source"),
                          "alpha": setting("alpha"), "source_dim": lambda node: len(
                              node._as_pytorch["source"].shape) if node._as_pytorch else 0},
    "IndexFillBackward0": {**DIM, "index": kept("index")},
    "IndexFillBackward1": {**DIM, "index": kept("index")},
    "TakeBackward0": {"self": kept("self"), "index": setting("index", as_tensor)},
    "MaskedFillBackward0": {"mask": setting("mask", as_tensor)},
    "MaskedFillBackward1": {"mask": setting("mask", as_tensor)},
    "MaskedScatterBackward0": {"mask": setting("mask", as_tensor),
                               "source_sym_sizes": attr("source_shape", ints)},
    "MaskedSelectBackward0": {"self": kept("self"), "mask": setting("mask", as_tensor)},
    "WhereBackward0": {"condition": setting("condition", as_tensor)},
    "EmbeddingBackward0": {"indices": setting("indices", as_tensor),
                           "padding_idx": setting("padding_idx",
                                                  lambda v: (-1 if v is None else v) % 2**64),
                           "scale_grad_by_freq": const(False), "sparse": const(False),
                           "weight_sym_argsize_0": attr("rows", lambda r: int(r[0]))},
    # layers
    "ConvolutionBackward0": {"input": lambda node: conv_input(node), "weight": saved(1),
                             "bias_sym_sizes_opt": attr("bias_sizes", lambda s: (
                                 (0,) if s is None else ints(s))),
                             "stride": setting("stride", ints),
                             "padding": setting("padding", lambda p: tuple(
                                 min(int(a), int(b)) for a, b in p)),
                             "dilation": setting("dilation", ints),
                             "transposed": attr("transposed"),
                             "output_padding": lambda node: output_padding(node),
                             "groups": setting("groups")},
    "MaxPool2DWithIndicesBackward0": {**POOL, "self": kept("self"), "result1": kept("result1"),
                                      "dilation": setting("dilation", ints),
                                      "ceil_mode": setting("ceil_mode")},
    "AdaptiveMaxPool2DBackward0": {"self": kept("self"), "result1": kept("result1")},
    "AvgPool2DBackward0": {**POOL, "self": kept("self"), "ceil_mode": setting("ceil_mode"),
                           "count_include_pad": setting("count_include_pad"),
                           "divisor_override": setting("divisor_override")},
    "AdaptiveAvgPool2DBackward0": {"self": kept("self")},
    "Im2ColBackward0": {"kernel_size": setting("kernel", ints),
                        "dilation": setting("dilation", ints),
                        "padding": setting("padding", pairs_first),
                        "stride": setting("stride", ints),
                        "self_sym_argsize_minus_1": attr("size", lambda s: int(s[1])),
                        "self_sym_argsize_minus_2": attr("size", lambda s: int(s[0]))},
    "Col2ImBackward0": {"kernel_size": setting("kernel", ints),
                        "dilation": setting("dilation", ints),
                        "padding": setting("padding", pairs_first),
                        "stride": setting("stride", ints)},
    "ConstantPadNdBackward0": {"pad": setting("pad", ints)},
    "NativeBatchNormBackward0": {"input": saved(0), "weight": kept("weight"),
                                 "running_mean": setting("running_mean", as_tensor),
                                 "running_var": setting("running_var", as_tensor),
                                 "training": setting("training"), "eps": setting("eps"),
                                 "result1": kept("result1"), "result2": kept("result2")},
    "NativeLayerNormBackward0": {"input": saved(0), "weight": kept("weight"),
                                 "bias": kept("bias"),
                                 "normalized_shape": setting("normalized_shape", ints),
                                 "result1": kept("result1"), "result2": kept("result2")},
    "NativeGroupNormBackward0": {"input": saved(0), "weight": kept("weight"),
                                 "N": sizes_of(0, lambda s: s[0]),
                                 "C": sizes_of(0, lambda s: s[1]),
                                 "HxW": sizes_of(0, lambda s: math.prod(s[2:])),
                                 "group": setting("num_groups"), "eps": setting("eps"),
                                 "result1": kept("result1"), "result2": kept("result2")},
    "EmbeddingBagBackward0": {
        "indices": setting("indices", as_tensor), "offsets": kept("offsets", "int64"),
        "mode": setting("mode", BAG_MODES.get), "padding_idx": setting("padding_idx", lambda v: (
            -1 if v is None else v) % 2**64),
        "per_sample_weights": saved(1), "weight": saved(0, when=1),
        "result1": lambda node: as_tensor(bag_results(node)[0]),
        "result2": lambda node: as_tensor(bag_results(node)[1]),
        "result3": lambda node: as_tensor(bag_results(node)[2]),
        "scale_grad_by_freq": const(False), "sparse": const(False),
        "weight_sym_argsize_0": attr("num_weights")},
    "TrilinearBackward0": {"i1": saved_for_others(0), "i2": saved_for_others(1),
                           "i3": saved_for_others(2), "expand1": const((1, 3)),
                           "expand2": const((0,)), "expand3": const((1, 2)),
                           "sumdim": const((2, 3))},  # (bilinear's _trilinear call, PyTorch's)
    "WeightNormInterfaceBackward0": {"v": saved(0), "g": saved(1), "dim": setting("dim"),
                                     "result1": kept("norms")},
    "PackPaddedSequenceBackward0": {"batch_first": setting("batch_first"),
                                    "input_sym_sizes": input_sizes,
                                    "result1": setting("batch_sizes", lambda b: as_tensor(
                                        np.asanyarray(b, np.int64)))},
    # losses
    "MseLossBackward0": LOSS,
    "HuberLossBackward0": {**LOSS, "delta": setting("delta")},
    "SmoothL1LossBackward0": {**LOSS, "beta": setting("delta")},
    "BinaryCrossEntropyBackward0": {**LOSS, "weight": setting("weight", as_tensor)},
    "BinaryCrossEntropyWithLogitsBackward0": {**LOSS, "weight": setting("weight", as_tensor),
                                              "pos_weight": setting("pos_weight", as_tensor)},
    "NllLossBackward0": NLL, "NllLoss2DBackward0": NLL,
    "SoftmaxBackward0": {**DIM, **RESULT}, "LogSoftmaxBackward0": {**DIM, **RESULT},
}


def basic_index(node) -> tuple:
    """(dim, the int or slice) of the one basic index a Select/Slice node took."""
    key = node.settings.get("key")
    if key is None:  # (made by narrow, split, ...: they keep a dim and a slice)
        return getattr(node, "dim", 0), getattr(node, "key", (slice(None),))[-1]
    key = key if isinstance(key, tuple) else (key,)
    for dim, k in enumerate(key):
        if k is not Ellipsis and k != slice(None):
            return dim, k
    return 0, key[0]


def slice_part(node, part: str, default: int) -> int:
    value = getattr(basic_index(node)[1], part, None)
    return default if value is None else int(value) % 2**64


def output_padding(node) -> tuple:
    """What a transposed convolution added to its output size (0s for a convolution)."""
    geo = node.geometry
    n = len(geo["stride"])
    if not node.transposed:
        return (0,) * n
    x, w = node.saved_values[:2]
    out = node.output_shape()[2:]
    return tuple(int(o - ((i - 1) * s - p[0] - p[1] + d * (k - 1) + 1)) for o, i, s, p, d, k in zip(
        out, x.array.shape[2:], geo["stride"], geo["padding"], geo["dilation"],
        w.array.shape[2:]))


def index_tensors(node) -> tuple:
    """The advanced indices of `x[key]` as PyTorch's node keeps them: a tensor per indexed
    dim (None for a dim taken whole), up to the last indexed one."""
    key = node.settings.get("key")
    key = key if isinstance(key, tuple) else (key,)
    ndim = len(input_sizes(node))
    out = []
    for k in key:
        if k is Ellipsis:
            out += [None] * (ndim - sum(1 for k in key if k is not Ellipsis and k is not None))
        elif isinstance(k, slice):
            out.append(None)
        elif k is not None:
            array = np.asanyarray(k)
            out.append(as_tensor(array if array.dtype == bool else array.astype(np.int64)))
    while out and out[-1] is None:
        out.pop()
    return tuple(out)


def conv_input(node):
    """The input, as PyTorch keeps it: where the padding differs on the two sides ('same'
    with an even kernel), PyTorch pads the extra first and keeps that copy."""
    if not node.needs_input_grad[1]:
        return None
    x = node.saved_tensor(0)
    pads = node.settings["padding"]
    extra = [(0, int(b) - int(a)) if b > a else (int(a) - int(b), 0) for a, b in pads]
    if not any(e != (0, 0) for e in extra):
        return x
    return as_tensor(np.pad(x.array, [(0, 0), (0, 0), *extra]))

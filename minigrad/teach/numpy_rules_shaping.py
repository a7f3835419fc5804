"""The numpy rules of the shaping ops (`numpy_rules`): views, indexing, joining and splitting,
gathering and masking, the diagonals, and the ops that pick along a dim (sort, topk, median),
as minigrad computes them (ops/views.py, index.py, shaping.py, gathering.py, masking.py,
diagonals.py, sorting.py). A backward that puts a gradient back where its elements came
from is `np.add.at` into zeros (minigrad's ScatterAdd: repeated positions add up).

Every one of these ops is linear in its tensor inputs, and its JVP rule in minigrad is the op
itself run on the tangents (`tangent_rules.linear`): `LINEAR`, the `jvp` of each rule below
that names no other (a fill of 0 instead of the value, the median's share)."""

from __future__ import annotations

import math

import numpy as np

from minigrad.teach.numpy_rules import (
    LINEAR,
    Call,
    Rule,
    even_tangent,
    key_text,
    linear_with,
    scatter_add,
)
from minigrad.teach.program_values import source


def _lead(dim: int) -> str:
    return ":, " * dim


def _squeeze(c: Call) -> str:
    shape, dims = c.in_shapes[0], c.setting("dims")
    ones = tuple(d for d in dims if shape and shape[d] == 1)
    return f"{c.args[0]}.squeeze(axis={source(ones)})" if ones else f"{c.args[0]}.view()"


def _reshaped_back(c: Call) -> str:
    return f"{c.g}.reshape({source(c.in_shapes[0])})"


def _cat_backward(i: int):
    def text(c: Call) -> str:
        dim = c.setting("dim")
        start = sum(c.in_shapes[j][dim] for j in range(i))
        return f"{c.g}[{_lead(dim)}{start}:{start + c.in_shapes[i][dim]}]"
    return text


def _each(make, n: int = 16) -> tuple:
    """One backward text per input, for the ops with any number of inputs (cat, stack)."""
    return tuple(make(i) for i in range(n))


def _stack_backward(i: int):
    return lambda c: f"{c.g}[{_lead(c.setting('dim'))}{i}, ...]"


def _split_forward(c: Call) -> str:
    cuts = np.cumsum(c.setting("sizes"))[:-1].tolist()
    return f"tuple(np.split({c.args[0]}, {source(cuts)}, axis={c.setting('dim')}))"


def _joined(fn: str):
    def text(c: Call) -> str:  # (every piece, also those after the last one used)
        sizes = c.setting("sizes")
        outputs = len(sizes) if sizes is not None else c.in_shapes[0][c.setting("dim")]
        return f"np.{fn}([{', '.join(c.grad(k) for k in range(outputs))}], axis={c.setting('dim')})"
    return text


def _unbind_forward(c: Call) -> str:
    n, dim = c.in_shapes[0][c.setting("dim")], c.setting("dim")
    return f"tuple(np.asarray({c.args[0]}[{_lead(dim)}i]) for i in range({n}))"


def _narrow_key(c: Call) -> str:
    dim, start = c.setting("dim"), c.setting("start")
    return f"{_lead(dim)}{start}:{start + c.setting('length')}"


def _repeat_forward(c: Call) -> str:
    repeats, shape = c.setting("repeats"), c.in_shapes[0]
    padded = (1,) * (len(repeats) - len(shape)) + tuple(shape)
    return f"np.tile({c.args[0]}.reshape({source(padded)}), {source(repeats)})"


def _repeat_backward(c: Call) -> str:
    from minigrad.teach.numpy_rules import total
    repeats, shape = c.setting("repeats"), tuple(c.in_shapes[0])
    padded = (1,) * (len(repeats) - len(shape)) + shape
    split = tuple(n for pair in zip(repeats, padded) for n in pair)
    copies = tuple(range(0, 2 * len(padded), 2))
    summed = total(f"{c.g}.reshape({source(split)})", split, c.dtype, copies)
    return f"{summed}.reshape({source(shape)})"


def _along(c: Call, index: str, dim: int) -> str:
    """gathering.py's `along`: the key that reads `index` along `dim` (np.indices elsewhere)."""
    return (f"{c.out}_key = list(np.indices({index}.shape, sparse=True))\n"
            f"{c.out}_key[{dim}] = {index}\n"
            f"{c.out}_key = tuple({c.out}_key)")


def _gather_forward(c: Call) -> str:
    index = c.text("{index}")
    key = f"{c.out}_key = ({index},)" if not np.ndim(c.setting("index")) else \
        _along(c, index, c.setting("dim"))
    return f"{key}\n{c.args[0]}[{c.out}_key]"


def _scatter_value_forward(c: Call) -> str:
    return (f"{_along(c, c.text('{index}'), c.setting('dim'))}\n{c.out}_new = {c.args[0]}"
            f".copy()\n{c.out}_new[{c.out}_key] = {source(c.setting('value'))}\n{c.out}_new")


def _picked_forward(c: Call) -> str:
    """sort, topk, kthvalue, median(dim), mode: the values at the indices the op picked
    (recorded with the node), along dim."""
    x, dim = c.args[0], c.setting("dim")
    if not c.in_shapes[0]:
        return f"{c.out}_key = ()\nnp.asarray({x}[{c.out}_key])"
    values = f"np.asarray({x}[{c.out}_key])"
    if not c.setting("keepdim", True):
        values += f".squeeze({dim})"
    return f"{_along(c, c.text('{picked}'), dim)}\n{values}"


def _picked_backward(c: Call) -> str:
    g = c.g
    if not c.setting("keepdim", True) and c.in_shapes[0]:
        g = f"np.expand_dims({g}, {c.setting('dim')})"
    return scatter_add(c, g, c.in_shapes[0], f"{c.out}_key")


def _median_forward(skip_nan: bool):
    def text(c: Call) -> str:
        x, out, n = c.args[0], c.out, math.prod(c.in_shapes[0])
        if not n:
            return f"np.asarray(np.nan, {c.text('{dtype0}')})"
        pick = f"max({out}_valid - 1, 0) // 2" if skip_nan else \
            f"{out}_valid if {out}_valid < {n} else {(n - 1) // 2}"
        return (f"{out}_sorted = np.sort({x}.reshape(-1), kind='stable')\n"
                f"{out}_valid = int((~np.isnan({out}_sorted)).sum())\n"
                f"np.asarray({out}_sorted[{pick}])")
    return text


def _median_backward(c: Call) -> str:
    x, out = c.args[0], c.out
    return (f"{out}_hits = np.isnan({x}) if np.isnan({out}) else {x} == {out}\n"
            f"{c.g} * ({out}_hits / {out}_hits.sum()).astype({c.text('{dtype0}')})")


def _diag_embed_forward(c: Call) -> str:
    offset, dim1, dim2 = c.setting("offset"), c.setting("dim1"), c.setting("dim2")
    shape = c.in_shapes[0]
    n = shape[-1] + abs(offset) if shape else 1 + abs(offset)
    rest = list(shape[:-1])
    for d in sorted((dim1, dim2)):
        rest.insert(d, n)
    out = c.out
    return (f"{out}_full = np.zeros({source(tuple(rest))}, {c.text('{dtype0}')})\n"
            f"{out}_diag = np.diagonal({out}_full, {offset}, {dim1}, {dim2})\n"
            f"{out}_diag.flags.writeable = True\n{out}_diag[...] = {c.args[0]}\n{out}_full")


def _moved_last(g: str, ndim: int, to: int) -> str:
    """diagonals.py's `_moved_last`: the last dim of `g` moved to position `to`."""
    if to == ndim - 1:
        return g
    order = list(range(ndim - 1))
    order.insert(to, ndim - 1)
    return f"np.transpose({g}, {source(tuple(order))})"


def _diagonal_backward(c: Call) -> str:
    shape = c.in_shapes[0]
    offset, dim1, dim2 = c.setting("offset"), c.setting("dim1"), c.setting("dim2")
    length = np.diagonal(np.empty(shape, np.bool_), offset, dim1, dim2).shape[-1]
    key = ["slice(None)"] * len(shape)
    key[dim1] = f"np.arange({length}) + {max(-offset, 0)}"
    key[dim2] = f"np.arange({length}) + {max(offset, 0)}"
    at = min(dim1, dim2) if abs(dim1 - dim2) == 1 else 0
    g = _moved_last(c.g, len(shape) - 1, at)
    return scatter_add(c, g, shape, f"({', '.join(key)})")


def _unfold_forward(c: Call) -> str:
    x, shape = c.args[0], c.in_shapes[0]
    if not shape:
        return f"{x}.reshape(1)"
    d, size, step = c.setting("dimension"), c.setting("size"), c.setting("step")
    windows = list(shape)
    windows[d] = (shape[d] - size) // step + 1
    strides = f"{x}.strides[:{d}] + ({x}.strides[{d}] * {step},) + {x}.strides[{d + 1}:]"
    return (f"np.lib.stride_tricks.as_strided({x}, {source(tuple(windows) + (size,))}, "
            f"{strides} + ({x}.strides[{d}],), writeable=False)")


def _unfold_backward(c: Call) -> str:
    shape = c.in_shapes[0]
    if not shape:
        return f"{c.g}.reshape(())"
    d, size, step = c.setting("dimension"), c.setting("size"), c.setting("step")
    windows = (shape[d] - size) // step + 1
    key = ["slice(None)"] * len(shape)
    key[d] = f"np.arange({windows})[:, None] * {step} + np.arange({size})"
    g = _moved_last(c.g, len(shape) + 1, d + 1)
    return scatter_add(c, g, shape, f"({', '.join(key)})")


def _masked_scatter_forward(c: Call) -> str:
    out, shape = c.out, _broadcast(c)
    count = int(np.broadcast_to(c.setting("mask"), shape).sum())
    return (f"{out}_mask = np.broadcast_to({c.text('{mask}')}, {source(shape)})\n"
            f"{out}_new = np.broadcast_to({c.args[0]}, {source(shape)}).copy()\n"
            f"{out}_new[{out}_mask] = {c.args[1]}.reshape(-1)[:{count}]\n{out}_new")


def _broadcast(c: Call) -> tuple:
    return tuple(np.broadcast_shapes(c.in_shapes[0], np.shape(c.setting("mask"))))


def _masked_scatter_source(c: Call) -> str:
    out, size = c.out, math.prod(c.in_shapes[1])
    picked = f"np.broadcast_to({c.g}, {source(_broadcast(c))})[{out}_mask]"
    count = int(np.broadcast_to(c.setting("mask"), _broadcast(c)).sum())
    flat = scatter_add(c, picked, (size,), f"np.s_[0:{count}]")
    *lines, last = flat.split("\n")
    return "\n".join(lines + [f"{last}.reshape({source(c.in_shapes[1])})"])


def _masked_select_backward(c: Call) -> str:
    shape = _broadcast(c)
    return scatter_add(c, c.g, shape, f"np.broadcast_to({c.text('{mask}')}, {source(shape)})")


def _masked_value_backward(c: Call) -> str:
    count = int(np.broadcast_to(c.setting("mask"), c.shape).sum())
    shape = source(tuple(c.shape))
    picked = f"np.broadcast_to({c.g}, {shape})[np.broadcast_to({c.text('{mask}')}, {shape})]"
    from minigrad.teach.numpy_rules import total
    return total(f"{picked}", (count,), c.dtype)


_ZERO_WHERE_MASKED = "np.where({mask}, np.asarray(0).astype({g}.dtype), {g})"
_FILL = "np.where({mask}, np.asarray({value}).astype({dtype0}), {0})"
_VIEW = Rule("{0}.reshape({shape})", _reshaped_back)
_PICKED = Rule(_picked_forward, _picked_backward)

_SHAPING: dict[str, Rule] = {
    # -- views (ops/views.py)
    "ViewBackward0": _VIEW, "UnsafeViewBackward0": _VIEW, "ReshapeAliasBackward0": _VIEW,
    "TBackward0": Rule("{0}.T", "{g}.T"),
    "TransposeBackward0": Rule("{0}.swapaxes({d0}, {d1})", "{g}.swapaxes({d0}, {d1})"),
    "PermuteBackward0": Rule("np.transpose({0}, {dims})", "np.transpose({g}, {inverse})"),
    "UnsqueezeBackward0": Rule("np.expand_dims({0}, {dim})", "{g}.squeeze({dim})"),
    "SqueezeBackward0": Rule(_squeeze, _reshaped_back),
    "SqueezeBackward1": Rule(_squeeze, _reshaped_back),
    "SqueezeBackward4": Rule(_squeeze, _reshaped_back),
    "SqueezeBackward2": Rule(_squeeze, _reshaped_back),
    "ExpandBackward0": Rule("np.broadcast_to({0}, {shape})", "{g}"),
    "CloneBackward0": Rule("{0}.copy()", "{g}"),
    # -- indexing, joining, splitting (ops/index.py, shaping.py)
    "SelectBackward0": Rule(lambda c: f"{c.args[0]}[{key_text(c.setting('key'))}, ...]",
                            lambda c: scatter_add(c, c.g, c.in_shapes[0],
                                                  f"np.s_[{key_text(c.setting('key'))}]")),
    "SliceBackward0": Rule(lambda c: f"{c.args[0]}[{key_text(c.setting('key'))}]",
                           lambda c: scatter_add(c, c.g, c.in_shapes[0],
                                                 f"np.s_[{key_text(c.setting('key'))}]")),
    "IndexBackward0": Rule(lambda c: f"{c.args[0]}[{key_text(c.setting('key'))}]",
                           lambda c: scatter_add(c, c.g, c.in_shapes[0],
                                                 f"np.s_[{key_text(c.setting('key'))}]")),
    "CatBackward0": Rule(lambda c: f"np.concatenate([{', '.join(c.args)}], "
                                   f"axis={c.setting('dim')})", *_each(_cat_backward)),
    "StackBackward0": Rule(lambda c: f"np.stack([{', '.join(c.args)}], axis={c.setting('dim')})",
                           *_each(_stack_backward)),
    "SplitBackward0": Rule(_split_forward, _joined("concatenate"), many=True),
    "SplitWithSizesBackward0": Rule(_split_forward, _joined("concatenate"), many=True),
    "UnsafeSplitBackward0": Rule(_split_forward, _joined("concatenate"), many=True),
    "UnbindBackward0": Rule(_unbind_forward, _joined("stack"), many=True),
    "NarrowCopyBackward0": Rule(lambda c: f"{c.args[0]}[{_narrow_key(c)}].copy()",
                                lambda c: scatter_add(c, c.g, c.in_shapes[0],
                                                      f"np.s_[{_narrow_key(c)}]")),
    "FlipBackward0": Rule("np.flip({0}, {axes}).copy()", "np.flip({g}, {axes}).copy()"),
    "RollBackward0": Rule(lambda c: f"np.roll({c.args[0]}, {source(c.setting('shifts'))}, "
                                    f"axis={source(c.setting('axes') or None)})",
                          lambda c: f"np.roll({c.g}, "
                                    f"{source(tuple(-s for s in c.setting('shifts')))}, "
                                    f"axis={source(c.setting('axes') or None)})"),
    "RepeatBackward0": Rule(_repeat_forward, _repeat_backward),
    # -- gathering and masking (ops/gathering.py, masking.py)
    "IndexSelectBackward0": Rule(
        lambda c: f"{c.args[0]}[{_lead(c.setting('dim'))}{c.text('{index}')}]",
        lambda c: scatter_add(c, c.g, c.in_shapes[0],
                              f"np.s_[{_lead(c.setting('dim'))}{c.text('{index}')}]")),
    "GatherBackward0": Rule(_gather_forward,
                            lambda c: scatter_add(c, c.g, c.in_shapes[0], f"{c.out}_key")),
    "ScatterBackward1": Rule(_scatter_value_forward,
                             lambda c: f"{c.out}_g = {c.g}.copy()\n{c.out}_g[{c.out}_key] = 0.0"
                                       f"\n{c.out}_g",
                             jvp=linear_with(_scatter_value_forward, value=0.0)),
    "TakeBackward0": Rule(
        lambda c: f"{c.out}_key = ({c.text('{index}')} % {max(math.prod(c.in_shapes[0]), 1)},)"
                  f"\n{c.args[0]}.reshape(-1)[{c.out}_key]",
        lambda c: scatter_add(c, c.g, (math.prod(c.in_shapes[0]),), f"{c.out}_key",
                              reshape=c.in_shapes[0])),
    "MaskedFillBackward0": Rule(_FILL, _ZERO_WHERE_MASKED, jvp=linear_with(_FILL, value=0)),
    "IndexFillBackward0": Rule(_FILL, _ZERO_WHERE_MASKED, jvp=linear_with(_FILL, value=0)),
    "MaskedFillBackward1": Rule("np.where({mask}, {1}.astype({dtype0}), {0})",
                                _ZERO_WHERE_MASKED, _masked_value_backward),
    "MaskedSelectBackward0": Rule(
        lambda c: f"np.broadcast_to({c.args[0]}, {source(_broadcast(c))})"
                  f"[np.broadcast_to({c.text('{mask}')}, {source(_broadcast(c))})]",
        _masked_select_backward),
    "MaskedScatterBackward0": Rule(_masked_scatter_forward,
                                   "np.where({out}_mask, np.asarray(0).astype({g}.dtype), {g})",
                                   _masked_scatter_source),
    # -- the diagonals (ops/diagonals.py)
    "DiagonalBackward0": Rule("np.diagonal({0}, {offset}, {dim1}, {dim2})", _diagonal_backward),
    "DiagEmbedBackward0": Rule(_diag_embed_forward,
                               "np.diagonal({g}, {offset}, {dim1}, {dim2})"),
    "TrilBackward0": Rule("np.tril({0}, {diagonal})", "np.tril({g}, {diagonal})"),
    "TriuBackward0": Rule("np.triu({0}, {diagonal})", "np.triu({g}, {diagonal})"),
    "UnfoldBackward0": Rule(_unfold_forward, _unfold_backward),
    # -- picking along a dim (ops/sorting.py): the indices the op chose are its settings
    "SortBackward0": _PICKED, "SortBackward1": _PICKED, "TopkBackward0": _PICKED,
    "KthvalueBackward0": _PICKED, "MedianBackward1": _PICKED, "NanmedianBackward1": _PICKED,
    "ModeBackward0": _PICKED,
    "MedianBackward0": Rule(_median_forward(False), _median_backward, jvp=even_tangent),
    "NanmedianBackward0": Rule(_median_forward(True), _median_backward, jvp=even_tangent),
}
SHAPING = {name: rule if rule.jvp is not None else rule.with_jvp(LINEAR)
           for name, rule in _SHAPING.items()}

"""What a node saved, under PyTorch's names: `(x * y).grad_fn._saved_self` is x,
`x.exp().grad_fn._saved_result` the output, `x.pow(3).grad_fn._saved_exponent` 3.

minigrad's ops keep what their backward needs under their own names (`save_for_backward`'s
tuple, `ctx.p`, `ctx.in_shape`, the saved output); this table reads each as PyTorch names it,
for the ops a tutorial meets. A node's `__getattr__` (node.py) looks here, so a plain attribute
read costs nothing more. Tensors come through `unpack_saved()` / `output`: they are checked for
in-place changes, unpacked by saved-tensor hooks, and raise PyTorch's error once freed by a
backward; numbers and shapes stay readable after it, as in PyTorch.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad.autograd import tensor as _tensor


def _saved(i: int) -> Callable:
    def read(node: Any) -> Any:
        value = node.saved_tensor(i)
        if value is None or isinstance(value, _tensor.Tensor):
            return value
        return _as_tensor(value)  # `x * 3` saved 3: PyTorch shows tensor(3)
    return read


def _as_tensor(value: Any) -> Any:
    return _tensor.make(np.asarray(value), None, 0)


def _result(node: Any) -> Any:
    return node.output


def _attr(name: str, default: Any = None, convert: Callable = lambda v: v) -> Callable:
    return lambda node: convert(getattr(node, name, default))


def _setting(name: str) -> Callable:
    return lambda node: node.settings.get(name)


def _input_sizes(node: Any) -> tuple:
    """The shape of input 0 (what its gradient must have), from the edge into it."""
    nxt, nr = node.next_functions[0]
    return tuple(nxt.output_shape(nr))


def _saved_sizes(i: int) -> Callable:
    return lambda node: tuple(node.saved_values[i].array.shape) if node.saved_values else (
        node.unpack_saved())  # (freed: unpack_saved raises PyTorch's error)


_SELF_OTHER = {"_saved_self": _saved(0), "_saved_other": _saved(1)}
_SELF = {"_saved_self": _saved(0)}
_RESULT = {"_saved_result": _result}
_ALPHA = {"_saved_alpha": _attr("alpha", 1)}
_SIZES = {"_saved_self_sym_sizes": _input_sizes}
_DIM_KEEPDIM = {"_saved_dim": _attr("dims", None, tuple), "_saved_keepdim": _attr("keepdim")}
_NUMEL = {"_saved_self_sym_numel": lambda node: math.prod(_input_sizes(node))}
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}  # PyTorch's enum, which it shows

NAMES: dict[str, dict[str, Callable]] = {
    "AddBackward0": _ALPHA, "SubBackward0": _ALPHA, "RsubBackward1": _ALPHA,
    "MulBackward0": _SELF_OTHER, "DivBackward0": _SELF_OTHER, "MaximumBackward0": _SELF_OTHER,
    "MinimumBackward0": _SELF_OTHER,
    "PowBackward0": {**_SELF, "_saved_exponent": _attr("p")},
    "PowBackward1": {**_SELF, "_saved_exponent": _saved(1)},
    "PowBackward2": {**_RESULT, "_saved_self": _attr("base")},
    **{name: _RESULT for name in ("ExpBackward0", "TanhBackward0", "SigmoidBackward0",
                                  "ReluBackward0", "SqrtBackward0", "TanBackward0",
                                  "ReciprocalBackward0")},
    **{name: _SELF for name in ("LogBackward0", "AbsBackward0", "SinBackward0",
                                "CosBackward0")},
    "SumBackward0": _SIZES, "SumBackward1": {**_SIZES, **_DIM_KEEPDIM},
    "MeanBackward0": {**_SIZES, **_NUMEL}, "MeanBackward1": {**_SIZES, **_DIM_KEEPDIM, **_NUMEL},
    "MaxBackward1": {**_SELF, "_saved_result": _attr("result", convert=_as_tensor)},
    "MinBackward1": {**_SELF, "_saved_result": _attr("result", convert=_as_tensor)},
    "MaxBackward0": {**_SIZES, "_saved_dim": _setting("dim"), "_saved_keepdim": _attr("keepdim")},
    "MinBackward0": {**_SIZES, "_saved_dim": _setting("dim"), "_saved_keepdim": _attr("keepdim")},
    "AmaxBackward0": _DIM_KEEPDIM, "AminBackward0": _DIM_KEEPDIM,
    "LinalgVectorNormBackward0": {**_SELF, **_RESULT, "_saved_keepdim": _attr("keepdim")},
    "MmBackward0": {"_saved_self": _saved(0), "_saved_mat2": _saved(1),
                    "_saved_self_sym_sizes": _saved_sizes(0),
                    "_saved_mat2_sym_sizes": _saved_sizes(1)},
    "DotBackward0": {"_saved_self": _saved(0), "_saved_tensor": _saved(1)},
    "MvBackward0": {"_saved_self": _saved(0), "_saved_vec": _saved(1)},
    "BmmBackward0": {"_saved_self": _saved(0), "_saved_mat2": _saved(1)},
    "AddmmBackward0": {"_saved_mat1": _saved(0), "_saved_mat2": _saved(1),
                       "_saved_mat1_sym_sizes": _saved_sizes(0),
                       "_saved_mat2_sym_sizes": _saved_sizes(1),
                       "_saved_alpha": lambda node: 1, "_saved_beta": lambda node: 1},
    "SoftmaxBackward0": {**_RESULT, "_saved_dim": _attr("dim")},
    "LogSoftmaxBackward0": {**_RESULT, "_saved_dim": _attr("dim")},
    "ViewBackward0": _SIZES, "ExpandBackward0": _SIZES, "SelectBackward0": _SIZES,
    "SliceBackward0": _SIZES, "IndexBackward0": _SIZES,
    "SqueezeBackward1": {**_SIZES, "_saved_dim": lambda node: node.settings["dims"][0]},
    "PermuteBackward0": {"_saved_dims": _setting("dims")},
    "TransposeBackward0": {"_saved_dim0": _setting("d0"), "_saved_dim1": _setting("d1")},
    "UnsqueezeBackward0": {"_saved_dim": _setting("dim")},
    "CatBackward0": {"_saved_dim": _attr("dim")}, "StackBackward0": {"_saved_dim": _attr("dim")},
    "ClampBackward1": {**_SELF, "_saved_min": _attr("lo"), "_saved_max": _attr("hi")},
    "MseLossBackward0": {**_SELF, "_saved_target": _saved(1),
                         "_saved_reduction": _attr("reduction", convert=_REDUCTIONS.get)},
}


def names(node: Any) -> tuple:
    """The `_saved_*` names PyTorch's node of this kind has (what `dir(node)` lists)."""
    return tuple(NAMES.get(type(node).__name__, ()))


def read(node: Any, name: str) -> Any:
    """`node.<name>` for a `_saved_*` name; an AttributeError naming those it has otherwise."""
    names = NAMES.get(type(node).__name__, {})
    if name in names:
        return names[name](node)
    has = f" (it has {', '.join(sorted(names))})" if names else ""
    raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'{has}")

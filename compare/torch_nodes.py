"""How a PyTorch node reads in minigrad's words: its settings, constant inputs and rule.

A torch node (`MulBackward0`, `SumBackward1`, ...) keeps what its backward needs as
`_saved_<name>` attributes: tensors (`_saved_self`, `_saved_result`) and settings (`_saved_dim`,
`_saved_exponent`). `read(...)` turns them into the `attrs` minigrad's recorder would keep for
the same op (`dims`, `keepdim`, `p`, `key`, ...), so that `minigrad.teach` writes the same
source form (`t1.sum(dim=0)`) and gradient expressions; it finds the values of the constant
inputs (`x * 3`: the 3) and picks minigrad's derivative rule by node name. Nodes minigrad has no
op for (`ConvolutionBackward0`) keep PyTorch's own settings and no rule.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from compare.torch_nodes_layers import LAYER_SETTINGS
from compare.torch_nodes_shaping import SHAPING_SETTINGS
from minigrad.autograd.broadcast import sum_to_array
from minigrad.autograd.function import Function

UNSIGNED = 2 ** 64
REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}
_SIZES = ("_sym_sizes", "_sym_strides", "_sym_numel", "_sym_sizes_opt", "_sym_argsize_0",
          "_sym_argsize_1")

# torch's names of each input (as in `_saved_<name>`), in `next_functions` order, for the ops
# whose constant inputs may be saved; anything else is read as ("self", "other")
INPUT_NAMES: dict[str, tuple[str, ...]] = {
    "MvBackward0": ("self", "vec"),
    "DotBackward0": ("self", "tensor"),
    "MmBackward0": ("self", "mat2"),
    "BmmBackward0": ("self", "mat2"),
    "AddmmBackward0": ("self", "mat1", "mat2"),
    "PowBackward1": ("self", "exponent"),
    "MseLossBackward0": ("self", "target"),
    "NllLossBackward0": ("self", "target", "weight"),
    "BinaryCrossEntropyBackward0": ("self", "target", "weight"),
    "BinaryCrossEntropyWithLogitsBackward0": ("self", "target", "weight", "pos_weight"),
    "ConvolutionBackward0": ("input", "weight", "bias"),
}

# minigrad ops whose backward returns the gradient of these inputs in the output's (broadcast)
# shape and leaves the summing back to the engine (`sum_to`): their steps report summed dims
BROADCASTING: dict[str, tuple[int, ...] | None] = {  # None: every input
    "AddBackward0": None, "SubBackward0": None, "MulBackward0": None, "DivBackward0": None,
    "PowBackward1": None, "MaximumBackward0": None, "MinimumBackward0": None,
    "WhereBackward0": None, "ExpandBackward0": None, "AddmmBackward0": (0,),
}


def signed(value: Any) -> Any:
    """torch hands int64 settings to Python as unsigned (-1 reads 18446744073709551615)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value - UNSIGNED if value >= UNSIGNED // 2 else value
    if isinstance(value, tuple | list):
        return tuple(signed(v) for v in value)
    return value


def saved_values(node: Any) -> dict[str, Any]:
    """`{"self": tensor, "dim": 1, ...}`: every `_saved_*` a node exposes (unreadable: left out),
    as torch gives them (int64 settings unsigned: `signed` reads them)."""
    out = {}
    for attr in _saved_names(type(node)):
        try:
            out[attr[len("_saved_"):]] = getattr(node, attr)
        except RuntimeError:  # freed by an earlier backward, or modified in place
            continue
    if hasattr(node, "_forward_cls"):  # a user's torch.autograd.Function: ctx.saved_tensors
        try:
            out.update((f"saved[{i}]", t) for i, t in enumerate(node.saved_tensors))
        except RuntimeError:
            pass
    return out


@functools.cache
def _saved_names(node_type: type) -> tuple[str, ...]:
    """The `_saved_*` names of a node class. speed: read once per class, not with `dir` per
    node (a Transformer trace 7% faster)."""
    return tuple(a for a in dir(node_type) if a.startswith("_saved_"))


@dataclass
class Reading:
    """What `read` found: minigrad's settings, the constant inputs, the rule."""

    attrs: dict[str, Any] = field(default_factory=dict)
    consts: dict[int, Any] = field(default_factory=dict)  # input index -> value
    formula: str = ""


@dataclass
class NodeFacts:
    """What is known of one torch node before its backward runs."""

    name: str
    saved: dict[str, Any]
    in_shapes: list[tuple | None]  # per input (None: a constant)
    out_shape: tuple | None
    out_dtype: Any = None  # numpy dtype of the output
    in_dtypes: list[Any] = field(default_factory=list)
    call: Any = None  # the recorded forward call that made it (args, kwargs), if any
    formula: str = ""  # a user's torch.autograd.Function may say its rule, as minigrad's do
    dtype_name: str | None = None  # torch's name of the output's dtype ("bfloat16")


def read(facts: NodeFacts, is_tensor: Callable[[Any], bool]) -> Reading:
    """minigrad's reading of one torch node (see the module docstring)."""
    # (a reentrant checkpoint's node says what trace_torch cannot see: its words come first)
    own = facts.formula if facts.name == "CheckpointFunctionBackward" else ""
    reading = Reading(formula=own or formula_for(facts.name, facts.saved) or facts.formula)
    settings = SETTINGS.get(facts.name)
    if settings is not None:
        try:
            reading.attrs = settings(facts)
        except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
            reading.attrs = {}
    elif not reading.formula:  # PyTorch's own op: keep its settings as they are
        reading.attrs = {k: v for k, v in facts.saved.items()
                         if not is_tensor(v) and not k.endswith(_SIZES) and _plain(v)}
    reading.consts = constants(facts, is_tensor)
    return reading


def constants(facts: NodeFacts, is_tensor: Callable[[Any], bool]) -> dict[int, Any]:
    """The values of the inputs that need no gradient, matched to the inputs by identity.

    The tensor a node saved for input i is that input; a number is taken from the forward
    call, as written (`x * 3`), where the call's arguments are in the node's input order. A
    call may be in another order (`F.linear(x, w, b)` makes `addmm(b, x, w.t())`): a tensor
    from the call is used only if it is the tensor the node saved, or nothing was saved.
    """
    free = [i for i, s in enumerate(facts.in_shapes) if s is None]
    if not free:
        return {}
    data: list = []
    if facts.call is not None:
        data = [a for a in facts.call[0] if is_tensor(a) or isinstance(a, int | float)
                and not isinstance(a, bool)]
        if facts.name == "WhereBackward0" and len(data) == len(facts.in_shapes) + 1:
            data = data[1:]  # where(condition, a, b): the condition is not an input
    in_order = len(data) == len(facts.in_shapes)
    names = INPUT_NAMES.get(facts.name, ("self", "other"))
    found: dict[int, Any] = {}
    for i in free:
        saved = facts.saved.get(names[i]) if i < len(names) else None
        called = data[i] if in_order else None
        if called is not None and not is_tensor(called):
            found[i] = called
        elif is_tensor(saved):
            found[i] = next((a for a in data if a is saved), saved)
        elif called is not None:
            found[i] = called
        elif saved is not None:
            found[i] = saved
    return found


# -- minigrad's rule for a node name ---------------------------------------------------------
def _functions() -> dict[str, list[type]]:
    by_name: dict[str, list[type]] = {}
    stack = list(Function.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        node = cls.__dict__.get("_node_class")
        if node is not None and node.formula:
            by_name.setdefault(node.__name__, []).append(cls)
    return by_name


_BY_NAME: dict[str, list[type]] | None = None


@functools.cache
def minigrad_function(name: str, scaled: bool = False) -> type | None:
    """minigrad's Function whose node is called `name` (add/sub: the alpha variant if
    `scaled`, that is alpha != 1)."""
    global _BY_NAME
    if _BY_NAME is None:
        import minigrad  # noqa: F401 - every op of minigrad is defined once it is imported

        _BY_NAME = _functions()
    found = _BY_NAME.get(name, [])
    if len(found) > 1:
        found = [c for c in found if ("alpha" in c.formula) == scaled] or found
    return min(found, key=lambda c: c.__qualname__) if found else None


def formula_for(name: str, saved: dict[str, Any] | None = None) -> str:
    function = minigrad_function(name, (saved or {}).get("alpha", 1) != 1)
    return function._node_class.formula if function is not None else ""


# -- settings, per node name, in minigrad's words ----------------------------------------------
def _ndim(facts: NodeFacts, i: int = 0) -> int:
    shape = facts.in_shapes[i] if i < len(facts.in_shapes) else None
    if shape is None:
        shape = facts.saved.get("self_sym_sizes")
    if shape is None:
        raise ValueError("input shape unknown")
    return len(shape)


def _dims(facts: NodeFacts) -> tuple[int, ...]:
    dim = facts.saved["dim"]
    if dim is None:  # linalg.vector_norm over everything
        return tuple(range(_ndim(facts)))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    n = max(_ndim(facts), 1)
    return tuple(sorted(d % n for d in dims)) if dims else tuple(range(_ndim(facts)))


def _reduced(facts: NodeFacts) -> dict[str, Any]:
    return {"dims": _dims(facts), "keepdim": bool(facts.saved.get("keepdim", False))}


def _alpha(facts: NodeFacts) -> dict[str, Any]:
    alpha = facts.saved.get("alpha", 1)
    return {"alpha": alpha} if alpha != 1 else {}


def _number(facts: NodeFacts) -> dict[str, Any]:
    """The number the op was called with, second (`1 - x` is rsub(x, 1); `x % 1.5`): PyTorch's
    node does not keep it."""
    if facts.call is None or len(facts.call[0]) < 2:
        return {}
    return {"c": facts.call[0][1]}


def _select(facts: NodeFacts) -> dict[str, Any]:
    dim = facts.saved["dim"] % _ndim(facts)
    return {"key": (slice(None),) * dim + (facts.saved["index"],)}


def _slice(facts: NodeFacts) -> dict[str, Any]:
    s = facts.saved
    dim = s["dim"] % _ndim(facts)
    start = s.get("start") or None
    end = s.get("end")
    end = None if end is None or end >= 2 ** 62 else end
    step = s.get("step", 1)
    return {"key": (slice(None),) * dim + (slice(start, end, None if step == 1 else step),)}


def _index(facts: NodeFacts) -> dict[str, Any]:
    key = tuple(slice(None) if t is None else np.asarray(t.detach().cpu().numpy())
                for t in facts.saved["indices"])
    return {"key": key[0] if len(key) == 1 else key}


def _cat(facts: NodeFacts) -> dict[str, Any]:
    dim = facts.saved["dim"] % _ndim(facts)
    return {"dim": dim, "sizes": [s[dim] if s is not None else None for s in facts.in_shapes]}


def _loss(facts: NodeFacts) -> dict[str, Any]:
    attrs: dict[str, Any] = {"reduction": REDUCTIONS.get(facts.saved.get("reduction"), "mean")}
    shape = facts.in_shapes[0] if facts.in_shapes else None
    if shape is not None and facts.name != "NllLossBackward0":
        attrs["numel"] = int(np.prod(shape, dtype=np.int64))
    if facts.name == "NllLossBackward0":
        attrs["single"] = shape is not None and len(shape) == 1
        for key in ("target", "weight"):  # (what a program of this backward needs)
            value = facts.saved.get(key)
            attrs[key] = None if value is None else value.detach().cpu().numpy().copy()
        attrs["ignore_index"] = facts.saved.get("ignore_index")
    return attrs


def _dtype_name(dtype: Any) -> str:
    return np.dtype(dtype).name


SETTINGS: dict[str, Callable[[NodeFacts], dict[str, Any]]] = {
    "AddBackward0": _alpha,
    "SubBackward0": _alpha,
    "RsubBackward1": _number,
    "RemainderBackward0": _number,
    "PowBackward0": lambda f: {"p": f.saved["exponent"]},
    "PowBackward2": lambda f: {"base": f.saved["self"]},
    "ClampBackward1": lambda f: {"lo": f.saved.get("min"), "hi": f.saved.get("max")},
    "ClampMinBackward0": lambda f: {"bound": f.saved["min"]},
    "ClampMaxBackward0": lambda f: {"bound": f.saved["max"]},
    "NormBackward1": _reduced,
    "WeightNormInterfaceBackward0": lambda f: {"dim": f.saved["dim"]},
    "EmbeddingBagBackward0": lambda f: {"mode": ("sum", "mean", "max")[f.saved["mode"]]},
    "PackPaddedSequenceBackward0": lambda f: {"batch_sizes": tuple(
        int(n) for n in np.asarray(f.saved["result1"]).ravel()),
        "batch_first": f.saved["batch_first"]},
    "SumBackward1": _reduced,
    "MeanBackward1": _reduced,
    "AmaxBackward0": _reduced,
    "AminBackward0": _reduced,
    "LinalgVectorNormBackward0": _reduced,
    "MaxBackward0": _reduced,
    "MinBackward0": _reduced,
    "SoftmaxBackward0": lambda f: {"dim": f.saved["dim"] % max(_ndim(f), 1)},
    "LogSoftmaxBackward0": lambda f: {"dim": f.saved["dim"] % max(_ndim(f), 1)},
    "TransposeBackward0": lambda f: {"d0": f.saved["dim0"], "d1": f.saved["dim1"]},
    "PermuteBackward0": lambda f: {"inverse": tuple(np.argsort(
        [d % _ndim(f) for d in f.saved["dims"]]))},
    "UnsqueezeBackward0": lambda f: {"dim": f.saved["dim"] % (_ndim(f) + 1)},
    "SqueezeBackward0": lambda f: {"dims": tuple(range(_ndim(f)))},
    "SqueezeBackward1": lambda f: {"dims": _dims(f)},
    "SqueezeBackward4": lambda f: {"dims": _dims(f)},
    "SelectBackward0": _select,
    "SliceBackward0": _slice,
    "IndexBackward0": _index,
    "CatBackward0": _cat,
    "StackBackward0": lambda f: {"dim": f.saved["dim"] % (_ndim(f) + 1)},
    "ToCopyBackward0": lambda f: {"dtype": f.dtype_name or _dtype_name(f.out_dtype),
                                  "in_dtype": np.dtype(f.in_dtypes[0])},
    "MseLossBackward0": _loss,
    "NllLossBackward0": _loss,
    "BinaryCrossEntropyBackward0": _loss,
    "BinaryCrossEntropyWithLogitsBackward0": _loss,
    **SHAPING_SETTINGS,
    **LAYER_SETTINGS,
}


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | float | str):
        return True
    return isinstance(value, tuple | list) and all(_plain(v) for v in value)


def summed_dims(facts: NodeFacts, grads: list) -> list[tuple | None]:
    """Dims minigrad's engine sums away for the same op (PyTorch's op sums them itself)."""
    which = BROADCASTING.get(facts.name, ())
    out: list[tuple | None] = [None] * len(grads)
    if facts.out_shape is None:
        return out
    for i, (shape, g) in enumerate(zip(facts.in_shapes, grads)):
        if g is None or shape is None or shape == facts.out_shape:
            continue
        if which is None or i in which:
            out[i] = sum_to_array(np.empty(facts.out_shape, dtype=bool), shape)[1]
    return out

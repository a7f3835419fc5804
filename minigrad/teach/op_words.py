"""Each node, by its PyTorch name, put into words: source form, gradient expressions, remarks.

Everything here works from plain values (argument labels such as `"x"` or `"3"`, a dict of
the settings forward kept, the output shape), never from live nodes, so that a Trace built
from PyTorch's own graph (compare/) is narrated by the same table.

An op missing from a table still reads well: `MseLossBackward0(t4, target)` as source, and
the gradient it sends shown as a value without an expression.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

Attrs = Mapping[str, Any]


# -- source forms: how the forward op reads in code -------------------------------------------
def _dims(attrs: Attrs, key: str = "dims") -> str:
    dims = attrs[key]
    dims = tuple(dims) if isinstance(dims, tuple | list) else (dims,)
    text = str(dims[0]) if len(dims) == 1 else str(tuple(int(d) for d in dims))
    return f"dim={text}" + (", keepdim=True" if attrs.get("keepdim") else "")


def _shape(shape: tuple | None) -> str:
    if shape is None:
        raise ValueError("shape unknown")
    return ", ".join(str(n) for n in shape) if shape else "()"


def _key(key: Any) -> str:
    """`a[key]` as written: `:`, `1:3`, `0`, `None`, `...`, index lists."""
    parts = key if isinstance(key, tuple) else (key,)
    out = []
    for k in parts:
        if isinstance(k, slice):
            text = ("" if k.start is None else str(k.start)) + ":" + (
                "" if k.stop is None else str(k.stop))
            out.append(text + (f":{k.step}" if k.step is not None else ""))
        elif k is None or k is Ellipsis:
            out.append("None" if k is None else "...")
        elif isinstance(k, np.ndarray):
            out.append("mask" if k.dtype == bool else (str(k.tolist()) if k.size <= 6 else "idx"))
        else:
            out.append(str(k))
    return ", ".join(out)


def _method(method: str) -> Callable[[list[str], Attrs, Any], str]:
    return lambda a, k, s: f"{a[0]}.{method}()"


def _reduction(method: str) -> Callable[[list[str], Attrs, Any], str]:
    return lambda a, k, s: f"{a[0]}.{method}({_dims(k)})"


def _binary(op: str) -> Callable[[list[str], Attrs, Any], str]:
    return lambda a, k, s: f"{a[0]} {op} {a[1]}"


def _call(fn: str) -> Callable[[list[str], Attrs, Any], str]:
    return lambda a, k, s: f"{fn}({', '.join(a)})"


def _clamp(a: list[str], k: Attrs, s: Any) -> str:
    bounds = [f"min={k['lo']}" if k.get("lo") is not None else "",
              f"max={k['hi']}" if k.get("hi") is not None else ""]
    return f"{a[0]}.clamp({', '.join(b for b in bounds if b)})"


def _permute(a: list[str], k: Attrs, s: Any) -> str:
    dims = tuple(int(d) for d in np.argsort(k["inverse"]))
    return f"{a[0]}.permute{dims}" if len(dims) != 1 else f"{a[0]}.permute({dims[0]})"


def _step_op(a: list[str], k: Attrs, s: Any) -> str:
    """`x // y`, `x // 2`, `7 // x`, `7.5 % x`: the ops PyTorch records as NotImplemented."""
    op = k["op"]
    if "c" not in k:
        return f"{a[0]} {op} {a[1]}"
    return f"{k['c']} {op} {a[0]}" if k.get("reverse") else f"{a[0]} {op} {k['c']}"


def _pieces(fn: str) -> Callable[[list[str], Attrs, Any], str]:
    return lambda a, k, s: f"{fn}([{', '.join(a)}], dim={k.get('dim', 0)})"


# The ops PyTorch records as NotImplemented, by the name of minigrad's Function: the symbol and
# whether the number comes first (`7 // x`). The node's name does not say which op it was.
STEP_OPS: dict[str, tuple[str, bool]] = {
    "FloorDivide": ("//", False), "FloorDivideScalar": ("//", False),
    "NumberFloorDivide": ("//", True), "NumberRemainder": ("%", True),
}


def narrated_settings(name: str, function: str, settings: Attrs) -> dict[str, Any]:
    """An op's settings (what `Function.apply` got besides its inputs) with what the source
    forms read that follows from them: Permute's `inverse`, a reduction over one `dim` as
    `dims`, the target dtype's name, and for the step ops (by `function`, the name of the
    Function) their symbol `op` and whether the number comes first (`reverse`)."""
    attrs = dict(settings)
    if name == "PermuteBackward0" and "dims" in attrs:
        attrs["inverse"] = tuple(np.argsort(attrs["dims"]))
    elif name in ("MaxBackward0", "MinBackward0") and "dim" in attrs:
        attrs["dims"] = (attrs["dim"],)
    elif name == "ToCopyBackward0" and "dtype" in attrs:
        attrs["dtype"] = np.dtype(attrs["dtype"]).name
    elif function in STEP_OPS:
        attrs["op"], reverse = STEP_OPS[function]
        if reverse:
            attrs["reverse"] = True
    return attrs


SOURCE_FORMS: dict[str, Callable[[list[str], Attrs, Any], str]] = {
    "AddBackward0": _binary("+"),
    "SubBackward0": _binary("-"),
    "MulBackward0": _binary("*"),
    "DivBackward0": _binary("/"),
    "RsubBackward1": lambda a, k, s: f"{k['c']} - {a[0]}",
    "NegBackward0": lambda a, k, s: f"-{a[0]}",
    "PowBackward0": lambda a, k, s: f"{a[0]} ** {k['p']}",
    "PowBackward1": _binary("**"),
    "PowBackward2": lambda a, k, s: f"{k['base']} ** {a[0]}",
    "RemainderBackward0": lambda a, k, s: f"{a[0]} % {k['c']}",
    "RemainderBackward1": _binary("%"),
    "NotImplemented": _step_op,
    "ReciprocalBackward0": _method("reciprocal"),
    **{f"{m.capitalize()}Backward0": _method(m) for m in
       ("exp", "log", "sqrt", "abs", "tanh", "sigmoid", "relu", "sin", "cos", "clone", "t")},
    "MaximumBackward0": _call("maximum"),
    "MinimumBackward0": _call("minimum"),
    "WhereBackward0": lambda a, k, s: f"where(condition, {a[0]}, {a[1]})",
    "ClampBackward1": _clamp,
    "SumBackward0": _method("sum"),
    "SumBackward1": _reduction("sum"),
    "MeanBackward0": _method("mean"),
    "MeanBackward1": _reduction("mean"),
    "MaxBackward1": _method("max"),
    "MinBackward1": _method("min"),
    "MaxBackward0": _reduction("max"),
    "MinBackward0": _reduction("min"),
    "AmaxBackward0": _reduction("amax"),
    "LinalgVectorNormBackward0": _reduction("norm"),
    "AminBackward0": _reduction("amin"),
    "SumToSizeBackward0": lambda a, k, s: f"{a[0]}.sum_to_size({_shape(s)})",
    "DotBackward0": _binary("@"),
    "MvBackward0": _binary("@"),
    "MmBackward0": _binary("@"),
    "BmmBackward0": _binary("@"),
    "AddmmBackward0": lambda a, k, s: f"{a[1]} @ {a[2]} + {a[0]}",
    "ViewBackward0": lambda a, k, s: f"{a[0]}.view({_shape(s)})",
    "UnsafeViewBackward0": lambda a, k, s: f"{a[0]}.reshape({_shape(s)})",
    "TransposeBackward0": lambda a, k, s: f"{a[0]}.transpose({k['d0']}, {k['d1']})",
    "PermuteBackward0": _permute,
    "UnsqueezeBackward0": lambda a, k, s: f"{a[0]}.unsqueeze({k['dim']})",
    "SqueezeBackward0": _method("squeeze"),
    "SqueezeBackward1": _method("squeeze"),
    "SqueezeBackward4": _method("squeeze"),
    "ExpandBackward0": lambda a, k, s: f"{a[0]}.expand({_shape(s)})",
    "SelectBackward0": lambda a, k, s: f"{a[0]}[{_key(k['key'])}]",
    "SliceBackward0": lambda a, k, s: f"{a[0]}[{_key(k['key'])}]",
    "IndexBackward0": lambda a, k, s: f"{a[0]}[{_key(k['key'])}]",
    "CatBackward0": _pieces("cat"),
    "StackBackward0": _pieces("stack"),
    "SoftmaxBackward0": lambda a, k, s: f"{a[0]}.softmax(dim={k['dim']})",
    "LogSoftmaxBackward0": lambda a, k, s: f"{a[0]}.log_softmax(dim={k['dim']})",
    "ToCopyBackward0": lambda a, k, s: f"{a[0]}.to({k['dtype']})",
    "MseLossBackward0": _call("mse_loss"),
    "NllLossBackward0": lambda a, k, s: f"nll_loss({a[0]}, target)",
    "BinaryCrossEntropyBackward0": _call("binary_cross_entropy"),
    "BinaryCrossEntropyWithLogitsBackward0": _call("binary_cross_entropy_with_logits"),
}


def source_form(name: str, args: list[str], attrs: Attrs | None = None,
                shape: tuple | None = None) -> str:
    """`x * y`, `t1.sum()`, `t2 * 3`: the forward op as code, from its node name.

    `args` are the labels of the inputs (constants already written as values), `attrs` the
    settings forward kept (`dims`, `keepdim`, `p`, ...), `shape` the output shape. Unknown
    nodes, or known ones whose settings are missing, read `MulBackward0(a, b)`.
    """
    form = SOURCE_FORMS.get(name)
    if form is not None:
        try:
            return form(list(args), attrs or {}, shape)
        except (KeyError, IndexError, TypeError, ValueError):
            pass
    if name.endswith("Backward") and name != "Backward":  # a user's Function: Cube.apply(x)
        return f"{name[:-len('Backward')]}.apply({', '.join(args)})"
    return f"{name}({', '.join(args)})"


def formula_for(name: str) -> str:
    """The derivative rule of minigrad's op whose node is called `name` ("" if none is).

    Lets a Trace recorded elsewhere (PyTorch's `MulBackward0`) show minigrad's rule.
    """
    from minigrad.function import Function

    stack = list(Function.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        node = cls.__dict__.get("_node_class")
        if node is not None and node.__name__ == name and node.formula:
            return node.formula
    return ""


# -- the gradient each input receives, written with the incoming gradient `{g}` ---------------
# Placeholders: {g} the incoming gradient, {0} {1} ... the inputs' labels, {out} the output's
# label, {p} the exponent, {n} how many elements were averaged. None: shown as a value only.
GRADIENTS: dict[str, tuple[str | None, ...]] = {
    "AddBackward0": ("{g}", "{g}"),
    "SubBackward0": ("{g}", "-{g}"),
    "MulBackward0": ("{g} * {1}", "{g} * {0}"),
    "DivBackward0": ("{g} / {1}", "-{g} * {0} / {1}**2"),
    "RsubBackward1": ("-{g}",),
    "NegBackward0": ("-{g}",),
    "PowBackward1": ("{g} * {1} * {0}**({1} - 1)", "{g} * {0}**{1} * ln({0})"),
    "PowBackward2": ("{g} * {out} * ln({base})",),
    "RemainderBackward0": ("{g}",),
    "RemainderBackward1": ("{g}", "-{g} * floor({0} / {1})"),
    "ReciprocalBackward0": ("-{g} * {out}**2",),
    "ExpBackward0": ("{g} * {out}",),
    "LogBackward0": ("{g} / {0}",),
    "SqrtBackward0": ("{g} / (2 * {out})",),
    "AbsBackward0": ("{g} * sign({0})",),
    "TanhBackward0": ("{g} * (1 - {out}**2)",),
    "SigmoidBackward0": ("{g} * {out} * (1 - {out})",),
    "ReluBackward0": ("{g} * ({0} > 0)",),
    "SinBackward0": ("{g} * cos({0})",),
    "CosBackward0": ("-{g} * sin({0})",),
    "MeanBackward0": ("{g} / {n}",),
    "MeanBackward1": ("{g} / {n}",),
    "DotBackward0": ("{g} * {1}", "{g} * {0}"),
    "MvBackward0": ("outer({g}, {1})", "{0}.T @ {g}"),
    "MmBackward0": ("{g} @ {1}.T", "{0}.T @ {g}"),
    "BmmBackward0": ("{g} @ {1}.mT", "{0}.mT @ {g}"),
    "AddmmBackward0": ("{g}", "{g} @ {2}.T", "{1}.T @ {g}"),
}


def gradient_expression(name: str, index: int, args: list[str], g: str, out: str,
                        attrs: Attrs | None = None, n: Any = None) -> str | None:
    """What input `index` receives, as an expression over the incoming gradient `g`."""
    attrs = attrs or {}
    if name == "PowBackward0" and "p" in attrs:
        p = attrs["p"]
        lower = p - 1 if isinstance(p, int | float) else f"({p} - 1)"
        power = "" if lower == 1 else f"**{lower}"
        return f"{g} * {p} * {args[0]}{power}"
    forms = GRADIENTS.get(name)
    if forms is None or index >= len(forms) or forms[index] is None:
        return None
    values = {"g": g, "out": out, "n": n, **{k: v for k, v in attrs.items() if k == "base"}}
    try:
        return forms[index].format(*args, **values)
    except (IndexError, KeyError):
        return None


# -- derivative rules when an input is a constant (`t2 * 3`) ------------------------------------
# Ops where a number may stand in place of a tensor input; the rule is then said for c.
TAKES_CONSTANTS = frozenset({
    "AddBackward0", "SubBackward0", "MulBackward0", "DivBackward0", "MaximumBackward0",
    "MinimumBackward0", "PowBackward1", "WhereBackward0", "AddmmBackward0",
})
CONSTANT_RULES: dict[tuple[str, int], str] = {
    ("MulBackward0", 1): r"d(a*c)/da = c",
    ("MulBackward0", 0): r"d(c*b)/db = c",
    ("AddBackward0", 1): r"d(a+c)/da = 1",
    ("AddBackward0", 0): r"d(c+b)/db = 1",
    ("SubBackward0", 1): r"d(a-c)/da = 1",
    ("SubBackward0", 0): r"d(c-b)/db = -1",
    ("DivBackward0", 1): r"d(a/c)/da = 1/c",
    ("DivBackward0", 0): r"d(c/b)/db = -c/b^2",
}


def uses_c(name: str, constant: list[bool]) -> bool:
    """True when `rule` rewrites the formula with `c` standing for the constant input."""
    return constant.count(True) == 1 and (name, constant.index(True)) in CONSTANT_RULES


def rule(name: str, formula: str, constant: list[bool]) -> str:
    """The node's formula, keeping only the parts for inputs that get a gradient."""
    if not any(constant) or all(constant):
        return formula
    if uses_c(name, constant):
        return CONSTANT_RULES[(name, constant.index(True))]
    parts = [p.strip() for p in formula.split(";")]
    if len(parts) == len(constant):
        return " ;  ".join(p for p, c in zip(parts, constant) if not c)
    return formula


# -- what a teacher adds after the rule ------------------------------------------------------
NOTES: dict[str, tuple[str, str]] = {
    "SumBackward0": ("the gradient is copied to every element", "梯度原样复制给每个元素"),
    "SumBackward1": ("the gradient is copied along the summed dims", "梯度沿求和的维度复制"),
    "MeanBackward0": ("each element gets 1/n of it, n = {n}", "每个元素分到 1/n，n = {n}"),
    "MeanBackward1": ("each element gets 1/n of it, n = {n}", "每个元素分到 1/n，n = {n}"),
    "ExpandBackward0": ("the copies' gradients are added back together",
                        "各个副本的梯度加回到一起"),
    "ReluBackward0": ("the gradient passes only where the input was positive",
                      "只有输入为正的位置才让梯度通过"),
    "ViewBackward0": ("only the shape changes", "只改变形状"),
    "UnsafeViewBackward0": ("only the shape changes", "只改变形状"),
    "CloneBackward0": ("a copy passes the gradient unchanged", "复制操作把梯度原样传回"),
    "MaxBackward1": ("only the largest element gets the gradient", "只有最大的元素得到梯度"),
    "MinBackward1": ("only the smallest element gets the gradient", "只有最小的元素得到梯度"),
}


def note(name: str, lang: str, n: Any = None) -> str:
    """The remark for node `name` in `lang` ("en"/"zh"), or ""."""
    texts = NOTES.get(name)
    if texts is None:
        return ""
    text = texts[1] if lang == "zh" else texts[0]
    if "{n}" in text and n is None:
        return ""
    return text.format(n=n)

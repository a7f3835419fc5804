"""Each node, by its PyTorch name, put into words: source form, gradient expressions, remarks.

The words of an op are on its class, beside its `formula` (`ops/arithmetic.py`, `class Mul`):

    source = "{0} * {1}"                      # how the forward reads in code
    gradients = ("{g} * {1}", "{g} * {0}")    # what each input receives (None: a value only)

`{0} {1} ...` are the inputs' labels, `{g}` the incoming gradient, `{out}` the output's label,
`{n}` how many elements were averaged; `{c}`, `{p}`, `{dim}`, ... the op's settings, and
`PLACEHOLDERS` below what is written from them (`{dims}`: `dim=1, keepdim=True`). A source may
also be a function `(args, settings, shape) -> str`, or None (read `FillBackward2(x)`).
The class is found by node name (`op_class`); the remarks are in `phrases.NOTES`.

Everything here works from plain values (argument labels such as `"x"` or `"3"`, a dict of
the settings forward kept, the output shape), never from live nodes, so that a Trace built
from PyTorch's own graph (compare/) is narrated the same way, by PyTorch's node names.

An op without words still reads well: `ConvolutionBackward0(t4, w)` as source, and the
gradient it sends shown as a value without an expression.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

import minigrad.ops  # noqa: F401 - every op of minigrad is defined once it is imported
from minigrad.autograd.function import Function
from minigrad.teach.phrases import NOTES, RULES

Attrs = Mapping[str, Any]


# -- the placeholders a source form or gradient text may use besides the inputs {0} {1} ... ---
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


def _permutation(attrs: Attrs) -> str:
    dims = tuple(int(d) for d in np.argsort(attrs["inverse"]))
    return str(dims) if len(dims) != 1 else f"({dims[0]})"


def _bounds(attrs: Attrs) -> str:
    bounds = [f"min={attrs['lo']}" if attrs.get("lo") is not None else "",
              f"max={attrs['hi']}" if attrs.get("hi") is not None else ""]
    return ", ".join(b for b in bounds if b)


def _power(attrs: Attrs) -> str:
    p = attrs["p"]
    lower = p - 1 if isinstance(p, int | float) else f"({p} - 1)"
    return "" if lower == 1 else f"**{lower}"


# Written from the settings, the output shape and the inputs' labels; a setting of the same
# name (`dims`, `key`) is read through these. Any other setting is used as it is (`{c}`, `{p}`).
PLACEHOLDERS: dict[str, Callable[[Attrs, Any, list[str]], str]] = {
    "dims": lambda k, s, a: _dims(k),  # dim=1, keepdim=True
    "shape": lambda k, s, a: _shape(s),  # the output shape: 2, 3
    "key": lambda k, s, a: _key(k["key"]),  # 0, 1:3, mask
    "permutation": lambda k, s, a: _permutation(k),  # (1, 0)
    "bounds": lambda k, s, a: _bounds(k),  # min=0, max=1
    "args": lambda k, s, a: ", ".join(a),  # every input
    "power": lambda k, s, a: _power(k),  # **(p-1) as written after a, nothing when p-1 is 1
}


_FORMAT = string.Formatter()  # `{0}` from the inputs' labels, `{name}` from a _Values


class _Values(Mapping):
    """What a text is filled with besides the inputs: `first`, then the placeholders above (written
    only when the text asks for them), then the settings."""

    def __init__(self, attrs: Attrs, shape: Any, args: list[str], first: Attrs | None = None
                 ) -> None:
        self.attrs, self.shape, self.args, self.first = attrs, shape, args, first or {}

    def __getitem__(self, name: str) -> Any:
        if name in self.first:
            return self.first[name]
        if name in PLACEHOLDERS:
            return PLACEHOLDERS[name](self.attrs, self.shape, self.args)
        return self.attrs[name]

    def __iter__(self) -> Any:
        return iter(self.attrs)

    def __len__(self) -> int:
        return len(self.attrs)


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


# -- each op's words, on its class -------------------------------------------------------------
def _walk() -> Iterator[type]:
    stack = list(Function.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        yield cls


def _node_name(cls: type) -> str | None:
    node = cls.__dict__.get("_node_class")
    return node.__name__ if node is not None else None


@functools.cache
def _built_in() -> dict[str, type]:
    """minigrad's op class for each node name. Where classes share a name (Add and AddScaled
    make AddBackward0), the first by name (Add), as `compare.torch_nodes` picks."""
    found: dict[str, type] = {}
    for cls in sorted(_walk(), key=lambda c: c.__qualname__):
        if "node_name" in cls.__dict__ and cls.__module__.startswith("minigrad."):
            found.setdefault(cls.node_name, cls)
    return found


def op_class(name: str) -> type | None:
    """The Function whose node is called `name`: minigrad's op, else a user's (the first found
    with a formula; they may be defined, and redefined, at any time, so they are not kept)."""
    cls = _built_in().get(name)
    if cls is None:
        cls = next((c for c in _walk() if _node_name(c) == name and c._node_class.formula),
                   None)
    return cls


def _text(name: str, attr: str) -> Any:
    return getattr(op_class(name), attr, None)


def source_form(name: str, args: list[str], attrs: Attrs | None = None,
                shape: tuple | None = None) -> str:
    """`x * y`, `t1.sum()`, `t2 * 3`: the forward op as code, from its class's `source`.

    `args` are the labels of the inputs (constants already written as values), `attrs` the
    settings forward kept (`dims`, `keepdim`, `p`, ...), `shape` the output shape. Unknown
    nodes, or known ones whose settings are missing, read `MulBackward0(a, b)`.
    """
    form, args, attrs = _text(name, "source"), list(args), attrs or {}
    try:
        if isinstance(form, str):
            return _FORMAT.vformat(form, args, _Values(attrs, shape, args))
        if callable(form):
            return form(args, attrs, shape)
    except (KeyError, IndexError, TypeError, ValueError):
        pass
    if name.endswith("Backward") and name != "Backward":  # a user's Function: Cube.apply(x)
        return f"{name[:-len('Backward')]}.apply({', '.join(args)})"
    return f"{name}({', '.join(args)})"


def formula_for(name: str) -> str:
    """The derivative rule of minigrad's op whose node is called `name` ("" if none is).

    Lets a Trace recorded elsewhere (PyTorch's `MulBackward0`) show minigrad's rule.
    """
    cls = op_class(name)
    return cls._node_class.formula if cls is not None else ""


def gradient_expression(name: str, index: int, args: list[str], g: str, out: str,
                        attrs: Attrs | None = None, n: Any = None) -> str | None:
    """What input `index` receives, as an expression over the incoming gradient `g`: the
    class's `gradients[index]` ({g} the incoming gradient, {out} the output's label, {n} how
    many elements were averaged). None: shown as a value only."""
    forms = _text(name, "gradients") or ()
    if index >= len(forms) or forms[index] is None:
        return None
    try:
        return _FORMAT.vformat(forms[index], args,
                               _Values(attrs or {}, None, args, {"g": g, "out": out, "n": n}))
    except (IndexError, KeyError, TypeError, ValueError):
        return None


def fill(text: str, args: list[str], attrs: Attrs | None, shape: Any, first: Attrs
         ) -> str | None:
    """An op's text (a source, gradient or `tangent` form) with its placeholders filled: `{0}`
    ... the inputs' labels, then `first`, the settings and PLACEHOLDERS; None if it does not
    fit (the narration shows a value alone then)."""
    try:
        return _FORMAT.vformat(text, args, _Values(attrs or {}, shape, args, first))
    except (IndexError, KeyError, TypeError, ValueError):
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


def rule(name: str, formula: str, constant: list[bool], lang: str = "en") -> str:
    """The node's formula, keeping only the parts for inputs that get a gradient; in `lang`
    (a rule with English words in it is said in Chinese from `phrases.RULES["zh"]`)."""
    if lang == "zh":
        formula = RULES["zh"].get(formula, formula)
    if not any(constant) or all(constant):
        return formula
    if uses_c(name, constant):
        return CONSTANT_RULES[(name, constant.index(True))]
    parts = [p.strip() for p in formula.split(";")]
    if len(parts) == len(constant):
        return " ;  ".join(p for p, c in zip(parts, constant) if not c)
    return formula


# -- what a teacher adds after the rule ------------------------------------------------------
def note(name: str, lang: str, n: Any = None) -> str:
    """The remark for node `name` in `lang` ("en"/"zh") from `phrases.NOTES`, or ""."""
    text = NOTES["zh" if lang == "zh" else "en"].get(name)
    if text is None or ("{n}" in text and n is None):
        return ""
    return text.format(n=n)

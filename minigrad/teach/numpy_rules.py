"""Each op's forward and backward as numpy text: what `Trace.to_python()` writes for a node.

A `Rule` per node name (`MulBackward0`), in the tables beside this file (`numpy_rules_math`,
`numpy_rules_shaping`, `numpy_rules_layers`; `RULES` here joins them):

    "MulBackward0": Rule("{0} * {1}", "{g} * {1}", "{g} * {0}"),

the forward as an expression over the inputs `{0}`, `{1}`, ..., then what each input
receives, over the incoming gradient `{g}`, the inputs and the output `{out}`. A text may
use the node's settings by name (`{dims}`, `{p}`: as Python source) and `{shape}`,
`{shape0}`, `{ndim0}`, `{dtype}` (the output's and inputs' shapes, numpy's dtype). A text
with several lines is statements then, on its last line, the expression; a text may also be
a function of the `Call` (for the ops whose numpy depends on the settings). A gradient text
of None: that input gets none.

The numpy is minigrad's own, operation for operation (the same numpy calls in the same
order), so a program run gives every gradient bit for bit (tests/teach/test_program.py);
where minigrad sums with a float64 total (`surface/summation.py`), `total(...)` writes so.
The engine's own part, undoing broadcasting and adding where paths meet, is written by
`minigrad.teach.program`. An op without a rule is said so in the program, never guessed.

`jvp=` is the op's forward-mode rule (its `jvp` in minigrad/ops), the numpy of its output's
tangent over the inputs' tangents `{t0}`, `{t1}`, ... (a tangent an input does not have is
zeros: `np.zeros_like(x)`; `Call.moves(i)` says whether it has one, for the rules that skip
a product with no tangent as minigrad's do), or one of two rules read off the op's other
texts: `LINEAR` (an op linear in its inputs: its forward, run on the tangents) and
`ELEMENTWISE` (a one-input elementwise op: its backward, the tangent as the gradient).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from minigrad.surface.summation import LONG
from minigrad.teach.program_values import dtype_text, source

Text = str | Callable[["Call"], str] | None


class Derived:
    """A JVP rule read off the op's other texts (`LINEAR`, `ELEMENTWISE`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


LINEAR = Derived("LINEAR")  # the op is linear in its tensor inputs: J v is the op of v
ELEMENTWISE = Derived("ELEMENTWISE")  # one input, elementwise: J v = J^T v, its backward of v


@dataclass(frozen=True)
class Rule:
    """An op's numpy: `forward` gives its output (`many`: a tuple of outputs), `backward[i]`
    what input i receives; `before`, statements its backward runs first (what the gradients
    of several inputs share); `covers(settings)`, whether it is written for these (None:
    for all); `jvp`, its output's tangent in forward mode (None: not written yet)."""

    forward: Text
    backward: tuple[Text, ...] = ()
    many: bool = False
    before: Text = None
    # the settings it writes numpy for (None: all): any other is said so, not guessed
    covers: Callable[[Mapping], bool] | None = None
    jvp: Text | Derived = None

    def __init__(self, forward: Text, *backward: Text, many: bool = False,
                 before: Text = None, covers: Callable[[Mapping], bool] | None = None,
                 jvp: Text | Derived = None) -> None:
        object.__setattr__(self, "forward", forward)
        object.__setattr__(self, "backward", backward)
        object.__setattr__(self, "many", many)
        object.__setattr__(self, "before", before)
        object.__setattr__(self, "covers", covers)
        object.__setattr__(self, "jvp", jvp)

    def with_jvp(self, jvp: Text | Derived) -> Rule:
        """This rule, with `jvp` as its JVP text."""
        return Rule(self.forward, *self.backward, many=self.many, before=self.before,
                    covers=self.covers, jvp=jvp)


def tangent_text(rule: Rule, c: Call) -> str | None:
    """The numpy of the output's tangent for node `c` (its statements, then the expression;
    None: the rule has no JVP text). `c` knows the inputs' tangents (`Call.tangents`)."""
    if rule.jvp is LINEAR:
        text = c.linear().text(rule.forward)
        return first(text) if rule.many and text is not None else text
    if rule.jvp is ELEMENTWISE:
        return c.as_gradient().text(rule.backward[0])
    return c.text(rule.jvp)


def first(text: str) -> str:
    """A tuple-valued text's first item (`(...)[0]`), its statements kept."""
    *before, last = re.split(r"\n(?! )", text)
    return "\n".join(before + [f"({last})[0]"])


_FORMAT = string.Formatter()


class Call:
    """One node as the program sees it: its inputs as program text (`x`, `t1`, `3`), its
    output's variable, the gradients coming in, the settings, shapes and dtypes."""

    def __init__(self, args: list[str], out: str, grads: list[str | None], attrs: Mapping,
                 shape: tuple | None, dtype: np.dtype | None, in_shapes: list[tuple | None],
                 in_dtypes: list[np.dtype | None], names: Mapping | None = None,
                 transposed: list[bool] | None = None) -> None:
        self.args, self.out, self.grads, self.attrs = args, out, grads, dict(attrs)
        self.shape, self.dtype = shape, dtype
        self.in_shapes, self.in_dtypes = in_shapes, in_dtypes
        self.names = dict(names or {})  # settings the program holds in variables: their names
        # which inputs are laid out by columns (a matrix's `.T`): minigrad multiplies by those
        # in another order (ops/products.py: mat2_grad)
        self.transposed = transposed or [False] * len(args)
        self.tangents: list[str | None] = []  # forward mode: see `with_tangents`
        self.moving: list[bool] = []
        self.linear_args: list[str] = []
        self.tangent_out, self.tangent_dtype, self.tangent_dtypes = out, dtype, in_dtypes

    # -- forward mode ----------------------------------------------------------------------
    def with_tangents(self, tangents: list[str | None], moving: list[bool],
                      linear_args: list[str], out: str, dtype: np.dtype | None,
                      in_dtypes: list[np.dtype | None]) -> Call:
        """This node in forward mode: each input's tangent as program text (None: it has
        none, zeros then), whether it has one (`moving`), the inputs with each float tensor
        replaced by its tangent (`linear_args`), the variable and dtype of the output's
        tangent and the dtypes of the inputs' tangents."""
        self.tangents, self.moving, self.linear_args = tangents, moving, linear_args
        self.tangent_out, self.tangent_dtype, self.tangent_dtypes = out, dtype, in_dtypes
        return self

    def tangent(self, i: int) -> str:
        """Input i's tangent: its variable, `0.0` for a number, zeros for a tensor without
        one (as minigrad makes them for the rule)."""
        t = self.tangents[i] if i < len(self.tangents) else None
        return t if t is not None else f"np.zeros_like({self.args[i]})"

    def moves(self, i: int) -> bool:
        """Has input i a tangent (a rule may skip the products of one that has none)?"""
        return i < len(self.moving) and self.moving[i]

    def linear(self, **attrs: Any) -> Call:
        """The node run on its inputs' tangents (the JVP of an op linear in its inputs), with
        `attrs` changed (`value=0`)."""
        return Call(self.linear_args, self.tangent_out, [], {**self.attrs, **attrs},
                    self.shape, self.tangent_dtype, self.in_shapes, self.tangent_dtypes,
                    self.names, self.transposed)

    def as_gradient(self) -> Call:
        """The node with input 0's tangent as the gradient coming in (an elementwise op)."""
        call = Call(self.args, self.out, [self.tangent(0)], self.attrs, self.shape,
                    self.dtype, self.in_shapes, self.in_dtypes, self.names, self.transposed)
        return call.with_tangents(self.tangents, self.moving, self.linear_args,
                                  self.tangent_out, self.tangent_dtype, self.tangent_dtypes)

    @property
    def g(self) -> str:
        """The gradient of output 0."""
        return self.grad(0)

    def grad(self, k: int) -> str:
        """The gradient of output k; zeros of its shape where none came (as the engine
        materializes it for a node of several outputs)."""
        g = self.grads[k] if k < len(self.grads) else None
        return g if g is not None else f"np.zeros_like({self.out}[{k}])"

    def text(self, template: Text) -> str | None:
        """`template` filled in for this node."""
        if template is None or isinstance(template, str) and not template:
            return None
        if callable(template):
            return template(self)
        return _FORMAT.vformat(template, self.args, _Values(self))

    def setting(self, name: str, default: Any = None) -> Any:
        return self.attrs.get(name, default)


class _Values(Mapping):
    """What a template's `{name}` reads: g, out, shapes, dtype, then the settings as source."""

    def __init__(self, call: Call) -> None:
        self.call = call

    def __getitem__(self, name: str) -> str:
        c = self.call
        if name == "g":
            return c.g
        if name == "out":
            return c.out
        if name == "shape":
            return source(c.shape)
        if name == "dtype":
            return dtype_text(c.dtype)
        for key, read in _OF_INPUT.items():  # {shape0}, {ndim1}, {dtype0}: of an input
            if name.startswith(key) and name[len(key):].isdigit():
                return read(c, int(name[len(key):]))
        if name.startswith("g") and name[1:].isdigit():
            return c.grad(int(name[1:]))
        if name.startswith("t") and name[1:].isdigit():
            return c.tangent(int(name[1:]))
        if name in c.names:
            return c.names[name]
        return source(c.attrs[name])

    def __iter__(self) -> Any:
        return iter(self.call.attrs)

    def __len__(self) -> int:
        return len(self.call.attrs)


_OF_INPUT = {"shape": lambda c, i: source(c.in_shapes[i]),
             "ndim": lambda c, i: str(len(c.in_shapes[i])),
             "dtype": lambda c, i: dtype_text(c.in_dtypes[i])}


# -- what minigrad's numpy does that a plain numpy call would not -------------------------------
def total(expr: str, shape: tuple | None, dtype: Any, axis: Any = None, keepdims: bool = False
          ) -> str:
    """`expr.sum(axis=...)` as minigrad's `add_reduce` computes it: with a float64 running
    total, rounded back at the end, when a float32 (or float16) sum runs over more than
    `summation.LONG` rows (`shape`, `dtype`: those of `expr`)."""
    args = [] if axis is None else [f"axis={source(axis)}"]
    if keepdims:
        args.append("keepdims=True")
    if _long(shape, dtype, axis):
        return f"{expr}.sum({', '.join(args + ['dtype=np.float64'])}).astype({dtype_text(dtype)})"
    return f"{expr}.sum({', '.join(args)})"


def _long(shape: tuple | None, dtype: Any, axis: Any) -> bool:
    if shape is None or dtype is None or np.dtype(dtype).char not in "ef":
        return False
    if int(np.prod(shape, dtype=np.int64)) <= LONG:
        return False
    axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
    return max((shape[d] for d in axes), default=1) > LONG


def restored(c: Call, expr: str) -> str:
    """A reduced value given back the size-1 dims it lost (reduce.py's `_restore_dims`), so
    that it broadcasts against the input: `expr.reshape(...)`, or `expr` as it is."""
    dims, shape = c.setting("dims"), c.in_shapes[0]
    if c.setting("keepdim") or not dims or not shape:
        return expr
    full = list(shape)
    for d in dims:
        full[d] = 1
    return f"{expr}.reshape({source(tuple(full))})"


def sigmoid_lines(x: str, e: str, dtype: str) -> str:
    """minigrad's sigmoid of `x` (unary.py), split by sign so that exp never overflows."""
    return (f"{e} = np.exp(-np.abs({x}))\n"
            f"np.where({x} >= 0, 1 / (1 + {e}), {e} / (1 + {e})).astype({dtype}, copy=False)")


def linear_with(forward: Text, **attrs: Any) -> Callable[[Call], str | None]:
    """The JVP of an op linear in its inputs run with some settings changed (a fill with 0
    for the value): `forward` on the tangents, with `attrs`."""
    return lambda c: c.linear(**attrs).text(forward)


def even_tangent(c: Call) -> str:
    """The JVP of max, min, median of all: the tangent of the elements equal to the result,
    shared evenly among them (ops/extremes.py, sorting.py)."""
    out = c.out
    return (f"{out}_hits = {c.args[0]} == {out}\n" + total(
        f"({c.tangent(0)} * ({out}_hits / {out}_hits.sum()).astype({c.text('{dtype0}')}))",
        c.in_shapes[0], c.tangent_dtypes[0]))


def key_text(key: Any) -> str:
    """A numpy index as written between brackets: `:, 1`, `1:3`, `..., None`, an array."""
    parts = key if isinstance(key, tuple) else (key,)
    if not parts:
        return "()"
    out = []
    for k in parts:
        if isinstance(k, slice):
            text = f"{'' if k.start is None else k.start}:{'' if k.stop is None else k.stop}"
            out.append(text + ("" if k.step is None else f":{k.step}"))
        elif k is None or k is Ellipsis:
            out.append("None" if k is None else "...")
        else:
            out.append(source(k))
    return ", ".join(out)


def scatter_add(c: Call, g: str, shape: tuple, key: str, reshape: tuple | None = None) -> str:
    """minigrad's ScatterAdd (IndexPutBackward0): `g` added into zeros of `shape` at `key`
    (`np.add.at`: positions picked twice get both), then reshaped if asked."""
    out = f"{c.out}_grad_in"
    last = out if reshape is None else f"{out}.reshape({source(tuple(reshape))})"
    return (f"{out} = np.zeros({source(tuple(shape))}, dtype={dtype_text(c.dtype)})\n"
            f"np.add.at({out}, {key}, {g})\n{last}")

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
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from minigrad.surface.summation import LONG
from minigrad.teach.program_values import dtype_text, source

Text = str | Callable[["Call"], str] | None


@dataclass(frozen=True)
class Rule:
    """An op's numpy: `forward` gives its output (`many`: a tuple of outputs), `backward[i]`
    what input i receives; `before`, statements its backward runs first (what the gradients
    of several inputs share); `covers(settings)`, whether it is written for these (None:
    for all)."""

    forward: Text
    backward: tuple[Text, ...] = ()
    many: bool = False
    before: Text = None
    # the settings it writes numpy for (None: all): any other is said so, not guessed
    covers: Callable[[Mapping], bool] | None = None

    def __init__(self, forward: Text, *backward: Text, many: bool = False,
                 before: Text = None, covers: Callable[[Mapping], bool] | None = None) -> None:
        object.__setattr__(self, "forward", forward)
        object.__setattr__(self, "backward", backward)
        object.__setattr__(self, "many", many)
        object.__setattr__(self, "before", before)
        object.__setattr__(self, "covers", covers)


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

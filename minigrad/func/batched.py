"""`Batched`: what f sees inside `vmap` when minigrad can push the whole batch through at once.

A Batched tensor looks like one sample (`x.shape` is the shape of a sample, as in PyTorch's
BatchedTensor) and holds the whole batch in `value`, the batch dim first. Each operation it
supports has a *batching rule*: the same op on `value`, with the dims shifted past the batch
dim (`x.sum(0)` is `value.sum(1)`), the samples' shapes lined up for broadcasting (a sample of
shape (3,) times a (4, 3) tensor: the batch (B, 3) is viewed as (B, 1, 3)), or matmul's
1-d cases spelled out. Every rule is an ordinary op on `value`, so autograd records it and
`grad` can go through a vmap.

Anything without a rule (a module function such as `minigrad.exp(x)`, reading `x.array`,
`x.item()`, an `if` on a value, in-place ops, indexing with tensors, ...) raises
`NoBatchingRule`, and vmap runs f once per sample instead (vmap.py). Any misuse an op would
report is reported that way too: a rule never guesses (a dim out of range, say, falls back, and
the per-sample run raises the op's own error).

Nested vmaps nest Batched tensors: the inner one's `value` is the outer one (its `level`
says which vmap it belongs to), and the inner rules' ops run through the outer rules.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable
from typing import Any

from minigrad.autograd.tensor import Tensor
from minigrad.surface.size import Size


class NoBatchingRule(BaseException):  # noqa: N818 (a signal to vmap, not an error)
    """f reached something without a batching rule: vmap runs it per sample instead.
    (A BaseException so that an `except Exception:` inside f cannot swallow it and go on
    with a wrong value.)"""

    def __init__(self, op: str, named: bool = True, kind: str = "rule") -> None:
        super().__init__(op)
        # named: `op` says what had no rule; kind: "rule" (an op without one), "backward" or
        # "forward" (a transform whose pass runs per sample)
        self.op, self.named, self.kind = op, named, kind


def _no_rule(op: str | None = None) -> NoBatchingRule:
    """The signal, naming what had no rule (or, when `op` is None, the function that read
    what a Batched cannot give: `batching.describe` finds the public name)."""
    return NoBatchingRule(op or sys._getframe(2).f_code.co_name, named=op is not None)


# PyTorch's words for a batched tensor used after its vmap returned (kept by f in a closure, a
# list, or a checkpoint's saved inputs).
ESCAPED = ("Either your tensor may have escaped from inside a function being vmapped and this is "
           "a user error (see https://pytorch.org/functorch/stable/ux_limitations.html)")


class Batched(Tensor):
    """One sample's view of a whole batch (see the module docstring)."""

    def __init__(self, value: Any, level: Any) -> None:  # (no Tensor.__init__: no array)
        if not level.active:
            raise RuntimeError(ESCAPED)
        self.__dict__.update(value=value, level=level)

    def _no_rule_or_escaped(self, op: str | None = None, named: bool = True) -> BaseException:
        """vmap's signal to run per sample; PyTorch's error once the vmap is over."""
        if not self.level.active:
            return RuntimeError(ESCAPED)
        if op is None:  # (named by the function that read it: batching.describe)
            return NoBatchingRule(sys._getframe(2).f_code.co_name, named=False)
        return NoBatchingRule(op, named)

    # -- what f sees: one sample's metadata ----------------------------------------------
    array = property(lambda self: _raise(self._no_rule_or_escaped()))
    shape = property(lambda self: Size(self.value.shape[1:]))
    ndim = property(lambda self: self.value.ndim - 1)
    dtype = property(lambda self: self.value.dtype)
    requires_grad = property(lambda self: self.value.requires_grad)

    def dim(self) -> int:
        return self.value.ndim - 1

    def size(self, dim: int | None = None) -> Any:
        return self.shape if dim is None else self.shape[dim]

    def numel(self) -> int:
        return int(self.shape.numel())

    nelement = numel

    def is_floating_point(self) -> bool:
        return self.value.is_floating_point()

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __getattr__(self, name: str) -> Any:  # grad_fn, _version, ...: not per sample
        raise self._no_rule_or_escaped(name, named=not name.startswith("_"))

    def __repr__(self) -> str:
        raise self._no_rule_or_escaped("print")

    # -- helpers for the rules -----------------------------------------------------------
    def _same(self, out: Any) -> Batched:
        return Batched(out, self.level)

    def _dim(self, d: Any, extra: int = 0) -> int:
        """A sample's dim as the batch's dim (negative dims counted from the sample's end)."""
        n = self.ndim + extra
        if not isinstance(d, int) or not -max(n, 1) <= d < max(n, 1):
            raise _no_rule("a dim out of range")  # (the per-sample run raises the op's error)
        return d % max(n, 1) + 1

    def moved_to(self, d: int) -> Any:
        """The batch as one tensor, its batch dim at d (vmap's out_dims)."""
        n = self.ndim
        if not -(n + 1) <= d <= n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-(n + 1)}, "
                             f"{n}], but got {d})")
        return self.value.movedim(0, d)

    # -- reductions: the sample's dims are the batch's dims 1.. ---------------------------
    def _dims(self, dim: Any) -> tuple:
        if dim is None:
            return tuple(range(1, self.ndim + 1))
        return tuple(self._dim(d) for d in (dim if isinstance(dim, tuple | list) else (dim,)))

    def sum(self, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
        if self.ndim == 0 and dim is None and not kwargs and self.is_floating_point():
            return self._same(self.value.clone())  # (one number per sample: its own sum)
        return self._same(self.value.sum(self._dims(dim), keepdim=keepdim, **kwargs))

    def mean(self, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
        if self.ndim == 0 and dim is None and not kwargs:
            return self._same(self.value.clone())
        return self._same(self.value.mean(self._dims(dim), keepdim=keepdim, **kwargs))

    def softmax(self, dim: int) -> Any:
        return self._same(self.value.softmax(self._dim(dim)))

    def log_softmax(self, dim: int) -> Any:
        return self._same(self.value.log_softmax(self._dim(dim)))

    # -- shapes: the batch dim stays in front ----------------------------------------------
    def reshape(self, *shape: Any) -> Any:
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], tuple | list) else shape
        return self._same(self.value.reshape((self.value.shape[0], *shape)))

    view = reshape

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Any:
        if self.ndim == 0:
            return self.reshape(1)
        return self._same(self.value.flatten(self._dim(start_dim), self._dim(end_dim)))

    def unsqueeze(self, dim: int) -> Any:
        return self._same(self.value.unsqueeze(self._dim(dim, extra=1)))

    def squeeze(self, dim: Any = None) -> Any:
        if dim is None:
            return self.reshape(tuple(n for n in self.shape if n != 1))
        return self._same(self.value.squeeze(self._dims(dim)))

    def transpose(self, dim0: int, dim1: int) -> Any:
        return self._same(self.value.transpose(self._dim(dim0), self._dim(dim1)))

    swapaxes = swapdims = transpose

    def t(self) -> Any:
        return self if self.ndim < 2 else self.transpose(0, 1)

    T = property(lambda self: self if self.ndim < 2 else self.permute(
        *reversed(range(self.ndim))))

    def permute(self, *dims: Any) -> Any:
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], tuple | list) else dims
        return self._same(self.value.permute(0, *(self._dim(d) for d in dims)))

    def movedim(self, source: int, destination: int) -> Any:
        return self._same(self.value.movedim(self._dim(source), self._dim(destination)))

    def select(self, dim: int, index: int) -> Any:
        return self._same(self.value.select(self._dim(dim), index))

    def expand(self, *sizes: Any) -> Any:
        sizes = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], tuple | list) else sizes
        if len(sizes) < self.ndim:
            raise _no_rule("expand")
        v = _aligned(self.level, (self, _Rank(len(sizes))))[0]
        return self._same(v.expand((v.shape[0], *sizes)))

    def __getitem__(self, key: Any) -> Any:
        parts = key if isinstance(key, tuple) else (key,)
        if not all(p is None or p is Ellipsis or isinstance(p, int | slice) for p in parts):
            raise _no_rule("indexing with tensors")
        if any(isinstance(p, bool) for p in parts):
            raise _no_rule("indexing with a bool")
        return self._same(self.value[(slice(None), *parts)])

    def new_zeros(self, *size: Any, **kwargs: Any) -> Any:
        return self.value.new_zeros(*size, **kwargs)  # (a plain tensor: the same for all)

    def new_ones(self, *size: Any, **kwargs: Any) -> Any:
        return self.value.new_ones(*size, **kwargs)

    # -- matmul: numpy's rules, with a sample's 1-d operand made 2-d and back -----------------
    def __matmul__(self, other: Any) -> Any:
        return _matmul(self.level, self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return _matmul(self.level, other, self)

    def matmul(self, other: Any) -> Any:
        return _matmul(self.level, self, other)

    mm = mv = dot = matmul


class _Rank:
    """Stands for an operand of `ndim` dims when lining up a sample (expand's sizes)."""

    def __init__(self, ndim: int) -> None:
        self.ndim = ndim


def _matmul(level: Any, a: Any, b: Any) -> Any:
    """a @ b where one or both hold a batch. A sample's 1-d operand becomes a row (a) or
    a column (b) and the extra dim is dropped from the result, as matmul does for 1-d."""
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        raise _no_rule("matmul")
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    if _mine(a, level) and a_vec:
        a = Batched(a.value.unsqueeze(1), level)
    if _mine(b, level) and b_vec:
        b = Batched(b.value.unsqueeze(2), level)
    if a.ndim == 0 or b.ndim == 0:
        raise _no_rule("matmul")  # (matmul refuses 0-d operands: the per-sample run says so)
    rank = max(a.ndim, b.ndim, 2)
    pa, pb = (_aligned(level, (x, _Rank(rank)))[0] if _mine(x, level) else x for x in (a, b))
    out = pa @ pb
    if _mine(b, level) and b_vec:
        out = out.squeeze(-1)
    if _mine(a, level) and a_vec:
        out = out.squeeze(-1 if b_vec else -2)
    return Batched(out, level)


def _raise(exc: BaseException) -> Any:
    raise exc


def _mine(x: Any, level: Any) -> bool:
    return isinstance(x, Batched) and x.level is level


def _aligned(level: Any, operands: tuple) -> list:
    """Each operand as the op should see it: a Batched of this level as its batch, with 1s
    after the batch dim so that its sample lines up with the other operands' dims."""
    ranks = [x.ndim if isinstance(x, Tensor | _Rank) else 0 for x in operands]
    rank = max(ranks)
    out = []
    for x, r in zip(operands, ranks):
        if _mine(x, level):
            v = x.value
            out.append(v if r == rank else v.reshape((v.shape[0],) + (1,) * (rank - r)
                                                     + tuple(v.shape[1:])))
        else:
            out.append(x)
    return out


def _elementwise(fn: Callable, reflected: bool = False) -> Callable:
    """A rule for a two-operand elementwise op (`x * y`, `2 ** x`, `x.maximum(y)`)."""
    def rule(self: Batched, other: Any) -> Any:
        if not isinstance(other, Tensor | int | float | bool):
            raise _no_rule(getattr(fn, "__name__", "op"))
        a, b = (other, self) if reflected else (self, other)
        return self._same(fn(*_aligned(self.level, (a, b))))
    return rule


def _unary(name: str) -> Callable:
    """A rule for an op on one tensor with number settings (`x.exp()`, `x.clamp(min=0)`)."""
    def rule(self: Batched, *args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, Tensor) for a in (*args, *kwargs.values())):
            raise _no_rule(name)
        return self._same(getattr(self.value, name)(*args, **kwargs))
    return rule


UNARY = ("exp", "log", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "abs", "neg", "sqrt",
         "rsqrt", "log1p", "expm1", "square", "reciprocal", "sign", "floor", "ceil", "round",
         "trunc", "erf", "atan", "asin", "acos", "sinh", "cosh", "log2", "log10", "exp2",
         "clamp", "clip", "clone", "detach", "float", "double", "contiguous", "to",
         "__neg__", "__abs__", "logical_not", "isnan", "isinf", "isfinite")
ELEMENTWISE = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
               "div": operator.truediv, "truediv": operator.truediv, "pow": operator.pow,
               "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
               "eq": operator.eq, "ne": operator.ne}
for _name in UNARY:
    setattr(Batched, _name, _unary(_name))
for _name, _fn in ELEMENTWISE.items():
    setattr(Batched, f"__{_name}__", _elementwise(_fn))
    if _name in ("add", "sub", "mul", "truediv", "pow"):
        setattr(Batched, f"__r{_name}__", _elementwise(_fn, reflected=True))
    if _name != "truediv":
        setattr(Batched, _name, _elementwise(_fn))
for _name in ("maximum", "minimum", "atan2"):
    setattr(Batched, _name, _elementwise(lambda a, b, _n=_name: getattr(a, _n)(b)))
Batched.multiply, Batched.subtract, Batched.divide = Batched.mul, Batched.sub, Batched.div


def _guarded(name: str, rule: Callable) -> Callable:
    """A rule that meets an error falls back instead of raising it: the op's error, worded
    for one sample, comes from the per-sample run (a rule would word it for the batch)."""
    def guarded(self: Batched, *args: Any, **kwargs: Any) -> Any:
        if not self.level.active:
            raise RuntimeError(ESCAPED)
        try:
            return rule(self, *args, **kwargs)
        except Exception:  # noqa: BLE001 (re-raised by the per-sample run)
            raise _no_rule(name) from None
    guarded.__name__ = guarded.__qualname__ = name
    guarded.__doc__ = rule.__doc__
    return guarded


RULES = (*UNARY, *ELEMENTWISE, *(f"__{n}__" for n in ELEMENTWISE),
         *(f"__r{n}__" for n in ("add", "sub", "mul", "truediv", "pow")),
         "maximum", "minimum", "atan2", "sum", "mean", "softmax", "log_softmax", "reshape",
         "view", "flatten", "unsqueeze", "squeeze", "transpose", "swapaxes", "swapdims", "t",
         "permute", "movedim", "select", "expand", "__getitem__", "new_zeros", "new_ones",
         "__matmul__", "__rmatmul__", "matmul", "mm", "mv", "dot")
for _name in RULES:
    if _name in Batched.__dict__:
        setattr(Batched, _name, _guarded(_name, Batched.__dict__[_name]))

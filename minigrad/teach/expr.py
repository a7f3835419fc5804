"""Safe string expressions over named tensors: `"sum(x*y)*3"` to a Tensor, without `eval`.

`parse(source, names)` reads the text with `ast` and checks every piece against a whitelist:
numbers, the given input names, arithmetic (`+ - * / ** @`, unary minus), comparisons,
subscripts of tensors, calls of minigrad's documented functions (`sum`, `exp`, ...; also
spelled `minigrad.sum` or `torch.sum`) and Tensor methods (`x.sum(dim=0)`, `x.T`). Anything
else (dunder attributes, imports, lambdas, comprehensions, strings, unknown names) is
refused with an `ExpressionError` naming the offending piece, before anything runs.
`evaluate(source, inputs)` then walks the checked tree itself: nothing is ever passed to
`eval`, `exec` or `compile` beyond `ast.parse`. It is bounded too (expr_limits.py): no
tensor of more than `MAX_ELEMENTS` elements is made (an elementwise, matmul or join result is
sized before it is computed, anything else as soon as it exists, which for `expand` is before
any memory is used), no list or tuple of more than `MAX_ITEMS`, no number beyond a float's
range, and the whole expression keeps within a budget of elements, steps and seconds.

Shared by `minigrad.trace("...")`, the command line and `compare/`.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Iterable, Mapping
from typing import Any

from minigrad.autograd.tensor import Tensor
from minigrad.surface.return_types import ValuesIndices
from minigrad.teach.expr_limits import (
    Budget,
    binary_items,
    binary_size,
    call_size,
    work,
)
from minigrad.teach.expr_words import EXPR_WORDS, KINDS
from minigrad.teach.words import both

__all__ = ["ExpressionError", "FUNCTIONS", "METHODS", "evaluate", "parse"]

MAX_LENGTH = 10_000

# minigrad's documented functions, callable by name (resolved in minigrad.ops)
FUNCTIONS = frozenset({
    "abs", "add", "amax", "amin", "bmm", "cat", "clamp", "clip", "cos", "div", "dot", "exp",
    "expand", "flatten", "log", "log_softmax", "matmul", "max", "maximum", "mean", "min",
    "minimum", "mm", "mul", "mv", "neg", "permute", "pow", "reciprocal", "relu", "reshape",
    "sigmoid", "sin", "softmax", "sqrt", "square", "squeeze", "stack", "sub", "sum", "t",
    "tanh", "transpose", "unsqueeze", "where",
})
# Tensor methods that compute a new tensor (no in-place `_` methods, nothing that leaks data)
METHODS = FUNCTIONS - {"cat", "stack", "where"} | frozenset({
    "view", "view_as", "reshape_as", "expand_as", "clone", "contiguous", "narrow", "select",
    "sum_to_size", "multiply", "subtract", "divide", "true_divide", "negative", "swapaxes",
    "float", "double",
})
ATTRIBUTES = frozenset({"T", "values", "indices"})  # x.T; x.max(dim=0).values
NAMESPACES = frozenset({"minigrad", "torch"})
KEYWORDS = frozenset({"dim", "keepdim", "min", "max", "exponent", "alpha", "dim0", "dim1",
                      "start_dim", "end_dim", "input", "other", "condition"})

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.Pow: operator.pow, ast.MatMult: operator.matmul}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_COMPARE = {ast.Lt: operator.lt, ast.Gt: operator.gt, ast.LtE: operator.le,
            ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne}
class ExpressionError(ValueError):
    """A string expression that is not allowed (or does not parse); `.piece` is the culprit,
    `.zh` the message in Chinese (`python -m minigrad explain --lang zh` prints it)."""

    def __init__(self, message: str, piece: str = "", zh: str | None = None) -> None:
        super().__init__(message)
        self.piece = piece
        self.zh = zh if zh is not None else message

    @classmethod
    def said(cls, key: str, piece: str = "", **values: Any) -> ExpressionError:
        """The error whose words are `EXPR_WORDS[...][key]`, in English and Chinese."""
        message, zh = both(EXPR_WORDS, key, piece=piece, **values)
        return cls(message, piece, zh=zh)


def _kind(node_type: type, default_key: str | None = None) -> dict[str, str]:
    """The name of a kind of syntax in each language (`a lambda`, `lambda`)."""
    name = node_type.__name__
    return {lang: KINDS[lang].get(name, EXPR_WORDS[lang][default_key] if default_key
                                  else f"`{name}`") for lang in KINDS}


def parse(source: str, names: Iterable[str]) -> ast.Expression:
    """Check `source` against the whitelist; return its tree (`ast.Expression`).

    `names` are the input names the expression may use.
    """
    if not isinstance(source, str):
        raise ExpressionError.said("not_string", type=type(source).__name__)
    if len(source) > MAX_LENGTH:
        raise ExpressionError.said("too_long", n=len(source), limit=MAX_LENGTH)
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError.said("syntax", msg=exc.msg, source=source) from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise ExpressionError.said("unreadable", error=exc) from None
    checker = _Checker(source.strip(), frozenset(names))
    try:
        checker.expr(tree.body)
    except RecursionError:
        raise ExpressionError.said("nested") from None
    return tree


def evaluate(source: str | ast.Expression, inputs: Mapping[str, Any]) -> Tensor:
    """The value of `source` with `inputs` (name -> Tensor), computed with minigrad ops.

    `source` is a string or a tree (from `parse`, or built by hand: it is checked again).
    Refused expressions raise `ExpressionError` before anything is computed; errors of the
    computation itself (shapes that do not broadcast, ...) are minigrad's own.
    """
    if isinstance(source, ast.Expression):  # a tree from parse() or made by hand: check it
        tree, text = source, ast.unparse(source)
        try:
            _Checker(text, frozenset(inputs)).expr(tree.body)
        except RecursionError:
            raise ExpressionError.said("nested") from None
    else:
        tree, text = parse(source, inputs), source
    try:
        value = _Evaluator(dict(inputs), text.strip()).expr(tree.body)
    except RecursionError:
        raise ExpressionError.said("nested") from None
    if isinstance(value, Tensor):
        return value
    if isinstance(value, bool | int | float):
        return Tensor(value)
    raise ExpressionError.said("gives", type=type(value).__name__)


def _piece(source: str, node: ast.AST) -> str:
    try:
        text = ast.get_source_segment(source, node)
    except Exception:  # positions can be missing on hand-built trees
        text = None
    return text if text else ast.unparse(node)


class _Checker:
    """Walks the tree and raises on the first piece outside the whitelist."""

    def __init__(self, source: str, names: frozenset[str]) -> None:
        self.source, self.names = source, names

    def refuse(self, node: ast.AST, key: str, **values: Any) -> ExpressionError:
        """"refused `x.__class__`: ..." with the reason `EXPR_WORDS[...][key]`."""
        piece = _piece(self.source, node)
        why = dict(zip(("en", "zh"), both(EXPR_WORDS, key, **values)))
        return ExpressionError.said("refused", piece, why=why)

    def expr(self, node: ast.AST) -> None:
        if isinstance(node, ast.Constant):
            if node.value is None or node.value is Ellipsis or type(node.value) in (
                    int, float, bool):
                return
            raise self.refuse(node, "constant", type=type(node.value).__name__)
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return
            if node.id in FUNCTIONS:
                raise self.refuse(node, "call_it", name=node.id)
            names = ", ".join(sorted(self.names))
            raise self.refuse(node, "not_input" if names else "no_inputs", name=node.id,
                              names=names)
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                raise self.refuse(node, "binary")
            self.expr(node.left)
            self.expr(node.right)
            return
        if isinstance(node, ast.UnaryOp):
            if type(node.op) not in _UNARY:
                raise self.refuse(node, "unary")
            self.expr(node.operand)
            return
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
                raise self.refuse(node, "compare")
            self.expr(node.left)
            self.expr(node.comparators[0])
            return
        if isinstance(node, ast.Call):
            self.call(node)
            return
        if isinstance(node, ast.Attribute):
            self.receiver(node.value)
            if node.attr not in ATTRIBUTES:
                raise self.refuse(node, "attribute", attr=node.attr)
            return
        if isinstance(node, ast.Subscript):
            self.receiver(node.value)
            self.index(node.slice)
            return
        if isinstance(node, ast.Tuple | ast.List):
            for item in node.elts:
                self.expr(item)
            return
        raise self.refuse(node, "kind", kind=_kind(type(node)))

    def receiver(self, node: ast.AST) -> None:
        """What a method, attribute or subscript is applied to: a tensor expression."""
        if isinstance(node, ast.Constant | ast.Tuple | ast.List):
            raise self.refuse(node, "receiver")
        self.expr(node)

    def index(self, node: ast.AST) -> None:
        if isinstance(node, ast.Slice):
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self.expr(part)
            return
        if isinstance(node, ast.Tuple):
            for item in node.elts:
                self.index(item)
            return
        self.expr(node)

    def call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            if func.id not in FUNCTIONS:
                raise self.refuse(func, "not_here", name=func.id,
                                  allowed=", ".join(sorted(FUNCTIONS)))
        elif isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id in NAMESPACES and \
                    func.value.id not in self.names:
                if func.attr not in FUNCTIONS:
                    raise self.refuse(func, "not_function", name=func.attr)
            else:
                self.receiver(func.value)
                if func.attr not in METHODS:
                    raise self.refuse(func, "method", name=func.attr,
                                      allowed=", ".join(sorted(METHODS)))
        else:
            raise self.refuse(func, "not_callable", kind=_kind(type(func), "this"))
        for arg in node.args:
            self.expr(arg)
        for kw in node.keywords:
            if kw.arg is None:
                raise self.refuse(kw, "unpacking")
            if kw.arg not in KEYWORDS:
                raise self.refuse(kw, "keyword", name=kw.arg, allowed=", ".join(sorted(KEYWORDS)))
            self.expr(kw.value)


class _Evaluator:
    """Computes a checked tree: every call goes to minigrad.ops or a whitelisted method."""

    def __init__(self, inputs: dict[str, Any], source: str) -> None:
        self.inputs, self.source, self.budget = inputs, source, Budget()

    def expr(self, node: ast.AST) -> Any:
        try:
            return self._expr(node)
        except ExpressionError:
            raise
        except (TypeError, ValueError, ZeroDivisionError, OverflowError, AttributeError,
                KeyError) as exc:
            raise ExpressionError.said("failed", _piece(self.source, node),
                                       error=f"{type(exc).__name__}: {exc}") from exc

    def _expr(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.inputs[node.id]
        if isinstance(node, ast.BinOp):
            left, right = self.expr(node.left), self.expr(node.right)
            if isinstance(node.op, ast.Pow) and not isinstance(left, Tensor) and \
                    not isinstance(right, Tensor) and not _small_int_power(left, right):
                left = float(left)  # a float power overflows at once; an int one may run long
            self.check_items(node, binary_items(node.op, left, right))
            name = "@" if isinstance(node.op, ast.MatMult) else ""
            self.charge(node, binary_size(node.op, left, right), name, [left, right])
            return self.bounded(node, _BINARY[type(node.op)](left, right))
        if isinstance(node, ast.UnaryOp):
            value = self.expr(node.operand)
            self.charge(node, binary_size(ast.Add(), value, 0), "", [value])
            return self.bounded(node, _UNARY[type(node.op)](value))
        if isinstance(node, ast.Compare):
            left, right = self.expr(node.left), self.expr(node.comparators[0])
            self.charge(node, binary_size(ast.Add(), left, right), "", [left, right])
            return self.bounded(node, _COMPARE[type(node.ops[0])](left, right))
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(item) for item in node.elts)
        if isinstance(node, ast.List):
            return [self.expr(item) for item in node.elts]
        if isinstance(node, ast.Attribute):
            if node.attr == "T":
                return self.tensor(node.value).T
            value = self.expr(node.value)
            if not isinstance(value, ValuesIndices):
                raise ExpressionError.said("values_only", _piece(self.source, node),
                                           attr=node.attr)
            return getattr(value, node.attr)
        if isinstance(node, ast.Subscript):
            return self.bounded(node, self.tensor(node.value, TypeError)[self.index(node.slice)])
        if isinstance(node, ast.Call):
            return self.call(node)
        # (parse() checked it: not reached)
        raise ExpressionError.said("refused_piece", _piece(self.source, node))

    def charge(self, node: ast.AST, size: int, name: str, args: list) -> None:
        """Refuse, before computing it, an op that would make too much or take too long."""
        self.refuse_if(node, self.budget.before(size, work(name, args, size)))

    def refuse_if(self, node: ast.AST, why: tuple[str, dict] | None) -> None:
        """Refuse the expression at `node`, if the budget said `why` (expr_limits.Budget)."""
        if why is not None:
            raise ExpressionError.said(why[0], _piece(self.source, node), **why[1])

    def check_items(self, node: ast.AST, items: int) -> None:
        self.refuse_if(node, self.budget.items(items))

    def bounded(self, node: ast.AST, value: Any) -> Any:
        """`value`, if it is within the limits (a tensor's elements, a list's items, the
        expression's whole budget)."""
        self.refuse_if(node, self.budget.after(value))
        return value

    def tensor(self, node: ast.AST, python: type = AttributeError) -> Tensor:
        """The tensor `node` computes; else a refusal caused by what Python would raise."""
        value = self.expr(node)
        if not isinstance(value, Tensor):
            raise ExpressionError.said("not_tensor", _piece(self.source, node),
                                       type=type(value).__name__) from python(type(value).__name__)
        return value

    def index(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Slice):
            parts = [None if p is None else self.expr(p)
                     for p in (node.lower, node.upper, node.step)]
            return slice(*parts)
        if isinstance(node, ast.Tuple):
            return tuple(self.index(item) for item in node.elts)
        return self.expr(node)

    def call(self, node: ast.Call) -> Any:
        from minigrad import ops

        func = node.func
        named = isinstance(func, ast.Name) or isinstance(func.value, ast.Name) and \
            func.value.id in NAMESPACES and func.value.id not in self.inputs
        # (a method's tensor first, then its arguments, as Python evaluates them)
        head = [] if named else [self.tensor(func.value)]
        args = head + [self.expr(a) for a in node.args]
        kwargs = {kw.arg: self.expr(kw.value) for kw in node.keywords}
        name = func.id if isinstance(func, ast.Name) else func.attr
        fn = getattr(ops, name) if named else getattr(head[0], name)
        every = [*args, *kwargs.values()]
        self.charge(node, call_size(name, every), name, every)
        return self.bounded(node, fn(*args[len(head):], **kwargs))


def _small_int_power(base: Any, exponent: Any) -> bool:
    """`2**3` stays an int (`x.reshape(2**1, 2)`), as in Python, when small (a bigger or
    negative power is a float, which overflows at once instead of running long)."""
    return (isinstance(base, int) and isinstance(exponent, int) and exponent >= 0
            and abs(base).bit_length() * exponent <= 64)

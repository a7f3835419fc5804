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
from minigrad.ops.reduce import ValuesIndices
from minigrad.teach.expr_limits import (
    Budget,
    binary_items,
    binary_size,
    call_size,
    work,
)
from minigrad.teach.phrases import KINDS_ZH, NESTED_TOO_DEEPLY

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
_KINDS = {
    ast.Lambda: "a lambda", ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension", ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression", ast.Dict: "a dict", ast.Set: "a set",
    ast.JoinedStr: "an f-string", ast.IfExp: "a conditional expression",
    ast.BoolOp: "`and`/`or`", ast.NamedExpr: "an assignment (:=)", ast.Starred: "*-unpacking",
    ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield",
}
class ExpressionError(ValueError):
    """A string expression that is not allowed (or does not parse); `.piece` is the culprit,
    `.zh` the message in Chinese (`python -m minigrad explain --lang zh` prints it)."""

    def __init__(self, message: str, piece: str = "", zh: str | None = None) -> None:
        super().__init__(message)
        self.piece = piece
        self.zh = zh if zh is not None else message


def parse(source: str, names: Iterable[str]) -> ast.Expression:
    """Check `source` against the whitelist; return its tree (`ast.Expression`).

    `names` are the input names the expression may use.
    """
    if not isinstance(source, str):
        raise ExpressionError(f"an expression must be a string, not {type(source).__name__}",
                              zh=f"表达式必须是字符串，而不是 {type(source).__name__}")
    if len(source) > MAX_LENGTH:
        raise ExpressionError(f"expression too long ({len(source)} characters; at most "
                              f"{MAX_LENGTH})",
                              zh=f"表达式太长（{len(source)} 个字符；最多 {MAX_LENGTH} 个）")
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"not a valid expression: {exc.msg} in {source!r}",
                              zh=f"{source!r} 不是合法的表达式：{exc.msg}") from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise ExpressionError(f"cannot read the expression: {exc}",
                              zh=f"无法读取这个表达式：{exc}") from None
    checker = _Checker(source.strip(), frozenset(names))
    try:
        checker.expr(tree.body)
    except RecursionError:
        raise ExpressionError(NESTED_TOO_DEEPLY[0], zh=NESTED_TOO_DEEPLY[1]) from None
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
            raise ExpressionError(NESTED_TOO_DEEPLY[0], zh=NESTED_TOO_DEEPLY[1]) from None
    else:
        tree, text = parse(source, inputs), source
    try:
        value = _Evaluator(dict(inputs), text.strip()).expr(tree.body)
    except RecursionError:
        raise ExpressionError(NESTED_TOO_DEEPLY[0], zh=NESTED_TOO_DEEPLY[1]) from None
    if isinstance(value, Tensor):
        return value
    if isinstance(value, bool | int | float):
        return Tensor(value)
    raise ExpressionError(f"the expression gives a {type(value).__name__}, not a tensor",
                          zh=f"表达式的结果是 {type(value).__name__}，而不是张量")


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

    def refuse(self, node: ast.AST, why: str, zh: str) -> ExpressionError:
        piece = _piece(self.source, node)
        return ExpressionError(f"refused `{piece}`: {why}", piece, zh=f"不接受 `{piece}`：{zh}")

    def expr(self, node: ast.AST) -> None:
        if isinstance(node, ast.Constant):
            if node.value is None or node.value is Ellipsis or type(node.value) in (
                    int, float, bool):
                return
            raise self.refuse(node, f"only numbers are allowed as constants, not "
                                    f"{type(node.value).__name__}",
                              f"常量只能是数字，不能是 {type(node.value).__name__}")
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return
            if node.id in FUNCTIONS:
                raise self.refuse(node, f"`{node.id}` is a function: call it, as in "
                                        f"{node.id}(x)",
                                  f"`{node.id}` 是函数，要调用它，比如 {node.id}(x)")
            names = ", ".join(sorted(self.names))
            raise self.refuse(node, f"`{node.id}` is not one of the inputs "
                                    f"({names or 'none given'})",
                              f"`{node.id}` 不是输入之一（输入有：{names or '无'}）")
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                raise self.refuse(node, "only + - * / // % ** @ are allowed between values",
                                  "值之间只能用 + - * / // % ** @")
            self.expr(node.left)
            self.expr(node.right)
            return
        if isinstance(node, ast.UnaryOp):
            if type(node.op) not in _UNARY:
                raise self.refuse(node, "only unary minus and plus are allowed",
                                  "一元运算只能用负号和正号")
            self.expr(node.operand)
            return
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
                raise self.refuse(node, "only one comparison (< > <= >= == !=) at a time",
                                  "一次只能做一个比较（< > <= >= == !=）")
            self.expr(node.left)
            self.expr(node.comparators[0])
            return
        if isinstance(node, ast.Call):
            self.call(node)
            return
        if isinstance(node, ast.Attribute):
            self.receiver(node.value)
            if node.attr not in ATTRIBUTES:
                raise self.refuse(node, f"attribute `.{node.attr}` is not allowed (only Tensor "
                                        "methods such as x.sum(), x.T, and .values/.indices "
                                        "of max(dim=...))",
                                  f"不允许使用属性 `.{node.attr}`（只能用 Tensor 的方法，如 "
                                  "x.sum()、x.T，以及 max(dim=...) 结果的 .values/.indices）")
            return
        if isinstance(node, ast.Subscript):
            self.receiver(node.value)
            self.index(node.slice)
            return
        if isinstance(node, ast.Tuple | ast.List):
            for item in node.elts:
                self.expr(item)
            return
        kind = _KINDS.get(type(node), f"`{type(node).__name__}`")
        kind_zh = KINDS_ZH.get(type(node).__name__, f"`{type(node).__name__}`")
        raise self.refuse(node, f"{kind} is not allowed in an expression",
                          f"表达式里不允许出现{kind_zh}")

    def receiver(self, node: ast.AST) -> None:
        """What a method, attribute or subscript is applied to: a tensor expression."""
        if isinstance(node, ast.Constant | ast.Tuple | ast.List):
            raise self.refuse(node, "methods, attributes and subscripts apply to tensors only",
                              "方法、属性和下标只能用在张量上")
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
                raise self.refuse(func, f"`{func.id}` is not a function you may call here; "
                                        f"allowed: {', '.join(sorted(FUNCTIONS))}",
                                  f"这里不能调用 `{func.id}`；可以调用的有："
                                  f"{', '.join(sorted(FUNCTIONS))}")
        elif isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id in NAMESPACES and \
                    func.value.id not in self.names:
                if func.attr not in FUNCTIONS:
                    raise self.refuse(func, f"`{func.attr}` is not an allowed function",
                                      f"`{func.attr}` 不是允许调用的函数")
            else:
                self.receiver(func.value)
                if func.attr not in METHODS:
                    raise self.refuse(func, f"method `.{func.attr}()` is not allowed; allowed "
                                            f"Tensor methods: {', '.join(sorted(METHODS))}",
                                      f"不允许调用方法 `.{func.attr}()`；可以用的 Tensor 方法有："
                                      f"{', '.join(sorted(METHODS))}")
        else:
            raise self.refuse(func, f"{_KINDS.get(type(func), 'this')} cannot be called: only "
                                    "minigrad functions and Tensor methods can",
                              f"{KINDS_ZH.get(type(func).__name__, '这个东西')}不能调用："
                              "只能调用 minigrad 的函数和 Tensor 的方法")
        for arg in node.args:
            self.expr(arg)
        for kw in node.keywords:
            if kw.arg is None:
                raise self.refuse(kw, "**-unpacking is not allowed", "不允许用 ** 解包")
            if kw.arg not in KEYWORDS:
                allowed = ", ".join(sorted(KEYWORDS))
                raise self.refuse(kw, f"keyword `{kw.arg}=` is not allowed; allowed: {allowed}",
                                  f"不允许使用关键字参数 `{kw.arg}=`；可以用的有：{allowed}")
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
            piece = _piece(self.source, node)
            raise ExpressionError(f"`{piece}` failed: {type(exc).__name__}: {exc}",
                                  piece,
                                  zh=f"`{piece}` 出错了：{type(exc).__name__}: {exc}") from exc

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
                piece = _piece(self.source, node)
                raise ExpressionError(f"`{piece}`: .{node.attr} belongs to what max(dim=...) "
                                      "and min(dim=...) return", piece,
                                      zh=f"`{piece}`：.{node.attr} 只属于 max(dim=...) 和 "
                                      "min(dim=...) 的返回值")
            return getattr(value, node.attr)
        if isinstance(node, ast.Subscript):
            return self.bounded(node, self.tensor(node.value, TypeError)[self.index(node.slice)])
        if isinstance(node, ast.Call):
            return self.call(node)
        piece = _piece(self.source, node)  # (parse() checked it: not reached)
        raise ExpressionError(f"refused `{piece}`", piece, zh=f"不接受 `{piece}`")

    def charge(self, node: ast.AST, size: int, name: str, args: list) -> None:
        """Refuse, before computing it, an op that would make too much or take too long."""
        self.refuse_if(node, self.budget.before(size, work(name, args, size)))

    def refuse_if(self, node: ast.AST, why: tuple[str, str] | None) -> None:
        if why is not None:
            piece = _piece(self.source, node)
            raise ExpressionError(f"`{piece}` {why[0]}", piece, zh=f"`{piece}` {why[1]}")

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
            piece, kind = _piece(self.source, node), type(value).__name__
            raise ExpressionError(f"`{piece}` is a {kind}, not a tensor", piece,
                                  zh=f"`{piece}` 是 {kind}，而不是张量") from python(kind)
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

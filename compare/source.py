"""String expressions on both engines: `"sum(x*y)*3"` checked once by minigrad's safe parser
(`minigrad.expr`), then computed by minigrad and, from the same checked tree, by PyTorch.

The parser's own evaluator calls minigrad's ops; the small adapter here walks the same tree
with `torch.<name>` instead (or the Tensor method of that name where torch has no function).
Nothing is passed to `eval`; a refused expression raises `minigrad.expr.ExpressionError`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from minigrad.teach import expr


def from_source(fn: Callable | str, torch_fn: Callable | str | None, names: list[str]
                ) -> tuple[Callable, Callable | None]:
    """Callables for `against_torch` from expression strings (callables pass through)."""
    mine = _minigrad_callable(fn, names) if isinstance(fn, str) else fn
    if isinstance(torch_fn, str):
        return mine, _torch_callable(torch_fn, names)
    if torch_fn is None and isinstance(fn, str):
        return mine, _torch_callable(fn, names)
    return mine, torch_fn


def _minigrad_callable(source: str, names: list[str]) -> Callable:
    tree = expr.parse(source, names)

    def run(**tensors: Any) -> Any:
        return expr.evaluate(tree, tensors)

    return run


def _torch_callable(source: str, names: list[str]) -> Callable:
    tree = expr.parse(source, names)  # the same whitelist, checked before torch sees anything

    def run(**tensors: Any) -> Any:
        from compare.torch_bridge import import_torch

        torch = import_torch()
        value = _TorchEvaluator(tensors, source.strip(), torch).expr(tree.body)
        return value if isinstance(value, torch.Tensor) else torch.tensor(value)

    return run


class _TorchEvaluator(expr._Evaluator):
    """minigrad.expr's evaluator with torch's functions and tensor type."""

    def __init__(self, inputs: dict[str, Any], source: str, torch: Any) -> None:
        super().__init__(inputs, source)
        self.torch = torch

    def tensor(self, node: ast.AST, python: type = AttributeError) -> Any:
        value = self.expr(node)
        if not isinstance(value, self.torch.Tensor):
            piece = expr._piece(self.source, node)
            raise expr.ExpressionError(f"`{piece}` is a {type(value).__name__}, not a tensor",
                                       piece) from python(type(value).__name__)
        return value

    def call(self, node: ast.Call) -> Any:
        func = node.func
        if isinstance(func, ast.Attribute) and not (
                isinstance(func.value, ast.Name) and func.value.id in expr.NAMESPACES
                and func.value.id not in self.inputs):  # (the tensor first, as Python)
            receiver = self.tensor(func.value)
            args = [self.expr(a) for a in node.args]
            kwargs = {kw.arg: self.expr(kw.value) for kw in node.keywords}
            return getattr(receiver, func.attr)(*args, **kwargs)
        args = [self.expr(a) for a in node.args]
        kwargs = {kw.arg: self.expr(kw.value) for kw in node.keywords}
        name = func.id if isinstance(func, ast.Name) else func.attr
        function = getattr(self.torch, name, None)
        if function is None:  # e.g. expand: a Tensor method only, in torch
            return getattr(args[0], name)(*args[1:], **kwargs)
        return function(*args, **kwargs)

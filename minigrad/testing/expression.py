"""Expression trees over the op table: callable in minigrad and PyTorch, printable as source.

`strategies.expressions` draws them; this module only holds and runs them (no hypothesis
needed). A tree is `Leaf`s (named inputs) under `Apply` nodes (an `OpSpec` with its params).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.autograd.tensor import Tensor
from minigrad.testing.domains import TOL
from minigrad.testing.op_spec import OpSpec

LIMIT = 1e3  # values beyond this make finite differences unreliable: such inputs are rejected


@dataclass(frozen=True)
class Leaf:
    """A named input of the expression."""

    name: str
    shape: tuple[int, ...]
    positive = False

    @property
    def source(self) -> str:
        return self.name


@dataclass(frozen=True)
class Apply:
    """`spec` applied to `args` with keyword `params` (kept as a tuple of pairs)."""

    spec: OpSpec
    args: tuple[Node, ...]
    params: tuple[tuple[str, Any], ...]
    shape: tuple[int, ...]

    @property
    def positive(self) -> bool:
        return self.spec.positive_output

    @property
    def source(self) -> str:
        return self.spec.render(*(a.source for a in self.args), **dict(self.params))


Node = Leaf | Apply


class Expression:
    """A random differentiable expression: `expr(x, y)` runs it on minigrad tensors,
    `expr.torch_fn(torch)(x, y)` on torch tensors, `expr.source` is its Python source."""

    def __init__(self, root: Node, shapes: dict[str, tuple[int, ...]]) -> None:
        self.root = root
        self.shapes = dict(shapes)
        self.names = tuple(shapes)
        self.source = root.source

    @property
    def ops(self) -> tuple[str, ...]:
        """Names of the table ops used, root first (pre-order)."""
        found, stack = [], [self.root]
        while stack:
            node = stack.pop()
            if isinstance(node, Apply):
                found.append(node.spec.name)
                stack.extend(reversed(node.args))
        return tuple(found)

    @property
    def node(self) -> str:
        """The grad_fn name PyTorch gives the root op (when applied to plain inputs)."""
        return self.root.spec.node if isinstance(self.root, Apply) else ""

    def _bind(self, args: tuple, kwargs: dict) -> dict:
        env = dict(zip(self.names, args))
        env.update(kwargs)
        missing = [n for n in self.names if n not in env]
        if missing:
            raise TypeError(f"expression {self.source!r} needs inputs {list(self.names)}; "
                            f"missing {missing}")
        return env

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        env = self._bind(args, kwargs)
        return evaluate(self.root, env)

    fn = __call__

    def torch_fn(self, torch: Any) -> Callable[..., Any]:
        """The same expression on torch tensors (`torch` is the imported module)."""

        def run(*args: Any, **kwargs: Any) -> Any:
            env = self._bind(args, kwargs)
            return evaluate(self.root, env,
                            lambda spec, xs, ps: spec.call_torch(torch, *xs, **ps))

        return run

    def in_domain(self, *args: Any, tol: float = TOL, limit: float = LIMIT, **kwargs: Any
                  ) -> bool:
        """Whether every op sees inputs where it is smooth (no kink, pole or tie within
        `tol`) and every value stays finite and within `limit`."""
        env = {k: v.array if isinstance(v, Tensor) else np.asarray(v)
               for k, v in self._bind(args, kwargs).items()}
        if not all(_tame(v, limit) for v in env.values()):
            return False
        ok = [True]

        def check(spec: OpSpec, xs: list, ps: dict) -> Any:
            values = [x.array for x in xs]
            if not ok[0] or not spec.in_domain(*values, tol=tol, **ps):
                ok[0] = False
            out = spec.fn(*xs, **ps)
            if not _tame(out.array, limit):
                ok[0] = False
            return out

        with no_grad(), np.errstate(all="ignore"):
            evaluate(self.root,
                     {k: Tensor._make(np.array(v), None, 0) for k, v in env.items()}, check)
        return ok[0]

    def __repr__(self) -> str:
        shapes = ", ".join(f"{k}={v}" for k, v in self.shapes.items())
        return f"Expression({self.source!r}, {shapes})"


def _tame(values: Any, limit: float) -> bool:
    v = np.asarray(values, dtype=np.float64)
    return bool(np.all(np.isfinite(v)) and np.all(np.abs(v) <= limit))


def evaluate(node: Node, env: dict, call: Callable[[OpSpec, list, dict], Any] | None = None
             ) -> Any:
    """The value of the tree under `node` with leaves taken from `env` (name -> tensor);
    `call(spec, args, params)` runs each op (default: the minigrad op)."""
    if isinstance(node, Leaf):
        return env[node.name]
    args = [evaluate(a, env, call) for a in node.args]
    if call is None:
        return node.spec.fn(*args, **dict(node.params))
    return call(node.spec, args, dict(node.params))

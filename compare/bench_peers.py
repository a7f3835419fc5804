"""The benchmark's work, written once per engine: what each engine runs, not how it is timed.
This file has the engines (loading them, their versions), the chains of small ops and the fan-in;
the MLP training step is in `bench_mlp.py`.

Every maker returns a `Case`: `prepare()` sets up one run (data, graph, ...) outside the timer
and returns the callable that the timer measures. A maker raises `Unavailable` when the engine
is not installed and `NotApplicable` when the engine cannot express the work (micrograd has no
tensors). The same inputs (numpy arrays made from one seed) go to every engine.

Engines: minigrad, numpy (forward and backward written by hand: the 1.00x baseline), torch
(CPU), HIPS autograd, mygrad and micrograd. `bench_items.py` runs the work items,
`bench_timing.py` times them and `bench_report.py` prints the results.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

ENGINES = ("numpy", "minigrad", "torch", "autograd", "mygrad", "micrograd")
PEER_MODULES = {"torch": "torch", "autograd": "autograd", "mygrad": "mygrad",
                "micrograd": "micrograd.engine"}
MUL, ADD = 0.9, 0.1  # the chain's constants: the values stay in (0, 1) however deep it goes


class Unavailable(Exception):
    """The engine is not installed."""


class NotApplicable(Exception):
    """The engine cannot run this work item; the message says why."""


@dataclass
class Case:
    """One engine's share of a work item: `prepare()` returns the callable to time."""

    prepare: Callable[[], Callable[[], Any]]
    note: str = ""


def load(engine: str) -> Any:
    """Import an engine's module, or raise Unavailable saying how to install it."""
    if engine == "numpy":
        return np
    name = "minigrad" if engine == "minigrad" else PEER_MODULES[engine]
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        extra = "compare" if engine == "torch" else "bench"
        raise Unavailable(f"not installed ({exc}); pip install -e '.[{extra}]'") from None
    if engine == "torch":
        module.set_num_threads(1)
    return module


def version(engine: str) -> str:
    if engine == "numpy":
        return np.__version__
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version(engine)
    except PackageNotFoundError:
        return "not installed"


def same(fn: Callable[[], Any]) -> Callable[[], Callable[[], Any]]:
    """A `prepare` for work that needs no per-run setup."""
    return lambda: fn


# -- chains of small elementwise ops (per-node overhead) ------------------------------------
# Op i of a chain is mul by MUL (i % 3 == 0), add ADD (1) or tanh (2); `n` ops in all.
def chain_numpy(n: int, x0: np.ndarray) -> Case:
    def run() -> np.ndarray:
        saved, y = [], x0
        for i in range(n):
            k = i % 3
            if k == 0:
                y = y * MUL
            elif k == 1:
                y = y + ADD
            else:
                y = np.tanh(y)
                saved.append(y)
        g = np.ones_like(y)
        for i in range(n - 1, -1, -1):
            k = i % 3
            if k == 0:
                g = g * MUL
            elif k == 2:
                t = saved.pop()
                g = g * (1 - t * t)
        return g

    return Case(same(run))


def chain_torchlike(T: Any, n: int, x0: np.ndarray, tensor: Callable, tanh: Callable) -> Case:
    """minigrad, torch and mygrad: the same loop, then `y.sum().backward()`."""

    def run() -> Any:
        x = tensor(x0)
        y = x
        for i in range(n):
            k = i % 3
            y = y * MUL if k == 0 else y + ADD if k == 1 else tanh(y)
        y.sum().backward()
        return x.grad

    return Case(same(run))


def chain_autograd(n: int, x0: np.ndarray) -> Case:
    autograd = load("autograd")
    anp = importlib.import_module("autograd.numpy")

    def f(x: Any) -> Any:
        y = x
        for i in range(n):
            k = i % 3
            y = y * MUL if k == 0 else y + ADD if k == 1 else anp.tanh(y)
        return anp.sum(y)

    grad = autograd.grad(f)
    return Case(same(lambda: grad(x0)))


def chain_micrograd(n: int, recursion_limit: int | None) -> Case:
    """A scalar chain (micrograd has no tensors) with relu for tanh (micrograd has no tanh).

    micrograd's backward sorts the graph recursively, one Python frame per node: with
    `recursion_limit` the limit is raised for the run; without it a deep chain fails.
    """
    Value = load("micrograd").Value

    def run() -> Any:
        x = Value(0.5)
        y = x
        for i in range(n):
            k = i % 3
            y = y * MUL if k == 0 else y + ADD if k == 1 else y.relu()
        old = sys.getrecursionlimit()
        if recursion_limit:
            sys.setrecursionlimit(max(old, recursion_limit))
        try:
            y.backward()
        finally:
            sys.setrecursionlimit(old)
        return x.grad

    note = "1 scalar, relu for tanh"
    if recursion_limit:
        note += f", recursion limit raised to {recursion_limit}"
    return Case(same(run), note)


def chain_case(engine: str, n: int, width: int = 16, raise_recursion_limit: bool = False
               ) -> Case:
    x0 = np.linspace(-1, 1, width, dtype=np.float32)
    if engine == "numpy":
        return chain_numpy(n, x0)
    if engine == "micrograd":
        return chain_micrograd(n, 2 * n + 1000 if raise_recursion_limit else None)
    if engine == "autograd":
        return chain_autograd(n, x0)
    T = load(engine)
    if engine == "mygrad":
        return chain_torchlike(T, n, x0, T.tensor, T.tanh)
    return chain_torchlike(T, n, x0, lambda a: T.tensor(a, requires_grad=True), T.tanh)


# -- fan-in: one leaf used n times (only the backward is timed) -----------------------------
def fan_in_case(engine: str, n: int, width: int = 16) -> Case:
    """`total = x + x + ... + x` (n uses of the leaf x), then the backward of `total.sum()`."""
    x0 = np.linspace(-1, 1, width, dtype=np.float32)
    if engine == "numpy":
        raise NotApplicable("n/a: by hand the gradient is just n")
    if engine == "micrograd":
        Value = load("micrograd").Value

        def prepare_micro() -> Callable[[], Any]:
            x = Value(0.5)
            total = x
            for _ in range(n - 1):
                total = total + x
            return total.backward

        return Case(prepare_micro)
    if engine == "autograd":
        load("autograd")
        make_vjp = importlib.import_module("autograd").make_vjp
        anp = importlib.import_module("autograd.numpy")

        def f(x: Any) -> Any:
            total = x
            for _ in range(n - 1):
                total = total + x
            return anp.sum(total)

        def prepare_autograd() -> Callable[[], Any]:
            vjp, _ = make_vjp(f)(x0)
            return lambda: vjp(np.float32(1))

        return Case(prepare_autograd, "make_vjp: the forward is recorded outside the timer")
    T = load(engine)
    make = T.tensor if engine == "mygrad" else lambda a: T.tensor(a, requires_grad=True)

    def prepare() -> Callable[[], Any]:
        x = make(x0)
        total = x
        for _ in range(n - 1):
            total = total + x
        return total.sum().backward

    return Case(prepare)

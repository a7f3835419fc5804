"""The benchmark's work, written once per engine: what each engine runs, not how it is timed.

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
LR = 0.01
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


# -- the MLP training step ----------------------------------------------------------------
@dataclass
class MLPData:
    """One batch and one set of starting weights (W is (in, out): h @ W + b)."""

    x: np.ndarray
    y: np.ndarray
    onehot: np.ndarray
    weights: list


def mlp_data(sizes: tuple = (784, 256, 256, 10), batch: int = 128, seed: int = 0) -> MLPData:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, sizes[0]), dtype=np.float32)
    y = rng.integers(0, sizes[-1], batch)
    onehot = np.zeros((batch, sizes[-1]), np.float32)
    onehot[np.arange(batch), y] = 1
    weights = [((rng.standard_normal((i, o), dtype=np.float32) * np.sqrt(2 / i)).astype(
        np.float32), np.zeros(o, np.float32)) for i, o in zip(sizes, sizes[1:])]
    return MLPData(x, y, onehot, weights)


def mlp_numpy(d: MLPData) -> Case:
    """Forward, softmax cross-entropy, backward and SGD, all by hand: the 1.00x baseline."""
    Ws = [W.copy() for W, _ in d.weights]
    bs = [b.copy() for _, b in d.weights]
    x, y, batch, last = d.x, d.y, len(d.y), len(Ws) - 1
    rows = np.arange(batch)

    def step() -> float:
        inputs, pre = [], []
        h = x
        for i, (W, b) in enumerate(zip(Ws, bs)):
            inputs.append(h)
            z = h @ W + b
            if i < last:
                pre.append(z)
                h = np.maximum(z, 0)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(axis=1, keepdims=True)
        loss = -np.log(p[rows, y]).mean()
        g = p
        g[rows, y] -= 1
        g /= batch
        for i in range(last, -1, -1):
            gW, gb = inputs[i].T @ g, g.sum(axis=0)
            if i > 0:
                g = (g @ Ws[i].T) * (pre[i - 1] > 0)
            Ws[i] -= LR * gW
            bs[i] -= LR * gb
        return float(loss)

    return Case(same(step))


def missing_nn(T: Any) -> str | None:
    """None when an engine has the torch.nn pieces the nn version of the step uses; else why."""
    try:
        nn = importlib.import_module(T.__name__ + ".nn")
    except ImportError:
        return f"{T.__name__}.nn not found"
    except Exception as exc:  # noqa: BLE001 - a half-written nn is reported, not fatal
        return f"{T.__name__}.nn failed to import ({type(exc).__name__}: {exc})"
    if not all(hasattr(nn, n) for n in ("Linear", "Sequential", "ReLU")) or not hasattr(
            getattr(nn, "functional", None), "cross_entropy"):
        return f"{T.__name__}.nn lacks Linear, Sequential, ReLU or functional.cross_entropy"
    return None


def mlp_torchlike(T: Any, d: MLPData, use_nn: bool) -> Case:
    """The same code for torch and minigrad (`import minigrad as torch` runs it unchanged).

    With `use_nn`: nn.Sequential of nn.Linear/nn.ReLU and nn.functional.cross_entropy, as a
    PyTorch user writes it. Without: plain tensors, `h @ W + b`, log_softmax cross-entropy.
    """
    x = T.tensor(d.x)
    batch = len(d.y)
    if use_nn:
        nn = importlib.import_module(T.__name__ + ".nn")
        T.manual_seed(0)
        layers: list = []
        for W, _ in d.weights:
            layers += [nn.Linear(W.shape[0], W.shape[1]), nn.ReLU()]
        model = nn.Sequential(*layers[:-1])
        params = list(model.parameters())
        y = T.tensor(d.y)

        def loss_of() -> Any:
            return nn.functional.cross_entropy(model(x), y)
    else:
        params = [T.tensor(a.copy(), requires_grad=True) for pair in d.weights for a in pair]
        onehot = T.tensor(d.onehot)

        def loss_of() -> Any:
            h = x
            for i in range(0, len(params), 2):
                h = h @ params[i] + params[i + 1]
                if i + 2 < len(params):
                    h = h.relu()
            return -(h.log_softmax(1) * onehot).sum() / batch

    def step() -> float:
        loss = loss_of()
        loss.backward()
        with T.no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
        return loss.item()

    return Case(same(step))


def mlp_autograd(d: MLPData) -> Case:
    autograd = load("autograd")
    anp = importlib.import_module("autograd.numpy")
    params = [a.copy() for pair in d.weights for a in pair]
    x, onehot, batch = d.x, d.onehot, len(d.y)

    def loss(params: list) -> Any:
        h = x
        for i in range(0, len(params), 2):
            h = anp.dot(h, params[i]) + params[i + 1]
            if i + 2 < len(params):
                h = anp.maximum(h, 0)
        z = h - anp.max(h, axis=1, keepdims=True)
        logp = z - anp.log(anp.sum(anp.exp(z), axis=1, keepdims=True))
        return -anp.sum(logp * onehot) / batch

    grad = autograd.grad(loss)

    def step() -> None:
        for p, g in zip(params, grad(params)):
            p -= LR * g

    return Case(same(step))


def mlp_mygrad(d: MLPData) -> Case:
    mg = load("mygrad")
    params = [mg.tensor(a.copy()) for pair in d.weights for a in pair]
    x, y = d.x, d.y

    def step() -> None:
        h = x
        for i in range(0, len(params), 2):
            h = mg.matmul(h, params[i]) + params[i + 1]
            if i + 2 < len(params):
                h = mg.nnet.relu(h)
        loss = mg.nnet.softmax_crossentropy(h, y)
        loss.backward()
        for p in params:
            p.data -= LR * p.grad

    return Case(same(step))


def mlp_case(engine: str, d: MLPData, use_nn: bool = False) -> Case:
    if engine == "numpy":
        return mlp_numpy(d)
    if engine == "micrograd":
        load("micrograd")
        raise NotApplicable("n/a: scalar-only engine (one Python object per number)")
    if engine in ("minigrad", "torch"):
        return mlp_torchlike(load(engine), d, use_nn)
    return {"autograd": mlp_autograd, "mygrad": mlp_mygrad}[engine](d)


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

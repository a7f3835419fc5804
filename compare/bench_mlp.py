"""The bench's MLP training step (forward, cross-entropy, backward, SGD), written once per engine
on the same batch and starting weights: numpy by hand (the 1.00x baseline), the same torch code
for minigrad and torch, HIPS autograd and mygrad; micrograd cannot run it (no tensors).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from compare.bench_peers import Case, NotApplicable, load, same

LR = 0.01


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
    loss_of, params = mlp_loss(T, d, use_nn)
    return Case(same(torchlike_step(T, loss_of, params)))


def mlp_loss(T: Any, d: MLPData, use_nn: bool) -> tuple[Callable[[], Any], list]:
    """The MLP's forward to the loss, and its parameters (see `mlp_torchlike`)."""
    x = T.tensor(d.x)
    batch = len(d.y)
    if use_nn:
        nn = importlib.import_module(T.__name__ + ".nn")
        model = mlp_model(T, d)
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
    return loss_of, params


def mlp_model(T: Any, d: MLPData) -> Any:
    """nn.Sequential(Linear, ReLU, ..., Linear) of the sizes of `d`'s weights (seed 0)."""
    nn = importlib.import_module(T.__name__ + ".nn")
    T.manual_seed(0)
    layers: list = []
    for W, _ in d.weights:
        layers += [nn.Linear(W.shape[0], W.shape[1]), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


def torchlike_step(T: Any, loss_of: Callable[[], Any], params: list) -> Callable[[], float]:
    """One training step as PyTorch code writes it: forward, backward, SGD by hand."""

    def step() -> float:
        loss = loss_of()
        loss.backward()
        sgd_update(T, params)
        return loss.item()

    return step


def sgd_update(T: Any, params: list) -> None:
    """`p -= LR * p.grad` for each parameter, then its .grad set to None."""
    with T.no_grad():
        for p in params:
            p -= LR * p.grad
            p.grad = None


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

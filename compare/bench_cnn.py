"""The bench's CNN training step: a LeNet-style network on 28x28 inputs (conv 6 5x5, relu,
maxpool 2, conv 16 5x5, relu, maxpool 2, linear 120, 84, 10; cross entropy; SGD), written by
hand in numpy (the 1.00x baseline) and once as torch code that minigrad runs unchanged.
The other engines have no convolution: n/a.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from compare.bench_mlp import LR, torchlike_step
from compare.bench_peers import Case, NotApplicable, load, same

SHAPES = [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,), (120, 256), (120,), (84, 120), (84,),
          (10, 84), (10,)]


@dataclass
class CNNData:
    x: np.ndarray  # (batch, 1, 28, 28)
    y: np.ndarray  # labels
    weights: list  # in SHAPES' order, torch's layout (conv (O, C, k, k), linear (out, in))


def cnn_data(batch: int = 64, seed: int = 0) -> CNNData:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 1, 28, 28), dtype=np.float32)
    weights = []
    for shape in SHAPES:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        weights.append((rng.uniform(-1, 1, shape) / np.sqrt(fan_in)).astype(np.float32))
    return CNNData(x, rng.integers(0, 10, batch), weights)


# -- numpy by hand ------------------------------------------------------------------------------
def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> tuple:
    """Valid 5x5 convolution: (output, the windows it read)."""
    k = w.shape[-1]
    win = sliding_window_view(x, (k, k), axis=(2, 3))  # (N, C, Ho, Wo, k, k)
    cols = np.ascontiguousarray(win.transpose(0, 2, 3, 1, 4, 5)).reshape(
        x.shape[0] * win.shape[2] * win.shape[3], -1)
    out = cols @ w.reshape(w.shape[0], -1).T + b
    return out.reshape(x.shape[0], win.shape[2], win.shape[3], -1).transpose(0, 3, 1, 2), cols


def _conv_back(g: np.ndarray, cols: np.ndarray, w: np.ndarray, x_shape: tuple | None
               ) -> tuple:
    """Gradients of the weight, the bias and (unless x_shape is None) the input."""
    n, o, ho, wo = g.shape
    g2 = g.transpose(0, 2, 3, 1).reshape(-1, o)
    gw, gb = (g2.T @ cols).reshape(w.shape), g.sum((0, 2, 3))
    if x_shape is None:
        return None, gw, gb
    k = w.shape[2]
    gcols = (g2 @ w.reshape(o, -1)).reshape(n, ho, wo, x_shape[1], k, k)
    gcols = np.ascontiguousarray(gcols.transpose(4, 5, 1, 2, 0, 3))  # (k, k, ho, wo, n, c)
    gx = np.zeros((x_shape[2], x_shape[3], n, x_shape[1]), g.dtype)
    for i in range(k):  # col2im: each kernel offset's share added back
        for j in range(k):
            gx[i:i + ho, j:j + wo] += gcols[i, j]
    return gx.transpose(2, 3, 0, 1), gw, gb


def _pool(x: np.ndarray) -> tuple:
    n, c, h, w = x.shape
    blocks = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = blocks.max((3, 5))
    return out, blocks == out[:, :, :, None, :, None]


def _unpool(g: np.ndarray, mask: np.ndarray) -> np.ndarray:
    n, c, h, w = g.shape
    return (mask * g[:, :, :, None, :, None]).reshape(n, c, 2 * h, 2 * w)


def cnn_numpy(d: CNNData) -> Case:
    p = [a.copy() for a in d.weights]
    rows = np.arange(len(d.y))

    def step() -> float:
        z1, cols1 = _conv(d.x, p[0], p[1])
        h1, m1 = _pool(np.maximum(z1, 0))
        z2, cols2 = _conv(h1, p[2], p[3])
        h2, m2 = _pool(np.maximum(z2, 0))
        f = h2.reshape(len(d.y), -1)
        a3 = np.maximum(f @ p[4].T + p[5], 0)
        a4 = np.maximum(a3 @ p[6].T + p[7], 0)
        z = a4 @ p[8].T + p[9]
        z = z - z.max(1, keepdims=True)
        e = np.exp(z)
        prob = e / e.sum(1, keepdims=True)
        loss = -np.log(prob[rows, d.y]).mean()
        g = prob
        g[rows, d.y] -= 1
        g /= len(d.y)
        grads = [None] * 10
        grads[8], grads[9] = g.T @ a4, g.sum(0)
        g = (g @ p[8]) * (a4 > 0)
        grads[6], grads[7] = g.T @ a3, g.sum(0)
        g = (g @ p[6]) * (a3 > 0)
        grads[4], grads[5] = g.T @ f, g.sum(0)
        g = _unpool((g @ p[4]).reshape(h2.shape), m2) * (z2 > 0)
        g, grads[2], grads[3] = _conv_back(g, cols2, p[2], h1.shape)
        g = _unpool(g, m1) * (z1 > 0)
        _, grads[0], grads[1] = _conv_back(g, cols1, p[0], None)
        for a, ga in zip(p, grads):
            a -= LR * ga
        return float(loss)

    return Case(same(step))


# -- torch code, run by torch and by minigrad ---------------------------------------------------
def lenet(T: Any, d: CNNData) -> Any:
    """nn.Sequential LeNet with d's starting weights (copied in through load_state_dict)."""
    nn = importlib.import_module(T.__name__ + ".nn")
    model = nn.Sequential(
        nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
    names = [name for name, _ in model.named_parameters()]
    model.load_state_dict({n: T.tensor(a) for n, a in zip(names, d.weights)})
    return model


def cnn_torchlike(T: Any, d: CNNData) -> Case:
    loss_of, params = cnn_loss(T, d)
    return Case(same(torchlike_step(T, loss_of, params)))


def cnn_loss(T: Any, d: CNNData) -> tuple[Callable[[], Any], list]:
    """LeNet's forward to the loss, and its parameters."""
    nn = importlib.import_module(T.__name__ + ".nn")
    model = lenet(T, d)
    x, y = T.tensor(d.x), T.tensor(d.y)
    return lambda: nn.functional.cross_entropy(model(x), y), list(model.parameters())


def cnn_case(engine: str, d: CNNData) -> Case:
    if engine == "numpy":
        return cnn_numpy(d)
    if engine in ("minigrad", "torch"):
        return cnn_torchlike(load(engine), d)
    load(engine)  # (Unavailable when it is not installed)
    raise NotApplicable("n/a: no convolution layers")

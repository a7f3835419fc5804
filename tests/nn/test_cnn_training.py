"""A small CNN learns a synthetic 8x8 digits-like set (noisy renderings of 10 fixed patterns),
and a training step's memory stays flat (the saved im2col columns are freed by backward)."""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim


def digits(n_per_class: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """10 fixed random 8x8 patterns (strokes of ones), each rendered with noise and shifted by
    up to one pixel: images (N, 1, 8, 8) float32 and labels (N,)."""
    patterns = np.random.default_rng(1234).random((10, 8, 8)) < 0.35
    rng = np.random.default_rng(seed)
    images, labels = [], []
    for label, pattern in enumerate(patterns):
        for _ in range(n_per_class):
            image = np.roll(pattern, rng.integers(-1, 2, 2), axis=(0, 1)).astype(np.float32)
            images.append(image + rng.normal(0, 0.3, (8, 8)).astype(np.float32))
            labels.append(label)
    return np.stack(images)[:, None], np.array(labels)


def small_cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(16 * 2 * 2, 10))


def test_a_small_cnn_learns_the_digits():
    mg.manual_seed(0)
    x, y = digits(30)
    model = small_cnn()
    opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    order = np.random.default_rng(0).permutation(len(y))
    for _ in range(15):
        for batch in np.array_split(order, 10):
            opt.zero_grad()
            F.cross_entropy(model(mg.tensor(x[batch])), mg.tensor(y[batch])).backward()
            opt.step()
    with mg.no_grad():
        accuracy = (model(mg.tensor(x)).argmax(1).numpy() == y).mean()
    assert accuracy > 0.95, accuracy


def test_memory_is_flat_over_100_steps():
    mg.manual_seed(0)
    x, y = mg.tensor(digits(4)[0]), mg.tensor(digits(4)[1])
    model = small_cnn()
    opt = optim.SGD(model.parameters(), lr=0.01)

    def step() -> None:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()

    step()
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(10):
            step()
        after_10 = tracemalloc.get_traced_memory()[0]
        for _ in range(90):
            step()
        after_100 = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert after_100 - after_10 < 256 * 1024, (after_10, after_100)


def test_backward_frees_every_node_s_saved_arrays():
    model = small_cnn()
    x, y = digits(2)
    loss = F.cross_entropy(model(mg.tensor(x)), mg.tensor(y))
    nodes, todo = [], [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node.name() != "AccumulateGrad" and node not in nodes:
            nodes.append(node)
            todo += [n for n, _ in node.next_functions]
    assert any(n.name() == "ConvolutionBackward0" and n.saved_values for n in nodes)
    loss.backward()
    assert all(n.saved_values == () for n in nodes)

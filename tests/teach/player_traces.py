"""Traces the player tests step through: the classic x*y example, a small MLP, a long chain of
scalar layers (4 nodes a layer: hundreds or a thousand nodes), and a model whose parameters
have long dotted names."""

from __future__ import annotations

import numpy as np

import minigrad
from minigrad import nn


def classic():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True, name="x")
    y = minigrad.tensor([4.0, 5.0, 6.0], requires_grad=True, name="y")
    return minigrad.trace(lambda: (x * y).sum() * 3)


def mlp():
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    x = minigrad.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), name="x")
    target = minigrad.tensor([[1.0, 0.0], [0.0, 1.0]])
    return minigrad.trace(lambda: nn.functional.mse_loss(model(x), target), params=model)


def chain(layers: int):
    """4 nodes a layer (mul, add, tanh and the two leaves' AccumulateGrad, shared x aside)."""
    x = minigrad.tensor(np.linspace(-1, 1, 4, dtype=np.float32), requires_grad=True, name="x")
    h = x
    for i in range(layers):
        w = minigrad.tensor(np.float32(0.9), requires_grad=True, name=f"w{i}")
        b = minigrad.tensor(np.float32(0.1), requires_grad=True, name=f"b{i}")
        h = (h * w + b).tanh()
    return minigrad.trace(h.sum())


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention_projection_with_a_long_name = nn.Linear(3, 3)
        self.feed_forward_output_projection = nn.Linear(3, 1)

    def forward(self, x):
        return self.feed_forward_output_projection(
            self.attention_projection_with_a_long_name(x).tanh())


def long_names():
    """Parameters named like a transformer's: encoder.layers_of_the_encoder.0.attention_..."""
    minigrad.manual_seed(0)
    model = nn.Module()
    model.encoder = nn.Module()
    model.encoder.layers_of_the_encoder = nn.Sequential(Block(), nn.Tanh())
    x = minigrad.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), name="x")
    return minigrad.trace(lambda: model.encoder.layers_of_the_encoder(x).pow(2).mean(),
                          params=model)

"""Real-sized minigrad models for the module views, focus and summary tests (CPU, float32).

`resnet18()` has torchvision's parameter names (conv1, bn1, layer1.0.conv1, ..., fc); the
others are what a course builds next: a 2-layer Transformer encoder, an LSTM language model,
a small CNN, a 10-layer sigmoid net (its first layers' gradients vanish) and an LSTMCell
unrolled over time (a big flat graph).
"""

from __future__ import annotations

import numpy as np

import minigrad as mg
from minigrad import nn


class BasicBlock(nn.Module):
    """torchvision's BasicBlock: two 3x3 convolutions and a shortcut."""

    def __init__(self, inplanes: int, planes: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride=stride,
                                                      bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet18(nn.Module):
    """torchvision's resnet18, with fewer channels (`width`) so that it runs fast on numpy."""

    def __init__(self, width: int = 8, classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        planes = [width, width * 2, width * 4, width * 8]
        inplanes = width
        for k, p in enumerate(planes):
            stride = 1 if k == 0 else 2
            setattr(self, f"layer{k + 1}", nn.Sequential(BasicBlock(inplanes, p, stride),
                                                         BasicBlock(p, p)))
            inplanes = p
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(inplanes, classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(mg.flatten(self.avgpool(x), 1))


class TransformerLM(nn.Module):
    """Embedding, a 2-layer nn.TransformerEncoder, a linear head."""

    def __init__(self, vocab: int = 20, d_model: int = 16, layers: int = 2) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        layer = nn.TransformerEncoderLayer(d_model, 2, dim_feedforward=32, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)))


class LSTMLM(nn.Module):
    """Embedding, a 2-layer nn.LSTM, a linear head."""

    def __init__(self, vocab: int = 20, hidden: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out)


class SmallCNN(nn.Module):
    """Two conv-relu-pool stages and a classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(8 * 2 * 2, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def sigmoid_net(layers: int = 10, width: int = 8) -> nn.Sequential:
    """`layers` Linear+Sigmoid pairs: the gradient shrinks by ~4x per layer going back."""
    parts = []
    for _ in range(layers):
        parts += [nn.Linear(width, width), nn.Sigmoid()]
    return nn.Sequential(*parts, nn.Linear(width, 1))


class UnrolledLSTMCell(nn.Module):
    """One nn.LSTMCell run `steps` times over a sequence, then a linear head."""

    def __init__(self, steps: int = 20, hidden: int = 8) -> None:
        super().__init__()
        self.steps = steps
        self.cell = nn.LSTMCell(hidden, hidden)
        self.head = nn.Linear(hidden, 1)

    def forward(self, xs):
        h = c = mg.zeros(xs.shape[1], self.cell.hidden_size)
        for t in range(self.steps):
            h, c = self.cell(xs[t], (h, c))
        return self.head(h)


def tokens(batch: int = 2, length: int = 6, vocab: int = 20) -> mg.Tensor:
    return mg.tensor(np.random.default_rng(0).integers(0, vocab, (batch, length)))


def traced(model: nn.Module, x: mg.Tensor) -> mg.Trace:
    """`mg.trace` of the model's mean squared output (a scalar loss)."""
    return mg.trace(lambda: (model(x) ** 2).mean())


def resnet_trace() -> mg.Trace:
    mg.manual_seed(0)
    return traced(ResNet18(), mg.randn(2, 3, 32, 32))


def transformer_trace() -> mg.Trace:
    mg.manual_seed(0)
    return traced(TransformerLM(), tokens())


def lstm_trace() -> mg.Trace:
    mg.manual_seed(0)
    return traced(LSTMLM(), tokens())


def cnn_trace() -> mg.Trace:
    mg.manual_seed(0)
    return traced(SmallCNN(), mg.randn(2, 1, 8, 8))


def sigmoid_trace() -> mg.Trace:
    mg.manual_seed(0)
    return traced(sigmoid_net(), mg.randn(4, 8))


def lstm_cell_trace(steps: int = 20) -> mg.Trace:
    mg.manual_seed(0)
    return traced(UnrolledLSTMCell(steps), mg.randn(steps, 2, 8))

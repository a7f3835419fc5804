"""Small real PyTorch models to trace: a ResNet-18 with torchvision's parameter names, a
2-layer Transformer encoder, a deep sigmoid MLP (vanishing gradients), an LSTMCell unrolled
over a sequence (a long graph to draw), on CPU in float32.

Written here (not imported from torchvision, which the project does not depend on) so that
`compare.trace_torch` and `grad_report` are tested on the module trees people really meet:
`layer2.0.conv1.weight`, `layer2.0.downsample.0.weight`, `layers.1.self_attn.in_proj_weight`.
"""

from __future__ import annotations

from typing import Any

from compare.torch_bridge import import_torch

__all__ = ["resnet18", "sigmoid_mlp", "transformer_encoder", "unrolled_lstm_cell"]


def resnet18(num_classes: int = 10) -> Any:
    """torchvision's ResNet-18 (BasicBlock, [2, 2, 2, 2]), with its module and parameter names."""
    nn = import_torch().nn

    class BasicBlock(nn.Module):
        def __init__(self, inplanes: int, planes: int, stride: int = 1) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = None
            if stride != 1 or inplanes != planes:
                self.downsample = nn.Sequential(
                    nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

        def forward(self, x: Any) -> Any:
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + identity)

    class ResNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            widths, inplanes = (64, 128, 256, 512), 64
            for i, planes in enumerate(widths):
                stride = 1 if i == 0 else 2
                layer = nn.Sequential(BasicBlock(inplanes, planes, stride),
                                      BasicBlock(planes, planes))
                setattr(self, f"layer{i + 1}", layer)
                inplanes = planes
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)

        def forward(self, x: Any) -> Any:
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(self.avgpool(x).flatten(1))

    return ResNet()


def transformer_encoder(d_model: int = 32, nhead: int = 4, layers: int = 2,
                        vocab: int = 50) -> Any:
    """An embedding, `nn.TransformerEncoder` of `layers` layers, and a linear head."""
    nn = import_torch().nn

    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, d_model)
            layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64,
                                               dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.head = nn.Linear(d_model, vocab)

        def forward(self, tokens: Any) -> Any:
            return self.head(self.encoder(self.embed(tokens)))

    return Encoder()


def sigmoid_mlp(depth: int = 10, width: int = 16) -> Any:
    """`depth` Linear+Sigmoid layers: the textbook net whose early layers barely learn."""
    nn = import_torch().nn
    layers: list = []
    for i in range(depth):
        layers += [nn.Linear(width if i else 4, width), nn.Sigmoid()]
    return nn.Sequential(*layers, nn.Linear(width, 1))


def unrolled_lstm_cell(hidden: int = 8) -> Any:
    """One nn.LSTMCell run over each step of a (steps, batch, hidden) sequence, then a Linear
    head: the graph grows by 15 nodes a step (369 nodes at 24 steps, traced)."""
    torch = import_torch()
    nn = torch.nn

    class UnrolledLSTMCell(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.cell = nn.LSTMCell(hidden, hidden)
            self.head = nn.Linear(hidden, 1)

        def forward(self, xs: Any) -> Any:
            h = c = torch.zeros(xs.shape[1], hidden)
            for x in xs:
                h, c = self.cell(x, (h, c))
            return self.head(h)

    return UnrolledLSTMCell()

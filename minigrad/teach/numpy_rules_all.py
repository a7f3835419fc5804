"""Every op's numpy rule by node name (`numpy_rules`): the tables of math (arithmetic,
elementwise functions, reductions), shaping (views, indexing, joining), layers (products,
softmaxes, losses, activations) and windows (convolution, max pooling), joined."""

from __future__ import annotations

from minigrad.teach.numpy_rules import Rule
from minigrad.teach.numpy_rules_layers import LAYERS
from minigrad.teach.numpy_rules_math import MATH
from minigrad.teach.numpy_rules_shaping import SHAPING
from minigrad.teach.numpy_rules_windows import WINDOWS

RULES: dict[str, Rule] = {**MATH, **SHAPING, **LAYERS, **WINDOWS}

"""Every op's numpy rule by node name (`numpy_rules`): the tables of math (arithmetic,
elementwise functions, reductions), shaping (views, indexing, joining) and layers (products,
softmax, losses, convolution, pooling), joined."""

from __future__ import annotations

from minigrad.teach.numpy_rules import Rule
from minigrad.teach.numpy_rules_layers import LAYERS
from minigrad.teach.numpy_rules_math import MATH
from minigrad.teach.numpy_rules_shaping import SHAPING

RULES: dict[str, Rule] = {**MATH, **SHAPING, **LAYERS}

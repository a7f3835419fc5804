"""Corpus cases for nn layers: convolution, pooling, normalisation, embedding, attention,
recurrent layers (see corpus.py)."""

from __future__ import annotations

import numpy as np

from compare.cases import Case, distinct, fixed, normal
from compare.cases import cases as _cases

IMG = {"x": normal(2, 3, 6, 6), "w": normal(4, 3, 3, 3), "b": normal(4)}
XW = {"x": normal(2, 3, 6, 6), "w": normal(4, 3, 3, 3)}
X = {"x": normal(2, 3, 6, 6)}
SIG = {"x": normal(2, 3, 9), "w": normal(4, 3, 3), "b": normal(4)}
UP = {"x": normal(2, 3, 4, 4), "w": normal(3, 2, 3, 3), "b": normal(2)}
POOL = {"x": distinct(2, 3, 6, 7)}
NORM = {"x": normal(4, 3, 5), "w": normal(3), "b": normal(3)}
STATS = {"x": normal(4, 3, 5), "w": normal(3), "b": normal(3), "m": fixed(normal(3)),
         "v": fixed(lambda rng: rng.uniform(0.5, 2.0, 3))}
TABLE = {"w": normal(6, 3), "i": lambda rng: np.array([[0, 5, 2], [2, 2, 1]])}


LAYERS: list[Case] = [
    *_cases("small nets", IMG, [
        ("F.conv2d(x, w, b)", lambda x, w, b, F: F.conv2d(x, w, b)),
        ("F.conv2d(x, w, b, stride=2, padding=1)",
         lambda x, w, b, F: F.conv2d(x, w, b, stride=2, padding=1)),
        ("F.conv2d(x, w, padding='same', dilation=2)",
         lambda x, w, F: F.conv2d(x, w, padding="same", dilation=2), XW),
        ("F.conv2d(x, w[:, :1], groups=3)", lambda x, w, F: F.conv2d(x, w[:3, :1], groups=3), XW),
        ("F.conv2d(x[0], w) (unbatched)", lambda x, w, F: F.conv2d(x[0], w), XW),
        ("F.conv1d(x, w, b, stride=2, padding=1)",
         lambda x, w, b, F: F.conv1d(x, w, b, stride=2, padding=1), SIG),
        ("F.conv_transpose2d(x, w, b, stride=2, output_padding=1)",
         lambda x, w, b, F: F.conv_transpose2d(x, w, b, stride=2, output_padding=1), UP),
        ("F.unfold(x, 2, padding=1)", lambda x, F: F.unfold(x, 2, padding=1), X),
        ("F.fold(F.unfold(x, 3), (6, 6), 3)", lambda x, F: F.fold(F.unfold(x, 3), (6, 6), 3), X),
        ("F.pad(x, (1, 2, 0, 1))", lambda x, F: F.pad(x, (1, 2, 0, 1)), X),
        ("relu(conv2d) -> max_pool2d", lambda x, w, b, F: F.max_pool2d(
            F.relu(F.conv2d(x, w, b, padding=1)), 2)),
    ]),
    *_cases("small nets", POOL, [
        ("F.max_pool2d(x, 2)", lambda x, F: F.max_pool2d(x, 2)),
        ("F.max_pool2d(x, 3, 2, 1, ceil_mode=True)",
         lambda x, F: F.max_pool2d(x, 3, 2, 1, ceil_mode=True)),
        ("F.max_pool1d(x[0], 2)", lambda x, F: F.max_pool1d(x[0], 2)),
        ("F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)",
         lambda x, F: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
        ("F.avg_pool1d(x[0], 3)", lambda x, F: F.avg_pool1d(x[0], 3)),
        ("F.adaptive_avg_pool2d(x, (2, 3))", lambda x, F: F.adaptive_avg_pool2d(x, (2, 3))),
        ("F.adaptive_avg_pool2d(x, 1)", lambda x, F: F.adaptive_avg_pool2d(x, 1)),
        ("F.adaptive_max_pool2d(x, (3, 2))", lambda x, F: F.adaptive_max_pool2d(x, (3, 2))),
    ]),
    *_cases("small nets", NORM, [
        ("F.batch_norm(x, None, None, w, b, training=True)",
         lambda x, w, b, F: F.batch_norm(x, None, None, w, b, training=True)),
        ("F.batch_norm(x, m, v, w, b) (eval)",
         lambda x, w, b, m, v, F: F.batch_norm(x, m, v, w, b), STATS),
        ("F.layer_norm(x, (5,), w5, b5)",
         lambda x, w, F: F.layer_norm(x, (5,), w, w * 2), {"x": normal(4, 3, 5),
                                                           "w": normal(5)}),
        ("F.group_norm(x, 3, w, b)", lambda x, w, b, F: F.group_norm(x, 3, w, b)),
    ]),
    *_cases("small nets", TABLE, [
        ("F.embedding(i, w)", lambda w, i, F: F.embedding(i, w)),
        ("F.embedding(i, w, padding_idx=2)", lambda w, i, F: F.embedding(i, w, padding_idx=2)),
    ]),
]

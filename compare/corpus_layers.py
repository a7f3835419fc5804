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


# -- activations (minigrad/ops/activations.py, nn/functional_activations.py) ------------------
from compare.cases import cases as _cases  # noqa: E402  (this block's own imports)
from compare.cases import nonzero, normal  # noqa: E402

_X = {"x": normal(2, 3)}
_NZ = {"x": nonzero(2, 3)}  # away from the kinks at 0


def _inplace(act):
    """`act(x * 1, inplace=True)`: an in-place activation on a non-leaf (leaves refuse)."""
    return lambda x, F: act(F, x * 1)


NN_CASES: list[Case] = _cases("softmax and losses", _X, [
    ("F.gelu(x)", lambda x, F: F.gelu(x)),
    ("F.gelu(x, approximate='tanh')", lambda x, F: F.gelu(x, approximate="tanh")),
    ("F.leaky_relu(x, 0.1)", lambda x, F: F.leaky_relu(x, 0.1), _NZ),
    ("F.leaky_relu(x*1, inplace=True)", _inplace(lambda F, z: F.leaky_relu(z, inplace=True)),
     _NZ),
    ("F.elu(x)", lambda x, F: F.elu(x), _NZ),
    ("F.elu(x*1, inplace=True)", _inplace(lambda F, z: F.elu(z, inplace=True)), _NZ),
    ("F.selu(x)", lambda x, F: F.selu(x), _NZ),
    ("F.silu(x)", lambda x, F: F.silu(x)),
    ("F.softplus(x, beta=2)", lambda x, F: F.softplus(x, beta=2)),
    ("F.hardtanh(x)", lambda x, F: F.hardtanh(x), _NZ),
    ("F.relu6(x)", lambda x, F: F.relu6(x), _NZ),
    ("F.relu(x*1, inplace=True)", _inplace(lambda F, z: F.relu(z, inplace=True)), _NZ),
    ("F.mish(x)", lambda x, F: F.mish(x)),
    ("F.softmin(x, dim=1)", lambda x, F: F.softmin(x, dim=1)),
])
LAYERS.extend(NN_CASES)

# -- losses (minigrad/ops/losses.py, nn/functional_losses.py) ---------------------------------
from compare.cases import fixed, labels, probs  # noqa: E402

_PAIR = {"x": normal(4, 3), "t": fixed(normal(4, 3))}
_LOGITS = {"x": normal(4, 3), "lab": labels(4, 3)}
_W = [1.0, 2.0, 0.5]

LOSS_CASES: list[Case] = _cases("softmax and losses", _PAIR, [
    ("F.l1_loss(x, t)", lambda x, t, F: F.l1_loss(x, t)),
    ("F.l1_loss(x, t, reduction='none')", lambda x, t, F: F.l1_loss(x, t, reduction="none")),
    ("F.smooth_l1_loss(x, t, beta=0.5)", lambda x, t, F: F.smooth_l1_loss(x, t, beta=0.5)),
    ("F.huber_loss(x, y, delta=0.7) (both require grad)",
     lambda x, y, F: F.huber_loss(x, y, delta=0.7), {"x": normal(4, 3), "y": normal(4, 3)}),
    ("F.kl_div(log_softmax, p, 'batchmean')", lambda x, p, F: F.kl_div(
        F.log_softmax(x, 1), p, reduction="batchmean"), {"x": normal(4, 3), "p": fixed(probs(
            4, 3))}),
    ("F.kl_div(x, log p, log_target=True)", lambda x, p, F: F.kl_div(
        x, p, reduction="sum", log_target=True), {"x": normal(4, 3), "p": fixed(normal(4, 3))}),
    ("F.cross_entropy(x, lab, label_smoothing=0.1)", lambda x, lab, F: F.cross_entropy(
        x, lab, label_smoothing=0.1), _LOGITS),
    ("F.cross_entropy(x, lab, weight, ignore_index, label_smoothing)",
     lambda x, lab, F, torch: F.cross_entropy(x, lab, weight=torch.tensor(_W, dtype=x.dtype),
                                              ignore_index=1, label_smoothing=0.1), _LOGITS),
    ("F.cross_entropy(x, probabilities)", lambda x, p, F: F.cross_entropy(x, p),
     {"x": normal(4, 3), "p": fixed(probs(4, 3))}),
    ("F.cross_entropy(x, probabilities, reduction='sum')", lambda x, p, F: F.cross_entropy(
        x, p, reduction="sum"), {"x": normal(4, 3), "p": fixed(probs(4, 3))}),
    ("F.cross_entropy(x (N, C, d), lab (N, d))", lambda x, lab, F: F.cross_entropy(x, lab),
     {"x": normal(2, 3, 4), "lab": lambda rng: rng.integers(0, 3, (2, 4))}),
])
LAYERS.extend(LOSS_CASES)
LOSS_CASES_ND: list[Case] = _cases("softmax and losses", {}, [
    ("F.cross_entropy(x (N, C, d1, d2), lab, weight, reduction='none')",
     lambda x, lab, F, torch: F.cross_entropy(x, lab, torch.tensor(_W, dtype=x.dtype),
                                              reduction="none"),
     {"x": normal(2, 3, 2, 2), "lab": lambda rng: rng.integers(0, 3, (2, 2, 2))}),
    ("F.nll_loss(x (N, C, d1, d2, d3), lab, reduction='none')",
     lambda x, lab, F: F.nll_loss(x, lab, reduction="none"),
     {"x": normal(2, 3, 2, 1, 2), "lab": lambda rng: rng.integers(0, 3, (2, 2, 1, 2))}),
])
LAYERS.extend(LOSS_CASES_ND)

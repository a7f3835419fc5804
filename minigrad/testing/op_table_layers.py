"""Op-table entries for the nn layers: convolution, pooling, normalisation, embedding, attention
(see op_table.py; `unary`/`binary` are in op_spec.py)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import minigrad
import minigrad.nn.functional as MF
from minigrad.testing.domains import DISTINCT, REAL, Domain
from minigrad.testing.op_spec import OpSpec


def _layer(name: str, call: Callable, node: str, source: str, shapes: str, arity: int = 1,
           domains: tuple[Domain, ...] = ()) -> OpSpec:
    """An entry whose `call(F, *tensors)` runs on either engine's `nn.functional` as `F`."""
    return OpSpec(name, lambda *t: call(MF, *t), node, source, arity=arity,
                  torch_fn=lambda torch, *t: call(torch.nn.functional, *t), shapes=shapes,
                  domains=domains, in_expressions=False)


def _running(F, values: list):
    """Running statistics as the engine's tensors (eval-mode batch norm reads them)."""
    lib = minigrad if F is MF else __import__("torch")
    return lib.tensor(np.array(values, dtype=np.float64))


IDX = np.array([[0, 2, 1], [4, 1, 1]])
D2 = (DISTINCT, REAL, REAL)  # (norms: well-spread inputs, so that the variance is not tiny)

LAYERS: list[OpSpec] = [
    _layer("conv2d", lambda F, x, w, b: F.conv2d(x, w, b, padding=1),
           "ConvolutionBackward0", "F.conv2d({0}, {1}, {2}, padding=1)", "conv2d", 3),
    _layer("conv2d_strided", lambda F, x, w, b: F.conv2d(x, w, b, stride=2, padding=(1, 0),
                                                        dilation=(1, 2)),
           "ConvolutionBackward0",
           "F.conv2d({0}, {1}, {2}, stride=2, padding=(1, 0), dilation=(1, 2))", "conv2d", 3),
    _layer("conv2d_same", lambda F, x, w: F.conv2d(x, w, padding="same"),
           "ConvolutionBackward0", "F.conv2d({0}, {1}, padding='same')", "conv2d_nobias", 2),
    _layer("conv2d_groups", lambda F, x, w, b: F.conv2d(x, w, b, groups=2),
           "ConvolutionBackward0", "F.conv2d({0}, {1}, {2}, groups=2)", "conv2d_groups", 3),
    _layer("conv1d", lambda F, x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
           "ConvolutionBackward0", "F.conv1d({0}, {1}, {2}, stride=2, padding=1)", "conv1d", 3),
    _layer("conv_transpose2d", lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=2,
                                                                    output_padding=1),
           "ConvolutionBackward0", "F.conv_transpose2d({0}, {1}, {2}, stride=2, "
           "output_padding=1)", "conv_transpose2d", 3),
    _layer("im2col_unfold", lambda F, x: F.unfold(x, 2, padding=1, stride=(1, 2)),
           "Im2ColBackward0",
           "F.unfold({0}, 2, padding=1, stride=(1, 2))", "image"),
    _layer("fold", lambda F, x: F.fold(x, (4, 4), 2), "Col2ImBackward0",
           "F.fold({0}, (4, 4), 2)", "columns"),
    _layer("pad", lambda F, x: F.pad(x, (1, 2, -1, 1)), "ConstantPadNdBackward0",
           "F.pad({0}, (1, 2, -1, 1))", "image"),
    _layer("max_pool2d", lambda F, x: F.max_pool2d(x, 2, stride=1, padding=1),
           "MaxPool2DWithIndicesBackward0", "F.max_pool2d({0}, 2, stride=1, padding=1)",
           "image", domains=(DISTINCT,)),
    _layer("max_pool2d_ceil", lambda F, x: F.max_pool2d(x, 3, 2, ceil_mode=True, dilation=1),
           "MaxPool2DWithIndicesBackward0", "F.max_pool2d({0}, 3, 2, ceil_mode=True)", "image",
           domains=(DISTINCT,)),
    _layer("max_pool1d", lambda F, x: F.max_pool1d(x, 2), "SqueezeBackward1",
           "F.max_pool1d({0}, 2)", "signal", domains=(DISTINCT,)),
    _layer("avg_pool2d", lambda F, x: F.avg_pool2d(x, 3, 2, padding=1, ceil_mode=True,
                                                  count_include_pad=False),
           "AvgPool2DBackward0", "F.avg_pool2d({0}, 3, 2, padding=1, ceil_mode=True, "
           "count_include_pad=False)", "image"),
    _layer("avg_pool1d", lambda F, x: F.avg_pool1d(x, 3, 1, padding=1), "SqueezeBackward1",
           "F.avg_pool1d({0}, 3, 1, padding=1)", "signal"),
    _layer("adaptive_avg_pool2d", lambda F, x: F.adaptive_avg_pool2d(x, (2, 3)),
           "AdaptiveAvgPool2DBackward0", "F.adaptive_avg_pool2d({0}, (2, 3))", "image"),
    _layer("adaptive_max_pool2d", lambda F, x: F.adaptive_max_pool2d(x, (3, 2)),
           "AdaptiveMaxPool2DBackward0", "F.adaptive_max_pool2d({0}, (3, 2))", "image",
           domains=(DISTINCT,)),
    _layer("batch_norm", lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
           "NativeBatchNormBackward0", "F.batch_norm({0}, None, None, {1}, {2}, training=True)",
           "channels_affine", 3, D2),
    _layer("batch_norm_plain", lambda F, x: F.batch_norm(x, None, None, training=True),
           "NativeBatchNormBackward0", "F.batch_norm({0}, None, None, training=True)",
           "channels", domains=(DISTINCT,)),
    _layer("batch_norm_eval", lambda F, x, w, b: F.batch_norm(
        x, _running(F, [0.3, -0.2]), _running(F, [1.5, 0.7]), w, b, training=False),
        "NativeBatchNormBackward0", "F.batch_norm({0}, mean, var, {1}, {2})",
        "channels_affine", 3),
    _layer("layer_norm", lambda F, x, w, b: F.layer_norm(x, x.shape[-1:], w, b),
           "NativeLayerNormBackward0", "F.layer_norm({0}, {0}.shape[-1:], {1}, {2})",
           "last_dim_affine", 3, D2),
    _layer("group_norm", lambda F, x, w, b: F.group_norm(x, 2, w, b),
           "NativeGroupNormBackward0", "F.group_norm({0}, 2, {1}, {2})", "groups_affine", 3, D2),
    # (padding_idx's row gets no gradient on purpose, which finite differences would see:
    # tests/nn/test_embedding.py checks it against PyTorch)
    _layer("embedding", lambda F, w: F.embedding(_indices(F), w), "EmbeddingBackward0",
           "F.embedding(idx, {0})", "table"),
]


def _indices(F):
    lib = minigrad if F is MF else __import__("torch")
    return lib.tensor(IDX)

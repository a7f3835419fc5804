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


def _running(F, values: list, like):
    """Running statistics as the engine's tensors, in the input's dtype (eval-mode batch norm
    reads them; PyTorch refuses statistics of another dtype)."""
    lib = minigrad if F is MF else __import__("torch")
    return lib.tensor(values, dtype=like.dtype)


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
        x, _running(F, [0.3, -0.2], x), _running(F, [1.5, 0.7], x), w, b, training=False),
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


# -- activations (minigrad/ops/activations.py) ------------------------------------------------
from typing import Any  # noqa: E402  (this block's own imports, kept with it)

from minigrad.testing.domains import AWAY_FROM_BOUNDS, AWAY_FROM_STEPS, AWAY_FROM_ZERO  # noqa: E402


def _activation(name: str, call: Callable[..., Any], node: str, source: str,
                **kw: Any) -> OpSpec:
    """An entry for a `functional` activation: `call(F, x)` runs on minigrad's F and on
    torch's, e.g. `_activation("elu", lambda F, x: F.elu(x), "EluBackward0", "elu({0})")`."""
    import minigrad.nn.functional as mgF

    return OpSpec(name, lambda x, **p: call(mgF, x, **p), node,
                  "minigrad.nn.functional." + source,
                  torch_fn=lambda torch, x, **p: call(torch.nn.functional, x, **p), **kw)


ACTIVATIONS: list[OpSpec] = [
    _activation("gelu", lambda F, x: F.gelu(x), "GeluBackward0", "gelu({0})"),
    _activation("gelu_tanh", lambda F, x: F.gelu(x, approximate="tanh"), "GeluBackward0",
                "gelu({0}, approximate='tanh')"),
    _activation("leaky_relu", lambda F, x: F.leaky_relu(x, 0.2), "LeakyReluBackward0",
                "leaky_relu({0}, 0.2)", domains=(AWAY_FROM_ZERO,)),
    _activation("leaky_relu_", lambda F, x: F.leaky_relu(x.clone(), inplace=True),
                "LeakyReluBackward1", "leaky_relu({0}.clone(), inplace=True)",
                domains=(AWAY_FROM_ZERO,), in_expressions=False),
    _activation("elu", lambda F, x: F.elu(x, 0.7), "EluBackward0", "elu({0}, 0.7)",
                domains=(AWAY_FROM_ZERO,)),
    _activation("elu_", lambda F, x: F.elu(x.clone(), inplace=True), "EluBackward1",
                "elu({0}.clone(), inplace=True)", domains=(AWAY_FROM_ZERO,),
                in_expressions=False),
    _activation("selu", lambda F, x: F.selu(x), "EluBackward0", "selu({0})",
                domains=(AWAY_FROM_ZERO,)),
    _activation("silu", lambda F, x: F.silu(x), "SiluBackward0", "silu({0})"),
    _activation("softplus", lambda F, x: F.softplus(x), "SoftplusBackward0", "softplus({0})",
                positive_output=True),
    _activation("softplus_beta", lambda F, x: F.softplus(x, beta=2.0, threshold=3.0),
                "SoftplusBackward0", "softplus({0}, beta=2.0, threshold=3.0)",
                domains=(AWAY_FROM_STEPS,), positive_output=True),
    _activation("hardtanh", lambda F, x: F.hardtanh(x, -0.5, 0.5), "HardtanhBackward0",
                "hardtanh({0}, -0.5, 0.5)", domains=(AWAY_FROM_BOUNDS,)),
    _activation("relu6", lambda F, x: F.relu6(x), "HardtanhBackward0", "relu6({0})",
                domains=(AWAY_FROM_ZERO,)),
    _activation("mish", lambda F, x: F.mish(x), "MishBackward0", "mish({0})"),
    _activation("softmin", lambda F, x, dim: F.softmin(x, dim=dim), "SoftmaxBackward0",
                "softmin({0}, dim={dim})", shapes="nonscalar", params=("dim",),
                positive_output=True),
]
LAYERS.extend(ACTIVATIONS)



# -- losses beyond mse/nll/bce (minigrad/ops/losses.py, nn/functional_losses.py) --------------
from minigrad.testing.domains import POSITIVE, PROBABILITY, apart  # noqa: E402


def _loss(name: str, call: Callable[..., Any], node: str, source: str, **kw: Any) -> OpSpec:
    """A two-input (input, target) loss entry, `call(F, x, t, **params)` on either engine."""
    import minigrad.nn.functional as mgF

    kw.setdefault("shapes", "same")
    return OpSpec(name, lambda x, t, **p: call(mgF, x, t, **p), node,
                  "minigrad.nn.functional." + source, arity=2, in_expressions=False,
                  torch_fn=lambda torch, x, t, **p: call(torch.nn.functional, x, t, **p), **kw)


def _off_kink(at: float) -> Callable[..., bool]:
    """Joint check: |input - target| is never (nearly) `at`, where the loss's curvature jumps."""
    def valid(x: Any, t: Any, tol: float = 1e-3, **params: Any) -> bool:
        return bool(np.all(np.abs(np.abs(np.subtract(x, t)) - at) > 0.05))
    return valid


def _has_classes(x: Any, t: Any, tol: float = 1e-3, **params: Any) -> bool:
    return np.ndim(x) >= 1


def _nll_nd(F: Any, tensor: Callable, x: Any, reduction: str) -> Any:
    """nll_loss of x (N, C) seen as an image (N, C, 1, 1), labels 0, 1, 2, ... mod C."""
    n, classes = x.shape
    labels = tensor((np.arange(n) % classes).reshape(n, 1, 1))
    return F.nll_loss(x.unsqueeze(-1).unsqueeze(-1), labels, reduction=reduction)


def _smoothed(F: Any, tensor: Callable, x: Any, labels: list, reduction: str) -> Any:
    return F.cross_entropy(x, tensor(labels), reduction=reduction, label_smoothing=0.2)


def _with_labels(name: str, call: Callable, node: str, source: str, **kw: Any) -> OpSpec:
    """An entry whose labels are made inside: `call(F, tensor, x, **params)`."""
    import minigrad
    import minigrad.nn.functional as mgF

    return OpSpec(name, lambda x, **p: call(mgF, minigrad.tensor, x, **p), node,
                  "minigrad.nn.functional." + source, in_expressions=False,
                  torch_fn=lambda torch, x, **p: call(torch.nn.functional, torch.tensor, x, **p),
                  **kw)


LOSSES: list[OpSpec] = [
    _loss("l1_loss", lambda F, x, t: F.l1_loss(x, t, reduction="sum"), "SumBackward0",
          "l1_loss({0}, {1}, reduction='sum')", valid=apart),
    _loss("smooth_l1_loss", lambda F, x, t, reduction: F.smooth_l1_loss(
        x, t, reduction=reduction, beta=0.5), "SmoothL1LossBackward0",
        "smooth_l1_loss({0}, {1}, reduction={reduction}, beta=0.5)", params=("reduction",),
        valid=_off_kink(0.5)),
    _loss("huber_loss", lambda F, x, t, reduction: F.huber_loss(
        x, t, reduction=reduction, delta=0.7), "HuberLossBackward0",
        "huber_loss({0}, {1}, reduction={reduction}, delta=0.7)", params=("reduction",),
        valid=_off_kink(0.7)),
    _loss("kl_div", lambda F, x, t: F.kl_div(x, t, reduction="sum"), "SumBackward0",
          "kl_div({0}, {1}, reduction='sum')", domains=(REAL, POSITIVE)),
    _loss("kl_div_log_target", lambda F, x, t: F.kl_div(
        x, t, reduction="none", log_target=True), "MulBackward0",
        "kl_div({0}, {1}, reduction='none', log_target=True)"),
    _loss("cross_entropy_probs", lambda F, x, t: F.cross_entropy(x, t, label_smoothing=0.1),
          "DivBackward1", "cross_entropy({0}, {1}, label_smoothing=0.1)",
          domains=(REAL, PROBABILITY), valid=_has_classes),
    _with_labels("cross_entropy_smoothed", _smoothed, "AddBackward0",
                 "cross_entropy({0}, minigrad.tensor({labels}), reduction={reduction}, "
                 "label_smoothing=0.2)", shapes="matrix", params=("labels", "reduction")),
    _with_labels("nll_loss_nd", _nll_nd, "NllLoss2DBackward0",
                 "nll_loss({0}[:, :, None, None], labels, reduction={reduction})",
                 shapes="matrix", params=("reduction",)),
]
LAYERS.extend(LOSSES)

"""Op-table entries for the nn layers: convolution, pooling, normalisation, embedding, attention
(see op_table.py; `unary`/`binary` are in op_spec.py)."""

from __future__ import annotations

from minigrad.testing.op_spec import OpSpec

LAYERS: list[OpSpec] = []


# -- activations (minigrad/ops/activations.py) ------------------------------------------------
from collections.abc import Callable  # noqa: E402  (this block's own imports, kept with it)
from typing import Any  # noqa: E402

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

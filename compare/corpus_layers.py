"""Corpus cases for nn layers: convolution, pooling, normalisation, embedding, attention,
recurrent layers (see corpus.py)."""

from __future__ import annotations

from compare.cases import Case

LAYERS: list[Case] = []


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
    ("d gelu(x)/dx (create_graph)", lambda x, torch, F: torch.autograd.grad(
        F.gelu(x).sum(), x, create_graph=True)[0]),
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

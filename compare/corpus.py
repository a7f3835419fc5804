"""The named expressions that minigrad must match PyTorch on: every op, broadcasting,
reductions with dims, indexing, every kind of matmul, softmax and losses, small networks.

Each `Case` is a callable (or expression string) plus how to draw its inputs; the inputs are
drawn from a generator seeded by the case's name, so a case is the same numbers every run.
Callables use Tensor methods, or take a `torch` / `F` parameter for module-level functions
(see `compare.torch_bridge`): the same text runs on both engines.

    from compare.corpus import CORPUS
    for case in CORPUS:
        print(case.run().summary())
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from compare.cases import (
    Case,
    distinct,
    fixed,
    labels,
    nonzero,
    normal,
    positive,
    probs,
)
from compare.cases import cases as _cases
from compare.corpus_layers import LAYERS
from compare.corpus_math import MATH
from compare.corpus_nn_utils import NN_UTILS
from compare.corpus_shaping import SHAPING

V = {"x": normal(3), "y": normal(3)}
X = {"x": normal(3)}
P = {"p": positive(3)}
NZ = {"x": nonzero(3)}
M = {"A": normal(2, 3)}
MX = {"A": normal(2, 3), "x": normal(3)}
MB = {"A": normal(2, 3), "B": normal(3, 4)}
B3 = {"b1": normal(5, 2, 3), "b2": normal(5, 3, 4)}
DM = {"A": distinct(2, 3)}

ELEMENTWISE = _cases("elementwise", V, [
    ("x + y", lambda x, y: x + y),
    ("x * y", lambda x, y: x * y),
    ("x - y", lambda x, y: x - y),
    ("x / y", lambda x, y: x / y, {"x": normal(3), "y": nonzero(3)}),
    ("-x", lambda x: -x, X),
    ("x ** 2", lambda x: x ** 2, X),
    ("x ** y", lambda p, y: p ** y, {"p": positive(3), "y": normal(3)}),
    ("2 ** x", lambda x: 2 ** x, X),
    ("x * 3 (scalar)", lambda x: x * 3, X),
    ("3 * x", lambda x: 3 * x, X),
    ("x + 1", lambda x: x + 1, X),
    ("1 - x (rsub)", lambda x: 1 - x, X),
    ("1 / x (rdiv)", lambda x: 1 / x, NZ),
    ("x / 2", lambda x: x / 2, X),
    ("x % y (remainder)", lambda x, y: x % y, {"x": normal(3), "y": nonzero(3)}),
    ("x % 1.5", lambda x: x % 1.5, X),
    ("x.exp()", lambda x: x.exp(), X),
    ("p.log()", lambda p: p.log(), P),
    ("x.tanh()", lambda x: x.tanh(), X),
    ("x.sigmoid()", lambda x: x.sigmoid(), X),
    ("torch.sigmoid(x)", lambda x, torch: torch.sigmoid(x), X),
    ("x.relu()", lambda x: x.relu(), NZ),
    ("p.sqrt()", lambda p: p.sqrt(), P),
    ("x.abs()", lambda x: x.abs(), NZ),
    ("x.sin()", lambda x: x.sin(), X),
    ("x.cos()", lambda x: x.cos(), X),
    ("x.tan()", lambda x: x.tan(), {"x": lambda rng: rng.uniform(-1.2, 1.2, 3)}),  # (poles)
    ("p ** 0.5", lambda p: p ** 0.5, P),
    ("p ** -1.5", lambda p: p ** -1.5, P),
    ("x.square()", lambda x: x.square(), X),
    ("x.reciprocal()", lambda x: x.reciprocal(), NZ),
    ("torch.exp(x)", lambda x, torch: torch.exp(x), X),
    ("torch.maximum(x,y)", lambda x, y, torch: torch.maximum(x, y)),
    ("torch.minimum(x,y)", lambda x, y, torch: torch.minimum(x, y)),
    ("torch.where(x>0,x,y)", lambda x, y, torch: torch.where(x > 0, x, y)),
    ("torch.where(x>0,x,0.)", lambda x, torch: torch.where(x > 0, x, 0.0), NZ),
    ("x.clamp(-0.5, 0.5)", lambda x: x.clamp(-0.5, 0.5), X),
    ("x.clamp(min=0)", lambda x: x.clamp(min=0), NZ),
    ("x.add(y, alpha=2)", lambda x, y: x.add(y, alpha=2)),
    ("x.sub(y, alpha=2)", lambda x, y: x.sub(y, alpha=2)),
    ("x * x (shared leaf)", lambda x: x * x, X),
    ("x * x * x", lambda x: x * x * x, X),
    ("(x + y) * (x - y)", lambda x, y: (x + y) * (x - y)),
    ("3*x**3 - 2*x + 1", lambda x: 3 * x ** 3 - 2 * x + 1, X),
    ("x.exp().log()", lambda x: x.exp().log(), X),
    ("(x*y + x).tanh() / (1 + y*y)", lambda x, y: (x * y + x).tanh() / (1 + y * y)),
])

BROADCASTING = _cases("broadcasting", MX, [
    ("A + x (broadcast)", lambda A, x: A + x),
    ("A * x", lambda A, x: A * x),
    ("A / x", lambda A, x: A / x, {"A": normal(2, 3), "x": nonzero(3)}),
    ("A - c (column)", lambda A, c: A - c, {"A": normal(2, 3), "c": normal(2, 1)}),
    ("c + r (outer)", lambda c, r: c + r, {"c": normal(2, 1), "r": normal(1, 3)}),
    ("s * A (0-d)", lambda s, A: s * A, {"s": normal(), "A": normal(2, 3)}),
    ("b1 * A (3-D by 2-D)", lambda b1, A: b1 * A, {"b1": normal(5, 2, 3), "A": normal(2, 3)}),
    ("A * 2.5 + 1", lambda A: A * 2.5 + 1, M),
    ("torch.maximum(A, x)", lambda A, x, torch: torch.maximum(A, x)),
    ("torch.where(A>0, A, x)", lambda A, x, torch: torch.where(A > 0, A, x)),
    ("(A * x).sum(0) (broadcast then reduce)", lambda A, x: (A * x).sum(0)),
])

REDUCTIONS = _cases("reductions", M, [
    ("x.sum()", lambda x: x.sum(), X),
    ("A.sum(dim=0)", lambda A: A.sum(dim=0)),
    ("A.sum(0, keepdim=True)", lambda A: A.sum(0, keepdim=True)),
    ("A.sum(-1)", lambda A: A.sum(-1)),
    ("A.sum(dim=(0, 1))", lambda A: A.sum(dim=(0, 1))),
    ("x.mean()", lambda x: x.mean(), X),
    ("A.mean(dim=1)", lambda A: A.mean(dim=1)),
    ("A.mean(0, keepdim=True)", lambda A: A.mean(0, keepdim=True)),
    ("b1.mean(dim=(0, 2))", lambda b1: b1.mean(dim=(0, 2)), {"b1": normal(5, 2, 3)}),
    ("x.max()", lambda x: x.max(), {"x": distinct(4)}),
    ("x.min()", lambda x: x.min(), {"x": distinct(4)}),
    ("A.max(dim=1).values", lambda A: A.max(dim=1).values, DM),
    ("A.max(dim=0, keepdim=True).values", lambda A: A.max(dim=0, keepdim=True).values, DM),
    ("A.min(dim=1).values", lambda A: A.min(dim=1).values, DM),
    ("A.amax(dim=1)", lambda A: A.amax(dim=1), DM),
    ("A.amin(dim=0)", lambda A: A.amin(dim=0), DM),
    ("x.norm()", lambda x: x.norm(), X),
    ("A.norm(dim=1)", lambda A: A.norm(dim=1)),
    ("A.norm(dim=0, keepdim=True)", lambda A: A.norm(dim=0, keepdim=True)),
    ("A.sum(1).max()", lambda A: A.sum(1).max(), DM),
    ("torch.sum(A, 1)", lambda A, torch: torch.sum(A, 1)),
    ("torch.mean(A)", lambda A, torch: torch.mean(A)),
])

MATMUL = _cases("matmul", MB, [
    ("A @ B (2D mm)", lambda A, B: A @ B),
    ("torch.mm(A,B)", lambda A, B, torch: torch.mm(A, B)),
    ("x @ y (1D dot)", lambda x, y: x @ y, V),
    ("torch.dot(x,y)", lambda x, y, torch: torch.dot(x, y), V),
    ("A @ v (mv)", lambda A, v: A @ v, {"A": normal(2, 3), "v": normal(3)}),
    ("torch.mv(A,v)", lambda A, v, torch: torch.mv(A, v), {"A": normal(2, 3), "v": normal(3)}),
    ("v @ B (vm)", lambda v, B: v @ B, {"v": normal(3), "B": normal(3, 4)}),
    ("b1 @ b2 (3D matmul)", lambda b1, b2: b1 @ b2, B3),
    ("torch.bmm(b1,b2)", lambda b1, b2, torch: torch.bmm(b1, b2), B3),
    ("b1 @ B (3D@2D)", lambda b1, B: b1 @ B, {"b1": normal(5, 2, 3), "B": normal(3, 4)}),
    ("b1 @ v (3D@1D)", lambda b1, v: b1 @ v, {"b1": normal(5, 2, 3), "v": normal(3)}),
    ("v @ b2 (1D@3D)", lambda v, b2: v @ b2, {"v": normal(3), "b2": normal(5, 3, 4)}),
    ("A @ b2 (2D@3D)", lambda A, b2: A @ b2, {"A": normal(2, 3), "b2": normal(5, 3, 4)}),
    ("b1 @ c (batch broadcast 5 vs 1)", lambda b1, c: b1 @ c,
     {"b1": normal(5, 2, 3), "c": normal(1, 3, 4)}),
    ("d @ b2 (4D@3D broadcast)", lambda d, b2: d @ b2,
     {"d": normal(2, 1, 2, 3), "b2": normal(5, 3, 4)}),
    ("A @ A.t() (shared leaf)", lambda A: A @ A.t(), M),
    ("A.matmul(B)", lambda A, B: A.matmul(B)),
    ("torch.matmul(A, B)", lambda A, B, torch: torch.matmul(A, B)),
])

SHAPES = _cases("shapes", M, [
    ("A.view(3,2)", lambda A: A.view(3, 2)),
    ("A.reshape(3,2)", lambda A: A.reshape(3, 2)),
    ("A.reshape(6)", lambda A: A.reshape(6)),
    ("A.view(-1)", lambda A: A.view(-1)),
    ("A.t().reshape(6) (noncontig)", lambda A: A.t().reshape(6)),
    ("A.flatten()", lambda A: A.flatten()),
    ("A.t()", lambda A: A.t()),
    ("A.T", lambda A: A.T),
    ("A.transpose(0,1)", lambda A: A.transpose(0, 1)),
    ("b1.permute(2,0,1)", lambda b1: b1.permute(2, 0, 1), {"b1": normal(5, 2, 3)}),
    ("A.unsqueeze(0)", lambda A: A.unsqueeze(0)),
    ("A.unsqueeze(1).squeeze(1)", lambda A: A.unsqueeze(1).squeeze(1)),
    ("c.squeeze()", lambda c: c.squeeze(), {"c": normal(2, 1, 3)}),
    ("c.squeeze((1,)) (dims)", lambda c: c.squeeze((1,)), {"c": normal(2, 1, 3)}),
    ("A.unsafe_chunk(2, 1)[0] (an RNN cell's gates)", lambda A: A.unsafe_chunk(2, 1)[0]),
    ("x.expand(2,3)", lambda x: x.expand(2, 3), X),
    ("x.clone()", lambda x: x.clone(), X),
    ("torch.cat([x,y])", lambda x, y, torch: torch.cat([x, y]), V),
    ("torch.stack([x,y])", lambda x, y, torch: torch.stack([x, y]), V),
    ("torch.cat([A, A*2], dim=1)", lambda A, torch: torch.cat([A, A * 2], dim=1)),
    ("torch.stack([x, y], dim=1)", lambda x, y, torch: torch.stack([x, y], dim=1), V),
    ("A.t().contiguous()", lambda A: A.t().contiguous()),
])

INDEXING = _cases("indexing", M, [
    ("A[0] (int)", lambda A: A[0]),
    ("A[:, 1:] (slice)", lambda A: A[:, 1:]),
    ("A[0, 1] (int,int)", lambda A: A[0, 1]),
    ("A[[0,1]] (adv index)", lambda A: A[[0, 1]]),
    ("A[A>0] (bool mask)", lambda A: A[A > 0]),
    ("A[..., 1]", lambda A: A[..., 1]),
    ("A[:, None]", lambda A: A[:, None]),
    ("A[:, ::2]", lambda A: A[:, ::2]),
    ("A[[0, 0, 1]] (repeats add up)", lambda A: A[[0, 0, 1]]),
    ("x[1:] - x[:-1] (shared leaf)", lambda x: x[1:] - x[:-1], X),
    ("A[-1]", lambda A: A[-1]),
    ("x.narrow(0, 1, 2)", lambda x: x.narrow(0, 1, 2), X),
])

SOFTMAX_LOSSES = _cases("softmax and losses", M, [
    ("F.softmax(A, dim=1)", lambda A, F: F.softmax(A, dim=1)),
    ("F.log_softmax(A, dim=1)", lambda A, F: F.log_softmax(A, dim=1)),
    ("torch.softmax(A, dim=0)", lambda A, torch: torch.softmax(A, dim=0)),
    ("A.softmax(-1)", lambda A: A.softmax(-1)),
    ("A.log_softmax(0)", lambda A: A.log_softmax(0)),
    ("F.relu(x)", lambda x, F: F.relu(x), NZ),
    ("F.mse_loss(A,tgt)", lambda A, tgt, F: F.mse_loss(A, tgt),
     {"A": normal(2, 3), "tgt": fixed(normal(2, 3))}),
    ("F.cross_entropy(logits,lab)", lambda logits, lab, F: F.cross_entropy(logits, lab),
     {"logits": normal(4, 5), "lab": labels(4, 5)}),
    ("F.nll_loss(logsm,lab)", lambda logits, lab, F: F.nll_loss(F.log_softmax(logits, 1), lab),
     {"logits": normal(4, 5), "lab": labels(4, 5)}),
    ("F.binary_cross_entropy", lambda x, t, F: F.binary_cross_entropy(x.sigmoid(), t),
     {"x": normal(3), "t": fixed(probs(3))}),
    ("F.bce_with_logits", lambda x, t, F: F.binary_cross_entropy_with_logits(x, t),
     {"x": normal(3), "t": fixed(probs(3))}),
    ("F.linear(A, W, b)", lambda A, W, b, F: F.linear(A, W, b),
     {"A": normal(2, 3), "W": normal(4, 3), "b": normal(4)}),
    ("F.linear(A, W) (no bias)", lambda A, W, F: F.linear(A, W),
     {"A": normal(2, 3), "W": normal(4, 3)}),
    ("F.linear(x, W, b) 1D", lambda x, W, b, F: F.linear(x, W, b),
     {"x": normal(3), "W": normal(4, 3), "b": normal(4)}),
    ("F.tanh(x)", lambda x, F: F.tanh(x), X),
    ("F.sigmoid(x)", lambda x, F: F.sigmoid(x), X),
    ("log-sum-exp by hand", lambda A: A.exp().sum(1).log()),
    ("cross entropy by hand", lambda A, onehot: -(A.log_softmax(1) * onehot).sum(1).mean(),
     {"A": normal(4, 5), "onehot": fixed(lambda rng: np.eye(5)[rng.integers(0, 5, 4)])}),
])


def _in_place(op: Callable) -> Callable:
    """`z = x * 1; op(z, y); return z`: an in-place op on a non-leaf (leaves refuse them)."""

    def run(x: Any, y: Any) -> Any:
        z = x * 1
        op(z, y)
        return z

    return run


IN_PLACE_AND_DTYPES = _cases("in-place and dtypes", V, [
    ("z.add_(y)", _in_place(lambda z, y: z.add_(y))),
    ("z.sub_(y, alpha=2)", _in_place(lambda z, y: z.sub_(y, alpha=2))),
    ("z.mul_(2)", _in_place(lambda z, y: z.mul_(2))),
    ("z.div_(y)", _in_place(lambda z, y: z.div_(y)), {"x": normal(3), "y": nonzero(3)}),
    ("z.zero_()", _in_place(lambda z, y: z.zero_())),
    ("z.fill_(2.0)", _in_place(lambda z, y: z.fill_(2.0))),
    ("z.copy_(y)", _in_place(lambda z, y: z.copy_(y))),
    ("z.clamp_(-0.5, 0.5)", _in_place(lambda z, y: z.clamp_(-0.5, 0.5))),
    ("x += y on a non-leaf", _in_place(lambda z, y: z.__iadd__(y))),
    ("z[1:] = y[:2] * 2", _in_place(lambda z, y: z.__setitem__(slice(1, None), y[:2] * 2))),
    ("z[[0, 2]] = y[1:]", _in_place(lambda z, y: z.__setitem__([0, 2], y[1:]))),
    ("x.float().double() * 2", lambda x: x.float().double() * 2, X),
    ("A.sum_to_size(1, 3)", lambda A: A.sum_to_size(1, 3), M),
    ("b1.sum_to_size(2, 1)", lambda b1: b1.sum_to_size(2, 1), {"b1": normal(5, 2, 3)}),
])

STRINGS = _cases("expression strings", V, [
    ("sum(x*y)*3", "sum(x*y)*3"),
    ("mean(exp(x) * y)", "mean(exp(x) * y)"),
    ("(x @ y) * x", "(x @ y) * x"),
    ("softmax(A, dim=1)[:, 0]", "softmax(A, dim=1)[:, 0]", M),
    ("sum(tanh(A @ B), dim=0)", "sum(tanh(A @ B), dim=0)", MB),
    ("torch.where(x > 0, x, y * 2).sum()", "torch.where(x > 0, x, y * 2).sum()"),
    ("A.T @ A", "A.T @ A", M),
    ("maximum(x, y) - minimum(x, y)", "maximum(x, y) - minimum(x, y)"),
])


def _mlp(x: Any, W1: Any, b1: Any, W2: Any, b2: Any) -> Any:
    return ((x @ W1.t() + b1).tanh() @ W2.t() + b2).sum()


def _attention(Q: Any, K: Any, V: Any) -> Any:
    scores = (Q @ K.transpose(-2, -1)) / 2.0
    return scores.softmax(-1) @ V


def _layer_norm(A: Any) -> Any:
    centred = A - A.mean(-1, keepdim=True)
    return centred / ((centred ** 2).mean(-1, keepdim=True) + 1e-5).sqrt()


def _rnn(W: Any, U: Any, xs: Any) -> Any:
    h = (U @ xs[0]).tanh()
    for t in range(1, 3):
        h = (W @ h + U @ xs[t]).tanh()
    return h.sum()


NETS = _cases("small nets", {}, [
    ("MLP 3-4-2 (tanh)", _mlp, {"x": normal(5, 3), "W1": normal(4, 3), "b1": normal(4),
                                 "W2": normal(2, 4), "b2": normal(2)}),
    ("MLP with relu and cross entropy",
     lambda x, W1, W2, lab, F: F.cross_entropy(F.linear(F.linear(x, W1).relu(), W2), lab),
     {"x": normal(6, 3), "W1": normal(8, 3), "W2": normal(4, 8), "lab": labels(6, 4)}),
    ("logistic regression", lambda X, w, b, y: -(
        y * (X @ w + b).sigmoid().log() + (1 - y) * (1 - (X @ w + b).sigmoid()).log()).mean(),
     {"X": normal(6, 3), "w": normal(3), "b": normal(), "y": fixed(lambda rng: rng.integers(
         0, 2, 6).astype(float))}),
    ("softmax regression", lambda X, W, onehot: -((X @ W).log_softmax(1) * onehot).sum(),
     {"X": normal(5, 3), "W": normal(3, 4),
      "onehot": fixed(lambda rng: np.eye(4)[rng.integers(0, 4, 5)])}),
    ("attention softmax(QK^T/2) @ V", _attention,
     {"Q": normal(2, 4, 3), "K": normal(2, 4, 3), "V": normal(2, 4, 3)}),
    ("layer norm by hand", _layer_norm, {"A": normal(3, 4)}),
    ("residual block x + relu(x @ W)", lambda x, W: x + (x @ W).relu(),
     {"x": normal(4, 3), "W": normal(3, 3)}),
    ("RNN unrolled 3 steps (shared W)", _rnn,
     {"W": normal(4, 4), "U": normal(4, 3), "xs": normal(3, 3)}),
    ("MSE of a linear model", lambda X, w, y: ((X @ w - y) ** 2).mean(),
     {"X": normal(8, 3), "w": normal(3), "y": fixed(normal(8))}),
    ("two-layer net with bias broadcast",
     lambda X, W1, b1, W2: ((X @ W1 + b1).sigmoid() @ W2).sum(),
     {"X": normal(4, 3), "W1": normal(3, 5), "b1": normal(5), "W2": normal(5, 2)}),
])

CORPUS: list[Case] = [*ELEMENTWISE, *BROADCASTING, *REDUCTIONS, *MATMUL, *SHAPES, *INDEXING,
                      *SOFTMAX_LOSSES, *IN_PLACE_AND_DTYPES, *STRINGS, *NETS, *MATH,
                      *SHAPING, *LAYERS, *NN_UTILS]


def by_name(name: str) -> Case:
    for case in CORPUS:
        if case.name == name:
            return case
    raise KeyError(f"no corpus expression named {name!r}")

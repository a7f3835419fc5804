"""Corpus cases for packed sequences, weight and spectral normalization and their ops (vdot,
clamp_min, norm_except_dim, _weight_norm), and F.normalize (see corpus.py). (An RNN over a
packed batch is no case: minigrad's cells slice each step's gates where PyTorch projects the
whole input once and splits the gates with unsafe_chunk, so the graphs differ by those
nodes; the values and gradients are checked in tests/nn/test_packed_sequences.py.)"""

from __future__ import annotations

import importlib

from compare.cases import Case, nonzero, normal, positive
from compare.cases import cases as _cases


def _rnn(torch):
    return importlib.import_module(f"{torch.__name__}.nn.utils.rnn")


SEQ = {"x": normal(3, 4, 2)}
NN_UTILS: list[Case] = _cases("small nets", SEQ, [
    ("pack_padded_sequence(x, [3, 2, 1]).data * 2", lambda x, torch: _rnn(torch)
     .pack_padded_sequence(x, [3, 2, 1], batch_first=True).data * 2),
    ("pad_packed_sequence(pack_padded_sequence(x, unsorted))", lambda x, torch: _rnn(torch)
     .pad_packed_sequence(_rnn(torch).pack_padded_sequence(
         x, [2, 3, 1], batch_first=True, enforce_sorted=False), batch_first=True)[0]),
    ("(x @ torch._weight_norm(v, g, 0).t()).tanh() (a weight-normed layer)",
     lambda x, v, g, torch: (x @ torch._weight_norm(v, g, 0).t()).tanh(),
     {"x": normal(4, 3), "v": nonzero(2, 3), "g": normal(2, 1)}),
    ("torch._weight_norm(v, g, 1) (3-D)", lambda v, g, torch: torch._weight_norm(v, g, 1),
     {"v": nonzero(2, 3, 2), "g": normal(1, 3, 1)}),
    ("torch.norm_except_dim(v, 2, -1)", lambda v, torch: torch.norm_except_dim(v, 2, -1),
     {"v": nonzero(2, 3)}),
    ("u.vdot(W.mv(v)) (spectral norm's sigma)", lambda u, W, v: u.vdot(W.mv(v)),
     {"u": positive(2), "W": normal(2, 3), "v": positive(3)}),
    ("F.normalize(x, dim=1)", lambda x, torch: torch.nn.functional.normalize(x, dim=1),
     {"x": nonzero(2, 3)}),
    ("F.embedding_bag(index, W, offsets, mode='max')", lambda W, torch: torch.nn.functional
     .embedding_bag(torch.tensor([1, 2, 4, 5, 4]), W, torch.tensor([0, 2]), mode="max"),
     {"W": normal(6, 3)}),
    ("F.bilinear(a, b, W, c)", lambda a, b, W, c, torch: torch.nn.functional.bilinear(a, b, W, c),
     {"a": normal(5, 2), "b": normal(5, 3), "W": normal(4, 2, 3), "c": normal(4)}),
    ("x.clamp_min(0.3) * x.clamp_max(-0.2)", lambda x: x.clamp_min(0.3) * x.clamp_max(-0.2),
     {"x": nonzero(5)}),
])

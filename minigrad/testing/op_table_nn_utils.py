"""Op-table entries for the differentiable tools around the layers (see op_table.py): packed
sequences (`nn.utils.rnn`) and RNNs over them, weight and spectral normalization
(`nn.utils.parametrizations` and their ops), `F.normalize`, and activation checkpointing (the
non-reentrant variant: `autograd.grad` and a double backward run through it). Each runs as
`call(lib, *tensors)` with `lib` minigrad or torch."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

import minigrad
import minigrad.utils.checkpoint
from minigrad.testing.domains import (
    AWAY_FROM_BOUNDS,
    DISTINCT,
    NONZERO,
    POSITIVE,
    REAL,
    Domain,
)
from minigrad.testing.op_spec import OpSpec


def _both(name: str, call: Callable, node: str, source: str, shapes: str = "any",
          arity: int = 1, domains: tuple[Domain, ...] = ()) -> OpSpec:
    """An entry whose `call(lib, *tensors)` runs on minigrad and, as `lib`, on torch."""
    return OpSpec(name, lambda *t: call(minigrad, *t), node, source, arity=arity,
                  torch_fn=lambda torch, *t: call(torch, *t), shapes=shapes, domains=domains,
                  in_expressions=False)


def _rnn(lib):
    return importlib.import_module(f"{lib.__name__}.nn.utils.rnn")


def _checkpointed(lib, x, w):
    cp = importlib.import_module(f"{lib.__name__}.utils.checkpoint")
    return cp.checkpoint(lambda a, b: (a.tanh() * b).sin(), x, w, use_reentrant=False)


def _packed(lib, x, lengths=(3, 2, 1), sort=True):
    return _rnn(lib).pack_padded_sequence(x, list(lengths), batch_first=True,
                                          enforce_sorted=sort)


def _recurrent(kind: str, **options):
    """`kind` (fixed weights in the input's dtype, needing no gradient: the op's one input is
    the batch) over a packed batch; the padded output and h_n."""
    def call(lib, x):
        lib.manual_seed(0)
        module = getattr(lib.nn, kind)(2, 3, batch_first=True, dtype=x.dtype, **options)
        module.requires_grad_(False)
        with lib.no_grad():
            for i, p in enumerate(module.parameters()):
                p.copy_(lib.tensor(np.sin(np.arange(p.numel()) * 0.7 + i).reshape(p.shape)))
        module.requires_grad_(False)  # (a function of x alone)
        out, state = module(_packed(lib, x, (2, 3, 1), sort=False))
        h = state[0] if isinstance(state, tuple) else state
        return _rnn(lib).pad_packed_sequence(out, batch_first=True)[0] + h.sum()
    return call


def _spectral(lib, w):
    """The spectral-norm parametrization of `w` in eval mode, from fixed u and v."""
    norm = importlib.import_module(f"{lib.__name__}.nn.utils.parametrizations")._SpectralNorm(
        w.detach(), 1, 0, 1e-12).eval()
    with lib.no_grad():
        norm._u.copy_(lib.tensor(np.linspace(0.2, 0.9, norm._u.numel())))
        norm._v.copy_(lib.tensor(np.linspace(0.1, 0.7, norm._v.numel())))
    return norm(w)


def _bag(mode: str, padding_idx: int | None = None, weighted: bool = False):
    """F.embedding_bag over fixed bags of a (6, 3) table (two bags, one with a repeat)."""
    def call(lib, w, *psw):
        indices, offsets = lib.tensor([1, 2, 4, 5, 4]), lib.tensor([0, 2])
        return lib.nn.functional.embedding_bag(indices, w, offsets, mode=mode,
                                               padding_idx=padding_idx,
                                               per_sample_weights=psw[0] if psw else None)
    return call


NN_UTILS: list[OpSpec] = [
    _both("checkpoint", _checkpointed, "SinBackward0",
          "checkpoint(lambda a, b: (a.tanh() * b).sin(), {0}, {1}, use_reentrant=False)",
          shapes="broadcast", arity=2),
    _both("pack_padded_sequence", lambda lib, x: _packed(lib, x).data,
          "PackPaddedSequenceBackward0", "pack_padded_sequence({0}, [3, 2, 1], batch_first=True)"
          ".data", shapes="sequences"),
    _both("pack_unsorted", lambda lib, x: _packed(lib, x, (2, 3, 1), False).data,
          "PackPaddedSequenceBackward0", "pack_padded_sequence({0}, [2, 3, 1], batch_first=True,"
          " enforce_sorted=False).data", shapes="sequences"),
    _both("pad_packed_sequence", lambda lib, x: _rnn(lib).pad_packed_sequence(
        _packed(lib, x), batch_first=True)[0], "TransposeBackward0",
        "pad_packed_sequence(pack_padded_sequence({0}, [3, 2, 1], batch_first=True), "
        "batch_first=True)[0]", shapes="sequences"),
    _both("pad_sequence", lambda lib, x: _rnn(lib).pad_sequence([x[0], x[1, :2], x[2, :1]]),
          "CopySlices", "pad_sequence([{0}[0], {0}[1, :2], {0}[2, :1]])", shapes="sequences"),
    _both("rnn_packed", _recurrent("RNN"), "AddBackward0", "RNN over packed {0}",
          shapes="sequences"),
    _both("lstm_packed_2_layers", _recurrent("LSTM", num_layers=2), "AddBackward0",
          "LSTM(num_layers=2) over packed {0}", shapes="sequences"),
    _both("gru_packed_bidirectional", _recurrent("GRU", bidirectional=True), "AddBackward0",
          "GRU(bidirectional=True) over packed {0}", shapes="sequences"),
    _both("weight_norm", lambda lib, v, g: lib._weight_norm(v, g, 0),
          "WeightNormInterfaceBackward0", "_weight_norm({0}, {1}, 0)", shapes="weight_norm",
          arity=2, domains=(NONZERO, REAL)),
    _both("weight_norm_middle_dim", lambda lib, v, g: lib._weight_norm(v, g, 1), "MulBackward0",
          "_weight_norm({0}, {1}, 1)", shapes="weight_norm_3d", arity=2,
          domains=(NONZERO, REAL)),
    _both("norm_except_dim", lambda lib, v: lib.norm_except_dim(v, 2, 1), "TransposeBackward0",
          "norm_except_dim({0}, 2, 1)", shapes="cube", domains=(NONZERO,)),
    _both("norm_except_dim_all", lambda lib, v: lib.norm_except_dim(v, 2, -1), "NormBackward0",
          "norm_except_dim({0}, 2, -1)", shapes="cube", domains=(NONZERO,)),
    _both("spectral_norm", _spectral, "DivBackward0", "_SpectralNorm({0}).eval()({0})",
          shapes="square", domains=(POSITIVE,)),
    _both("normalize", lambda lib, x: lib.nn.functional.normalize(x, dim=1), "DivBackward0",
          "F.normalize({0}, dim=1)", shapes="square", domains=(NONZERO,)),
    _both("embedding_bag_mean", _bag("mean"), "EmbeddingBagBackward0",
          "F.embedding_bag([1, 2, 4, 5, 4], {0}, [0, 2])", shapes="bag_table"),
    _both("embedding_bag_max_padding", _bag("max", padding_idx=4), "EmbeddingBagBackward0",
          "F.embedding_bag([1, 2, 4, 5, 4], {0}, [0, 2], mode='max', padding_idx=4)",
          shapes="bag_table", domains=(DISTINCT,)),
    _both("embedding_bag_weighted", _bag("sum", weighted=True), "EmbeddingBagBackward0",
          "F.embedding_bag([1, 2, 4, 5, 4], {0}, [0, 2], mode='sum', "
          "per_sample_weights={1})", shapes="bag_weighted", arity=2),
    _both("bilinear", lambda lib, a, b, w: lib.nn.functional.bilinear(
        a, b, w, lib.ones(w.shape[0], dtype=w.dtype)), "AddBackward0",
        "F.bilinear({0}, {1}, {2}, ones)", shapes="bilinear_no_bias", arity=3),
    _both("bilinear_no_bias", lambda lib, a, b, w: lib.nn.functional.bilinear(a, b, w),
          "ViewBackward0", "F.bilinear({0}, {1}, {2})", shapes="bilinear_no_bias", arity=3),
    _both("vdot", lambda lib, x, y: lib.vdot(x, y), "VdotBackward0", "{0}.vdot({1})",
          shapes="vector_same", arity=2),
    _both("clamp_min_number", lambda lib, x: x.clamp_min(-0.5), "ClampMinBackward0",
          "{0}.clamp_min(-0.5)", domains=(AWAY_FROM_BOUNDS,)),
    _both("clamp_max_number", lambda lib, x: x.clamp_max(0.5), "ClampMaxBackward0",
          "{0}.clamp_max(0.5)", domains=(AWAY_FROM_BOUNDS,)),
]

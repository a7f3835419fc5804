"""The four nodes mirrored last (PackPaddedSequenceBackward0, WeightNormInterfaceBackward0,
EmbeddingBagBackward0, TrilinearBackward0), beyond the op table's one case each: every call
below is made on minigrad and on PyTorch, and each node's `_saved_*` names, the kind of each
value and the values themselves must be PyTorch's (its CPU kernel's results too: embedding_bag's
offset2bag, bag sizes and max indices, none for its fast float32 sum)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import minigrad

NODES = ("PackPaddedSequenceBackward0", "WeightNormInterfaceBackward0", "EmbeddingBagBackward0",
         "TrilinearBackward0")
RNG = np.random.default_rng(7)
TABLE = RNG.standard_normal((6, 3))
WEIGHTS = RNG.standard_normal(5)


def _bag(lib: Any, dtype: str = "float32", weighted: tuple | None = None, **kw: Any) -> Any:
    """embedding_bag of a (6, 3) table; `weighted`: (per_sample_weights requires grad, the
    table requires grad)."""
    grad_table = True if weighted is None else weighted[1]
    w = lib.tensor(TABLE.astype(dtype), requires_grad=grad_table)
    psw = None if weighted is None else lib.tensor(WEIGHTS.astype(dtype),
                                                   requires_grad=weighted[0])
    inputs = kw.pop("input", [1, 2, 4, 5, 4])
    offsets = kw.pop("offsets", [0, 2])
    return lib.nn.functional.embedding_bag(
        lib.tensor(inputs), w, None if offsets is None else lib.tensor(offsets),
        per_sample_weights=psw, **kw)


def _bilinear(lib: Any, needs: tuple) -> Any:
    a = lib.tensor(RNG_FIXED[0], requires_grad=needs[0])
    b = lib.tensor(RNG_FIXED[1], requires_grad=needs[1])
    w = lib.tensor(RNG_FIXED[2], requires_grad=needs[2])
    return lib.nn.functional.bilinear(a, b, w)


RNG_FIXED = (RNG.standard_normal((2, 5, 3)), RNG.standard_normal((2, 5, 4)),
             RNG.standard_normal((6, 3, 4)))
PADDED = RNG.standard_normal((3, 4, 2))


def _packed(lib: Any, batch_first: bool) -> Any:
    x = lib.tensor(PADDED, requires_grad=True)
    x = x.transpose(0, 1) if batch_first else x
    return lib.nn.utils.rnn.pack_padded_sequence(x, [3, 2, 1, 1], batch_first=batch_first).data


def _weight_norm(lib: Any, dim: int) -> Any:
    v = lib.tensor(PADDED, requires_grad=True)
    shape = [1, 1, 1]
    shape[dim] = PADDED.shape[dim]
    return lib._weight_norm(v, lib.tensor(np.linspace(0.5, 1.5, shape[dim]).reshape(shape),
                                          requires_grad=True), dim)


CALLS = {
    **{f"bag_{mode}_{dtype}_{pad}": (lambda lib, m=mode, d=dtype, p=pad: _bag(
        lib, d, mode=m, padding_idx=p))
       for mode, dtype, pad in itertools.product(("sum", "mean", "max"), ("float32", "float64"),
                                                 (None, 4))},
    **{f"bag_weighted_{needs}": (lambda lib, n=needs: _bag(lib, "float64", weighted=n,
                                                           mode="sum"))
       for needs in ((True, True), (True, False), (False, True))},
    "bag_last_offset": lambda lib: _bag(lib, mode="mean", offsets=[0, 2, 5],
                                        include_last_offset=True),
    "bag_2d": lambda lib: _bag(lib, mode="max", input=[[1, 2], [4, 5]], offsets=None,
                               padding_idx=2),
    "bag_empty_bag": lambda lib: _bag(lib, "float64", mode="max", offsets=[0, 2, 2]),
    **{f"bilinear_{needs}": (lambda lib, n=needs: _bilinear(lib, n))
       for needs in itertools.product((True, False), repeat=3) if any(needs)},
    "packed": lambda lib: _packed(lib, False),
    "packed_batch_first": lambda lib: _packed(lib, True),
    "weight_norm_first": lambda lib: _weight_norm(lib, 0),
    "weight_norm_last": lambda lib: _weight_norm(lib, 2),
}


def _saved(lib: Any, call: Any) -> dict:
    """{node name: {saved name: (kind, value)}} for the four nodes of the call's graph."""
    found, stack, seen = {}, [call(lib).grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        stack += [n for n, _ in node.next_functions]
        if node.name() in NODES:
            found[node.name()] = {n: _described(lib, getattr(node, n))
                                  for n in dir(node) if n.startswith("_saved_")}
    return found


def _described(lib: Any, value: Any) -> tuple:
    if isinstance(value, lib.Tensor):
        return "Tensor", str(value.dtype).split(".")[-1], value.detach().numpy().round(6).tolist()
    return type(value).__name__, value


@pytest.mark.parametrize("name", CALLS)
def test_the_late_nodes_save_what_pytorch_saves(name, torch_mod):
    ours, theirs = _saved(minigrad, CALLS[name]), _saved(torch_mod, CALLS[name])
    assert theirs and ours == theirs

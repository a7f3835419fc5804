"""Every node of the op table shows PyTorch 2.13's `_saved_*` names, with PyTorch's types.

For each op of the table, one drawn case is built on minigrad and on PyTorch and the two
graphs are walked side by side: for each pair of nodes with the same name, `dir(node)` must list
the same `_saved_*` names, each value must be of the same kind (a Tensor, None, a tuple of
ints, an int, a float, a bool, a str) and tensors must hold the same values.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings

import minigrad
from minigrad.testing import strategies as mst
from minigrad.testing.op_table import OPS

ONE_CASE = settings(max_examples=1, database=None, derandomize=True, deadline=None,
                    phases=[Phase.generate], suppress_health_check=list(HealthCheck))


def one_case(spec: Any) -> Any:
    cases = []

    @ONE_CASE
    @given(case=mst.op_cases(spec))
    def draw(case: Any) -> None:
        cases.append(case)

    draw()
    return cases[0]


def walk(fn: Any) -> list:
    """The graph's nodes, depth first in `next_functions` order."""
    out, seen, stack = [], set(), [fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        stack += [n for n, _ in reversed(node.next_functions)]
    return out


def kind(value: Any, torch: Any) -> str:
    if isinstance(value, torch.Tensor | minigrad.Tensor):
        return "Tensor"
    if isinstance(value, tuple):
        return "tuple(" + ",".join(sorted({kind(v, torch) for v in value})) + ")"
    return type(value).__name__


def values_of(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(values_of(v) for v in value)
    if hasattr(value, "detach"):
        return np.asarray(value.detach().numpy())
    return value


def differences(spec: Any, torch: Any) -> list[str]:
    case = one_case(spec)
    ours = case(*case.tensors)
    theirs = spec.call_torch(torch, *[torch.tensor(t.array, requires_grad=True)
                                      for t in case.tensors], **case.params)
    found = []
    for a, b in zip(walk(ours.grad_fn), walk(theirs.grad_fn)):
        name = b.name().split("::")[-1]
        if type(a).__name__ != name:
            break  # (the graphs part here: a difference by design, see compare/)
        ours_names = [n for n in dir(a) if n.startswith("_saved_")]
        their_names = [n for n in dir(b) if n.startswith("_saved_")]
        if ours_names != their_names:
            found.append(f"{name}: names {ours_names} != {their_names}")
            continue
        for n in their_names:
            mine, theirs_v = getattr(a, n), getattr(b, n)
            if kind(mine, torch) != kind(theirs_v, torch):
                found.append(f"{name}.{n}: {kind(mine, torch)} != {kind(theirs_v, torch)}")
            elif kind(mine, torch) == "Tensor":
                x, y = values_of(mine), values_of(theirs_v)
                if x.shape != y.shape or not np.allclose(x, y, equal_nan=True):
                    found.append(f"{name}.{n}: values {x!r} != {y!r}")
    return found


@pytest.mark.parametrize("spec", OPS, ids=[s.name for s in OPS])
def test_saved_names_types_and_tensors_match_pytorch(spec, torch_mod):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = differences(spec, torch_mod)
    assert found == []

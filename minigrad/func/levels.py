"""How `grad`, `vjp` and `jacrev` differentiate a function with respect to some of its
arguments without disturbing the caller's graph: PyTorch's functorch "levels", done with
minigrad's ordinary autograd.

A transform opens a `Level`. Each argument it differentiates with respect to becomes a fresh
input of that level: a new leaf (`x.detach().requires_grad_()`) when nothing outside
needs x's gradient, or an alias (`x.view_as(x)`) still attached to the caller's graph when x
requires grad, so that an outer transform (or the caller's own `backward`) can go on
differentiating through the result. The gradient is taken with respect to the fresh input,
which is what keeps `grad(lambda x: x * grad(lambda y: x * y)(x))` right (no "perturbation
confusion": the inner `y` is not the outer `x`, even where they hold the same value).

Whether the results keep a graph is decided by what the function's output reaches: the
caller's leaves or an enclosing level's inputs (then the backward pass is recorded,
`create_graph=True`, and the results stay attached) or only this level's own inputs (then
the pass is not recorded and the results are plain tensors, as PyTorch returns them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd import forward_ad
from minigrad.autograd.grad_mode import is_grad_enabled
from minigrad.autograd.node import AccumulateGrad, gradient_edge
from minigrad.autograd.tensor import Tensor
from minigrad.func import pytree
from minigrad.func.batched import Batched, NoBatchingRule

_active: list[Level] = []  # the levels open now, outermost first


class Level:
    """One transform's fresh inputs; `with Level() as level:` while it runs."""

    def __init__(self) -> None:
        self.enclosing = tuple(_active)  # the levels this one runs inside
        self.caller_records = is_grad_enabled()

    def __enter__(self) -> Level:
        _active.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _active.remove(self)

    def differentiable(self, x: Any) -> Tensor:
        """x as a fresh input of this level (see the module's docstring)."""
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x.array.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if x.requires_grad:
            fresh = x.view_as(x)
            fresh.grad_fn._func_level = self  # (an alias: its edge leads outside)
        else:
            fresh = keep_tangents(x, x.detach().requires_grad_())
            fresh._func_level = self
        if x.name is not None:  # (a trace labels it as the tensor it stands for)
            fresh.name = x.name
        return fresh

    def differentiable_tree(self, tree: Any) -> Any:
        leaves, spec = pytree.flatten(tree)
        return pytree.unflatten([self.differentiable(x) for x in leaves], spec)

    def reaches_outside(self, tensors: Any) -> bool:
        """True when a tensor's graph leads to something this level does not own: a leaf of
        the caller's or an input of an enclosing level (through an alias or directly)."""
        starts = [gradient_edge(t)[0] for t in pytree.flatten(tensors)[0]
                  if isinstance(t, Tensor) and t.requires_grad]
        seen: set = set()
        while starts:
            node = starts.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            owner = getattr(node, "_func_level", None)
            if type(node) is AccumulateGrad:
                owner = getattr(node.variable, "_func_level", None)
                if owner is None or (owner in self.enclosing and owner in _active):
                    return True  # the caller's leaf, or an enclosing level's input
            elif owner is self:
                return True  # this level's alias of a tensor that requires grad outside
            starts.extend(node._next_nodes)
        return False

    def keeps_graph(self, tensors: Any, records: bool | None = None) -> bool:
        """Should the backward pass be recorded? Only if the caller records (`records`:
        its grad mode, by default when the level began) and the graph reaches outside this
        level (somebody may differentiate the results again)."""
        if records is None:
            records = self.caller_records
        return records and self.reaches_outside(tensors)

    def lower(self, tree: Any, records: bool | None = None) -> Any:
        """The results as the caller sees them: attached to the graph only where they depend
        on something outside this level; plain tensors otherwise."""
        leaves, spec = pytree.flatten(tree)
        return pytree.unflatten([keep_tangents(x, x.detach()) if isinstance(x, Tensor)
                                 and x.requires_grad and not self.keeps_graph(x, records)
                                 else x for x in leaves], spec)


def keep_tangents(source: Tensor, target: Tensor) -> Tensor:
    """`target` (a `detach()` of `source`) with `source`'s forward-mode tangents: cut from the
    backward graph, still a dual number for an enclosing `jvp` (forward over reverse)."""
    if source._tangents:
        for level in range(len(forward_ad.LEVELS.kinds)):
            tangent = forward_ad.own_tangent(source, level)
            if tangent is not None:
                forward_ad.set_tangent(target, level, tangent)
    return target


def per_sample_only(tree: Any, what: str, kind: str = "backward") -> None:
    """Inside a batched vmap, a transform given part of the batch runs per sample: minigrad
    has no batched backward (or forward-mode) pass, PyTorch's batching rule for it."""
    if any(isinstance(x, Batched) for x in pytree.flatten(tree)[0]):
        raise NoBatchingRule(what, kind=kind)


def split_aux(result: Any, has_aux: bool, who: str) -> tuple:
    """(output, aux): f's result read as a pair when `has_aux` (aux None otherwise)."""
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(f"{who}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return result


def check_aux(aux: Any) -> Any:
    """A transform's aux output must hold only tensors (PyTorch unwraps each one)."""
    for x in pytree.flatten(aux)[0]:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    return aux


def zeros_like(t: Tensor) -> Tensor:
    return Tensor._make(np.zeros_like(t.array), None, 0)

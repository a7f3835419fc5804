"""What changes a gradient between PyTorch's backward steps without being a step itself.

- User hooks (`y.register_hook(fn)`): PyTorch runs them on the gradient a node receives,
  before the node. `narrate_hooks` compares, for each step, the gradients sent to the node by
  the steps before it (summed) with what the node received: a hook changed them if they differ.
  The hooks' names come from the tensor (`hook_names`: its `_backward_hooks`) where it is
  known; a change with no known tensor hook is put down to a pre-hook, as PyTorch runs a
  tensor hook.
- A reentrant checkpoint (`torch.utils.checkpoint(..., use_reentrant=True)`): its backward
  step recomputes the segment and runs a backward of its own, on a graph made then, which the
  hooks on the traced graph cannot see. `checkpoint_rule` says so in the node's rule, naming
  the parameters whose gradients come from there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.teach.records import TraceHook

__all__ = ["CHECKPOINT", "checkpoint_rule", "hook_names", "narrate_hooks"]

CHECKPOINT = "CheckpointFunctionBackward"


def _same(before: np.ndarray | None, after: np.ndarray | None) -> bool:
    """The same gradient, but for the rounding of a sum taken in another order."""
    if before is None or after is None:
        other = after if before is None else before
        return other is None or not np.any(other)  # nothing sent, zeros received
    if before.shape != after.shape:
        return False
    if np.array_equal(before, after):
        return True
    scale = float(np.max(np.abs(before))) if before.size else 0.0
    return bool(np.allclose(before, after, rtol=1e-5, atol=1e-6 * scale))


def hook_names(tensor: Any) -> list[str]:
    """The names of the hooks on `tensor` (`y.register_hook(fn)`), where it is known."""
    hooks = getattr(tensor, "_backward_hooks", None) or {}
    return [getattr(h, "__name__", "hook") for h in hooks.values()]


def narrate_hooks(steps: list[tuple], root: Any, seed: np.ndarray,
                  hooks_on: dict[Any, list[str]]) -> list[list[TraceHook]]:
    """For each step (node, grad_outputs, grad_inputs, the ids of the same torch tensors),
    the hooks that ran on the gradient the node received; `hooks_on[node]`: the names of the
    hooks on the tensor whose gradient the node receives (`hook_names`)."""
    arriving: dict[tuple, list] = {(root, 0): [(None, seed)]}  # (tensor id, array) sent
    found = []
    for node, g_out, g_in, raw_out, raw_in in steps:
        sent = [arriving.get((node, nr), []) for nr in range(len(g_out))]
        names = hooks_on.get(node, [])
        # a gradient passed on as it is, is the very tensor that was sent: no values to
        # compare, and no rounding to mistake for a hook
        same = all(len(s) == 1 and s[0][0] == r for s, r in zip(sent, raw_out))
        before: list = []
        if names or not same:
            before = [_sum([a for _, a in s]) for s in sent]
            same = all(_same(b, a) for b, a in zip(before, g_out))
        if names:
            found.append([TraceHook("tensor", ", ".join(names), before,
                                    before if same else list(g_out))])
        elif not same:
            found.append([TraceHook("prehook", "hook", before, list(g_out))])
        else:
            found.append([])
        for (nxt, nr), g, r in zip(node.next_functions, g_in, raw_in):
            if nxt is not None and g is not None:
                arriving.setdefault((nxt, nr), []).append((r, g))
    return found


def _sum(arrays: list[np.ndarray]) -> np.ndarray | None:
    if not arrays:
        return None
    total = arrays[0]
    for a in arrays[1:]:
        total = total + a
    return total


def _modules_in(fn: Any) -> list:
    """The modules a checkpointed function uses: itself, its `self`, its closure's."""
    seen = [fn, getattr(fn, "__self__", None)]
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            seen.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    return [m for m in seen if hasattr(m, "named_parameters") and hasattr(m, "forward")]


def checkpoint_rule(node: Any, params: dict[int, str]) -> str:
    """The rule line of a reentrant checkpoint's node: what it does, what it hides."""
    in_graph, stack = set(), [node]
    while stack:  # the parameters the traced graph reaches below this node
        n = stack.pop()
        if hasattr(n, "variable"):
            in_graph.add(id(n.variable))
        stack.extend(m for m, _ in n.next_functions if m is not None)
    used = [p for m in _modules_in(getattr(node, "run_function", None))
            for p in m.parameters()] or []
    hidden = [params[id(p)] for p in used if id(p) in params and id(p) not in in_graph]
    hidden = list(dict.fromkeys(hidden))
    where = (f"{', '.join(hidden)} get their gradients there" if hidden
             else "the parameters it uses get their gradients there")
    return ("checkpoint(use_reentrant=True): this step recomputes the segment's forward and "
            "runs its own backward, on a graph made inside the step, which trace_torch cannot "
            f"watch; {where} (use_reentrant=False shows every step)")

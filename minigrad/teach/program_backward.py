"""The backward part of `Trace.to_python()`'s program: each pass from its seeds, each step in
the engine's order, written as `engine.py` and `broadcast.py` do it: the op's rule (from
`numpy_rules`) gives each input's gradient, the engine's sum undoes broadcasting, and a
gradient that meets another at a tensor is added to it; an `AccumulateGrad` makes `.grad`.
What the program cannot compute (a hook that changed a gradient, an op without a rule) is
the trace's value, on a line marked COPIED.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import numpy as np

from minigrad.teach.memory import saved_name
from minigrad.teach.numpy_rules import total
from minigrad.teach.numpy_rules_all import RULES
from minigrad.teach.program_values import array_text, dtype_text, source

REENTRANT = "CheckpointFunctionBackward"  # a reentrant checkpoint's node

COPIED = "COPIED"  # marks a line whose value is the trace's, not computed by the program


class Backward:
    """The backward passes of a `program._Program` (its names, `emit`, `call`, `copy`)."""

    nodes: dict
    filled: set
    accumulated: dict
    copied: list
    lines: list

    def backward(self, backward: Any, k: int | None) -> None:
        roots = ", ".join(self.nodes[r].label for r in backward.roots)
        n = len(backward.steps)
        self.section(f"backward{f' {k}' if k else ''} from {roots}: {n} step"
                     f"{'' if n == 1 else 's'}, in the engine's order")
        self.filled: set[tuple[str, int]] = set()
        for root, seed in zip(backward.roots, backward.seeds):
            seed, nr = np.asarray(seed), _root_output(backward, root)
            target = self.grad_var(root, 0)
            if seed.size and np.all(seed == 1):
                text = f"np.ones({source(seed.shape)}, dtype={dtype_text(seed.dtype)})"
            else:
                text = array_text(seed, len(target) + 3)
            label = self.nodes[root].label
            self.send(root, nr, text, f"the seed: d {label}/d {label}")
        for step in backward.steps:
            self.step(step)

    def step(self, step: Any) -> None:
        node = self.nodes[step.node]
        head = f"step {self.within}{step.index}: {node.name}"
        if node.is_leaf:
            self.lines.append(f"# {head}   {node.label}.grad")
        else:
            saved = [node.label if w == "result" else saved_name(node, str(w))
                     for w, _ in node.saved]
            made = any(w.startswith("saved[") for w in saved)  # (an array the op made itself)
            saved = [w for w in dict.fromkeys(saved) if not w.startswith("saved[")]
            saved += ["an array it made in forward"] if made else []
            self.lines.append(f"# {head}   {node.label} = {node.source}"
                              + (f"   (backward reads the saved {', '.join(saved)})"
                                 if saved else ""))
        self.hooked(step, node, ("tensor", "prehook"))
        self.run_again(step, node)  # (a checkpoint's block, run again: program_checkpoint)
        if node.is_leaf:
            self.accumulate(step, node)
            return
        if step.nested and node.name == REENTRANT:
            self.inner_backward(step, node)
            return
        grads = [self.grad_var(node.id, j) if (node.id, j) in self.filled else None
                 for j in range(max(1, len(step.grad_outputs)))]
        post = any(h.changed and h.where == "hook" for h in step.hooks)
        computes = self.computes(node) and not post
        call = self.call(node, grads) if computes else None
        rule = RULES.get(node.name)
        if call is not None and rule.before is not None:
            for line in statements(call.text(rule.before)):
                self.emit(line)
        for i, src in enumerate(node.inputs):
            recorded = step.grad_inputs[i] if i < len(step.grad_inputs) else None
            if src is None or recorded is None:
                continue
            text = call.text(rule.backward[i]) if call and i < len(rule.backward) else None
            nr = output_nr(node, i)
            if text is None:
                self.copy(node, node.name)
                self.send(src, nr, array_text(np.asarray(recorded), 8), COPIED)
                continue
            dims = step.summed_dims[i] if i < len(step.summed_dims) else None
            self.send(src, nr, text, "", self.fit_text(node, dims, recorded),
                      tuple(np.shape(recorded)))

    def fit_text(self, node: Any, dims: Any, recorded: Any) -> tuple[str, str] | None:
        """How the engine sums a gradient back to its input's shape (broadcast.py), or None."""
        if not dims:
            return None
        shape = tuple(np.shape(recorded))
        g_shape = node.shape
        dtype = np.asarray(recorded).dtype
        dims = tuple(int(d) for d in dims)
        lead = len(g_shape) - len(shape) if g_shape is not None else -1
        if shape and lead > 0 and dims == tuple(range(lead)):
            axis: Any = dims[0] if lead == 1 else dims
            text = total("{g}", g_shape, dtype, axis)
        else:
            axis = dims[0] if len(dims) == 1 else dims
            text = total("{g}", g_shape, dtype, axis, keepdims=True) + f".reshape({source(shape)})"
        return text, f"undo broadcasting: summed over dim {', '.join(map(str, dims))} to {shape}"

    def send(self, node_id: str, nr: int, text: str, comment: str,
             fit: tuple[str, str] | None = None, shape: tuple | None = None) -> None:
        """The gradient `text` for output `nr` of a node: fitted to its shape, then into its
        buffer (`g_t1`), or added to what is there (paths meet)."""
        target = self.grad_var(node_id, nr)
        *before, expr = statements(text)
        for line in before:
            self.emit(line)
        expr = array_result(expr, shape if fit is None else None)
        meets = (node_id, nr) in self.filled
        if not meets and fit is None:
            self.emit(f"{target} = {expr}", comment)
        elif not meets:
            self.emit(f"{target} = {expr}", comment)
            self.emit(f"{target} = {array_result(fit[0].format(g=target), shape)}", fit[1])
        else:
            if fit is not None:
                self.emit(f"g_new = {expr}", comment)
                self.emit(f"g_new = {array_result(fit[0].format(g='g_new'), shape)}", fit[1])
                expr = "g_new"
            label = self.nodes[node_id].label
            self.emit(f"{target} = {array_result(f'{target} + {_grouped(expr)}', shape)}",
                      f"paths meet at {label}: the gradients add" + (
                          f" ({comment})" if comment and fit is None else ""))
        self.filled.add((node_id, nr))

    def hooked(self, step: Any, node: Any, kinds: tuple) -> None:
        """A hook that changed the incoming gradient: its result, copied from the trace."""
        for hook in step.hooks:
            if hook.where in kinds and hook.changed:
                self.copied.append(f"hook {hook.name}: your Python hook changed a gradient")
                for j, after in enumerate(step.grad_outputs):
                    if after is not None:
                        self.emit(f"{self.grad_var(node.id, j)} = "
                                  f"{array_text(np.asarray(after), 8)}",
                                  f"{COPIED}: what hook {hook.name} returned")
                return

    def accumulate(self, step: Any, node: Any) -> None:
        g = self.grad_var(node.id, 0)
        var = f"{self.var[node.id]}_grad"
        if not step.accumulations:
            self.lines.append(f"# (nothing is added to {node.label}.grad: the gradient is "
                              f"returned, as autograd.grad does, or not asked for)")
            return
        for acc in step.accumulations:
            if acc.leaf != node.label:
                continue
            incoming = np.asarray(step.grad_outputs[0]) if step.grad_outputs else None
            cast = ""
            if incoming is not None and acc.after is not None and \
                    np.asarray(acc.after).dtype != incoming.dtype:
                cast = f".astype({dtype_text(np.asarray(acc.after).dtype)})"
            if acc.before is None:
                self.emit(f"{var} = {g}{cast}", f"{node.label}.grad was None: it becomes this")
                self.accumulated[node.label] = var
                continue
            if node.label not in self.accumulated:
                self.emit(f"{var} = {array_text(np.asarray(acc.before), len(var) + 3)}",
                          f"{node.label}.grad before this backward")
            self.emit(f"{var} = {array_result(f'{var} + {g}{cast}', node.shape)}",
                      f"{node.label}.grad += the gradient")
            self.accumulated[node.label] = var


# (an expression that always gives an array, even a 0-d one)
_ARRAYS = ("np.asarray(", "np.array(", "np.ones(", "np.zeros(", "np.broadcast_to(", "np.full(",
           "np.where(")


def array_result(expr: str, shape: tuple | None) -> str:
    """`expr`, as an array when its value is 0-d: numpy gives a scalar there, whose
    arithmetic is not an array's (`scalar ** 3` may differ in the last bit), and minigrad
    keeps every value an array."""
    if shape != () or expr.startswith(_ARRAYS) and _grouped(expr) == expr or \
            expr.isidentifier():
        return expr
    return f"np.asarray({expr})"


def _root_output(backward: Any, root: str) -> int:
    """Which output of the root node backward started from: the one its first step got a
    gradient for (output 0 unless that is the only one it got)."""
    for step in backward.steps:
        if step.node == root:
            given = [k for k, g in enumerate(step.grad_outputs) if g is not None]
            return given[0] if len(given) == 1 else 0
    return 0


def statements(text: str) -> list[str]:
    """A rule's text cut into its statements (a line that starts with a space continues the
    one before: a long array)."""
    return re.split(r"\n(?! )", text)


def output_nr(node: Any, i: int) -> int:
    """Which output of its node input i is (the `#1` of `t1#1`)."""
    text = node.args[i] if i < len(node.args) else ""
    tail = text.rsplit("#", 1)[-1] if "#" in text else ""
    return int(tail) if tail.isdigit() else 0


def _grouped(expr: str) -> str:
    """`expr` as an operand of `+`: parenthesized unless it is one name, call or subscript."""
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return f"({expr})"
    return expr if isinstance(tree, ast.Name | ast.Call | ast.Subscript | ast.Attribute) \
        else f"({expr})"

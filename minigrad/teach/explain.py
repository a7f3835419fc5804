"""The narration of a Trace, in English or Chinese: what `Trace.explain()` prints.

First the forward graph, one op per line in source form (`t1 = x * y  MulBackward0 ...`), then
each backward step: the incoming gradient, the derivative rule, the gradient each input gets
(with the numbers put into the rule), where broadcasting was summed away, hooks that changed
a gradient, and each leaf's `.grad`. Small tensors show their values as PyTorch prints them;
large ones a shape and statistics. The text is deterministic except the time in the last
line (`timing=False` leaves it out).

Works from the Trace's records only (see `minigrad.teach.records`); the per-op words are on the
op classes (read by `minigrad.teach.op_words`), the sentences in `minigrad.teach.phrases`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.autograd.collector import collector_paused
from minigrad.teach import explain_calls as calls
from minigrad.teach import memory_text
from minigrad.teach import op_words as op_text
from minigrad.teach.explain_forward import forward_only, forward_sections, transform_lines
from minigrad.teach.memory import memory_report
from minigrad.teach.phrases import PHRASES, Count
from minigrad.teach.summary import summary_lines
from minigrad.teach.summary_phrases import SUMMARY_PHRASES
from minigrad.teach.text_width import pad, width
from minigrad.teach.values import fast_repr

# also used by the HTML player: keep these names
__all__ = ["PHRASES", "SMALL", "explain_trace", "fast_repr", "number", "pad", "width"]

SMALL = 20  # tensors with more elements are shown as shape and statistics
INLINE = 6  # incoming gradients up to this size are written into the gradient expressions


SUMMARY_STEPS = 50  # longer explanations open with the module summary (`summary`)


def explain_trace(trace: Any, lang: str = "en", timing: bool = True, lines: bool | None = None,
                  summary: bool | None = None, memory: bool | None = None) -> str:
    """The whole narration of `trace` as one string.

    `summary` (default: when there are more than SUMMARY_STEPS backward steps) opens it with
    the table of each module's gradient and groups the ops and steps under their modules;
    `lines` shows the source line that made each op (`step.py:5: loss = (x * y).sum() * 3`),
    in the forward listing and in each backward step: by default whenever the trace knows
    them, that is when it watched the forward pass run (a traced callable or `with` block;
    a Tensor traced after the fact, or a string expression, has none). `memory` (default: the
    summary line past SUMMARY_STEPS steps) says what the graph keeps: a line per step, and one
    in the ending.
    """
    if lang not in PHRASES:
        raise ValueError(f"explain(): lang must be one of {sorted(PHRASES)}, not {lang!r}")
    if summary is None:
        summary = len(trace.steps) > SUMMARY_STEPS
    if lines is None:
        lines = summary or any(n.line for n in trace.nodes)
    narrator = _Narrator(trace, lang, grouped=summary and bool(trace.modules))
    with collector_paused():
        if memory or memory is None and len(trace.steps) > SUMMARY_STEPS:
            narrator.memory, narrator.memory_steps = memory_report(trace), bool(memory)
        return narrator.text(timing, lines, summary)


def number(v: float) -> str:
    return f"{v:.4g}"


class _Narrator:
    """Writes one Trace in one language; remembers formatted arrays (graphs repeat them)."""

    def __init__(self, trace: Any, lang: str, grouped: bool = False) -> None:
        self.trace, self.lang, self.p = trace, lang, PHRASES[lang]
        self.grouped = grouped  # module headings over the ops and steps of each module
        self.nodes = {n.id: n for n in trace.nodes}
        self._values: dict[int, str] = {}
        self._inline: dict[int, str | None] = {}
        self._said: dict[str, str] = {}  # the phrases that take no values, said once (say)
        self.memory, self.memory_steps = None, False  # (what the graph keeps: memory.py)

    def say(self, key: str, **values: Any) -> str:
        """The phrase `key` in this language, filled in; every int is a `Count`, so that an
        English phrase can choose a word's ending by it (`{n} step{n:|s}`: phrases.py)."""
        if not values:  # speed: "incoming", "rule", ...: said in every step, made once
            # (60,000 of the 106,677 phrases of a 10,000-node chain; see values.fast_repr)
            said = self._said.get(key)
            if said is None:
                said = self._said[key] = self.p[key].format()
            return said
        return self.p[key].format(**{k: Count(v) if type(v) is int else v
                                     for k, v in values.items()})

    # -- values ----------------------------------------------------------------------------
    def value(self, a: Any) -> str:
        """`tensor([ 4., 10., 18.])`, or `shape (128, 256), mean ..., |max| ...`."""
        if a is None:
            return "None"
        key = id(a)
        text = self._values.get(key)
        if text is None:
            a = np.asarray(a)
            if a.size <= SMALL:
                text = fast_repr(a)
            else:
                with np.errstate(all="ignore"):
                    f = a.astype(np.float64)
                    text = self.say("stats", shape=_shape(a.shape), mean=number(f.mean()),
                                    absmax=number(np.abs(f).max()))
            self._values[key] = text
        return text

    def inline(self, a: Any) -> str | None:
        """`[3., 3., 3.]` for a small gradient inside an expression; None when too big."""
        if a is None:
            return None
        key = id(a)
        if key not in self._inline:
            a = np.asarray(a)
            self._inline[key] = fast_repr(a, inline=True) if (
                a.size <= INLINE and a.ndim <= 1) else None
        return self._inline[key]

    # -- the whole text ------------------------------------------------------------------------
    def text(self, timing: bool, lines: bool, summary: bool = False) -> str:
        self.lines = lines
        if not self.trace.nodes and (self.trace.forwards or self.trace.transforms):
            return "\n".join(forward_only(self))  # (forward mode alone: no graph, no leaves)
        forward = self.forward(lines)
        table = summary_lines(self.trace, self.lang) if summary else []
        if table:  # (the table and the listing make one first part: the player's intro)
            forward = table + [""] + ["  " + forward[0]] + forward[1:]
        out = forward + forward_sections(self)
        if not self.trace.backwards:
            out += ["", self.say("no_backward")]
        for k, backward in enumerate(self.trace.backwards):
            out.append("")
            out += self.backward(backward, k + 1 if len(self.trace.backwards) > 1 else None)
        out += transform_lines(self)
        out.append("")
        out += self.ending(timing)
        return "\n".join(out)

    def forward(self, lines: bool) -> list[str]:
        ops = [n for n in self.trace.nodes if not (n.is_leaf or n.recomputed)]
        engine = self.trace.engine
        head = self.say("forward", engine="" if engine == "minigrad" else self.say(
            "engine", engine=engine), n=len(ops))
        rows = [(n.label, n.source, n.name,
                 self.say("shape", shape=_shape(n.shape)) if n.shape is not None else "",
                 self.value(n.value) if n.value is not None else "") for n in ops]
        cols = [max([4] + [width(r[0]) for r in rows]),
                max([12] + [width(r[1]) + 1 for r in rows]),
                max([15] + [width(r[2]) + 1 for r in rows]), max([0] + [width(r[3]) for r in rows])]
        cols = [min(c, limit) for c, limit in zip(cols, (12, 36, 24, 24))]
        out, last_line, module, call = [head], None, None, 0
        for n, (label, source, name, shape, value) in zip(ops, rows):
            if self.grouped and n.module != module:
                module = n.module
                out.append(" " + self.heading(module))
            if n.call_number != call:
                call = n.call_number
                out += calls.heading(self, n, "forward") if call else []
            if lines and n.line and n.line != last_line:
                out.append("  " + self.say("at", line=n.line))
                last_line = n.line
            start = (f"  {pad(label, cols[0])} = {pad(source, cols[1])} {pad(name, cols[2])} "
                     f"{pad(shape, cols[3])}  ")
            out.append((start + _hang(value, width(start))).rstrip())
        return out

    def backward(self, backward: Any, k: int | None) -> list[str]:
        roots = [self.nodes[r] for r in backward.roots]
        root = roots[0].label if roots else "?"
        seed = backward.seeds[0] if backward.seeds else None
        if seed is not None and np.asarray(seed).size == 1 and np.all(np.asarray(seed) == 1):
            seed_text = self.say("seed_scalar", root=root)
        else:
            seed_text = self.say("seed_given", value=self.value(seed))
        n = len(backward.steps)
        out = [self.say("backward", k=f" {k}" if k else "", root=root, seed=seed_text, n=n)]
        if not backward.steps:
            return out
        number_width = max(width(self.say("step", i=s.index)) for s in backward.steps)
        name_width = max([14] + [len(self.nodes[s.node].name) for s in backward.steps]) + 1
        module, call = None, 0
        for step in backward.steps:
            node = self.nodes[step.node]
            if self.grouped and node.module != module:
                module = node.module
                out.append(" " + self.heading(module))
            if not node.is_leaf and node.call_number != call:
                call = node.call_number
                out += calls.heading(self, node, "backward") if call else []
            out += self.step(step, root, number_width, name_width)
            if self.memory_steps:
                out.append(" " * (number_width + 4) + memory_text.step_line(
                    self.memory, step.index, self.lang))
        return out

    def heading(self, path: str) -> str:
        """`▸ layer2.0.conv1  Conv2d`: the module the next ops or steps belong to."""
        words = SUMMARY_PHRASES[self.lang]
        record = self.trace.modules.get(path)
        if not path:  # ("" is the model itself, or no module at all)
            return words["heading"].format(path=words["top"], type="").rstrip()
        return words["heading"].format(path=path, type=record.type if record else "").rstrip()

    def step(self, step: Any, root: str, number_width: int, name_width: int) -> list[str]:
        node = self.nodes[step.node]
        head = f"  {pad(self.say('step', i=step.index), number_width)}  "
        indent = " " * width(head)
        name = pad(node.name, name_width)
        if node.is_leaf:
            start = width(head) + width(name)
            hooks = self.hooks(step, width(self.say("hook")) + 2, width(indent), ("tensor",
                                                                                   "prehook"))
            return [head + name + _hang(self.accumulated(step, node), start)] + hooks
        out = [head + name + f"{node.label} = {node.source}"]
        if self.lines and node.line:
            out.append(indent + SUMMARY_PHRASES[self.lang]["at"].format(line=node.line))
        constant = [src is None for src in node.inputs]
        to = {i: self.say("to", label=node.args[i] if i < len(node.args) else "?")
              for i, c in enumerate(constant) if not c}  # (each input's left-column words)
        col = max([width(self.say(w)) for w in ("incoming", "rule")] + calls.labels(self)
                  + [width(x) for x in to.values()]) + 2
        for j, g in enumerate(step.grad_outputs):
            if g is None and len(step.grad_outputs) > 1:
                continue
            target = node.label + (f"[{j}]" if len(step.grad_outputs) > 1 else "")
            text = f"d {root}/d {target} = {self.value(g)}"
            out.append(indent + pad(self.say("incoming"), col) + _hang(text, width(indent) + col))
        n = _inputs_per_output(node, self.nodes)
        rule = self.rule(node, constant, n).replace("\n", "\n" + " " * (width(indent) + col))
        out.append(indent + pad(self.say("rule"), col) + rule)
        out += calls.redone(self, step, indent, col)
        incoming = step.grad_outputs[0] if step.grad_outputs else None
        g_text = self.inline(incoming) or "grad"
        column = width(indent) + col
        hooks_before = self.hooks(step, col, width(indent), ("tensor", "prehook"))
        for i, src in enumerate(node.inputs):
            if src is None:
                continue
            label = node.args[i] if i < len(node.args) else "?"
            g_in = step.grad_inputs[i] if i < len(step.grad_inputs) else None
            if g_in is None:
                text = self.say("none")
            else:
                expr = op_text.gradient_expression(node.name, i, node.args, g_text, node.label,
                                                   node.attrs, n)
                value = self.value(g_in)
                text = value if expr is None or expr == g_text else f"{expr} = {value}"
            out.append(indent + pad(to[i], col) + _hang(text, column))
            dims = step.summed_dims[i] if i < len(step.summed_dims) else None
            if dims:
                shape = self.nodes[src].shape
                note = self.say("summed", dims=self.dims(dims), label=label,
                                shape=_shape(shape) if shape is not None else "?")
                out.append(indent + " " * col + self.p["open"] + note + self.p["close"])
        out += self.hooks(step, col, width(indent), ("hook",))
        return out[:1] + hooks_before + out[1:]

    def rule(self, node: Any, constant: list[bool], n: int | None) -> str:
        """The node's rule and its notes; `n`: `_inputs_per_output(node)`."""
        if not node.formula:
            if self.trace.engine != "minigrad":  # an op of the recording engine minigrad lacks
                return self.say("engine_rule", engine=self.trace.engine, name=node.name)
            return self.say("no_formula")
        text = op_text.rule(node.name, node.formula, constant, self.lang)  # (a formula keeps
        # its ASCII " ;  " between the inputs' parts in Chinese too: it is code, not prose)
        notes = []
        if node.name in op_text.TAKES_CONSTANTS and any(constant) and not all(constant):
            uses_c = op_text.uses_c(node.name, constant)
            for i, c in enumerate(constant):
                if c:
                    value = node.args[i] if i < len(node.args) else "c"
                    notes.append(self.say("constant", c="c", value=value)
                                 if uses_c and value != "c" else
                                 self.say("constant_unknown", c=value))
        remark = op_text.note(node.name, self.lang, n)
        if remark:
            notes.append(remark)
        if not notes:
            return text
        remark = f"{self.p['open']}{self.p['sep'].join(notes)}{self.p['close']}"
        if width(text) + width(remark) > 72:  # too long for one line: the remark goes below
            return f"{text}\n{remark}"
        return f"{text}   {remark}"

    def accumulated(self, step: Any, node: Any) -> str:
        incoming = step.grad_outputs[0] if step.grad_outputs else None
        if not step.accumulations:
            return self.say("not_stored", label=node.label, value=self.value(incoming))
        parts = []
        for acc in step.accumulations:
            target = f"{acc.leaf}.grad = "
            if acc.before is None:
                body = f"{self.value(acc.after)}   {self.say('was_none')}"
            else:
                body = self.say("added", before=self.value(acc.before),
                                incoming=self.value(incoming), after=self.value(acc.after))
            parts.append(target + body)
        return "; ".join(parts)

    def hooks(self, step: Any, col: int, indent: int, kinds: tuple) -> list[str]:
        """The hooks of `kinds` that ran in this step, with before/after when they changed."""
        out = []
        start = " " * indent + pad(self.say("hook"), col)
        for hook in step.hooks:
            if hook.where not in kinds:
                continue
            where = self.p.get(f"where_{hook.where}", hook.where)
            if not hook.changed:
                out.append(start + self.say("hook_same", where=where, name=hook.name))
                continue
            pairs = [(b, a) for b, a in zip(hook.before, hook.after)
                     if (a is None) != (b is None) or (a is not None and not np.array_equal(a, b))]
            before = ", ".join(self.value(b) for b, _ in pairs)
            after = ", ".join(self.value(a) for _, a in pairs)
            text = self.say("hook_changed", where=where, name=hook.name, before=before,
                            after=after)
            if "\n" not in text and width(text) <= 90:
                out.append(start + text)
                continue
            out.append(start + self.say("hook_changed_long", where=where, name=hook.name))
            labels = [self.say("before"), self.say("after")]
            label_width = max(width(x) for x in labels) + 1
            for label, value in zip(labels, (before, after)):
                lead = " " * (indent + col + 2) + pad(label, label_width)
                out.append(lead + _hang(value, width(lead)))
        return out

    def dims(self, dims: tuple) -> str:
        joined = ", ".join(str(d) for d in dims)
        return self.say("dims", d=joined, n=len(dims))

    def ending(self, timing: bool) -> list[str]:
        leaves = [f"{leaf.label}.grad = {self.value(leaf.grad)}" for leaf in self.trace.leaves]
        head = self.say("leaves")
        one_line = head + self.p["sep"].join(leaves)
        if len(leaves) > 3 or "\n" in one_line or width(one_line) > 100:
            out = [head.rstrip()] + [
                "  " + _hang(x, 2) for x in leaves]
        else:
            out = [one_line] if leaves else []
        if self.memory is not None:
            out.append(memory_text.summary_line(self.memory, self.lang))
        ops = sum(1 for n in self.trace.nodes if not (n.is_leaf or n.recomputed))
        steps = len(self.trace.steps)
        n_leaves = len(self.trace.leaves)
        summary = self.say("summary", ops=ops, steps=steps, leaves=n_leaves)
        if timing and self.trace.backwards:
            seconds = sum(b.seconds for b in self.trace.backwards)
            summary += self.say("took", ms=f"{seconds * 1e3:.2f}")
        return out + [summary]


def _shape(shape: tuple | None) -> str:
    return "?" if shape is None else str(tuple(int(n) for n in shape))


def _hang(text: str, column: int) -> str:
    """Indent the continuation lines of a multi-line tensor under its first line.

    `text` starts at `column`; continuation lines are aligned with the last `tensor(` of
    the first line (PyTorch indents them relative to it).
    """
    first, newline, _ = text.partition("\n")
    if not newline:
        return text
    at = first.rfind("tensor(")
    shift = column + (width(first[:at]) if at > 0 else 0)
    return text.replace("\n", "\n" + " " * shift)


def _inputs_per_output(node: Any, nodes: dict) -> int | None:
    """How many elements of its input each output element of `node` stands for (`{n}` in an
    op's words: a mean's 1/n); None when a shape is unknown."""
    if not node.inputs or node.inputs[0] is None:
        return None
    source = nodes.get(node.inputs[0])
    if source is None or source.shape is None or node.shape is None:
        return None
    return math.prod(source.shape) // max(math.prod(node.shape), 1)

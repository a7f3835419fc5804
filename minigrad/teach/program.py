"""`Trace.to_python()`: the traced forward and backward written out as one numpy program.

The program a learner can read, run and edit: the leaves and constants as arrays, one line
per forward op named after the trace's labels (`t1 = x * y`), then each backward pass in the
engine's order, a comment per step, the gradient each input receives (`g_x = g_t1 * y`),
broadcasting undone where the engine undoes it (`g_b = g_b.sum(axis=0)`), gradients added
where paths meet (`g_t1 = g_t1 + ...`) and each leaf's `.grad` (`x_grad`). Run, it gives
every `.grad` of the trace bit for bit: the numpy of each op is minigrad's own
(`numpy_rules`), the engine's part as `engine.py` and `broadcast.py` do it (`program_backward`).
Forward-mode passes follow, each value with its tangent beside it (`program_forward`), and
the `tangents` they give, bit for bit too.

What it cannot compute it says: an op without a rule (a user's Function, a layer minigrad
has no numpy text for), or a hook that changed a gradient (Python code of the user's), gets
the value the trace recorded, in a line marked `COPIED`, never a guess.
Works from the records alone, so a PyTorch trace (`compare.trace_torch`) gives PyTorch's
graph and order with minigrad's numpy (values then agree with PyTorch's to rounding).
"""

from __future__ import annotations

import keyword
from typing import Any

import numpy as np

from minigrad.teach.numpy_rules import Call
from minigrad.teach.numpy_rules_all import RULES
from minigrad.teach.program_backward import COPIED, REENTRANT, Backward, array_result, statements
from minigrad.teach.program_checkpoint import Checkpoints
from minigrad.teach.program_forward import TANGENT, ForwardMode
from minigrad.teach.program_values import array_text, source

__all__ = ["COPIED", "to_python"]


def to_python(trace: Any) -> str:
    """The program, as text (see the module docstring)."""
    return _Program(trace).text()


class _Program(Backward, Checkpoints, ForwardMode):
    """One trace written out: names, the forward, the backward passes (with what checkpoints
    run again in them), the forward-mode passes, the gradients and tangents."""

    def __init__(self, trace: Any) -> None:
        self.trace = trace
        self.nodes = {n.id: n for n in trace.nodes}
        self.used: set[str] = {"np", "grads"}
        self.var = {n.id: self.name(n.label) for n in trace.nodes}
        self.dtypes = _dtypes(trace)
        self.consts: dict[int, str] = {}  # id(array) -> its variable
        self.lines: list[str] = []
        self.copied: list[str] = []  # what the program takes from the trace, and why
        self.accumulated: dict[str, str] = {}  # leaf label -> the variable holding its .grad
        self.filled: set[tuple[str, int]] = set()  # the gradient buffers of this pass
        self.values = {n.label: self.var[n.id] for n in trace.nodes}  # label -> variable
        self.outputs: dict[str, str] = {}  # the forward-mode passes' results: label -> tangent
        self.held: dict[str, Any] = {}  # forward mode: label -> the value its variable holds
        self.defined: set[str] = set()  # the leaves written out so far (ids)
        self.rerun: dict[str, str] = {}  # a checkpointed node -> its run again (checkpoints)
        self.within = ""  # the step whose inner backward is being written ("6.")

    # -- names -----------------------------------------------------------------------------
    def name(self, label: str) -> str:
        """A Python name for a label (`fc1.weight` -> `fc1_weight`), never one taken."""
        text = "".join(c if c.isalnum() or c == "_" else "_" for c in label) or "t"
        if text[0].isdigit():  # (a parameter of a Sequential: `0.weight` -> `p0_weight`)
            text = "p" + text
        elif keyword.iskeyword(text):
            text = "_" + text
        name, k = text, 1
        while name in self.used:
            k += 1
            name = f"{text}_{k}"
        self.used.add(name)
        return name

    def ref(self, node_id: str, nr: int) -> str:
        """How the program reads output `nr` of a node: `t1`, or `t3[1]` of a tuple."""
        node = self.nodes[node_id]
        rule = RULES.get(node.name)
        many = rule is not None and rule.many and self.computes(node)
        return f"{self.var[node_id]}[{nr}]" if many or nr else self.var[node_id]

    def grad_var(self, node_id: str, nr: int) -> str:
        return f"g_{self.var[node_id]}" + (f"_{nr}" if nr else "")

    # -- the whole program -------------------------------------------------------------------
    def text(self) -> str:
        body: list[str] = []
        self.lines = body
        forwards = self.trace.forwards
        if self.trace.nodes or not forwards:
            self.forward()
        for k, backward in enumerate(self.trace.backwards):
            self.backward(backward, k + 1 if len(self.trace.backwards) > 1 else None)
        for k, record in enumerate(forwards):
            self.forward_mode(record, k + 1 if len(forwards) > 1 else None)
        if self.trace.backwards or not forwards:
            self.ending()
        if forwards:
            self.tangent_ending()
        if self.trace.engine == "minigrad" and forwards:
            head = _forward_mode_head(bool(self.trace.nodes), bool(self.trace.backwards))
        elif self.trace.engine == "minigrad":
            head = ["# This trace's forward and backward as one numpy program (Trace.to_python()).",
                    "# Each line is the numpy minigrad ran, in its order: run it, and the "
                    "gradients at the end",
                    "# equal the trace's .grad bit for bit. Edit a line, run it again, and see "
                    "what changes."]
        else:
            head = [f"# {self.trace.engine}'s backward as one numpy program (Trace.to_python()"
                    "): its graph, in its order,",
                    f"# each op in minigrad's numpy, so the gradients at the end equal "
                    f"{self.trace.engine}'s to rounding."]
        if self.copied:
            head.append(f"# Not computed here (lines marked {COPIED} hold the trace's values):")
            head += [f"#   {why}" for why in dict.fromkeys(self.copied)]
        imports = ["import math"] if any("math." in line for line in body) else []
        return "\n".join(head + [""] + imports + ["import numpy as np", ""] + body) + "\n"

    def emit(self, line: str, comment: str = "") -> None:
        if comment:
            pad = max(44, len(line.split("\n")[-1]) + 2)
            last = line.split("\n")[-1]
            line = line[:len(line) - len(last)] + f"{last:<{pad}}# {comment}"
        self.lines.append(line)

    def section(self, title: str) -> None:
        if self.lines:
            self.lines.append("")
        self.lines.append(f"# -- {title} " + "-" * max(4, 90 - len(title)))

    # -- forward -----------------------------------------------------------------------------
    def computes(self, node: Any) -> bool:
        """Can the program compute this op: it has a rule for these settings, and every
        constant input is known."""
        rule = RULES.get(node.name)
        return rule is not None and (rule.covers is None or rule.covers(node.attrs)) and all(
            i in node.constants for i, src in enumerate(node.inputs) if src is None)

    def forward(self) -> None:
        ops = [n for n in self.trace.nodes if not (n.is_leaf or n.recomputed)]
        self.section(f"forward: {len(ops)} operation{'' if len(ops) == 1 else 's'}")
        for node in self.trace.nodes:
            if node.recomputed:  # (a checkpoint's block run again: in the step that ran it)
                continue
            if node.is_leaf:
                self.leaf_line(node)
            elif node.name != REENTRANT or not self.block_forward(node):
                self.op_line(node)

    def leaf_line(self, node: Any) -> None:
        """A leaf's value (once)."""
        if node.id in self.defined:
            return
        self.defined.add(node.id)
        var = self.var[node.id]
        leaf = next((x for x in self.trace.leaves if x.node == node.id), None)
        kind = "a parameter" if leaf is not None and leaf.is_param else "a leaf"
        value = node.value if node.value is not None else getattr(leaf, "value", None)
        if value is None:
            self.emit(f"raise ValueError({self.unknown(node, 'value')!r})")
        else:
            self.emit(f"{var} = {array_text(value, len(var) + 3)}", f"{kind}: requires grad")

    def op_line(self, node: Any) -> None:
        """An op's forward: its numpy, or the value the trace recorded (COPIED); the leaves
        it reads first, where they were not written yet (a block's parameters)."""
        for src in node.inputs:
            if src is not None and self.nodes[src].is_leaf and not self.nodes[src].recomputed:
                self.leaf_line(self.nodes[src])
        var = self.var[node.id]
        if self.computes(node):
            call = self.call(node, [])
            text = call.text(RULES[node.name].forward)
            *before, last = statements(text)
            for line in before:
                self.emit(line)
            self.emit(f"{var} = {array_result(last, node.shape)}",
                      f"{node.name}   {node.label} = {node.source}")
        elif node.value is not None:
            self.copy(node, f"{node.name} ({node.label} = {node.source})")
            self.emit(f"{var} = {array_text(node.value, len(var) + 3)}",
                      f"{COPIED}: {node.name}")
        else:
            self.copy(node, f"{node.name} ({node.label} = {node.source})")
            self.emit(f"raise NotImplementedError({self.unknown(node, 'output')!r})")

    def copy(self, node: Any, what: str) -> None:
        rule = RULES.get(node.name)
        if node.name == REENTRANT:  # (a PyTorch trace: trace_torch cannot watch inside it)
            self.copied.append(f"{node.name}: {self.trace.engine} ran the block again and a "
                               "backward through it out of the trace's sight, so its values "
                               "are copied (and its block's parameters get no gradient here)")
        elif rule is None:
            self.copied.append(f"{node.name}: minigrad has no numpy text for it "
                               "(minigrad/teach/numpy_rules_*.py), so its values are copied")
        elif rule.covers is not None and not rule.covers(node.attrs):
            self.copied.append(f"{what}: its numpy text does not cover these settings "
                               "(minigrad/teach/numpy_rules_*.py)")
        else:
            self.copied.append(f"{what}: a constant input's value was not recorded")

    def unknown(self, node: Any, what: str) -> str:
        return (f"the trace did not record {node.label}'s {what} ({node.name}), so this "
                "program cannot go on: trace a callable, minigrad.trace(lambda: ...), to "
                "record every value")

    def arg(self, node: Any, i: int) -> str:
        """Input i as program text: a variable, a number, or a constant array's variable."""
        src = node.inputs[i]
        if src is not None:
            return self.ref(src, _output_nr(node, i))
        value = node.constants.get(i)
        if not isinstance(value, np.ndarray):
            return source(value)
        label = node.args[i] if i < len(node.args) else "c"
        return self.constant(value, label if label.isidentifier() else "c",
                             "a constant input (no gradient)")

    def call(self, node: Any, grads: list[str | None]) -> Call:
        """The node as its rules see it; a checkpointed node whose block ran again reads
        that run's values (`rerun`), as its saved-tensor hooks hand them back."""
        n = len(node.inputs)
        in_shapes = [self.shape_of(node, i) for i in range(n)]
        in_dtypes = [self.dtype_of(node, i) for i in range(n)]
        reads = self.nodes[self.rerun.get(node.id, node.id)]
        args = [self.arg(reads, i) for i in range(n)]
        settings = {**node.attrs, **{k: v for k, v in node.constants.items()
                                     if isinstance(k, str)}}
        names = {key: self.constant(value, f"{self.var[node.id]}_{key}", f"{node.label}'s {key}")
                 for key, value in settings.items()  # an array setting: a variable of its own
                 if isinstance(value, np.ndarray) and value.ndim}
        transposed = [src is not None and self.by_columns(src) for src in reads.inputs]
        return Call(args, self.var[reads.id], grads, settings, node.shape,
                    self.dtypes.get(node.id), in_shapes, in_dtypes, names, transposed)

    def by_columns(self, node_id: str) -> bool:
        """Is the program's value of this node a matrix laid out by columns (a `.T` of a
        contiguous one), as minigrad's was? Read off the recorded value where there is one."""
        node = self.nodes[node_id]
        if node.value is not None:
            flags = np.asarray(node.value).flags
            return np.ndim(node.value) == 2 and flags.f_contiguous and not flags.c_contiguous
        shape = node.shape or ()
        return node.name in ("TBackward0", "PermuteBackward0", "TransposeBackward0") and \
            len(shape) == 2 and min(shape) > 1 and not any(
                src is not None and self.by_columns(src) for src in node.inputs)

    def constant(self, value: np.ndarray, label: str, what: str) -> str:
        """The variable holding a constant array, written out the first time it is used."""
        known = self.consts.get(id(value))
        if known is None:
            known = self.consts[id(value)] = self.name(label)
            self.emit(f"{known} = {array_text(value, len(known) + 3)}", what)
        return known

    def shape_of(self, node: Any, i: int) -> tuple | None:
        src = node.inputs[i]
        if src is None:
            value = node.constants.get(i)
            return None if value is None else tuple(np.shape(value))
        made, nr = self.nodes[src], _output_nr(node, i)
        sizes = made.attrs.get("sizes")
        if nr and sizes is not None and made.shape is not None:  # a later piece of a split
            dim = made.attrs["dim"]
            return made.shape[:dim] + (sizes[nr],) + made.shape[dim + 1:]
        return made.shape

    def dtype_of(self, node: Any, i: int) -> Any:
        src = node.inputs[i]
        if src is None:
            value = node.constants.get(i)
            return value.dtype if isinstance(value, np.ndarray) else None
        return self.dtypes.get(src)

    # -- backward ----------------------------------------------------------------------------
    def ending(self) -> None:
        for leaf in self.trace.leaves:  # (a focused trace's inputs: the gradient sent to them)
            if leaf.label not in self.accumulated and (leaf.node, 0) in self.filled:
                self.accumulated[leaf.label] = self.grad_var(leaf.node, 0)
        leaves = [leaf.label for leaf in self.trace.leaves if leaf.label in self.accumulated]
        self.section("the gradients")
        pairs = ", ".join(f"{label!r}: {self.accumulated[label]}" for label in leaves)
        self.lines.append(f"grads = {{{pairs}}}")
        for label in leaves:
            self.lines.append(f"print({label + '.grad ='!r}, {self.accumulated[label]})")


def _forward_mode_head(graph: bool, backward: bool) -> list[str]:
    """The first lines of the program of a trace with forward-mode passes."""
    what = "forward, backward and forward mode" if backward else \
        "forward and forward mode" if graph else "forward mode"
    ends = "gradients and tangents" if backward else "tangents"
    where = "in forward mode " if graph else ""
    return [f"# This trace's {what} as one numpy program (Trace.to_python()).",
            f"# Each line is the numpy minigrad ran, in its order: {where}each value x has "
            f"its tangent x{TANGENT}",
            "# beside it (the narration's x'), from the op's JVP rule. Run it, and the "
            f"{ends} at the end",
            "# equal the trace's bit for bit. Edit a line, run it again, and see what changes."]


def _dtypes(trace: Any) -> dict[str, Any]:
    """Each node's output dtype: from its recorded value, else the gradients it received."""
    out: dict[str, Any] = {}
    for n in trace.nodes:
        if n.value is not None:
            out[n.id] = np.asarray(n.value).dtype
    for s in trace.steps:
        if s.node not in out and s.grad_outputs and s.grad_outputs[0] is not None:
            out[s.node] = np.asarray(s.grad_outputs[0]).dtype
    return out


def _output_nr(node: Any, i: int) -> int:
    """Which output of its node input i is (the `#1` of `t1#1`)."""
    text = node.args[i] if i < len(node.args) else ""
    tail = text.rsplit("#", 1)[-1]
    return int(tail) if "#" in text and tail.isdigit() else 0

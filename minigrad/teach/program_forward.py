"""The forward-mode part of `Trace.to_python()`'s program: each forward-mode pass in forward
order, as `jvp_apply.py` runs it. First the dual inputs (each value and its tangent, `x` and
`x_t`: the narration's x'), then per op its value (the op's numpy, `numpy_rules`) and its
output's tangent (the op's JVP rule in numpy, the `jvp=` text beside its backward), each under
a comment naming the step and the rule. At the end, `tangents`: the tangents the passes give.

The program takes from the trace what it cannot compute: a tensor the pass read without
making it (a weight: its value, as the op got it) is an input; one an in-place op changed
after the step that made it, and a step whose op has no numpy text or JVP text yet, are the
trace's values on lines marked COPIED, said so in the program's first lines, never guessed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.teach.explain_forward import rule_text
from minigrad.teach.numpy_rules import Call, first, tangent_text
from minigrad.teach.numpy_rules_all import RULES
from minigrad.teach.program_backward import COPIED, array_result, statements
from minigrad.teach.program_values import array_text, source

TANGENT = "_t"  # x's tangent is x_t


class ForwardMode:
    """The forward-mode passes of a `program._Program` (its names, `emit`, `copy`)."""

    copied: list
    lines: list

    def forward_mode(self, record: Any, k: int | None) -> None:
        """One pass: its dual inputs, then each op's value and tangent."""
        n = len(record.steps)
        self.section(f"forward mode{f' pass {k}' if k else ''}: {n} operation"
                     f"{'' if n == 1 else 's'} on dual numbers, in forward order")
        self.pass_tangents: dict[str, str] = {}  # label -> its tangent's variable, this pass
        self.arrays: dict[str, Any] = {}  # label -> its value now (shape, dtype, layout)
        self.moving: dict[str, bool] = {}  # label -> has it a tangent
        duals = {}
        for step in record.steps:
            for i, (value, tangent, changed) in step.taken.items():
                if tangent is not None and not changed:
                    duals.setdefault(step.args[i], (value, tangent))
        for label, (value, tangent) in duals.items():
            self.take(label, value, tangent, "a dual input: its value",
                      f"and its tangent, {label}'")
        for step in record.steps:
            self.tangent_step(step)
        used = {a for step in record.steps for a in step.args}
        for step in record.steps:
            if step.label not in used:
                self.outputs[step.label] = self.pass_tangents[step.label]

    def take(self, label: str, value: Any, tangent: Any, what: str, tangent_what: str) -> None:
        """A tensor the pass read from outside it: its value (unless its variable holds it
        already, from an earlier pass), and its tangent if it has one."""
        var = self.value_var(label)
        if not _same(self.held.get(label), value):
            self.emit(f"{var} = {self.written(value, len(var) + 3)}", what)
        self.arrays[label] = self.held[label] = value
        self.moving[label] = tangent is not None
        if tangent is not None:
            t = self.tangent_var(label)
            self.emit(f"{t} = {self.written(tangent, len(t) + 3)}", tangent_what)

    def tangent_step(self, step: Any) -> None:
        self.lines.append(f"# step {step.index}: {step.name}   {step.label} = {step.source}")
        for i, (value, tangent, changed) in step.taken.items():
            label = step.args[i]
            if changed:
                self.copied.append(f"{label}: an in-place op changed it after the step that "
                                   "made it, so its value and tangent are the trace's")
                self.take(label, value, tangent, f"{COPIED}: {label} as changed in place",
                          f"{COPIED}: its tangent")
            elif tangent is None and label not in self.arrays:
                kind = "its tangent: zeros" if value.dtype.kind in "fc" else "not a float tensor"
                self.take(label, value, None, f"an input without a tangent ({kind})", "")
        var, t = self.value_var(step.label), self.tangent_var(step.label)
        rule = RULES.get(step.name)
        call = self.tangent_call(step, t) if self.step_computes(step, rule) else None
        if call is not None:
            text = call.text(rule.forward)
            self.assign(var, first(text) if rule.many else text, step.shape)
        else:
            self.copy(step, f"{step.name} ({step.label} = {step.source})")
            self.emit(f"{var} = {self.written(step.value, len(var) + 3)}",
                      f"{COPIED}: {step.name}")
        self.arrays[step.label] = self.held[step.label] = step.value
        self.moving[step.label] = step.tangent is not None
        if step.tangent is None:
            self.emit(f"{t} = None", "its output has no tangent (not a float tensor)")
            return
        text = tangent_text(rule, call) if call is not None and rule.jvp is not None else None
        if text is None:
            if call is not None:
                self.copied.append(f"{step.name}: minigrad has no numpy text for its JVP rule "
                                   "yet (jvp= in minigrad/teach/numpy_rules_*.py), so its "
                                   "tangents are copied")
            self.emit(f"{t} = {self.written(step.tangent, len(t) + 3)}",
                      f"{COPIED}: the tangent of {step.name}")
            return
        rule_words = rule_text(step)
        self.assign(t, text, step.shape, f"{step.label}' = {rule_words}" if rule_words else "")

    def assign(self, var: str, text: str, shape: tuple | None, comment: str = "") -> None:
        *before, last = statements(text)
        for line in before:
            self.emit(line)
        self.emit(f"{var} = {array_result(last, shape)}", comment)

    def step_computes(self, step: Any, rule: Any) -> bool:
        """Has the op a numpy text for these settings (and every input a known value)?"""
        return rule is not None and (rule.covers is None or rule.covers(step.attrs)) and all(
            step.args[i] in self.arrays for i in range(len(step.args))
            if i not in step.constants)

    def tangent_call(self, step: Any, t: str) -> Call:
        """The step as its rules see it: inputs, settings, shapes, dtypes, and tangents."""
        n = len(step.args)
        arrays = [None if i in step.constants else self.arrays[step.args[i]] for i in range(n)]
        args = [self.input_text(step, i) for i in range(n)]
        settings = {**step.attrs, **{k: v for k, v in step.constants.items()
                                     if isinstance(k, str)}}
        var = self.value_var(step.label)
        names = {key: self.constant(value, f"{var}_{key}", f"{step.label}'s {key}")
                 for key, value in settings.items()
                 if isinstance(value, np.ndarray) and value.ndim}
        shapes = [tuple(np.shape(step.constants[i])) if a is None else a.shape
                  for i, a in enumerate(arrays)]
        dtypes = [step.constants[i].dtype if a is None and isinstance(
            step.constants.get(i), np.ndarray) else None if a is None else a.dtype
                  for i, a in enumerate(arrays)]
        transposed = [a is not None and a.ndim == 2 and a.flags.f_contiguous
                      and not a.flags.c_contiguous for a in arrays]
        call = Call(args, var, [], settings, step.shape, step.value.dtype, shapes, dtypes,
                    names, transposed)
        tangents, moving, linear, tangent_dtypes = [], [], [], []
        for i, (arg, a) in enumerate(zip(args, arrays)):
            moves = a is not None and self.moving.get(step.args[i], False)
            float_tensor = a is not None and a.dtype.kind in "fc"
            tangent = self.pass_tangents[step.args[i]] if moves else None
            if not float_tensor:  # (a number's tangent is 0.0, as minigrad gives its rule)
                tangent = "0.0" if type(step.constants.get(i)) in (int, float) else "None"
            tangents.append(tangent)
            moving.append(moves)
            linear.append(arg if not float_tensor else tangent or f"np.zeros_like({arg})")
            given = step.tangents[i] if i < len(step.tangents) else None
            tangent_dtypes.append(given.dtype if float_tensor and isinstance(given, np.ndarray)
                                  else dtypes[i])
        return call.with_tangents(tangents, moving, linear, t, step.tangent.dtype
                                  if step.tangent is not None else None, tangent_dtypes)

    def input_text(self, step: Any, i: int) -> str:
        """Input i as program text: a variable, a number, or a constant array's variable."""
        if i not in step.constants:
            return self.value_var(step.args[i])
        value = step.constants[i]
        if not isinstance(value, np.ndarray):
            return source(value)
        return self.constant(value, "c", "a constant input (no tangent)")

    def written(self, value: Any, indent: int) -> str:
        """An array as source, laid out by columns where minigrad's was (a matrix's `.T`:
        numpy multiplies such a matrix in another order, so the bits would differ)."""
        text = array_text(np.asarray(value), indent)
        a = np.asarray(value)
        if a.ndim >= 2 and a.flags.f_contiguous and not a.flags.c_contiguous:
            return f"np.asfortranarray({text})"
        return text

    # -- names -------------------------------------------------------------------------------
    def value_var(self, label: str) -> str:
        """The variable of a tensor's value: the graph's where the tensor is a node of it."""
        var = self.values.get(label)
        if var is None:
            var = self.values[label] = self.name(label)
        return var

    def tangent_var(self, label: str) -> str:
        """The variable of a tensor's tangent in this pass (a fresh one where an earlier pass
        gave it one: the tangents at the end are each pass's)."""
        var = self.pass_tangents.get(label)
        if var is None:
            var = self.pass_tangents[label] = self.name(self.value_var(label) + TANGENT)
        return var

    def tangent_ending(self) -> None:
        self.section("the tangents")
        pairs = ", ".join(f"{label!r}: {var}" for label, var in self.outputs.items())
        self.lines.append(f"tangents = {{{pairs}}}")
        for label, var in self.outputs.items():
            self.lines.append(f"print({label + chr(39) + ' ='!r}, {var})")


def _same(a: Any, b: Any) -> bool:
    """Are two arrays the same bits, shape, dtype and layout?"""
    return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and \
        a.shape == b.shape and a.strides == b.strides and a.tobytes() == b.tobytes()

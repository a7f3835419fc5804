"""Recording forward-mode work and function transforms, from the engine's events.

`ForwardRecorder` is fed by the trace's `Recorder` (recorder.py): each `ForwardTangent` (an
op run on dual numbers; the ops inside a JVP rule are left out) becomes a step of the current
forward-mode pass, and `TransformBegin`/`TransformEnd` bracket the transforms, counting the
backward passes (`BackwardBegin`) and forward-mode passes (`func.jvp`, a forward-mode column)
that ran inside each. `build(labels)` names the tensors (the labels the backward records gave
them, else their names, else t1, t2, ... after those) and returns the records.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd import forward_ad
from minigrad.autograd.events import ForwardTangent, TransformBegin, TransformEnd
from minigrad.autograd.tensor import Tensor
from minigrad.teach.forward_records import TraceForward, TraceTangent, TraceTransform
from minigrad.teach.labels import UniqueLabels, constant_text
from minigrad.teach.op_words import narrated_settings, source_form
from minigrad.teach.settings import displayable

# The transforms whose every run is one forward-mode pass (one column of a Jacobian)
FORWARD_PASSES = ("func.jvp", "forward-mode pass")


class ForwardRecorder:
    """Keeps forward-mode steps and transforms while recording; `build` makes records."""

    def __init__(self) -> None:
        self.passes: list[list] = []  # [level, steps]; a step: [function, inputs, output,
        # value copy, input tangent copies, output tangent copy, settings]
        self.tensors: dict[int, Tensor] = {}  # id -> tensor, alive until build
        self.open: list[TraceTransform] = []
        self.transforms: list[TraceTransform] = []
        self.new_pass = True
        self.versions: dict[int, int] = {}  # id -> the version the current pass last saw

    def __call__(self, event: Any) -> None:
        kind = type(event)
        if kind is ForwardTangent:
            if not forward_ad.in_rule():
                self._tangent(event)
        elif kind is TransformBegin:
            record = TraceTransform(event.name)
            (self.open[-1].inner if self.open else self.transforms).append(record)
            self.open.append(record)
            if event.name in FORWARD_PASSES:
                self.new_pass = True
                for t in self.open:
                    t.forward_passes += 1
        elif kind is TransformEnd and self.open:
            record = self.open.pop()
            record.notes = dict(event.notes)
            if record.notes.get("dropped"):  # (a batched attempt vmap gave up: it never ran)
                (self.open[-1].inner if self.open else self.transforms).remove(record)
                for t in self.open:
                    t.forward_passes -= record.forward_passes
                    t.backward_passes -= record.backward_passes

    def backward_began(self) -> None:
        """A backward pass starts: every open transform ran one more."""
        for t in self.open:
            t.backward_passes += 1

    def _tangent(self, event: ForwardTangent) -> None:
        out = event.output
        out_tangent = event.output_tangent
        if isinstance(out, tuple):  # (an op of several outputs: its first tensor)
            i = next((i for i, o in enumerate(out) if isinstance(o, Tensor)), 0)
            out = out[i]
            out_tangent = out_tangent[i] if isinstance(out_tangent, tuple) else out_tangent
        if self.new_pass or not self.passes or self.passes[-1][0] != event.level:
            self.passes.append([event.level, []])
            self.versions = {}
            self.new_pass = False
        for t in (*event.inputs, out):
            if isinstance(t, Tensor):
                self.tensors[id(t)] = t
        taken = self._taken(event)
        if isinstance(out, Tensor):
            self.versions[id(out)] = out._version
        self.passes[-1][1].append([
            event.function, event.inputs, out, _copy(out), [_copy(t) for t in
                                                              event.input_tangents],
            _copy(out_tangent), {k: v for k, v in event.settings.items() if displayable(v)},
            taken, _constants(event)])

    def _taken(self, event: ForwardTangent) -> dict[int, tuple]:
        """The inputs the program of this pass takes from the trace (see `TraceTangent.taken`):
        each tensor the pass has not had yet, or had at another version (changed in place)."""
        taken = {}
        for i, (t, dt) in enumerate(zip(event.inputs, event.input_tangents)):
            if not isinstance(t, Tensor):
                continue
            known = self.versions.get(id(t))
            if known is None or known != t._version:
                none = dt is None or dt.__dict__.get("zero_tangent", False)
                taken[i] = (np.array(t.array), None if none else _copy(dt), known is not None)
                self.versions[id(t)] = t._version
        return taken

    def build(self, labels: dict[int, str], names: dict[int, str]) -> tuple[list, list]:
        """(forward passes, transforms). `labels`: the backward records' labels by tensor id;
        `names`: the user's variable names by tensor id."""
        unique = UniqueLabels()
        for label in labels.values():
            unique(label)
        known = dict(labels)

        def label(t: Any) -> str:
            if not isinstance(t, Tensor):
                return constant_text(t)
            if id(t) not in known:
                known[id(t)] = unique(t.name or names.get(id(t)))
            return known[id(t)]

        forwards = []
        for level, steps in self.passes:
            made = {id(step[2]) for step in steps}
            record = TraceForward(level)
            seen: set[int] = set()
            for _, inputs, _, _, tangents, _, _, _, _ in steps:
                for t, dt in zip(inputs, tangents):
                    if isinstance(t, Tensor) and id(t) not in made and id(t) not in seen \
                            and dt is not None and np.any(dt):
                        seen.add(id(t))
                        record.inputs.append((label(t), _copy(t), dt))
            for k, (function, inputs, out, value, tangents, tangent, settings, taken,
                    constants) in enumerate(steps, 1):
                name = function._node_class.__name__
                args = [label(a) for a in inputs]
                attrs = narrated_settings(name, function.__name__, settings)
                shape = value.shape if value is not None else None
                record.steps.append(TraceTangent(
                    k, name, label(out), source_form(name, args, attrs, shape),
                    getattr(function, "tangent", None), args, attrs, shape, value, tangents,
                    tangent, taken, constants))
            forwards.append(record)
        self.tensors.clear()
        return forwards, self.transforms


def _constants(event: ForwardTangent) -> dict[Any, Any]:
    """The inputs that are not tensors (by index) and the settings a narration leaves out (by
    name), arrays copied."""
    out: dict[Any, Any] = {i: a for i, a in enumerate(event.inputs) if not isinstance(a, Tensor)}
    out.update((k, v) for k, v in event.settings.items() if not displayable(v))
    return {k: np.array(v) if isinstance(v, np.ndarray) else v for k, v in out.items()}


def _copy(t: Any) -> np.ndarray | None:
    """A tensor's values now (a number as a 0-d array; None stays None)."""
    if t is None:
        return None
    if isinstance(t, Tensor):
        return np.array(t.array)
    if isinstance(t, int | float):
        return np.asarray(float(t))
    return None

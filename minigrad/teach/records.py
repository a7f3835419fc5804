"""The records a Trace is made of: plain data, no live objects.

A `TraceNode` per node of the graph (an op such as `MulBackward0`, or a leaf's
`AccumulateGrad`), a `TraceLeaf` per leaf tensor, and per backward pass a `TraceBackward` of
`TraceStep`s (with the `TraceAccumulation`s and `TraceHook`s that happened in each). Arrays
are numpy arrays. `minigrad.teach.trace` re-exports them; anything that can fill them in (minigrad's
recorder, compare.trace_torch for PyTorch) gets a Trace that explains and draws the same.

Built by hand, `loss = (w * 3).sum()` as PyTorch ran it:

    nodes = [TraceNode("n1", "AccumulateGrad", "w", shape=(2,), value=w_values),
             TraceNode("n2", "MulBackward0", "t1", inputs=["n1", None], args=["w", "3"],
                       shape=(2,), formula="d(a*b)/da = b ;  d(a*b)/db = a"),
             TraceNode("n3", "SumBackward0", "loss", inputs=["n2"], args=["t1"], shape=())]
    steps = [TraceStep(1, "n3", grad_outputs=[one], grad_inputs=[ones]),
             TraceStep(2, "n2", grad_outputs=[ones], grad_inputs=[threes, None]),
             TraceStep(3, "n1", grad_outputs=[threes],
                       accumulations=[TraceAccumulation("w", None, threes)])]
    trace = Trace.from_records(nodes, [TraceLeaf("w", "n1", (2,), w_values, threes)],
                               [TraceBackward(["n3"], [one], steps)], engine="PyTorch")

`inputs` follow PyTorch's `next_functions` (None for an input without gradient), `args` say
how each input reads in code; empty `source` fields are filled in from the node names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["TraceAccumulation", "TraceBackward", "TraceHook", "TraceLeaf", "TraceModule",
           "TraceNode", "TraceRecords", "TraceSaved", "TraceStep"]


@dataclass
class TraceSaved:
    """One tensor a node keeps for its backward, as memory (`minigrad.teach.memory`).

    `name` says which (an input's label, `"result"`, `"saved[2]"`, or an attribute of the
    node, `"mask"`); `storage` names the memory it lies in (the same for tensors that share
    it: a view and its base), `nbytes` that memory's size; `leaf` the leaf whose memory it is
    (a parameter, an input), which the graph does not add to; `freed`: backward frees it
    (False for what a node keeps until the graph itself is dropped).
    """

    name: str
    shape: tuple
    dtype: str
    nbytes: int
    storage: str
    leaf: str | None = None
    freed: bool = True


@dataclass
class TraceNode:
    """One node of the graph: an op (`MulBackward0`) or a leaf's `AccumulateGrad`.

    `inputs[i]` is the id of the node feeding input i (PyTorch's `next_functions`), or None
    for an input that needs no gradient (a constant); `args[i]` is how input i reads in the
    source form (`"x"`, `"t1"`, `"3"`). `label` names the node's output (`t1`, `out`; for an
    AccumulateGrad, the leaf's label); `source` is the op as code (`"x * y"`).
    """

    id: str
    name: str
    label: str = ""
    source: str = ""
    formula: str = ""
    shape: tuple | None = None
    value: np.ndarray | None = None
    inputs: list[str | None] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    line: str | None = None
    saved: list[tuple[str, Any]] = field(default_factory=list)
    # the dotted path of the innermost module whose forward made it ("" if none); for a
    # parameter's AccumulateGrad, the module that owns the parameter
    module: str = ""
    # the call that made it, when that call is no node of its own (`einsum('ij,jk->ik', A,
    # B)`, `checkpoint(block, x)`): its text, its kind ("einsum", "tensordot", "checkpoint",
    # "checkpoint_reentrant") and a number per call; "", "", 0 for none
    call: str = ""
    call_kind: str = ""
    call_number: int = 0
    recomputed: bool = False  # made in backward, by a checkpoint running its block again
    # a leaf so made, the copy of an input of the block: which of its tensor inputs (a
    # reentrant checkpoint's node has them as its inputs, in order); None for any other node
    copy_of: int | None = None
    # what a program needs besides `attrs`: the values of the inputs without an edge (input
    # index -> array or number; an index missing: not known) and settings too large to show
    # (name -> array); and what the node keeps for its backward, as memory
    constants: dict[Any, Any] = field(default_factory=dict)
    memory: list[TraceSaved] = field(default_factory=list)

    @property
    def is_leaf(self) -> bool:
        return self.name == "AccumulateGrad"


@dataclass
class TraceLeaf:
    """A tensor that requires grad and was made by the user (or a parameter)."""

    label: str
    node: str  # the id of its AccumulateGrad node
    shape: tuple = ()
    value: np.ndarray | None = None
    grad: np.ndarray | None = None  # `.grad` when the trace ended
    is_param: bool = False


@dataclass
class TraceModule:
    """A module whose forward ran while tracing: `path` is its dotted name in the model
    (`"layer2.0.conv1"`, `""` for the model itself), `type` its class name (`"Conv2d"`),
    `params` the full names of the parameters it owns directly, `calls` how many times its
    forward ran."""

    path: str
    type: str
    params: list[str] = field(default_factory=list)
    calls: int = 1


@dataclass
class TraceHook:
    """A hook that ran: "tensor", "prehook" or "hook", with the gradients before and after."""

    where: str
    name: str
    before: list[np.ndarray | None]
    after: list[np.ndarray | None]

    @property
    def changed(self) -> bool:
        return any((a is None) != (b is None) or (a is not None and not np.array_equal(a, b))
                   for a, b in zip(self.before, self.after))


@dataclass
class TraceAccumulation:
    """`leaf.grad` went from `before` (None the first time) to `after`."""

    leaf: str
    before: np.ndarray | None
    after: np.ndarray | None


@dataclass
class TraceStep:
    """One backward step: node `node` received `grad_outputs` and sent `grad_inputs`.

    `summed_dims[i]` lists the dims summed away to undo broadcasting for input i (or None);
    `freed` the ids of the nodes whose saved tensors were freed as it ended (PyTorch frees a
    node's as soon as it ran, minigrad every node's after the last step).
    """

    index: int
    node: str
    grad_outputs: list[np.ndarray | None] = field(default_factory=list)
    grad_inputs: list[np.ndarray | None] = field(default_factory=list)
    summed_dims: list[tuple | None] = field(default_factory=list)
    accumulations: list[TraceAccumulation] = field(default_factory=list)
    hooks: list[TraceHook] = field(default_factory=list)
    seconds: float = 0.0
    freed: list[str] = field(default_factory=list)  # the nodes whose saved tensors it freed
    # what ran inside this step: the ops a checkpoint ran again (node ids, in order) and the
    # backward passes it ran through them (a reentrant checkpoint's)
    recomputed: list[str] = field(default_factory=list)
    nested: list[TraceBackward] = field(default_factory=list)


@dataclass
class TraceBackward:
    """One backward pass: from `roots` (node ids) seeded with `seeds`, in `steps`."""

    roots: list[str]
    seeds: list[np.ndarray | None]
    steps: list[TraceStep] = field(default_factory=list)
    seconds: float = 0.0


class TraceRecords:
    """A whole recording: the nodes (forward order), the leaves and the backward passes, with
    lookups by id. `Trace` is one, with its ways to explain, draw and export it."""

    def __init__(self, nodes: Iterable[TraceNode] = (), leaves: Iterable[TraceLeaf] = (),
                 backwards: Iterable[TraceBackward] = (), engine: str = "minigrad",
                 modules: Iterable[TraceModule] = ()) -> None:
        self.engine = engine
        # path -> TraceModule, in the order the modules were first called
        self.modules: dict[str, TraceModule] = {m.path: m for m in modules}
        self.nodes: list[TraceNode] = list(nodes)
        self.leaves: list[TraceLeaf] = list(leaves)
        self.backwards: list[TraceBackward] = list(backwards)
        self._by_id = {n.id: n for n in self.nodes}
        self.live_leaves: dict[str, Any] = {}  # leaf node id -> weakref to the leaf tensor
        # forward-mode passes and function transforms (forward_records.py)
        self.forwards: list[Any] = []
        self.transforms: list[Any] = []

    def _load(self, records: tuple) -> None:
        """Take what `Recorder.build` returns: nodes, leaves, backwards, live leaf refs,
        modules (then, from minigrad's recorder, forward-mode passes and transforms)."""
        self.nodes, self.leaves, self.backwards, self.live_leaves, modules = records[:5]
        self.forwards, self.transforms = records[5:] or ([], [])
        self.modules = {m.path: m for m in modules}
        self._by_id = {n.id: n for n in self.nodes}

    def node(self, node_id: str) -> TraceNode:
        return self._by_id[node_id]

    @property
    def steps(self) -> list[TraceStep]:
        """Every backward step of every pass, in order."""
        return [s for b in self.backwards for s in b.steps]

    def leaf(self, label: str) -> TraceLeaf:
        for leaf in self.leaves:
            if leaf.label == label:
                return leaf
        raise KeyError(f"no leaf labelled {label!r}; leaves: {[x.label for x in self.leaves]}")

    def step_numbers(self) -> dict[str, list[int]]:
        """For each node id, the backward step(s) that ran it."""
        numbers: dict[str, list[int]] = {}
        for b in self.backwards:
            for s in b.steps:
                numbers.setdefault(s.node, []).append(s.index)
        return numbers

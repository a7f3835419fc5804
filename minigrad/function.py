"""Function, Node and AccumulateGrad: how an operation becomes a step of the backward graph.

`Function` is the one way to define a differentiable op, built-in or user-written (as in
PyTorch). `Function.apply` runs `forward` and, when gradients are wanted, records a `Node`:
the object a tensor's `.grad_fn` points at. The node *is* the `ctx` that `forward` and
`backward` receive, as in PyTorch, so `ctx.save_for_backward` stores onto the graph.

Each Function subclass gets its own Node subclass, named the way PyTorch names it
(`MulBackward0`, or `CubeBackward` for a user's `class Cube(Function)`).
"""

from __future__ import annotations

import itertools
import re
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy import ndarray  # (np.ndarray is a slow lookup: numpy's module has __getattr__)

from minigrad import events
from minigrad import tensor as _tensor  # Tensor is used at call time (tensor.py imports us)
from minigrad.grad_mode import state

_sequence = itertools.count()

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


_hooks_registered = 0  # how many node hooks were ever registered: while 0, backward skips them


def any_hooks() -> bool:
    """Was a hook (or retain_grad) ever registered on any node? If not, none has one."""
    return _hooks_registered > 0


class RemovableHandle:
    """Returned by every `register_*hook`; `.remove()` takes the hook out again."""

    def __init__(self, hooks: list, hook: Callable) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class Node:
    """One recorded operation: PyTorch's `grad_fn`, and the `ctx` of its Function.

    `next_functions[i]` is `(node, output_nr)` for the i-th input: the node that made it
    (its AccumulateGrad for a leaf), or `(None, 0)` for an input that needs no gradient.
    """

    formula = ""
    _function: Any = None
    # Defaults live on the class so that recording a node sets only what it must.
    _saved: tuple = ()
    _saved_versions: tuple = ()
    _freed = False
    _hooked = False  # set by every kind of hook (and retain_grad): others skip the hook code
    _pre_hooks: tuple | list = ()
    _post_hooks: tuple | list = ()
    _tensor_pre_hooks: dict | None = None
    _retained: dict | None = None
    _shape: tuple = ()  # the shape of output 0 (the others' are in `_output_meta`)
    _num_outputs = 1
    _materialize_grads = True
    _creation_stack: list | None = None
    _saved_output: np.ndarray | None = None  # the output's data, for `saves_output` ops
    _output_vc: list | None = None  # ... and its version counter, and its version then
    _output_version = 0
    _output_meta: tuple = ()

    # The edges to the inputs' nodes, kept as two flat tuples: the output numbers are plain
    # ints, so the cycle collector only ever scans one tuple per node (it scans a lot of them
    # in a deep graph). `next_functions` pairs them up the way PyTorch shows them.
    _next_nodes: tuple = ()
    _next_nrs: tuple = ()
    needs_input_grad: tuple = ()
    _recording = True  # False while forward runs without recording: nothing to save then
    _sequence_nr = -1  # set when the node is recorded: the order of creation (see ready_queue)

    @property
    def metadata(self) -> dict:
        """A dict for your own notes on this node (anomaly mode keeps `traceback_` here)."""
        if "_metadata" not in self.__dict__:
            self._metadata: dict = {}
        return self._metadata

    @property
    def next_functions(self) -> tuple:
        """`((node_or_None, output_nr), ...)`, one pair per input, as in PyTorch."""
        return tuple(zip(self._next_nodes, self._next_nrs))

    def name(self) -> str:
        return type(self).__name__

    def __lt__(self, other: Any) -> bool:
        # Nodes have no order of their own: the ready queue orders them by sequence number,
        # and when two numbers are equal (AccumulateGrads) the nodes tie (see ready_queue.py).
        return False

    def _grad_shape(self, output_nr: int) -> tuple:
        """The shape the gradient of output `output_nr` must have: the output's own shape."""
        return self._shape if output_nr == 0 else self._output_meta[output_nr][0]

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"

    # -- saving tensors for backward -------------------------------------------------
    def save_for_backward(self, *values: Any) -> None:
        """Keep `values` (tensors, None or numbers) for backward; tensors are version-checked."""
        if not self._recording:
            return
        self._saved = values
        Tensor = _tensor.Tensor
        versions = None  # stays None when only numbers (or None) were saved: nothing to check
        for i, v in enumerate(values):
            if isinstance(v, Tensor):
                if versions is None:
                    versions = [None] * len(values)
                versions[i] = 0 if v._vc is None else v._vc[0]
        if versions is not None:
            self._saved_versions = tuple(versions)
        elif self._saved_versions:  # (saved again, now without tensors)
            self._saved_versions = ()

    @property
    def saved_tensors(self) -> tuple:
        """What forward saved, after checking none of it was freed or changed in place."""
        saved = self._saved
        if not saved and self._freed:  # (release empties _saved: only then look further)
            raise RuntimeError(FREED_MESSAGE)
        for i, version in enumerate(self._saved_versions):
            if version is not None:
                vc = saved[i]._vc  # (Tensor._version without the call: None means version 0)
                if (0 if vc is None else vc[0]) != version:
                    raise RuntimeError(_modified_message(saved[i], version))
        return saved

    @property
    def output(self) -> Any:
        """The (first) output of forward, for Functions that declare `saves_output = True`.

        Kept as data plus version counter, not as the Tensor itself, so the node and its
        output do not hold each other alive (PyTorch's SavedVariable does the same). The
        counter is the output tensor's own, which it makes only when first needed (a view, an
        in-place change) and then hands to this node; until then `_output_vc` is None and the
        output is at version 0. Stored as attributes rather than one tuple: fewer objects per
        node for the cycle collector to scan.
        """
        return _tensor.make(self.output_data(), self, 0, self._output_vc)

    def output_data(self) -> np.ndarray:
        """`output`'s numpy array, checked the same way (for backwards that compute in numpy)."""
        data = self._saved_output
        if data is None:
            raise RuntimeError(FREED_MESSAGE if self._freed else
                               f"{self.name()} did not save its output (saves_output is False)")
        vc = self._output_vc  # (None: the output never got a counter, so never changed)
        if vc is not None and vc[0] != self._output_version:
            out = _tensor.make(data, self, 0, vc)
            raise RuntimeError(_modified_message(out, self._output_version))
        return data

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize_grads = bool(value)

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self._non_differentiable = {id(t) for t in tensors}

    # -- hooks ----------------------------------------------------------------------
    def _mark_hooked(self) -> None:
        """This node has a hook (or a retained grad): backward must look for them."""
        global _hooks_registered
        self._hooked = True
        _hooks_registered += 1

    def register_prehook(self, hook: Callable) -> RemovableHandle:
        """`hook(grad_outputs) -> None | new grad_outputs`, run before this node's backward."""
        self._mark_hooked()
        if not isinstance(self._pre_hooks, list):
            self._pre_hooks = []
        self._pre_hooks.append(hook)
        return RemovableHandle(self._pre_hooks, hook)

    def register_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(grad_inputs, grad_outputs) -> None | new grad_inputs`, run after backward."""
        self._mark_hooked()
        if not isinstance(self._post_hooks, list):
            self._post_hooks = []
        self._post_hooks.append(hook)
        return RemovableHandle(self._post_hooks, hook)

    def _add_tensor_hook(self, output_nr: int, hook: Callable) -> RemovableHandle:
        self._mark_hooked()
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        hooks = self._tensor_pre_hooks.setdefault(output_nr, [])
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    # -- running ----------------------------------------------------------------------
    def apply(self, *grad_outputs: Any) -> tuple:
        """Run the Function's backward on the gradients of this node's outputs."""
        grads = self._function.backward(self, *grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
        return grads


class AccumulateGrad(Node):
    """The node that ends every path at a leaf: it adds the arriving gradient to `.grad`."""

    formula = "x.grad += incoming gradient"

    def __init__(self, variable: Any) -> None:
        self.variable = variable
        self._sequence_nr = float("inf")  # PyTorch runs accumulations as soon as they are ready
        self._shape = variable.data.shape  # the shape a gradient must have (see _grad_shape)

    def _grad_shape(self, output_nr: int) -> tuple:
        """The leaf's shape, read again: the engine asks when a gradient does not have the kept
        `_shape`. (After `x.data = ` an array of another shape a new graph brings gradients of
        the new shape; a graph recorded before the change still brings the old one, and PyTorch
        accumulates that as it is.)"""
        self._shape = self.variable.data.shape
        return self._shape

    def apply(self, *grad_outputs: Any) -> tuple:
        return ()  # the engine does the accumulation itself, so that it can emit the event


class Function:
    """Base class of differentiable operations: subclass it with static forward/backward.

    `forward(ctx, *args)` gets the arguments given to `apply` (tensors, numbers, ...) and
    returns a Tensor or a numpy array (or a tuple of them). `backward(ctx, *grads)` gets one
    gradient Tensor per output and returns one gradient (or None) per argument of forward,
    computed with Tensor operations, so that `create_graph=True` can record it.
    """

    node_name: str = ""
    formula: str = ""
    _scratch: Node | None = None
    saves_output = False  # built-in ops whose backward reads their own result set this
    is_view = False  # outputs share memory (and so the version counter) with input 0
    # (no op is both: a view's saved output would need the shared counter, see apply)
    ufunc: Any = None  # + - * /: the numpy ufunc, used as is when nothing is recorded
    _node_class: type = Node

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.is_view and cls.saves_output:
            raise TypeError(f"{cls.__name__}: a view op cannot also save its output")
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward"
        formula = getattr(cls, "formula", "")
        cls._node_class = type(name, (Node,), {"_function": cls, "formula": formula,
                                               "__module__": cls.__module__,
                                               "__doc__": cls.__doc__})
        # Built-in ops compute forward with numpy alone; when nothing is recorded (inside
        # backward, under no_grad) they may all share one scratch ctx instead of a new Node.
        cls._scratch = None
        if cls.__module__.startswith("minigrad.ops."):
            cls._scratch = cls._node_class()
            cls._scratch._recording = False

    @staticmethod
    def forward(ctx: Node, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("Function subclasses must implement forward(ctx, ...)")

    @staticmethod
    def backward(ctx: Node, *grad_outputs: Any) -> Any:
        raise NotImplementedError("Function subclasses must implement backward(ctx, ...)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run forward; when an input requires grad (and grad mode is on) record a Node.

        Keyword arguments are settings (a dim, a shape), not inputs: they get no edge in
        `next_functions`, as in PyTorch, where `x.sum(0)` has one edge and `x * 3` two.
        """
        ctx = _record(cls, args) if state.grad_enabled else None
        record = ctx is not None
        scratch = cls._scratch
        if scratch is not None:  # a built-in op: forward is numpy alone, nothing to record
            if kwargs:
                out = cls.forward(ctx if record else scratch, *args, **kwargs)
            else:  # (no settings: calling without ** saves copying an empty dict)
                out = cls.forward(ctx if record else scratch, *args)
            if type(out) is ndarray and out.dtype.kind == "f":
                # the common case, one float array out: the new tensor points at the node
                if cls.is_view:  # it shares input 0's memory, and so its version counter
                    result = _tensor.make(out, ctx, 0, args[0]._vc or args[0]._shared_version())
                    result._base = args[0]
                else:
                    result = _tensor.make(out, ctx, 0)
                if record:
                    ctx._shape = out.shape
                    if cls.saves_output:  # its backward reads the output: keep it. (Its
                        # version counter is made when first needed, and then shared with
                        # this node: see Tensor._shared_version.)
                        ctx._saved_output = out
                    if events._listeners:
                        events.emit(events.ForwardOp(ctx, args, result, kwargs))
                return result
        else:  # a user's Function computes forward with ops, which must not be recorded
            if not record:
                ctx = cls._node_class()
                ctx._recording = False
            prev, state.grad_enabled = state.grad_enabled, False
            try:
                out = cls.forward(ctx, *args, **kwargs)
            finally:
                state.grad_enabled = prev
        if type(out) is ndarray:  # the common case: one array out
            result = _tensor.make(out, ctx if record and out.dtype.kind == "f" else None, 0)
            results: tuple = (result,)
        else:
            outs = out if isinstance(out, tuple) else (out,)
            results = tuple(_wrap_output(o, ctx, i, record)
                            if isinstance(o, np.ndarray | np.generic | _tensor.Tensor) else o
                            for i, o in enumerate(outs))
            result = results if isinstance(out, tuple) else results[0]
            if record and len(results) > 1:
                ctx._num_outputs = len(results)
                ctx._output_meta = tuple((o.data.shape, o.data.dtype)
                                         if isinstance(o, _tensor.Tensor)
                                         else ((), np.dtype(bool)) for o in results)
        if cls.is_view:
            for r in results:
                r._vc, r._base = args[0]._shared_version(), args[0]
        if record:
            first = results[0]
            ctx._shape = first.data.shape if isinstance(first, _tensor.Tensor) else ()
            _after_record(cls, ctx, args, kwargs, result, results)
        return result


def _after_record(cls: type, ctx: Node, args: tuple, kwargs: dict, result: Any,
                  results: tuple) -> None:
    """Keep the output for ops whose backward reads it; tell listeners about the new node."""
    if cls.saves_output:
        first = results[0]
        ctx._saved_output = first.data
        ctx._output_vc = vc = first._shared_version()
        ctx._output_version = vc[0]
    if events._listeners:
        events.emit(events.ForwardOp(ctx, args, result, kwargs))


def _wrap_output(out: Any, ctx: Node, index: int, record: bool) -> Any:
    """Make a forward result a fresh Tensor that points at `ctx` when recording."""
    Tensor = _tensor.Tensor
    data = out.data if isinstance(out, Tensor) else out
    if not isinstance(data, np.ndarray):
        data = np.asarray(data)  # numpy reductions return scalars, not 0-d arrays
    if record and data.dtype.kind == "f" and id(out) not in getattr(ctx, "_non_differentiable",
                                                                   ()):
        return Tensor._make(data, ctx, index)
    return Tensor._make(data, None, 0)


def _record(cls: type, args: tuple) -> Node | None:
    """A new Node for `cls`, linked to the inputs that require grad; None when none does.

    For each input it notes the node its gradient goes to (the AccumulateGrad of a leaf,
    None for an input that needs no gradient) and which output of that node it was. The
    shape a gradient must have is kept by the node that receives it (`_shape`), as in PyTorch.
    """
    Tensor = _tensor.Tensor
    nodes, nrs = [], []  # nrs: which output of its node each input is; -1: needs no gradient
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            # (a leaf's AccumulateGrad, read directly once made: a layer's weights every step)
            nodes.append(a.grad_fn or a._grad_acc or a._accumulator())
            nrs.append(a._output_nr)
        else:
            nodes.append(None)
            nrs.append(-1)
    key = tuple(nrs)
    next_nrs, needs = _edge_flags.get(key) or _new_edge_flags(key)
    if needs is None:
        return None
    ctx = cls._node_class()
    ctx._sequence_nr = next(_sequence)
    ctx._next_nodes = tuple(nodes)
    ctx._next_nrs = next_nrs
    ctx.needs_input_grad = needs
    if state.anomaly_enabled:
        ctx._creation_stack = traceback.format_stack()[:-3]
        ctx.metadata["traceback_"] = ctx._creation_stack
    return ctx


# `_next_nrs` and `needs_input_grad` take few distinct values ((0,), (True, False), ...): nodes
# share one copy of each, made once here per pattern of inputs, which leaves fewer new objects
# for the cycle collector to look at.
_edge_flags: dict[tuple, tuple] = {}


def _new_edge_flags(key: tuple) -> tuple:
    """(next_nrs, needs_input_grad) for a pattern of output numbers (-1: no gradient), or
    (None, None) when no input needs a gradient."""
    needs = tuple(nr >= 0 for nr in key)
    flags = (tuple(max(nr, 0) for nr in key), needs) if True in needs else (None, None)
    _edge_flags[key] = flags
    return flags


def _modified_message(value: Any, version: int) -> str:
    kind = f"{value.data.dtype.name.capitalize()}Tensor"
    made_by = ""
    if value.grad_fn is not None:
        op = re.sub(r"Backward\d*$", "", value.grad_fn.name())
        made_by = f", which is output {value._output_nr} of {op},"
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [minigrad.{kind} {list(value.data.shape)}]{made_by} is at version "
        f"{value._version}; expected version {version} instead. Hint: enable anomaly detection to "
        "find the operation that failed to compute its gradient, with "
        "minigrad.autograd.set_detect_anomaly(True)."
    )

"""Node and AccumulateGrad: the steps of the backward graph.

A `Node` is what a tensor's `.grad_fn` points at: one recorded operation, which is also the
`ctx` its Function's forward and backward receive (as in PyTorch), so `ctx.save_for_backward`
stores onto the graph. `AccumulateGrad` ends every path at a leaf: it adds the gradient that
arrives into the leaf's `.grad`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad.autograd import anomaly_mode as anomaly
from minigrad.autograd import events, hooks, saved_names
from minigrad.autograd import tensor as _tensor
from minigrad.autograd.forward_ad import LEVELS
from minigrad.autograd.grad_mode import GRAD_ENABLED, state
from minigrad.autograd.gradients import array_of, arrays_of, as_tensor, tensors_of
from minigrad.autograd.hooks import RemovableHandle
from minigrad.autograd.saved_tensor_hooks import SAVED_TENSOR_HOOKS, pack, unpack
from minigrad.autograd.saved_values import (
    FREED_MESSAGE,
    INFERENCE_SAVED,
    SavedValues,
    modified_message,
)
from minigrad.surface import meta

# the nodes PyTorch writes in C++, whose name() has its namespace
CPP_NODES = frozenset({"AccumulateGrad", "CopySlices", "CopyBackwards"})


class Node(SavedValues):
    """One recorded operation: PyTorch's `grad_fn`, and the `ctx` of its Function.

    `next_functions[i]` is `(node, output_nr)` for the i-th input: the node that made it
    (its AccumulateGrad for a leaf), or `(None, 0)` for an input that needs no gradient.
    """

    formula = ""
    _function: Any = None
    # Defaults live on the class so that recording a node sets only what it must.
    _saved: tuple = ()
    _versions_when_saved: tuple = ()
    _freed = False
    _hooked = False  # set by every kind of hook (and retain_grad): others skip the hook code
    _pre_hooks: tuple | list = ()  # (lists of their own once a hook is registered)
    _post_hooks: tuple | list = ()
    _tensor_pre_hooks: dict | None = None
    _retained: dict | None = None
    _shape: tuple = ()  # the shape of output 0 (the others' are in `_output_meta`)
    _num_outputs = 1
    _materialize_grads = True
    _creation_stack: list | None = None
    _output_array: np.ndarray | None = None  # the output's data, for `saves_output` ops
    _output_version_counter: list | None = None  # ... its version counter, and its version then
    _output_version = 0
    _output_meta: tuple = ()
    _settings: dict | None = None  # see `settings`
    _non_differentiable: frozenset | set = frozenset()  # ids of outputs marked so
    _packed: tuple | None = None  # what saved-tensor hooks packed: (unpack, packed) or None each
    _packed_output: tuple | None = None  # ... and of the saved output
    _as_pytorch: dict | None = None  # see keep_as_pytorch
    _output_tangents: dict | None = None  # forward mode: the output's tangents, {level: t}

    # The edges to the inputs' nodes, kept as two flat tuples: the output numbers are plain
    # ints, so the cycle collector only ever scans one tuple per node (it scans a lot of them
    # in a deep graph). `next_functions` pairs them up the way PyTorch shows them.
    _next_nodes: tuple = ()
    _next_nrs: tuple = ()
    needs_input_grad: tuple = ()
    _keeps_saved = True  # False on the ctx of a forward that is not recorded: no node keeps
    # what it saves, so `save_for_backward` keeps nothing
    _sequence_nr = -1  # set when the node is recorded: the order of creation (see ready_queue)

    @property
    def metadata(self) -> dict:
        """A dict for your own notes on this node (anomaly mode keeps `traceback_` here)."""
        if "_metadata" not in self.__dict__:
            self._metadata: dict = {}
        return self._metadata

    @property
    def settings(self) -> dict:
        """The keyword arguments `Function.apply` got (a dim, a shape, an exponent): what the
        op was told besides its inputs. minigrad's own (PyTorch shows them as `_saved_*`)."""
        return dict(self._settings or {})

    # -- what the teaching tools read (minigrad's own names; no checks, no side effects) -----
    @property
    def function(self) -> Any:
        """The Function subclass whose `apply` records this kind of node."""
        return self._function

    @property
    def sequence_nr(self) -> int:
        """The order of creation (PyTorch's `_sequence_nr()`): the ready queue runs the
        newest first."""
        return self._sequence_nr

    @property
    def saved_values(self) -> tuple:
        """What `save_for_backward` got, as it is (`unpack_saved` checks it); () once freed."""
        return self._saved

    @property
    def saved_output(self) -> Any:
        """The output array a `saves_output` op keeps for its backward (None: none, or freed)."""
        return self._output_array

    def output_shape(self, output_nr: int = 0) -> tuple:
        """The shape of output `output_nr`: the shape its gradient must have."""
        return self._shape if output_nr == 0 else self._output_meta[output_nr][0]

    @property
    def next_functions(self) -> tuple:
        """`((node_or_None, output_nr), ...)`, one pair per input, as in PyTorch."""
        return tuple(zip(self._next_nodes, self._next_nrs))

    def name(self) -> str:
        """PyTorch's name: `MulBackward0`; its nodes written in C++ (AccumulateGrad,
        CopySlices, CopyBackwards) are `torch::autograd::AccumulateGrad`, ..."""
        name = type(self).__name__
        return "torch::autograd::" + name if name in CPP_NODES else name

    def display_name(self) -> str:
        """The node's class name (`AccumulateGrad`, `CopySlices` too): what minigrad's
        printouts and a tensor's repr show, as PyTorch's repr does."""
        return type(self).__name__

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Each kind of node shows what it saved under PyTorch's names (`_saved_self`,
        `_saved_result`, ...: see saved_names.py), as properties of its class. (Not a
        `__getattr__`: a class with one makes every attribute read of its nodes slower,
        speed: -5.3% instructions per node of the small-op chain under callgrind.)"""
        super().__init_subclass__(**kwargs)
        for name, reader in saved_names.readers(cls.__name__).items():
            setattr(cls, name, property(reader))

    def __lt__(self, other: Any) -> bool:
        # Nodes have no order of their own: the ready queue orders them by sequence number,
        # and when two numbers are equal (AccumulateGrads) the nodes tie (see ready_queue.py).
        return False

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    # -- saving tensors for backward -------------------------------------------------
    def save_for_backward(self, *values: Any) -> None:
        """Keep `values` (tensors, None or numbers) for backward; tensors are version-checked."""
        if not self._keeps_saved:
            return
        self._saved = values
        if SAVED_TENSOR_HOOKS:
            packed = [None] * len(values)
            for i in self._pack_order(len(values)):
                packed[i] = pack(values[i])
            self._packed = tuple(packed)
        Tensor = _tensor.Tensor
        versions = None  # stays None when only numbers (or None) were saved: nothing to check
        for i, v in enumerate(values):
            if isinstance(v, Tensor):
                if v._inference:
                    raise RuntimeError(INFERENCE_SAVED)
                if versions is None:
                    versions = [None] * len(values)
                versions[i] = 0 if v._version_counter is None else v._version_counter[0]
        if versions is not None:
            self._versions_when_saved = tuple(versions)
        elif self._versions_when_saved:  # (saved again, now without tensors)
            self._versions_when_saved = ()

    def unpack_saved(self) -> tuple:
        """What forward saved, after checking none of it was freed or changed in place.

        A custom Function's ctx reads this as `ctx.saved_tensors` (function.BackwardCFunction);
        PyTorch's built-in nodes have no `saved_tensors` (their saved values are `_saved_*`
        attributes), so minigrad's built-in ops call it by this name."""
        saved = self._saved
        if not saved and self._freed:  # (release empties _saved: only then look further)
            raise RuntimeError(FREED_MESSAGE)
        for i, version in enumerate(self._versions_when_saved):
            if version is not None:
                counter = saved[i]._version_counter  # (Tensor._version without the call)
                if (0 if counter is None else counter[0]) != version:
                    raise RuntimeError(modified_message(saved[i], version))
        if self._packed is not None:
            values = list(saved)
            for i in self._pack_order(len(saved)):
                if self._packed[i] is not None:
                    values[i] = unpack(self._packed[i])
            return tuple(values)
        return saved

    def _per_output(self, grads: list) -> list:
        """A multi-output node's incoming gradients, one per output: outputs nobody used get
        None, or zeros where the node asks for them (materialize_grads, floats only)."""
        grads = grads + [None] * (self._num_outputs - len(grads))
        if self._materialize_grads:  # (of a meta node: meta zeros, surface/meta.py)
            on_meta = meta.in_use and any(meta.is_meta(array_of(g)) for g in grads)
            zeros = meta.empty if on_meta else np.zeros
            grads = [_tensor.make(zeros(shape, dtype), None, 0)
                     if g is None and dtype.kind == "f" else g
                     for g, (shape, dtype) in zip(grads, self._output_meta)]
        return grads

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize_grads = bool(value)

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self._non_differentiable = {id(t) for t in tensors}

    # -- hooks (registered and run by minigrad/autograd/hooks.py) ------------------------------
    def register_prehook(self, hook: Callable) -> RemovableHandle:
        """`hook(grad_outputs) -> None | new grad_outputs`, run before this node's backward."""
        return hooks.add_node_hook(self, "_pre_hooks", hook)

    def register_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(grad_inputs, grad_outputs) -> None | new grad_inputs`, run after backward."""
        return hooks.add_node_hook(self, "_post_hooks", hook)

    # -- running ----------------------------------------------------------------------
    def apply(self, *grad_outputs: Any) -> tuple:
        """Run the Function's backward on the gradients of this node's outputs: the gradients
        for `next_functions`, as a tuple."""
        if len(grad_outputs) != self._num_outputs:
            raise TypeError(f"expected {self._num_outputs} arguments, got {len(grad_outputs)} "
                            "instead")
        grad_inputs = self.call_backward(list(grad_outputs))
        # (Tensors, as in PyTorch, also where the numpy backward ran; None for an input
        # that needs no gradient, which PyTorch's nodes do not compute)
        return tuple(None if nxt is None else as_tensor(g)
                     for g, nxt in zip(grad_inputs, self._next_nodes))

    def __call__(self, *grad_outputs: Any) -> Any:
        """`grad_fn(grad)`, PyTorch's way: `apply`, but one gradient comes back alone."""
        grad_inputs = self.apply(*grad_outputs)
        return grad_inputs[0] if len(grad_inputs) == 1 else grad_inputs

    def call_backward(self, grads: list) -> list:
        """The Function's backward on `grads`: one gradient (or None) per input, as a list.

        Without create_graph nothing is recorded, so an op's numpy-only `backward_arrays`
        (where it has one) gives the same gradients without making Tensors along the way.
        `grads` may be numpy arrays there (the engine's array pass, engine.py); a `backward`
        written with Tensor ops gets them as Tensors.
        """
        function = self._function
        if self._num_outputs > 1:
            grads = self._per_output(grads)
        counted = meta.in_use  # (a backward formula's own CPU constants may meet meta tensors)
        if counted:
            meta.in_backward += 1
        try:
            if function.backward_arrays is not None and not (GRAD_ENABLED.get()
                                                             or LEVELS.visible):
                out = function.backward_arrays(self, *arrays_of(grads))
            else:
                out = function.backward(self, *tensors_of(grads))
        except Exception:
            if state.anomaly_enabled:
                anomaly.warn(self)
            raise
        finally:
            if counted:
                meta.in_backward -= 1
        grad_inputs = list(out) if type(out) is tuple else [out]
        if len(grad_inputs) != len(self._next_nodes):
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {len(self._next_nodes)}, got "
                               f"{len(grad_inputs)})")
        return grad_inputs



class AccumulateGrad(Node):
    """The node that ends every path at a leaf: it adds the arriving gradient to `.grad`."""

    formula = "x.grad += incoming gradient"
    _post_accumulate_hooks: list | None = None  # hook(leaf) after each accumulation

    def __init__(self, variable: Any) -> None:
        self.variable = variable
        self._sequence_nr = float("inf")  # PyTorch runs accumulations as soon as they are ready
        self._shape = variable.array.shape  # the leaf's shape when the node was made

    def output_shape(self, output_nr: int = 0) -> tuple:
        """The leaf's shape now: what a gradient that does not have the kept `_shape` is fitted
        to. (After `x.data = ` a tensor of another shape a new graph brings gradients of the
        new shape; a graph recorded before the change still brings the old one, and PyTorch
        accumulates that as it is: broadcast.fit.)"""
        return self.variable.array.shape

    def apply(self, *grad_outputs: Any) -> tuple:
        """`node(grad)`, called by hand: add `grad` into the leaf's `.grad` (a copy of it)."""
        if len(grad_outputs) != 1:
            raise TypeError(f"expected 1 arguments, got {len(grad_outputs)} instead")
        self.accumulate(grad_outputs[0], None, copy=True)
        return ()

    def accumulate(self, grad: Any, task: Any, copy: bool = False) -> None:
        """`leaf.grad += grad`: in place into the same `.grad` tensor, as PyTorch does when no
        graph is recorded (a view of `.grad` sees the sum); a new tensor with create_graph.

        The first gradient becomes `.grad` as it is, without a copy, unless somebody else may
        hold the same memory (an array the backward `task` already handed out: a seed, another
        leaf's .grad, since `a + b` sends one gradient to both; a hook) or it is not laid out
        plainly (a transposed or broadcast view): the rule PyTorch's AccumulateGrad follows.
        The `task` notes `.grad` as it was (and its values), so a failed backward puts it back.
        """
        if grad is None:
            return
        leaf = self.variable
        old = leaf._grad
        if meta.in_use and meta.is_meta(grad.array) != meta.is_meta(leaf.array):
            grad = _meta_gradient(leaf, grad)
        in_place = old is not None and not (task is not None and task.create_graph) and \
            _writable_grad(old, leaf)
        if grad.array.dtype != leaf.array.dtype:
            grad = grad.to(leaf.array.dtype)
        shared = values = None  # memory shared with the gradient; the old .grad's values
        if task is not None and task.create_graph:
            total = grad if old is None else old + grad
        elif old is None:
            data = grad.array
            flags = data.flags  # (a new object on every access: read it once)
            if copy or owner_id(data) in task.handed_out or self._hooked or not (
                    flags.c_contiguous and flags.writeable):  # (a hook may keep what it saw)
                data = data.copy()
            shared = data
            total = _tensor.make(data, None, 0)
        elif in_place:
            values = old.array.copy() if task is not None else None  # (before they change)
            if events.listening():  # (listeners keep what .grad was, and see it change)
                events.emit(events.InPlaceChange(old))
                old = _tensor.make(old.array.copy(), None, 0)
            leaf._grad.array += grad.array
            leaf._grad._bump_version()
            total = leaf._grad
        else:
            # (np.asanyarray: numpy adds two 0-d arrays into a scalar, which is no tensor's
            # data; a meta gradient stays one)
            total = _tensor.make(np.asanyarray(old.array + grad.array), None, 0)
        if task is None:  # called by hand (`node(grad)`), outside any backward pass
            leaf._grad = total
        else:
            task.set_grad(leaf, total, shared, values)
        if events.listening():
            events.emit(events.GradAccumulated(leaf, old, total))
        if self._post_accumulate_hooks:
            hooks.after_accumulation(leaf, self._post_accumulate_hooks)


def _writable_grad(grad: Any, leaf: Any) -> bool:
    """Whether `.grad` can take a gradient in place: a plain writable array, as the leaf's."""
    array = grad.array
    return (not grad._requires_grad and type(array) is np.ndarray and array.flags.writeable
            and array.shape == leaf.array.shape and array.dtype == leaf.array.dtype)


def _meta_gradient(leaf: Any, grad: Any) -> Any:
    """The gradient a meta leaf gets is meta; a CPU leaf cannot get one from the meta device
    (`x.to("meta")` in its graph), as in PyTorch."""
    if not meta.is_meta(leaf.array):
        raise NotImplementedError(meta.NO_DATA)
    return _tensor.make(meta.wrap(grad.array), None, 0)


def gradient_edge(t: Any) -> tuple[Node, int]:
    """The edge by which a gradient for tensor `t` enters the graph: output `output_nr` of its
    grad_fn, or its leaf's AccumulateGrad (PyTorch's `gradient_edge`)."""
    return (t.grad_fn, t._output_nr) if t.grad_fn is not None else (t._accumulator(), 0)


def owner_id(array: np.ndarray) -> int:
    """The id of the array that owns `array`'s memory (itself, or the base it is a view of)."""
    return id(array if array.base is None else array.base)

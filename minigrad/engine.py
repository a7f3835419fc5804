"""The backward pass: which node runs next, and what happens to the gradients it returns.

Read `execute` top to bottom; it is the whole algorithm:

1. Count, for every node reachable from the roots, how many edges bring it gradient
   (its dependencies). No recursion: an explicit stack, so any depth works.
2. Seed the roots' gradient buffers and put the roots that nothing feeds into a ready queue.
3. Pop the ready node created last (PyTorch's order, see ready_queue.py: highest sequence
   number first; leaf accumulations as soon as they are ready), run its hooks and its
   backward, sum each returned gradient down to its input's shape (broadcasting is undone
   here and only here), add it into the next node's buffer, and queue every node whose last
   dependency just arrived.
4. AccumulateGrad nodes add into `.grad`. If anything fails, every `.grad` is put back.

`execute` is a generator: `backward()` drains it, `autograd.backward_steps` hands each
`BackwardStep` to the user as it happens.
"""

from __future__ import annotations

import gc
import sys
import time
import warnings
from collections.abc import Iterator
from heapq import heappop, heappush
from typing import Any

import numpy as np

from minigrad import events
from minigrad import tensor as _tensor
from minigrad.events import BackwardBegin, BackwardEnd, BackwardStep, GradAccumulated, HookFired
from minigrad.function import AccumulateGrad, Node, any_hooks
from minigrad.grad_mode import state
from minigrad.ops.reduce import SumToSize, sum_to_array
from minigrad.ready_queue import ReadyQueue

NO_GRAD_MESSAGE = "element {} of tensors does not require grad and does not have a grad_fn"


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate d(tensors)/d(leaf) into every leaf's `.grad` (PyTorch's autograd.backward)."""
    roots, seeds = prepare_roots(tensors, grad_tensors)
    only = None
    if inputs is not None:
        only = [inputs] if isinstance(inputs, _tensor.Tensor) else list(inputs)
        if not only:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    drain(execute(roots, seeds, retain_graph=retain_graph, create_graph=create_graph,
                  accumulate_only=only))


def prepare_roots(tensors: Any, grad_tensors: Any) -> tuple[list, list]:
    """Check the roots and their seed gradients; make the implicit `1` for scalars."""
    Tensor = _tensor.Tensor
    roots = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if grad_tensors is None:
        grads: list = [None] * len(roots)
    elif isinstance(grad_tensors, Tensor):
        grads = [grad_tensors]
    else:
        grads = list(grad_tensors)
    if len(grads) != len(roots):
        raise RuntimeError(f"grad_tensors should have the same length as tensors: got "
                           f"{len(grads)} gradients for {len(roots)} tensors")
    seeds = []
    for i, (root, grad) in enumerate(zip(roots, grads)):
        if not root._requires_grad:
            raise RuntimeError(NO_GRAD_MESSAGE.format(i))
        if grad is None:
            if root.data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            # (np.ones_like is a Python function; a 0-d array of 1 reshaped is two C calls)
            grad = Tensor._make(np.array(1, root.data.dtype).reshape(root.data.shape), None, 0)
        else:
            if not isinstance(grad, Tensor):
                grad = Tensor(np.asarray(grad, dtype=root.data.dtype))
            if grad.data.shape != root.data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of "
                    f"{_size(grad.data.shape)} and output[{i}] has a shape of "
                    f"{_size(root.data.shape)}.")
        seeds.append(grad)
    return roots, seeds


def _size(shape: tuple) -> str:
    return f"minigrad.Size({list(shape)})"


def root_edge(t: Any) -> tuple[Node, int]:
    return (t.grad_fn, t._output_nr) if t.grad_fn is not None else (t._accumulator(), 0)


def count_dependencies(starts: list[Node], needed: set | None = None) -> dict[Node, int]:
    """How many edges bring gradient into each node reachable from `starts`."""
    deps: dict[Node, int] = {}
    stack = list(dict.fromkeys(starts))
    first = set(stack)  # already on the stack: a start that is also reached is not pushed again
    while stack:
        node = stack.pop()
        for nxt in node._next_nodes:
            if nxt is None or needed is not None and nxt not in needed:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:  # reached for the first time: walk on from it
                deps[nxt] = 1
                if nxt not in first:
                    stack.append(nxt)
    return deps


def nodes_leading_to(starts: list[Node], targets: set[Node]) -> set[Node]:
    """The nodes on some path from `starts` to a target (what autograd.grad must run)."""
    needed: set[Node] = set()
    done: set[Node] = set()
    stack = [(n, False) for n in set(starts)]
    while stack:  # iterative post-order: a node is decided after all its children
        node, children_done = stack.pop()
        if children_done:
            if node in targets or any(n in needed for n in node._next_nodes):
                needed.add(node)
            done.add(node)
            continue
        if node in done:
            continue
        stack.append((node, True))
        stack.extend((n, False) for n in node._next_nodes
                     if n is not None and n not in done)
    return needed


def execute(roots: list, seeds: list, retain_graph: bool | None = None,
            create_graph: bool = False, capture: list | None = None,
            accumulate_only: list | None = None, yield_steps: bool = False
            ) -> Iterator[BackwardStep]:
    """Run backward from `roots` seeded with `seeds`.

    `capture`: tensors whose gradients to return instead of accumulating into leaves
    (`autograd.grad`); the generator returns them (see `drain`). `accumulate_only`: the
    leaves `backward(inputs=...)` may accumulate into.
    """
    keep_graph = create_graph if retain_graph is None else retain_graph
    recording = yield_steps or bool(events._listeners)
    started = time.perf_counter()

    root_edges = [root_edge(t) for t in roots]
    starts = [node for node, _ in root_edges]
    targets: dict[tuple[Node, int], int] = {}
    needed = None
    if capture is not None or accumulate_only is not None:
        for i, t in enumerate(capture if capture is not None else accumulate_only):
            targets[root_edge(t)] = i
        needed = nodes_leading_to(starts, {node for node, _ in targets})
        needed.update(starts)
    deps = count_dependencies(starts, needed)
    accumulate_all = capture is None and accumulate_only is None  # (plain backward())

    buffers: dict[Node, list] = {}
    for (node, nr), seed in zip(root_edges, seeds):
        _add_to_buffer(buffers, node, nr, seed)
    ready = ReadyQueue()  # the newest ready node runs first (PyTorch's order)
    for node in dict.fromkeys(starts):
        if deps.get(node, 0) == 0:
            ready.push(node)

    captured: list = [None] * len(targets)
    # id(tensor) -> (tensor, its .grad before this backward), for the rollback. (Keyed by id:
    # a Tensor's own __hash__ is a Python call.)
    journal: dict[int, tuple] = {}
    # ids of the arrays already given out (seeds, a .grad): another .grad must copy them
    handed_out: set[int] = {owner_id(seed.data) for seed in seeds}
    executed: list[Node] = []
    if recording:
        _emit(BackwardBegin(tuple(roots), tuple(seeds)))
    prev_mode, state.grad_enabled = state.grad_enabled, create_graph
    # Backward makes no reference cycles, so the cycle collector has nothing to find here;
    # pausing it saves a fifth of the time on deep graphs. (Not while handing out steps:
    # the caller's own code runs between them.)
    pause_gc = gc.isenabled() and not yield_steps
    if pause_gc:
        gc.disable()
    heap = ready.heap
    Tensor = _tensor.Tensor
    hooks = any_hooks()  # none registered yet: no node has any
    try:
        while heap:
            node = heappop(heap)[1]  # (ready.pop(), without the Python call)
            step_start = time.perf_counter() if recording else 0.0
            grads = buffers.pop(node)
            hooked = hooks and node._hooked
            if hooked and (node._tensor_pre_hooks or node._retained or node._pre_hooks):
                grads = _run_pre_hooks(node, grads, journal, handed_out, recording)
            if targets:  # autograd.grad, backward(inputs=...): note what was asked for
                for nr in range(len(grads)):
                    slot = targets.get((node, nr))
                    if slot is not None:
                        captured[slot] = grads[nr]
            if type(node) is AccumulateGrad:
                # (autograd.grad captures instead; backward(inputs=...) names its leaves)
                if accumulate_all or capture is None and (node, 0) in targets:
                    _accumulate(node.variable, grads[0], journal, handed_out, create_graph,
                                recording)
                grad_inputs: list | tuple = ()
                summed: list | None = []
            else:
                # its backward: one gradient (or None) per input
                if node._num_outputs > 1:
                    grads = _all_outputs(node, grads)
                try:
                    out = call_backward(node, grads)
                except Exception:
                    if state.anomaly_enabled:
                        _warn_anomaly(node)
                    raise
                grad_inputs = list(out) if type(out) is tuple else [out]
                next_nodes = node._next_nodes
                if len(grad_inputs) != len(next_nodes):
                    raise _wrong_count(node, len(grad_inputs))
                # the dims each gradient was summed over, for the BackwardStep event
                summed = [None] * len(grad_inputs) if recording else None
                if hooked and node._post_hooks:  # post hooks get the checked gradients
                    _check_all(node, grad_inputs, summed)
                    grad_inputs = list(_run_post_hooks(node, grad_inputs, grads, recording))
                nrs = node._next_nrs
                for i, nxt in enumerate(next_nodes):
                    if nxt is None:  # an input that needs no gradient gets none
                        grad_inputs[i] = None
                        continue
                    g, nr = grad_inputs[i], nrs[i]
                    if g is not None and (type(g) is not Tensor or g.data.shape != (
                            nxt._shape if nr == 0 else nxt._grad_shape(nr))):
                        g = grad_inputs[i] = _check(node, i, g, nxt, nr, summed)
                    try:
                        deps[nxt] = waiting = deps[nxt] - 1
                    except KeyError:  # a branch that autograd.grad does not need
                        continue
                    if g is not None:  # add g to what nxt's output nr has received so far
                        if nr == 0 and nxt not in buffers:
                            buffers[nxt] = [g]  # the usual case: the first gradient for nxt
                        else:
                            _add_to_buffer(buffers, nxt, nr, g)
                    if not waiting:  # its last gradient has arrived: nxt is ready
                        if nxt in buffers:  # (ready.push(nxt), without the Python call)
                            heappush(heap, (-nxt._sequence_nr, nxt))
                        else:
                            _skip_branch(nxt, deps, buffers, ready)
                if state.anomaly_enabled:
                    _check_anomaly(node, grad_inputs)
            executed.append(node)
            if recording:
                step = BackwardStep(len(executed), node, tuple(_padded(node, grads)),
                                    tuple(grad_inputs),
                                    time.perf_counter() - step_start, tuple(summed))
                _emit(step)
                if yield_steps:
                    state.grad_enabled = prev_mode  # the caller's code runs in its own mode
                    yield step
                    state.grad_enabled = create_graph
                    hooks = any_hooks()  # the caller may have registered one meanwhile
    except BaseException as exc:
        if not isinstance(exc, GeneratorExit):
            for tensor, old in journal.values():
                tensor._grad = old
        raise
    finally:
        state.grad_enabled = prev_mode
        if pause_gc:
            gc.enable()
    if not keep_graph:  # free what the nodes saved (a second backward through them fails)
        for node in executed:
            # (a node that saved nothing has nothing to free: a second backward through it
            # works, as in PyTorch; most nodes saved nothing)
            if node._saved or node._saved_output is not None:
                node._saved, node._saved_output, node._freed = (), None, True
    if recording:
        _emit(BackwardEnd(len(executed), time.perf_counter() - started))
    return captured


def call_backward(node: Node, grads: Any) -> Any:
    """The node's Function's backward on the gradients of its outputs: `backward_arrays`, in
    numpy alone, when nothing is recorded (no create_graph) and the op has one; else
    `backward`, with Tensor ops."""
    function = node._function
    if not state.grad_enabled:
        arrays = _numpy_backwards.get(function, _UNSEEN)
        if arrays is _UNSEEN:
            arrays = _numpy_backwards[function] = getattr(function, "backward_arrays", None)
        if arrays is not None:
            out = arrays(node, *[None if g is None else g.data for g in grads])
            make = _tensor.make
            if type(out) is tuple:
                return tuple([None if a is None else make(a, None, 0) for a in out])
            return None if out is None else make(out, None, 0)
    return function.backward(node, *grads)


# speed: each Function class's backward_arrays (None: it has none), looked up once; getattr
# on a class without the attribute costs ~0.6 us, ~5% of a small-op node's whole time
_numpy_backwards: dict[type, Any] = {}
_UNSEEN = object()


def _emit(event: Any) -> None:
    events.emit(event)


def drain(steps: Iterator[BackwardStep]) -> Any:
    """Run an `execute` generator to the end; return what it returned (captured grads)."""
    try:
        while True:
            next(steps)
    except StopIteration as stop:
        return stop.value


def _skip_branch(node: Node, deps: dict, buffers: dict, ready: ReadyQueue) -> None:
    """A node whose every incoming gradient was None: its whole branch gets nothing.

    Its children's dependency counts still go down, so that a child also fed from
    elsewhere is not left waiting.
    """
    stack = [node]
    while stack:
        n = stack.pop()
        for nxt in n._next_nodes:
            if nxt is None or nxt not in deps:
                continue
            deps[nxt] -= 1
            if deps[nxt] == 0:
                if nxt in buffers:
                    ready.push(nxt)
                else:
                    stack.append(nxt)


def _padded(node: Node, grads: list) -> list:
    """A buffer as one entry per output (None for outputs that got no gradient)."""
    return grads + [None] * (node._num_outputs - len(grads))


def _add_to_buffer(buffers: dict, node: Node, nr: int, grad: Any) -> None:
    """Sum gradients arriving at the same output of `node` from several paths.

    A buffer holds one entry per output of `node` up to the last one that got a gradient;
    `_padded` fills in the rest where every output is needed.
    """
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = []
    if nr >= len(buf):
        buf.extend([None] * (nr + 1 - len(buf)))
    buf[nr] = grad if buf[nr] is None else buf[nr] + grad


def _all_outputs(node: Node, grads: list) -> list:
    """A multi-output node's incoming gradients, one per output: outputs nobody used get
    None, or zeros where the node asks for them (materialize_grads, floats only)."""
    grads = _padded(node, grads)
    if node._materialize_grads:
        grads = [_tensor.make(np.zeros(shape, dtype), None, 0)
                 if g is None and dtype.kind == "f" else g
                 for g, (shape, dtype) in zip(grads, node._output_meta)]
    return grads


def _wrong_count(node: Node, got: int) -> RuntimeError:
    return RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                        f"(expected {len(node._next_nodes)}, got {got})")


def _check(node: Node, i: int, g: Any, nxt: Node, nr: int, summed: list | None) -> Any:
    """Gradient `g` for input i, made a Tensor of the input's shape: broadcasting is undone
    here (and only here) by summing; a shape that does not broadcast to it is an error.
    The dims summed over go to `summed[i]` (None: nobody listens for them)."""
    if not isinstance(g, _tensor.Tensor):  # a Function may return numpy arrays or numbers
        g = _tensor.make(np.asarray(g), None, 0)
    shape = nxt._grad_shape(nr)
    if g.data.shape != shape:
        g, dims = _sum_to(node, i, g, shape)
        if summed is not None:
            summed[i] = dims
    return g


def _check_all(node: Node, grads: list, summed: list | None) -> None:
    """`_check` every gradient in place (before post hooks, which see them checked)."""
    for i, (nxt, nr) in enumerate(zip(node._next_nodes, node._next_nrs)):
        if nxt is None:
            grads[i] = None
        elif grads[i] is not None:
            grads[i] = _check(node, i, grads[i], nxt, nr, summed)


def _check_anomaly(node: Node, grads: list) -> None:
    """PyTorch's check (the first output holding NaN names the node), then the same for inf."""
    for bad, test in (("nan", np.isnan), ("inf", np.isinf)):
        for i, g in enumerate(grads):
            if g is not None and test(g.data).any():
                _warn_anomaly(node)
                raise RuntimeError(f"Function '{node.name()}' returned {bad} values in its {i}th "
                                   "output.")


def _sum_to(node: Node, i: int, g: Any, shape: tuple) -> tuple[Any, tuple]:
    """Undo broadcasting: sum `g` over the dims its input was broadcast along."""
    try:
        data, dims = sum_to_array(g.data, shape)
    except ValueError:  # g is not the input's shape, broadcast
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got "
            f"{list(g.data.shape)} but expected shape compatible with {list(shape)}") from None
    if state.grad_enabled:  # create_graph: record the summation too
        return SumToSize.apply(g, shape=shape), dims
    return _tensor.make(data, None, 0), dims


def _run_pre_hooks(node: Node, grads: list, journal: dict, handed_out: set, recording: bool
                   ) -> list:
    """Tensor hooks, then retain_grad, then the node's own pre-hooks (PyTorch's order)."""
    grads = _padded(node, grads)
    if node._tensor_pre_hooks:
        for nr, hooks in node._tensor_pre_hooks.items():
            for hook in list(hooks):
                before = grads[nr]
                new = hook(before)
                if new is not None:
                    if new.data.shape != before.data.shape:
                        raise RuntimeError(
                            f"hook '{getattr(hook, '__name__', repr(hook))}' has changed the "
                            "size of value")
                    grads[nr] = new
                if recording:
                    _emit(HookFired("tensor", hook, before, grads[nr], node))
    if node._retained:
        for nr, ref in node._retained.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                journal.setdefault(id(t), (t, t._grad))
                g = grads[nr] if state.grad_enabled else grads[nr].detach()
                handed_out.add(owner_id(g.data))
                t._grad = g if t._grad is None else t._grad + g
    if node._pre_hooks:
        for hook in list(node._pre_hooks):
            before = tuple(grads)
            new = hook(before)
            if new is not None:
                grads = list(new)
            if recording:
                _emit(HookFired("prehook", hook, before, tuple(grads), node))
    return grads


def _run_post_hooks(node: Node, grad_inputs: tuple, grads: list, recording: bool) -> tuple:
    for hook in list(node._post_hooks):
        new = hook(tuple(grad_inputs), tuple(grads))  # tuples, as in PyTorch
        if new is not None:
            new = tuple(new)
            if recording:
                _emit(HookFired("hook", hook, grad_inputs, new, node))
            grad_inputs = new
        elif recording:
            _emit(HookFired("hook", hook, grad_inputs, grad_inputs, node))
    return grad_inputs


def _accumulate(leaf: Any, grad: Any, journal: dict, handed_out: set, create_graph: bool,
                recording: bool) -> None:
    """`leaf.grad += grad`, as a new tensor (so a failed backward can put the old one back).

    The first gradient is taken as it is, without a copy, unless somebody else may hold the
    same memory (an array already handed out in this backward: a seed, another leaf's .grad,
    since `a + b` sends one gradient to both) or it is not laid out plainly (a transposed or
    broadcast view), as PyTorch's AccumulateGrad decides.
    """
    if grad is None:
        return
    old = leaf._grad
    journal.setdefault(id(leaf), (leaf, old))
    if grad.data.dtype is not leaf.data.dtype and grad.data.dtype != leaf.data.dtype:
        grad = grad.to(leaf.data.dtype)
    if create_graph:
        total = grad if old is None else old + grad
    elif old is None:
        data = grad.data
        owner = owner_id(data)
        flags = data.flags  # (a new object on every access: read it once)
        if owner in handed_out or not (flags.c_contiguous and flags.writeable):
            data = data.copy()
            owner = id(data)
        handed_out.add(owner)
        total = _tensor.make(data, None, 0)
    else:
        total = _tensor.make(old.data + grad.data, None, 0)
    leaf._grad = total
    if recording:
        _emit(GradAccumulated(leaf, old, total))


def owner_id(array: np.ndarray) -> int:
    """The id of the array that owns `array`'s memory (itself, or the base it is a view of)."""
    return id(array if array.base is None else array.base)


def _warn_anomaly(node: Node) -> None:
    stack = "".join(node._creation_stack or ["  (no forward trace: the node was created "
                                             "outside detect_anomaly)\n"])
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                  f"error:\n{stack}", UserWarning, stacklevel=3)
    print(f"Error detected in {node.name()}. Traceback of forward call that caused the error:"
          f"\n{stack}", file=sys.stderr, end="")

"""Issue 20, "no silent wrong answer": random autograd programs run on minigrad and on PyTorch
side by side, and every step must agree.

A hypothesis state machine keeps two worlds in lockstep: a pool of minigrad tensors and a pool
of torch tensors made from the same values (mostly float64, so that float noise cannot hide a
real difference; some float32). Each rule does one thing to both worlds: an op, an in-place
op, a hook, retain_grad, a backward (with or without retain_graph, with a gradient, through
autograd.grad), an optimizer step or zero_grad. After every rule both worlds must look the
same: every tensor's values, dtype, requires_grad, is_leaf, grad_fn name and version, every
leaf's (and retained) `.grad`, and what the hooks saw. If one world raises, the other must
raise the same class (and the same words where minigrad claims PyTorch's, see
`check_messages`), and a failed rule must leave minigrad's world as it was.

Findings, each shrunk to a plain test, are in test_state_machine_findings.py.

Run it harder locally: MINIGRAD_SM_EXAMPLES=2000 MINIGRAD_SM_RANDOM=1 pytest this file.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import minigrad

torch = pytest.importorskip("torch")

PROGRAMS_PER_RUN = int(os.environ.get("MINIGRAD_SM_EXAMPLES", "200"))
SETTINGS = settings(
    max_examples=PROGRAMS_PER_RUN,
    stateful_step_count=20,
    # deterministic (CI runs the same programs every time) unless asked to explore
    derandomize=not os.environ.get("MINIGRAD_SM_RANDOM"),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

SHAPES = [(3,), (2, 3), (1, 3), (3, 2), (2, 1), ()]
PROGRAMS = {"run": 0, "steps": 0}  # programs run to the end (teardown), and their steps

# -------------------------------------------------------------------------- one tensor, twice


@dataclass
class Pair:
    """The same tensor in both worlds. Versions are compared as changes since the tensor
    entered the pool: where an op's result starts differs (PyTorch's `v @ M` returns a result
    already at version 1, written by its `mm`), which no program can see."""

    mg: Any
    th: Any

    names: bool = True  # compare grad_fn names (see `binary` for the exception)

    def __post_init__(self) -> None:
        self.versions = (self.mg._version, self.th._version)

    def side(self, lib: Any) -> Any:
        return self.mg if lib is minigrad else self.th


def numbers(t: Any) -> np.ndarray:
    """A tensor's values as a float64 numpy array (a copy)."""
    return np.array(t.detach().numpy(), dtype=np.float64, copy=True)


def close(a: np.ndarray, b: np.ndarray, dtype_name: str) -> bool:
    if a.shape != b.shape:
        return False
    rtol, atol = (1e-4, 1e-5) if dtype_name == "float32" else (1e-7, 1e-9)
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def dtype_name(t: Any) -> str:
    return str(t.dtype).rsplit(".", 1)[-1]


def node_name(t: Any) -> str | None:
    if t.grad_fn is None:
        return None
    name = t.grad_fn.name().removeprefix("torch::autograd::")
    # Known, not compared: after its base is changed in place, PyTorch regenerates a view's
    # grad_fn as AsStridedBackward0 (the same gradients); minigrad keeps the view's own node.
    return "(a view's node)" if name == "AsStridedBackward0" or (
        t._base is not None and name.endswith(("SliceBackward0", "SelectBackward0",
                                               "ViewBackward0", "TransposeBackward0",
                                               "TBackward0", "ExpandBackward0",
                                               "UnsqueezeBackward0"))
        and t._base._version > 0) else name


def has_grad_field(t: Any) -> bool:
    """Whether `.grad` means something (a leaf, or a tensor that retains its grad): reading it
    on any other tensor warns, in both worlds."""
    return t.is_leaf or t.retains_grad


def grad_of(t: Any) -> np.ndarray | None:
    g = t.grad
    return None if g is None else numbers(g)


def snapshot(tensors: list, optimizer: Any) -> list:
    """Everything a failed rule must leave as it was, in one world."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seen = [(numbers(t), t.requires_grad, t.grad_fn, t._version, t.retains_grad,
                 grad_of(t) if has_grad_field(t) else "n/a") for t in tensors]
    if optimizer is not None:
        seen.append([(k, numbers(v) if hasattr(v, "detach") else v)
                     for state in optimizer.state.values() for k, v in sorted(state.items())])
    return seen


def same_snapshot(a: list, b: list) -> bool:
    def eq(x, y):
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            return isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and \
                x.shape == y.shape and np.array_equal(x, y, equal_nan=True)
        if isinstance(x, (list, tuple)):
            return type(x) is type(y) and len(x) == len(y) and all(map(eq, x, y))
        return x is y or x == y
    return eq(a, b)


# ------------------------------------------------------------------------------ error words
# Messages minigrad gives in PyTorch's own words: compared whole (after torch. -> minigrad.).
CLAIMED = (
    "Trying to backward through the graph a second time",
    "grad can be implicitly created only for scalar outputs",
    "element 0 of tensors does not require grad and does not have a grad_fn",
    "a leaf Variable that requires grad is being used in an in-place operation.",
    "a view of a leaf Variable that requires grad is being used in an in-place operation.",
    "cannot register a hook on a tensor that doesn't require gradient",
    "can't retain_grad on Tensor that has requires_grad=False",
    "Mismatch in shape",
    "The differentiated Tensor at index",
    "One of the differentiated Tensors",
    "you can only change requires_grad flags of leaf variables.",
)
LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF = "a view of " + LEAF
VIEW_NOT_RECORDED = (  # minigrad's own: it records no in-place op on a view (see in_place)
    "minigrad does not record in-place operations on a view of a tensor that requires grad; "
    "use the out-of-place op (e.g. `y = y * 2` instead of `y.mul_(2)`).")
# Backward errors raised before any node runs (nothing accumulated, nothing freed) or after
# the whole graph ran (autograd.grad's unused input: both freed the graph, if asked to)
BEFORE_ANY_NODE_RAN = (
    "grad can be implicitly created only for scalar outputs",
    "element 0 of tensors does not require grad and does not have a grad_fn",
    "Mismatch in shape",
    "The differentiated Tensor at index",
)
# ... and the one of those that comes after a complete backward: the retained gradients it
# kept stay kept, in both worlds (so the two are compared, not each with its state before)
AFTER_THE_RUN = "The differentiated Tensor at index"
# The in-place check's message: minigrad names its own tensor types (Float64Tensor) and its
# own anomaly hint, so only the facts in it are compared: the shape, which output of which
# op, and how many versions the saved value is behind (the numbers themselves: see Pair).
IN_PLACE = re.compile(r"^one of the variables needed for gradient computation has been modified "
                      r"by an inplace operation: \[\S+ (\[[^\]]*\])\](, which is output \d+ of "
                      r"\w+,)? is at version (\d+); expected version (\d+) instead\.")


def facts(match: re.Match) -> tuple:
    shape, made_by, version, expected = match.groups()
    return shape, made_by, int(version) - int(expected)


def check_messages(ours: BaseException, theirs: BaseException) -> None:
    assert type(ours) is type(theirs), (
        f"minigrad raised {type(ours).__name__}: {ours}\n"
        f"PyTorch raised {type(theirs).__name__}: {theirs}")
    mine, want = str(ours), str(theirs).replace("torch.", "minigrad.")
    if want == VIEW_OF_LEAF and mine in (LEAF, VIEW_NOT_RECORDED):
        return  # known: minigrad does not tell a view of a leaf from the leaf (issue 20)
    match = IN_PLACE.match(want)
    if match:
        got = IN_PLACE.match(mine)
        assert got is not None, (mine, want)
        # Known, not compared: when more than one value a node saved was changed, PyTorch
        # names the one its generated code unpacks first (MulBackward0: `other`), minigrad
        # the first one saved (`self`). So the versions are compared when both name the
        # same tensor (shape and maker). Found by this machine; reported on issue 20.
        if facts(got)[:2] == facts(match)[:2]:
            assert facts(got) == facts(match), (mine, want)

    elif want.startswith(CLAIMED):
        assert mine == want


# ------------------------------------------------------------------------------ strategies
index = st.integers(0, 31)  # a pool position, taken modulo the pool's size
seeds = st.integers(0, 2**16)
scalars = st.sampled_from([0.5, 2.0, -1.5, 3.0])
leaf_specs = st.tuples(st.sampled_from(SHAPES), st.sampled_from(["float64"] * 3 + ["float32"]),
                       st.booleans() | st.just(True), seeds)


def values(shape: tuple, seed: int) -> np.ndarray:
    # one decimal: ties and exact zeros happen (relu and clamp at their kinks, equal values)
    return np.random.default_rng(seed).uniform(-2, 2, shape).round(1)


def grad_mode(lib: Any, no_grad: bool) -> Any:
    return lib.no_grad() if no_grad else lib.enable_grad()


UNARY = {
    "exp": lambda lib, a: a.exp(),
    "tanh": lambda lib, a: a.tanh(),
    "sigmoid": lambda lib, a: a.sigmoid(),
    "relu": lambda lib, a: a.relu(),
    "neg": lambda lib, a: -a,
    "square": lambda lib, a: a * a,
    "pow3": lambda lib, a: a ** 3,
    "clone": lambda lib, a: a.clone(),
    "mul 2.5": lambda lib, a: a * 2.5,
    "add 1": lambda lib, a: a + 1,
    "1 - a": lambda lib, a: 1 - a,
    "div 4": lambda lib, a: a / 4,
    "sum": lambda lib, a: a.sum(),
    "sum(0)": lambda lib, a: a.sum(0),
    "sum(-1, keepdim)": lambda lib, a: a.sum(-1, keepdim=True),
    "mean": lambda lib, a: a.mean(),
    "mean(0, keepdim)": lambda lib, a: a.mean(0, keepdim=True),
    "mean(-1)": lambda lib, a: a.mean(-1),
}

SHAPING = {
    "reshape(-1)": lambda lib, a: a.reshape(-1),
    "view(-1)": lambda lib, a: a.view(-1),
    "t()": lambda lib, a: a.t(),
    "transpose(0, -1)": lambda lib, a: a.transpose(0, -1),
    "unsqueeze(0)": lambda lib, a: a.unsqueeze(0),
    "expand(2, ...)": lambda lib, a: a.expand(2, *a.shape),
    "[0]": lambda lib, a: a[0],
    "[..., 1:]": lambda lib, a: a[..., 1:],
    "[[0, 0, 1]]": lambda lib, a: a[[0, 0, 1]],
    "[a > 0]": lambda lib, a: a[a.detach() > 0],
    "detach()": lambda lib, a: a.detach(),
}

BINARY = {
    "add": lambda lib, a, b: a + b,
    "sub": lambda lib, a, b: a - b,
    "mul": lambda lib, a, b: a * b,
    "div by b*b+1": lambda lib, a, b: a / (b * b + 1),
    "matmul": lambda lib, a, b: a @ b,
}


def in_place(name: str) -> Any:
    """In-place ops, applied to a tensor `a` (and, for some, to a second tensor `b`)."""
    return {
        "add_(2)": lambda a, b: a.add_(2.0),
        "mul_(-1.5)": lambda a, b: a.mul_(-1.5),
        "clamp_(-0.5, 0.5)": lambda a, b: a.clamp_(-0.5, 0.5),
        "zero_()": lambda a, b: a.zero_(),
        "add_(b)": lambda a, b: a.add_(b),
        "mul_(b)": lambda a, b: a.mul_(b),
        "a[0] = 3": lambda a, b: a.__setitem__(0, 3.0),
        "a[..., :1] = b": lambda a, b: a.__setitem__((Ellipsis, slice(None, 1)), b),
        "a[[0]] = -1": lambda a, b: a.__setitem__([0], -1.0),
    }[name]


IN_PLACE_OPS = ["add_(2)", "mul_(-1.5)", "clamp_(-0.5, 0.5)", "zero_()", "add_(b)", "mul_(b)",
                "a[0] = 3", "a[..., :1] = b", "a[[0]] = -1"]


def broadcasts(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def fits_into(value: tuple, target: tuple) -> bool:
    """Whether a value of shape `value` broadcasts to `target` (what `a[key] = v` needs)."""
    return broadcasts(value, target) and np.broadcast_shapes(value, target) == target


def multiplies(a: tuple, b: tuple) -> bool:
    if not a or not b:
        return False
    try:
        np.matmul(np.empty(a), np.empty(b))
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- the machine
class SameAsTorch(RuleBasedStateMachine):
    """One random program, run on minigrad and on PyTorch at once."""

    def __init__(self) -> None:
        super().__init__()
        self.pool: list[Pair] = []
        self.hook_logs: dict[str, list] = {"mg": [], "th": []}
        self.optimizers: tuple | None = None  # (minigrad's, torch's)
        self.hooks_made = 0

    # -- running one step in both worlds -------------------------------------------------
    def both(self, fn: Any, *pairs: Pair, backward: bool | None = None) -> tuple | None:
        """`fn(lib, *tensors)` in each world; None if both raised (checked to agree).

        `backward`: the step runs a backward pass (True: one that frees the graph), which
        PyTorch may leave half done when it fails (see `after_failed_backward`)."""
        before = [self.snapshot(lib) for lib in (minigrad, torch)]
        results, errors = [], []
        for lib in (minigrad, torch):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    results.append(fn(lib, *[p.side(lib) for p in pairs]))
                errors.append(None)
            except Exception as exc:  # noqa: BLE001 - compared with the other world's
                results.append(None)
                errors.append(exc)
        ours, theirs = errors
        if ours is None and theirs is None:
            return tuple(results)
        assert ours is not None, f"PyTorch raised {type(theirs).__name__}: {theirs}; " \
                                 "minigrad did not"
        assert theirs is not None, f"minigrad raised {type(ours).__name__}: {ours}; " \
                                   "PyTorch did not"
        check_messages(ours, theirs)
        if str(theirs).startswith(AFTER_THE_RUN):
            return None
        # minigrad's promise: an error changes nothing (no half-updated .grad, no value)
        assert same_snapshot(self.snapshot(minigrad), before[0]), \
            f"minigrad's state changed by a failed step ({ours})"
        if backward is not None:
            self.after_failed_backward(before[1], theirs, frees=backward)
        else:
            assert same_snapshot(self.snapshot(torch), before[1]), \
                f"PyTorch's state changed by a failed step ({theirs}): the machine's model " \
                "of PyTorch is wrong"
        return None

    def after_failed_backward(self, torch_before: list, error: BaseException, frees: bool
                              ) -> None:
        """Known difference by design: a backward that fails part way leaves PyTorch with the
        gradients accumulated so far (and, without retain_graph, the saved tensors of the
        nodes that ran freed), where minigrad puts every `.grad` back (DESIGN.md: "No error
        leaves a half-updated .grad behind") and frees nothing. So PyTorch's `.grad`s are put
        back by hand, and when PyTorch may have freed part of a graph, the non-leaf tensors,
        whose graphs the two worlds now hold in different states, leave the pool. (The hooks
        that ran before the failure must still agree.)"""
        for pair, (*_, grad) in zip(self.pool, torch_before):
            if has_grad_field(pair.th) and not isinstance(grad, str):
                pair.th.grad = None if grad is None else torch.tensor(
                    grad, dtype=pair.th.dtype)
        if frees and not str(error).startswith(BEFORE_ANY_NODE_RAN):
            self.pool = [p for p in self.pool if p.mg.is_leaf and p.th.is_leaf]

    def snapshot(self, lib: Any) -> list:
        opt = None if self.optimizers is None else self.optimizers[lib is torch]
        return snapshot([p.side(lib) for p in self.pool], opt)

    def add(self, results: tuple | None, names: bool = True) -> None:
        if results is not None:
            self.pool.append(Pair(*results, names=names))

    def pick(self, i: int) -> Pair:
        return self.pool[i % len(self.pool)]

    def pick_fitting(self, i: int, j: int, fits: Any, with_dtype: bool = False
                     ) -> tuple[Pair, Pair]:
        """Pool tensors a, b with `fits(a.shape, b.shape)` when there are such (mostly), else
        any two (and the op must then fail the same way in both worlds). `with_dtype`: fits
        gets (shape, dtype) pairs, and only fitting pairs are picked."""
        def key(p):
            shape = tuple(p.th.shape)
            return (shape, p.th.dtype) if with_dtype else shape
        a = self.pick(i)
        fitting = [p for p in self.pool if fits(key(a), key(p))]
        if with_dtype:
            return a, (fitting[j % len(fitting)] if fitting else a)
        return a, (fitting[j % len(fitting)] if fitting and j % 4 else self.pick(j))

    # -- making tensors ----------------------------------------------------------------
    @initialize(specs=st.lists(leaf_specs, min_size=2, max_size=4))
    def leaves(self, specs: list) -> None:
        for spec in specs:
            self.leaf(spec)

    @rule(spec=leaf_specs)
    def leaf(self, spec: tuple) -> None:
        shape, dtype, requires_grad, seed = spec
        data = values(shape, seed)
        self.pool.append(Pair(
            minigrad.tensor(data, dtype=getattr(minigrad, dtype), requires_grad=requires_grad),
            torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=requires_grad)))

    @precondition(lambda self: self.pool)
    @rule(i=index, op=st.sampled_from(sorted(UNARY)), no_grad=st.booleans())
    def unary(self, i: int, op: str, no_grad: bool) -> None:
        def run(lib, a):
            with grad_mode(lib, no_grad):
                return UNARY[op](lib, a)
        self.add(self.both(run, self.pick(i)))

    @precondition(lambda self: self.pool)
    @rule(i=index, op=st.sampled_from(sorted(SHAPING)))
    def shaping(self, i: int, op: str) -> None:
        a = self.pick(i)
        if op.startswith("transpose") and a.th.ndim == 0:
            # Excluded, reported on issue 20: PyTorch transposes a 0-d tensor (dims 0
            # and -1 wrap as for one dim); minigrad raises numpy's AxisError. The fix belongs
            # to minigrad/ops/views.py.
            return
        self.add(self.both(lambda lib, a: SHAPING[op](lib, a), a))

    @precondition(lambda self: self.pool)
    @rule(i=index, j=index, op=st.sampled_from(sorted(BINARY)), no_grad=st.booleans())
    def binary(self, i: int, j: int, op: str, no_grad: bool) -> None:
        if op == "matmul":
            # Excluded, reported on issue 20: minigrad multiplies float32 by float64
            # (promoting), where PyTorch refuses ("expected both vectors to have same dtype");
            # the fix belongs to minigrad/ops/products.py.
            a, b = self.pick_fitting(i, j, lambda s, t: multiplies(s[0], t[0]) and s[1] == t[1],
                                     with_dtype=True)
        else:
            a, b = self.pick_fitting(i, j, broadcasts)

        def run(lib, a, b):
            with grad_mode(lib, no_grad):
                return BINARY[op](lib, a, b)
        # Known, not compared: the node a batched matmul ends with (PyTorch: CloneBackward0
        # or UnsafeViewBackward0, by how its operands are laid out; minigrad picks by shape
        # alone). The values and gradients are compared as everywhere.
        self.add(self.both(run, a, b), names=not (op == "matmul" and max(
            a.th.ndim, b.th.ndim) > 2))

    # -- in-place ----------------------------------------------------------------------
    @precondition(lambda self: self.pool)
    @rule(i=index, j=index, op=st.sampled_from(IN_PLACE_OPS), no_grad=st.booleans())
    def in_place(self, i: int, j: int, op: str, no_grad: bool) -> None:
        """In-place on anything: intermediates, views, leaves under no_grad, and leaves that
        require grad with grad mode on (an error in both)."""
        a, b = self.pick_fitting(i, j, broadcasts)
        fn = in_place(op)
        if "=" in op and a.th.ndim == 0:
            # Excluded, reported on issue 20: `a[0] = v` on a 0-d tensor is an
            # IndexError in PyTorch, but minigrad first checks whether the leaf requires grad
            # (RuntimeError); the fix belongs to minigrad/ops/in_place.py.
            return
        if op == "a[..., :1] = b" and not fits_into(tuple(b.th.shape), (*a.th.shape[:-1], 1)):
            # Excluded, reported on issue 20: a value that does not fit the slice is
            # numpy's ValueError in minigrad, PyTorch's RuntimeError ("The expanded size of the
            # tensor (1) must match ..."); the fix belongs to minigrad/ops/in_place.py.
            return
        if op == "a[..., :1] = b" and b.th.ndim == 0:
            # Excluded, reported on issue 20: a 0-d value written over a whole tensor
            # is recorded as FillBackward3 by PyTorch, CopyBackwards by minigrad (the same
            # gradients, another node name).
            return
        if op == "zero_()" and 0 in a.th.stride() and a.th.numel() > 1:
            # Excluded, reported on issue 20: PyTorch zeroes an expanded tensor (every
            # element written is 0 anyway); minigrad refuses it as for any in-place op on an
            # expanded tensor. The fix belongs to minigrad/ops/in_place.py.
            return
        records = not no_grad and (a.th.requires_grad or b.th.requires_grad and "b" in op)
        base = a.th._base
        if records and base is not None and not (base.is_leaf and base.requires_grad):
            # Excluded by design: minigrad does not record an in-place op on a view of a
            # tensor that requires grad (it refuses, in its own words: VIEW_NOT_RECORDED);
            # PyTorch rebases the view's base onto a CopySlices node.
            return
        if records and a.mg._base is not None and base is None:
            # Excluded, reported on issue 20: `v @ M` (a vector times a matrix) is a
            # view in minigrad (a squeeze of its mm) but not in PyTorch, so minigrad refuses
            # `(v @ M).mul_(2)`; the fix belongs to minigrad/ops/products.py.
            return

        def run(lib, a, b):
            with grad_mode(lib, no_grad):
                fn(a, b)
        self.both(run, a, b)

    @precondition(lambda self: self.pool)
    @rule(i=index)
    def requires_grad_(self, i: int) -> None:
        a = self.pick(i)
        if any(p.th._base is a.th for p in self.pool):
            # Excluded, reported on issue 20: in PyTorch a view made before its base
            # was given requires_grad reports requires_grad=True afterwards (read off the
            # base), though no gradient flows through it (`(v * 2).sum().backward()` leaves
            # every .grad None, as in minigrad, whose view keeps requires_grad=False).
            return
        self.both(lambda lib, a: a.requires_grad_(), a)

    # -- hooks ---------------------------------------------------------------------------
    @precondition(lambda self: self.pool)
    @rule(i=index, kind=st.sampled_from(["double", "log only", "zero"]))
    def hook(self, i: int, kind: str) -> None:
        """A tensor hook that logs what it sees and returns None, twice the gradient, or
        zeros; the logs of both worlds must agree."""
        number = self.hooks_made
        self.hooks_made += 1

        def run(lib, a):
            log = self.hook_logs["mg" if lib is minigrad else "th"]

            def hook(g):
                log.append((number, numbers(g)))
                if kind == "double":
                    return g * 2
                if kind == "zero":
                    return g * 0
                return None
            a.register_hook(hook)
        self.both(run, self.pick(i))

    @precondition(lambda self: self.pool)
    @rule(i=index)
    def retain_grad(self, i: int) -> None:
        self.both(lambda lib, a: a.retain_grad(), self.pick(i))

    # -- backward ------------------------------------------------------------------------
    @precondition(lambda self: self.pool)
    @rule(i=index, how=st.sampled_from(["sum()", "as it is", "gradient="]),
          retain_graph=st.booleans(), seed=seeds)
    def backward(self, i: int, how: str, retain_graph: bool, seed: int) -> None:
        """`t.sum().backward()`, `t.backward()` (non-scalars: an error) or
        `t.backward(gradient=...)`; retain_graph or not (a second backward through a freed
        graph: an error in both)."""
        def run(lib, t):
            if how == "sum()":
                t.sum().backward(retain_graph=retain_graph)
            elif how == "as it is":
                t.backward(retain_graph=retain_graph)
            else:
                seed_grad = lib.tensor(values(tuple(t.shape), seed), dtype=t.dtype)
                t.backward(gradient=seed_grad, retain_graph=retain_graph)
        self.both(run, self.pick(i), backward=not retain_graph)

    @precondition(lambda self: self.pool)
    @rule(i=index, retain_graph=st.booleans(), allow_unused=st.booleans())
    def autograd_grad(self, i: int, retain_graph: bool, allow_unused: bool) -> None:
        """`autograd.grad(t.sum(), every pool tensor that requires grad)`: nothing
        accumulates; what it returns must agree.

        Open (found by a random run, not excluded, reported on issue 20): for an input that
        has a tensor hook and that the backward must also pass through (another input lies
        beyond it), PyTorch returns the gradient before the hook, minigrad after it:
        `y = 1 - x; y.register_hook(lambda g: g * 2); autograd.grad(y.sum(), [x, y])` is
        `(-2, 1)` in PyTorch, `(-2, 2)` in minigrad (with `[y]` alone both give 2)."""
        t = self.pick(i)
        inputs = [p for p in self.pool if p.mg.requires_grad and p.th.requires_grad]
        if not inputs:
            inputs = [t]

        def run(lib, t, *inputs):
            got = lib.autograd.grad(t.sum(), inputs, retain_graph=retain_graph,
                                    allow_unused=allow_unused)
            return [None if g is None else numbers(g) for g in got]
        results = self.both(run, t, *inputs, backward=not retain_graph)
        if results is not None:
            ours, theirs = results
            for k, (g, h) in enumerate(zip(ours, theirs)):
                assert (g is None) == (h is None), f"input {k}: minigrad {g}, PyTorch {h}"
                if g is not None:
                    assert close(g, h, dtype_name(inputs[k].th)), (k, g, h)

    # -- optimizers ------------------------------------------------------------------
    @precondition(lambda self: self.optimizers is None and any(
        p.th.is_leaf and p.th.requires_grad for p in self.pool))
    @rule(kind=st.sampled_from(["SGD", "SGD momentum", "Adam"]))
    def optimizer(self, kind: str) -> None:
        """An optimizer over the leaves that require grad (one per program)."""
        params = [p for p in self.pool if p.th.is_leaf and p.th.requires_grad]

        def make(lib, *params):
            if kind == "Adam":
                return lib.optim.Adam(params, lr=0.1)
            return lib.optim.SGD(params, lr=0.1, momentum=0.9 if "momentum" in kind else 0)
        self.optimizers = self.both(make, *params)

    @precondition(lambda self: self.optimizers is not None)
    @rule()
    def step(self) -> None:
        self.both(lambda lib: self.optimizers[lib is torch].step())

    @precondition(lambda self: self.optimizers is not None)
    @rule(set_to_none=st.booleans())
    def zero_grad(self, set_to_none: bool) -> None:
        self.both(lambda lib: self.optimizers[lib is torch].zero_grad(set_to_none=set_to_none))

    # -- after every step ------------------------------------------------------------
    @invariant()
    def worlds_agree(self) -> None:
        PROGRAMS["steps"] += 1  # (once after the leaves are made, then after every step)
        assert len(self.hook_logs["mg"]) == len(self.hook_logs["th"]), self.hook_logs
        for (n, g), (m, h) in zip(self.hook_logs["mg"], self.hook_logs["th"]):
            assert n == m and close(g, h, "float32"), (self.hook_logs["mg"],
                                                       self.hook_logs["th"])
        for k, pair in enumerate(self.pool):
            ours, theirs = pair.mg, pair.th
            facts = [(dtype_name(t), tuple(t.shape), t.requires_grad, t.is_leaf,
                      node_name(t) if pair.names else t.grad_fn is None,
                      t._version - v, t.retains_grad)
                     for t, v in zip((ours, theirs), pair.versions)]
            assert facts[0] == facts[1], f"pool[{k}]: minigrad {facts[0]}, PyTorch {facts[1]}"
            assert close(numbers(ours), numbers(theirs), facts[0][0]), (
                f"pool[{k}] values: minigrad {numbers(ours)}, PyTorch {numbers(theirs)}")
            if has_grad_field(theirs):
                g, h = grad_of(ours), grad_of(theirs)
                assert (g is None) == (h is None), f"pool[{k}].grad: minigrad {g}, PyTorch {h}"
                if g is not None:
                    assert dtype_name(ours.grad) == dtype_name(theirs.grad)
                    assert close(g, h, facts[0][0]), (
                        f"pool[{k}].grad: minigrad {g}, PyTorch {h}")

    def teardown(self) -> None:
        PROGRAMS["run"] += 1


def test_random_programs_agree_with_torch(torch_mod):
    PROGRAMS.update(run=0, steps=0)
    run_state_machine_as_test(SameAsTorch, settings=SETTINGS)
    assert PROGRAMS["run"] >= PROGRAMS_PER_RUN
    print(f"{PROGRAMS['run']} programs, {PROGRAMS['steps'] - PROGRAMS['run']} steps")

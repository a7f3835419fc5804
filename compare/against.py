"""`against_torch`: one expression, run by minigrad and by PyTorch from the same inputs."""

from __future__ import annotations

import linecache
from collections.abc import Callable
from typing import Any

import numpy as np

from compare.graph import graph_of
from compare.graph_compare import compare_graphs
from compare.report import Report, TensorDiff, diff, values
from compare.torch_bridge import MINIGRAD, TORCH, Engine, Run, as_array, run

ATOL = 1e-8
RTOL = 1e-6


def against_torch(fn: Callable | str, *, torch_fn: Callable | str | None = None,
                  atol: float = ATOL, rtol: float = RTOL, gradient: Any = None,
                  name: str | None = None, **inputs: Any) -> Report:
    """Run `fn` on minigrad tensors and on torch tensors made from the same `inputs`.

    `fn` is a callable (`lambda x, y: (x * y).sum() * 3`; see `compare.torch_bridge` for
    the `torch`/`F`/`nn` namespace parameters) or an expression string over the input names
    (`"sum(x*y)*3"`, read by minigrad's safe parser, never `eval`). `torch_fn` runs on the
    torch side instead of `fn`, to compare two different spellings.

    Floating inputs become float64 leaves that require grad on both sides. Backward:
    a one-element output gets the implicit gradient 1; a larger output gets `gradient`
    (an array of its shape), or without one, all ones (the gradients of `output.sum()`);
    `gradient="random"` draws a fixed standard-normal gradient of the output's shape (it
    catches transposed or permuted gradients that all-ones would hide).

    Returns a `Report`: forward and per-input gradient max abs/rel error with the worst
    element, and the graph comparison. An element matches when
    `|minigrad - torch| <= atol + rtol * |torch|`.
    """
    TORCH.module()  # fail here, with the install hint, when torch is missing
    title = name or (fn if isinstance(fn, str) else _callable_name(fn))
    if isinstance(fn, str) or isinstance(torch_fn, str):
        from compare.source import from_source

        fn, torch_fn = from_source(fn, torch_fn, list(inputs))
    arrays = {k: as_array(v) for k, v in inputs.items()}
    seed = _gradient(gradient)
    mine, mg_error = _attempt(fn, arrays, MINIGRAD, seed)
    theirs, th_error = _attempt(torch_fn or fn, arrays, TORCH, seed)
    if mg_error is not None and th_error is not None:
        raise mg_error  # invalid on both engines: the expression's fault, not minigrad's
    if mg_error is not None or th_error is not None:
        return _failed_report(title, mg_error, th_error, atol, rtol)
    return compare_runs(title, mine, theirs, atol, rtol)


def assert_matches_torch(fn: Callable | str, **kwargs: Any) -> Report:
    """`against_torch(...)`, raising AssertionError with the printed report on a mismatch."""
    report = against_torch(fn, **kwargs)
    if not report.ok:
        raise AssertionError("minigrad does not match PyTorch:\n" + str(report))
    return report


def compare_runs(title: str, mine: Run, theirs: Run, atol: float, rtol: float,
                 forward_label: str = "forward") -> Report:
    """The report for two finished runs (same leaf names on both sides)."""
    forward = diff(forward_label, values(mine.output), values(theirs.output), atol, rtol)
    grads = [diff(f"grad {k}", values(leaf.grad), values(theirs.leaves[k].grad), atol, rtol)
             for k, leaf in mine.leaves.items() if leaf.requires_grad]
    graph = compare_graphs(
        graph_of(mine.output, {id(t): k for k, t in mine.leaves.items()}),
        graph_of(theirs.output, {id(t): k for k, t in theirs.leaves.items()}))
    return Report(title, forward, grads, graph, atol, rtol)


def _attempt(fn: Callable, arrays: dict, engine: Engine, seed: Any
             ) -> tuple[Run | None, Exception | None]:
    try:
        return run(fn, arrays, engine, seed), None
    except Exception as exc:  # reported, or re-raised when both engines refuse
        return None, exc


def _failed_report(title: str, mg_error: Exception | None, th_error: Exception | None,
                   atol: float, rtol: float) -> Report:
    engine, err = ("minigrad", mg_error) if mg_error is not None else ("torch", th_error)
    other = "torch" if engine == "minigrad" else "minigrad"
    note = f"{engine} raised {type(err).__name__}: {err} (while {other} ran it)"
    forward = TensorDiff("forward", None, ok=False, note=note)
    return Report(title, forward, [], None, atol, rtol)


def _gradient(gradient: Any) -> Any:
    if isinstance(gradient, str):
        if gradient != "random":
            raise ValueError(f"gradient={gradient!r}: give an array, None or 'random'")
        return _random_gradient
    return None if gradient is None else np.asarray(gradient, dtype=np.float64)


def _random_gradient(shape: tuple) -> np.ndarray | None:
    if int(np.prod(shape)) == 1:
        return None  # a scalar output keeps the implicit gradient 1
    return np.random.default_rng(20260).standard_normal(shape)


def _callable_name(fn: Callable) -> str:
    """A lambda's own source text (`lambda x: x * x`), else the function's name."""
    name = getattr(fn, "__name__", type(fn).__name__)
    code = getattr(fn, "__code__", None)
    if name != "<lambda>" or code is None:
        return name
    # the body's span in the file, from the positions Python records for each instruction
    spans = [p for p in code.co_positions() if None not in p and p[2:] != (0, 0)]
    lines = linecache.getlines(code.co_filename)
    if not spans or not lines:
        return name
    (l0, c0), (l1, c1) = min((p[0], p[2]) for p in spans), max((p[1], p[3]) for p in spans)
    raw = [line.encode() for line in lines[l0 - 1:l1]]  # columns count UTF-8 bytes
    if not raw:
        return name
    raw[-1] = raw[-1][:c1]
    raw[0] = raw[0][c0:]
    body = " ".join(b"".join(raw).decode(errors="replace").split())
    return f"lambda {', '.join(code.co_varnames[:code.co_argcount])}: {body}"

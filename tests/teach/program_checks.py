"""Running what `Trace.to_python()` writes, and comparing its gradients with the trace's."""

from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np

from bitwise import same_bits
from minigrad.teach.program import COPIED


def run_program(text: str) -> dict[str, Any]:
    """Run a generated program in a fresh namespace (its prints kept out of the test's);
    its namespace."""
    namespace: dict[str, Any] = {"__name__": "__program__"}
    try:
        code = compile(text, "<to_python>", "exec")
    except SyntaxError as exc:
        raise AssertionError(f"{exc}\n{text}") from None
    with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
        exec(code, namespace)  # noqa: S102 (running the program is what is tested)
    return namespace


def differences(trace: Any, text: str | None = None, exact: bool = True) -> list[str]:
    """What the program gets wrong: each leaf's `.grad` it does not give bit for bit
    (`exact=False`: to float32 rounding, for a PyTorch trace), each forward-mode result's
    tangent it does not give bit for bit, or a line it copied."""
    text = trace.to_python() if text is None else text
    problems = [f"copied from the trace: {line.strip()}" for line in text.splitlines()
                if COPIED in line and not line.startswith("#")]
    namespace = run_program(text)
    problems += tangent_differences(trace, namespace.get("tangents"))
    if not trace.backwards and trace.forwards:
        return problems
    grads = namespace["grads"]
    for leaf in trace.leaves:
        if leaf.grad is None:
            continue
        got = grads.get(leaf.label)
        if got is None:
            problems.append(f"{leaf.label}: no gradient in the program")
        elif exact and not same_bits(got, leaf.grad):
            problems.append(f"{leaf.label}.grad differs: program {np.asarray(got)!r}, "
                            f"trace {leaf.grad!r}")
        elif not exact and not np.allclose(got, leaf.grad, rtol=1e-4, atol=1e-5):
            problems.append(f"{leaf.label}.grad differs beyond rounding: program "
                            f"{np.asarray(got)!r}, trace {leaf.grad!r}")
    return problems


def pass_results(trace: Any) -> dict[str, Any]:
    """Each forward-mode pass's results (the steps no later step of the pass reads): label ->
    the tangent the trace recorded."""
    out = {}
    for record in trace.forwards:
        used = {a for step in record.steps for a in step.args}
        out.update((s.label, s.tangent) for s in record.steps if s.label not in used)
    return out


def tangent_differences(trace: Any, tangents: dict | None) -> list[str]:
    """The forward-mode results whose tangent the program does not give bit for bit."""
    expected = pass_results(trace)
    if not expected:
        return []
    if tangents is None:
        return ["the program has no tangents"]
    problems = [f"{label}: not in the program's tangents" for label in expected
                if label not in tangents]
    problems += [f"{label}' differs: program {np.asarray(tangents[label])!r}, trace {want!r}"
                 for label, want in expected.items()
                 if label in tangents and (tangents[label] is None) != (want is None)
                 or want is not None and not same_bits(tangents[label], want)]
    return problems

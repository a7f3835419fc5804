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
    (`exact=False`: to float32 rounding, for a PyTorch trace), or a line it copied."""
    text = trace.to_python() if text is None else text
    problems = [f"copied from the trace: {line.strip()}" for line in text.splitlines()
                if COPIED in line and not line.startswith("#")]
    grads = run_program(text)["grads"]
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

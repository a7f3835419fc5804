"""Every trace a lesson makes, written out by `Trace.to_python()`, gives the lesson's gradients.

Each lesson that traces is run (as the tutorial tests run it) while every Trace it makes is
kept; then each minigrad trace's program must give every `.grad` and every forward-mode
result's tangent bit for bit, computing every op itself (a checkpoint's block run again, and
the backward through it, included): only a user's own Function (lesson 7's Cube) and a user's
hook that changed a gradient (lesson 8) may be copied from the trace, and the program says so
in its first lines; in a PyTorch trace also a reentrant checkpoint's step, whose insides
trace_torch cannot watch.
A PyTorch trace (`compare.trace_torch`, lessons 11 and 17) gives PyTorch's gradients to
rounding: minigrad's numpy for each op, in PyTorch's graph and order.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from program_checks import differences

from minigrad.teach import tutorial
from minigrad.teach.op_words import op_class
from minigrad.teach.trace import Trace

ROOT = Path(__file__).resolve().parents[2] / "tutorials"
TRACING = [p for p in tutorial.lessons("en", ROOT)
           if re.search(r"\btrace(_torch)?\(", p.read_text(encoding="utf-8"))
           and p.name[:2] != "18"]  # (lesson 18 traces in two other processes: its DDP)
NEEDS = {"03": "dot_bin", "11": "torch_mod", "17": "torch_mod", "25": "torch_mod"}


def lesson_traces(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Trace]:
    """Run the lesson; every Trace it made that recorded a graph or forward-mode work (read,
    so that a PyTorch trace's records exist)."""
    made: list[Trace] = []
    original = Trace.__init__

    def keep(self: Trace, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(Trace, "__init__", keep)
    lesson = tutorial.run(tutorial.load(path), workdir=tmp_path)
    errors = [cell.error for cell in lesson.cells if cell.error]
    assert not errors, errors[0]
    return [t for t in made if t.nodes or t.forwards]


def built_in(name: str) -> bool:
    cls = op_class(name)
    return cls is not None and cls.__module__.startswith("minigrad.")


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")
@pytest.mark.parametrize("path", TRACING, ids=[p.stem for p in TRACING])
def test_every_trace_of_the_lesson_gives_its_gradients(
        path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        request: pytest.FixtureRequest) -> None:
    if path.name[:2] in NEEDS:
        request.getfixturevalue(NEEDS[path.name[:2]])
    traces = lesson_traces(path, tmp_path, monkeypatch)
    assert traces, f"{path.name} made no trace"
    for t in traces:
        text = t.to_python()
        exact = t.engine == "minigrad"
        problems = [p for p in differences(t, text, exact=exact)
                    if not p.startswith("copied from the trace")]
        assert not problems, (path.name, problems, text)
        head = [line for line in text.splitlines() if line.startswith("#   ")]
        # what was copied: a user's Function or hook, never minigrad's op (but in a PyTorch
        # trace, a reentrant checkpoint's step: trace_torch cannot watch inside it)
        for line in head:
            name = line.split()[1].rstrip(":")
            hidden = t.engine != "minigrad" and "out of the trace's sight" in line
            assert "your Python hook" in line or hidden or not built_in(name), (
                path.name, line, text)

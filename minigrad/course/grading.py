"""`course grade`: grade a submission op by op in the sandbox; the scores and the feedback.

`grade(DIR)` runs `minigrad.course.sandbox` in a subprocess (which forks one limited child
per op), reads back the results as JSON, keeps only the plain data it expects (a child ran
the student's code: nothing it wrote is trusted further than that), and scores each check
from its status alone (`entry.POINTS`).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minigrad.course import feedback
from minigrad.course.catalog import OPS, select
from minigrad.course.entry import POINTS, Op
from minigrad.course.make import read_manifest
from minigrad.course.texts import display_width, wrap

TIMEOUT = 30.0  # seconds per op, wall clock (the CPU limit is the same)
MEMORY_MB = 1024  # address space per op, on top of what the grader itself uses
WORKERS = 2  # ops graded at the same time
ROOT = Path(__file__).resolve().parents[2]  # where the minigrad package is importable from
WIDTH = 96  # columns of the feedback's prose
STATUSES = ("graded", "timeout", "crashed", "import_error")


@dataclass
class OpGrade:
    """One op's result: a status per check (passed, failed, skipped) and its details."""

    op: Op
    status: str  # graded, timeout, crashed, import_error
    checks: list[dict[str, Any]]
    details: dict[str, Any] = field(default_factory=dict)  # why it was not graded
    printed: str = ""
    printed_dropped: int = 0
    seconds: float = 0.0

    @property
    def score(self) -> int:
        return sum(POINTS[c["check"]] for c in self.checks if c["status"] == "passed")

    @property
    def max_score(self) -> int:
        return sum(POINTS[c["check"]] for c in self.checks if c["status"] != "skipped")

    @property
    def passed(self) -> bool:
        return self.status == "graded" and self.score == self.max_score

    def failed_checks(self) -> list[str]:
        return [c["check"] for c in self.checks if c["status"] == "failed"]

    def lines(self, lang: str, timeout: float) -> list[str]:
        """The feedback for this op: what is wrong in each failing check, what it printed."""
        say = feedback.say
        lines = [f"{'✓' if self.passed else '✗'} {self.op.name}  {self.score}/{self.max_score}"]
        if self.status == "timeout":
            lines += wrap(say("timeout", lang, limit=feedback.number(timeout)), WIDTH, "  ")
        elif self.status == "crashed":
            d = self.details
            how = say("signal", lang, signal=d["signal"]) if d.get("signal") else \
                d.get("message") or say("exit_code", lang, code=d.get("exit_code"))
            lines += wrap(say("crashed", lang, how=how), WIDTH, "  ")
        elif self.status == "import_error":
            lines += [row for text in _import_text(self.op, self.details, lang)
                      for row in wrap(text, WIDTH, "  ")]
        else:
            lines += self._check_lines(lang)
        lines += ["  " + row for row in feedback.printed_lines(
            self.printed, self.printed_dropped, feedback.MAX_PRINTED, lang)]
        return lines


    def _check_lines(self, lang: str) -> list[str]:
        """Passed checks on one line; failed ones grouped by message, each group with the
        smallest example of its first check."""
        passed = [c["check"] for c in self.checks if c["status"] == "passed"]
        lines = [f"  ✓ {feedback.check_names(passed, lang)}"] if passed else []
        groups: dict[str, list[dict[str, Any]]] = {}
        for c in self.checks:
            if c["status"] != "passed":
                groups.setdefault(feedback.check_message(c, self.op, lang), []).append(c)
        for message, group in groups.items():
            mark = "✗" if group[0]["status"] == "failed" else "-"
            lines.append(f"  {mark} {feedback.check_names([c['check'] for c in group], lang)}")
            for paragraph in message.splitlines():
                lines += wrap(paragraph, WIDTH, " " * 6)
            lines += ["      " + row for row in feedback.example_lines(group[0].get("example"),
                                                                       lang)]
        return lines


def _import_text(op: Op, d: dict[str, Any], lang: str) -> list[str]:
    file = f"homework/{op.name}.py"
    if d.get("reason") == "no_class":
        return [feedback.say("no_class", lang, file=file, cls=op.cls)]
    text = feedback.say("import", lang, file=file) + feedback.exception_text(d, lang)
    return text.splitlines()


@dataclass
class GradeReport:
    """Every op's grade; `text()` is the feedback (reports.py makes the files from it)."""

    folder: Path
    ops: list[OpGrade]
    lang: str
    timeout: float
    seconds: float
    torch: bool

    @property
    def score(self) -> int:
        return sum(g.score for g in self.ops)

    @property
    def max_score(self) -> int:
        return sum(g.max_score for g in self.ops)

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.ops)

    def text(self, lang: str | None = None, timing: bool = False) -> str:
        lang = lang or self.lang
        say = feedback.say
        lines = [say("title", lang, folder=self.folder, count=len(self.ops),
                     s="" if len(self.ops) == 1 else "s"), ""]
        for g in self.ops:
            if not g.passed:
                lines += g.lines(lang, self.timeout) + [""]
        width = max(len(g.op.name) for g in self.ops) + 2
        lines.append(say("scores", lang))
        for g in self.ops:
            failed = feedback.LIST_SEP[lang].join(feedback.check_name(c, lang)
                                                  for c in g.failed_checks())
            note = say("failed", lang, checks=failed) if failed else ""
            lines.append(f"  {g.op.name:<{width}}{g.score:>3}/{g.max_score:<3} {note}".rstrip())
        total = say("total", lang)
        pad = " " * (width - display_width(total))
        lines.append(f"  {total}{pad}{self.score:>3}/{self.max_score}")
        if timing:
            lines.append(say("time", lang, seconds=self.seconds))
        return "\n".join(lines) + "\n"


def grade(folder: str | Path, ops: list[str] | None = None, timeout: float = TIMEOUT,
          memory_mb: int = MEMORY_MB, workers: int = WORKERS, lang: str | None = None
          ) -> GradeReport:
    """Grade the submission in `folder` (an assignment copy with its course.json): all its ops,
    or only `ops`. Each op runs in a child process limited to `timeout` seconds and
    `memory_mb` MiB more than the grader uses."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    names = manifest["ops"] if ops is None else [op.name for op in select(ops)]
    missing = [n for n in names if n not in manifest["ops"]]
    if missing:
        raise ValueError(f"{', '.join(missing)}: not in this assignment (it has "
                         f"{', '.join(manifest['ops'])})")
    if not timeout > 0 or not memory_mb > 0 or workers < 1:
        raise ValueError("timeout and memory must be positive, workers at least 1")
    if not (folder / manifest["package"]).is_dir():
        raise FileNotFoundError(f"{folder} has no {manifest['package']}/ folder: is it the "
                                "folder of a submission?")
    started = time.monotonic()
    raw = _run_sandbox(folder.resolve(), manifest["package"], names, timeout, memory_mb,
                       workers)
    torch = raw.get("torch") is True
    grades = [_op_grade(OPS[n], raw["ops"].get(n), torch) for n in names]
    return GradeReport(folder, grades, lang or manifest["lang"], timeout,
                       time.monotonic() - started, torch)


def _run_sandbox(folder: Path, package: str, names: list[str], timeout: float,
                 memory_mb: int, workers: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="minigrad-grade-") as scratch:
        request, results = Path(scratch) / "request.json", Path(scratch) / "results.json"
        request.write_text(json.dumps({
            "folder": str(folder), "package": package, "ops": names, "timeout": timeout,
            "memory_mb": memory_mb, "workers": workers, "scratch": scratch}), encoding="utf-8")
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                           os.environ.get("PYTHONPATH")]))}
        limit = timeout * math.ceil(len(names) / workers) + 120
        try:
            proc = subprocess.run([sys.executable, "-m", "minigrad.course.sandbox",
                                   str(request), str(results)], cwd=scratch, env=env,
                                  capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"the grader's sandbox did not finish in {limit:g} s") from None
        if proc.returncode != 0 or not results.is_file():
            raise RuntimeError("the grader's sandbox failed (not the submission):\n"
                               + proc.stderr[-2000:])
        return json.loads(results.read_text(encoding="utf-8"))


def _op_grade(op: Op, raw: Any, torch: bool) -> OpGrade:
    """An OpGrade from what the child wrote, keeping only the plain data expected."""
    raw = _plain(raw) if isinstance(raw, dict) else {"status": "crashed"}
    status = raw.get("status") if raw.get("status") in STATUSES else "crashed"
    checks = raw.get("checks")
    if status == "graded" and not (isinstance(checks, list) and all(
            isinstance(c, dict) for c in checks) and [c.get("check") for c in checks]
            == list(op.checks)):
        status, raw = "crashed", {"message": "its result did not come back whole"}
    if status != "graded":
        checks = [{"check": c, "status": "failed", "reason": status} for c in op.checks]
    for c in checks:
        if c.get("status") not in ("passed", "failed", "skipped") or (
                c["status"] == "skipped" and (c["check"] != "pytorch" or torch)):
            c["status"] = "failed"
    if not torch:
        for c in checks:
            if c["check"] == "pytorch":
                c.update(status="skipped", reason="no_torch")
    return OpGrade(op, status, checks, raw, str(raw.get("printed", "")),
                   int(raw.get("printed_dropped") or 0), float(raw.get("seconds") or 0.0))


def _plain(value: Any, depth: int = 0) -> Any:
    """JSON data cut to size: strings of at most 4000 characters, 8 levels, 100 items."""
    if depth > 8:
        return None
    if isinstance(value, str):
        return value[:4000]
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, list):
        return [_plain(v, depth + 1) for v in value[:100]]
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1) for k, v in list(value.items())[:100]}
    return None

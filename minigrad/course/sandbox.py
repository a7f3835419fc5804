"""The sandbox: each op of a submission is graded in its own child process, with limits.

    python -m minigrad.course.sandbox REQUEST.json RESULTS.json

`grading.py` starts this runner as a subprocess. The runner never imports the submission: it
imports minigrad, hypothesis and (when installed) torch once, then forks one child per op, a
few at a time. Each child lowers its limits before it touches the student's code (CPU
seconds, address space, file size, no core dumps), sends fds 0-2 to /dev/null and keeps what
the student prints in a bounded buffer, imports `homework/<op>.py`, runs the checks and
writes its result as JSON. The runner kills a child that outlives the wall-clock limit (with
its process group), and a child that dies writes no result: either way that op is reported,
and the others are graded as usual.
"""

from __future__ import annotations

import gc
import importlib
import io
import json
import math
import os
import resource
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from hypothesis import given, settings

from minigrad.course import checks
from minigrad.course.cases import cases
from minigrad.course.catalog import OPS
from minigrad.course.feedback import MAX_PRINTED

MAX_FILE = 1 << 24  # bytes a child may write to any one file
POLL = 0.01  # seconds between looks at the running children


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    torch = _torch()
    _warm_up(torch)
    results = {"torch": torch is not None, "ops": run_all(request, torch)}
    Path(argv[1]).write_text(json.dumps(results), encoding="utf-8")
    return 0


def _torch() -> Any:
    """torch, imported once before forking (so each child gets it for free), or None."""
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def _warm_up(torch: Any) -> None:
    """The first run of hypothesis, and torch's first backward (it imports sympy), are slow:
    run them once here, so that every child starts warm."""
    if torch is not None:
        x = torch.ones(2, dtype=torch.float64, requires_grad=True)
        torch.autograd.grad(x * x, [x], torch.ones(2, dtype=torch.float64))

    @settings(max_examples=5, **checks.PROFILE)
    @given(cases(OPS["add"], "forward"))
    def warm(case: Any) -> None:
        pass

    warm()


def run_all(request: dict[str, Any], torch: Any) -> dict[str, dict[str, Any]]:
    """Grade every op of the request, `workers` children at a time; op name -> result."""
    pending = list(request["ops"])
    running: dict[int, tuple[str, float, Path]] = {}
    results: dict[str, dict[str, Any]] = {}
    scratch = Path(request["scratch"])
    while pending or running:
        while pending and len(running) < request["workers"]:
            op = pending.pop(0)
            path = scratch / f"{op}.json"
            sys.stdout.flush()
            sys.stderr.flush()
            gc.freeze()  # (objects made so far are never collected: fewer pages copied)
            pid = os.fork()
            if pid == 0:
                _child(op, request, path, torch)  # (never returns)
            try:
                os.setpgid(pid, pid)  # (the child does it too: whichever runs first)
            except OSError:
                pass
            running[pid] = (op, time.monotonic(), path)
        time.sleep(POLL)
        for pid, (op, started, path) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            seconds = time.monotonic() - started
            if not done and seconds <= request["timeout"]:
                continue
            if not done:
                _kill(pid)
                os.waitpid(pid, 0)
                status = -1
            del running[pid]
            results[op] = _collect(op, path, status, seconds)
    return results


def _kill(pid: int) -> None:
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _collect(op: str, path: Path, status: int, seconds: float) -> dict[str, Any]:
    """The child's result, or what its end says: killed at the limit, or crashed."""
    result: dict[str, Any] | None = None
    if status >= 0 and path.is_file():
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError, OSError):
            result = None
    if not isinstance(result, dict):
        if status == -1 or (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU):
            result = {"status": "timeout"}
        elif os.WIFSIGNALED(status):
            result = {"status": "crashed", "signal": signal.Signals(os.WTERMSIG(status)).name}
        else:
            result = {"status": "crashed", "exit_code": os.WEXITSTATUS(status)}
    result.update(op=op, seconds=round(seconds, 3))
    return result


# -- in the child ------------------------------------------------------------------------------
class Bounded(io.TextIOBase):
    """A text stream that keeps the first `limit` characters written and counts the rest."""

    def __init__(self, limit: int = MAX_PRINTED) -> None:
        self.limit, self.kept, self.dropped = limit, io.StringIO(), 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        room = self.limit - self.kept.tell()
        self.kept.write(text[:max(room, 0)])
        self.dropped += max(len(text) - max(room, 0), 0)
        return len(text)


def _child(op: str, request: dict[str, Any], path: Path, torch: Any) -> None:
    code = 0
    try:
        os.setpgid(0, 0)
        _limit(request["timeout"], request["memory_mb"])
        printed = _quiet()
        result = grade_op(op, Path(request["folder"]), request["package"], torch)
        result.update(printed=printed.kept.getvalue(), printed_dropped=printed.dropped)
        path.write_text(json.dumps(result), encoding="utf-8")
    except BaseException:  # noqa: BLE001  (a child must always reach os._exit)
        try:
            path.write_text(json.dumps({"status": "crashed", "message": traceback.format_exc(
                limit=-3)[-checks.MAX_TEXT:]}), encoding="utf-8")
        except BaseException:  # noqa: BLE001
            code = 1
    finally:
        os._exit(code)


def _limit(timeout: float, memory_mb: int) -> None:
    """Lower this process's limits (for good: the hard limits go down too)."""
    cpu = max(1, math.ceil(timeout))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    room = _address_space() + memory_mb * (1 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (room, room))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE, MAX_FILE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _address_space() -> int:
    """Bytes of address space in use now (numpy, torch...): the memory limit comes on top."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("cannot read VmSize from /proc/self/status")


def _quiet() -> Bounded:
    """fds 0, 1, 2 to /dev/null; Python's print() into a bounded buffer."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdout = sys.stderr = printed = Bounded()
    return printed


def grade_op(name: str, folder: Path, package: str, torch: Any) -> dict[str, Any]:
    """Import the student's class for op `name` and run its checks."""
    op = OPS[name]
    folder = folder.resolve()
    sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module(f"{package}.{name}")
    except BaseException as exc:  # noqa: BLE001  (a SyntaxError, an ImportError, an exit...)
        return {"status": "import_error", **_import_failure(exc, folder)}
    cls = getattr(module, op.cls, None)
    if not checks.is_function(cls):
        return {"status": "import_error", "reason": "no_class", "cls": op.cls,
                "file": f"{package}/{name}.py"}
    return {"status": "graded", "checks": checks.run_checks(op, cls, torch, folder)}


def _import_failure(exc: BaseException, folder: Path) -> dict[str, Any]:
    where = checks.student_frame(exc, folder)
    if isinstance(exc, SyntaxError) and exc.filename:
        where = {"file": Path(exc.filename).resolve().relative_to(folder).as_posix()
                 if Path(exc.filename).resolve().is_relative_to(folder) else exc.filename,
                 "line": exc.lineno, "code": (exc.text or "").strip(), "function": ""}
    return {"reason": "exception", "type": type(exc).__name__,
            "message": str(exc).strip()[:checks.MAX_TEXT], "where": where}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The grader's side of the sandbox: start the zygote once, fork a limited child per op and
role from it, talk to the child, end it (with everything it started).

A `Session` belongs to one grading process (a `course grade`, or one worker of
`course grade-all`): one zygote (zygote.py), one private temporary folder. For each
submission it copies only the package's `.py` files into that folder (`copy_package`), and
for each op it asks the zygote for children (`spawn`) that answer requests (child.py).
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from minigrad.course import protocol

ROOT = Path(__file__).resolve().parents[2]  # where the minigrad package is importable from
BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); "
        "from minigrad.course.zygote import main; main(int(sys.argv[2]))")
ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
       "LC_ALL": "C.UTF-8"}  # (nothing of the grader's own environment: no tokens)
MAX_REPLY_HEADER = 1 << 18
MAX_REPLY_BYTES = 1 << 26  # (the largest answer, the speed case's, is about 2 MB)
MAX_SOURCE = 256 * 1024  # bytes of one .py file of a submission
MAX_PACKAGE = 2 * 1024 * 1024  # bytes of all of them
UID_BASE = 1_990_000_000  # (children of a grader run as root become these users)
MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\.py$")


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the submission): the grade cannot be trusted."""


class ChildDied(Exception):
    """The child ended (or broke the protocol) before it answered."""

    def __init__(self, status: dict[str, Any]) -> None:
        super().__init__(str(status))
        self.status = status


class ChildTimeout(Exception):
    """The child did not answer in time; it has been killed."""


@dataclass(frozen=True)
class Limits:
    """What one child may use."""

    timeout: float = 5.0  # seconds of wall clock per request (the time check has its own)
    memory_mb: int = 1024  # address space on top of the zygote's
    cpu_seconds: int = 120
    processes: int = 16
    open_files: int = 64
    file_bytes: int = 16 * 1024 * 1024


class Child:
    """One sandboxed child: send it requests; end it (and all it started)."""

    def __init__(self, session: Session, sock: socket.socket, pid: int) -> None:
        self.session, self.sock, self.pid = session, sock, pid
        self.status: dict[str, Any] | None = None
        self.ended = False

    def cpu(self) -> float | None:
        """Seconds of CPU the child has used (the kernel's count, which it cannot change),
        or None where /proc does not tell."""
        total = 0
        try:
            for task in os.listdir(f"/proc/{self.pid}/task"):
                with open(f"/proc/{self.pid}/task/{task}/schedstat", encoding="ascii") as f:
                    total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            return None
        return total / 1e9

    def request(self, header: dict[str, Any], arrays: list[np.ndarray], timeout: float,
                cpu_limit: float | None = None) -> tuple[dict[str, Any], list[np.ndarray]]:
        """Send one request, read its answer; ChildDied or ChildTimeout when there is none
        in `timeout` seconds, or once the child used `cpu_limit` seconds of CPU on it (the
        child is ended then)."""
        if self.ended:
            raise ChildDied(self.status or {})
        message = protocol.encode(header, arrays)
        deadline = time.monotonic() + timeout
        start = self.cpu() if cpu_limit is not None else None
        try:
            self.sock.settimeout(timeout)
            self.sock.sendall(message)
            while start is not None and not select.select([self.sock], [], [], 0.02)[0]:
                used = self.cpu()
                if time.monotonic() > deadline or used is None or used - start > cpu_limit:
                    raise protocol.Timeout()
            reply, out = protocol.receive(self.sock, deadline, MAX_REPLY_HEADER,
                                          MAX_REPLY_BYTES)
        except (protocol.Timeout, TimeoutError):
            self.end()
            raise ChildTimeout() from None
        except (protocol.ProtocolError, OSError) as exc:
            self.end()
            raise ChildDied(self.status or {"message": str(exc)[:200]}) from None
        if reply.get("kind") == "setup_failed":
            self.end()
            raise SandboxError(f"a sandboxed child could not start: {reply.get('message')}")
        return reply, out

    def end(self) -> None:
        """Close the connection and have the zygote kill the child's whole tree."""
        if self.ended:
            return
        self.ended = True
        self.sock.close()
        self.status = self.session.end_child(self.pid)


class Session:
    """One zygote and one private temporary folder, for as many submissions as it grades."""

    def __init__(self, limits: Limits = Limits(), slot: int = 0) -> None:
        self.limits, self.slot, self.count = limits, slot, 0
        self.root = Path(tempfile.mkdtemp(prefix="minigrad-grade-"))
        os.chmod(self.root, 0o711)  # (a child's user may pass through, not list)
        ours, theirs = socket.socketpair()
        self._log = tempfile.TemporaryFile()
        self.zygote = subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", BOOT, str(ROOT), str(theirs.fileno())],
            env=ENV, cwd=self.root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self._log, pass_fds=[theirs.fileno()], start_new_session=True)
        theirs.close()
        self.control = ours
        self.info = self._line(120.0)

    def _line(self, timeout: float) -> dict[str, Any]:
        self.control.settimeout(timeout)
        data = b""
        try:
            while not data.endswith(b"\n"):
                part = self.control.recv(1 << 16)
                if not part:
                    break
                data += part
        except OSError:
            pass
        if not data.endswith(b"\n"):
            self._log.seek(0)
            raise SandboxError("the grader's zygote process failed: "
                               + self._log.read()[-2000:].decode(errors="replace"))
        return json.loads(data)

    def copy_package(self, source: Path, package: str) -> Path:
        """A private copy of the submission's package: its `.py` files only (no folders, no
        links, none over MAX_SOURCE bytes, MAX_PACKAGE in all), readable by a child. The
        grader reads them, never the child: a link cannot reach the teacher's files."""
        self.count += 1
        dest = Path(tempfile.mkdtemp(prefix="sub-", dir=self.root))
        (dest / package).mkdir()
        total = 0
        for path in sorted(source.iterdir()) if source.is_dir() else []:
            if not MODULE_NAME.match(path.name) or path.is_symlink() or not path.is_file():
                continue
            size = path.stat().st_size
            total += size
            if size > MAX_SOURCE or total > MAX_PACKAGE:
                continue
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as f:
                (dest / package / path.name).write_bytes(f.read(MAX_SOURCE))
        init = dest / package / "__init__.py"
        if not init.exists():
            init.write_text("")
        for path in [dest, dest / package, *(dest / package).iterdir()]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        return dest

    def spawn(self, role: str, copy: Path, package: str, module: str, cls: str,
              inputs: tuple[str, ...]) -> Child:
        """A new child of `role` ("forward", "backward", "second", "reference") with the
        submission copied at `copy` and its class `package.module.cls`."""
        uid = UID_BASE + self.slot if self.info.get("user") == "separate" else None
        limits = self.limits
        spec = {"role": role, "package_dir": str(copy), "package": package, "module": module,
                "class": cls, "inputs": list(inputs), "uid": uid,
                "cpu_seconds": limits.cpu_seconds, "memory_mb": limits.memory_mb,
                "processes": limits.processes, "open_files": limits.open_files,
                "file_bytes": limits.file_bytes}
        ours, theirs = socket.socketpair()
        try:
            socket.send_fds(self.control, [json.dumps(spec).encode()], [theirs.fileno()])
            answer = self._line(60.0)
        finally:
            theirs.close()
        return Child(self, ours, int(answer["pid"]))

    def end_child(self, pid: int) -> dict[str, Any] | None:
        """Kill `pid` and everything below the zygote; how `pid` ended."""
        self.control.sendall(json.dumps({"end": pid}).encode())
        return self._line(60.0).get("status")

    def isolation(self) -> dict[str, Any]:
        """What the children of this session are kept from, for the teacher's report."""
        return {k: self.info.get(k) for k in ("landlock", "netns", "root", "user", "tmpfs")} | {
            "processes": self.limits.processes, "memory_mb": self.limits.memory_mb}

    def close(self) -> None:
        try:
            self.control.close()
            self.zygote.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.zygote.kill()
            self.zygote.wait()
        self._log.close()
        _remove(self.root)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def remove_copy(copy: Path) -> None:
    _remove(copy)


def _remove(path: Path) -> None:
    """Remove a folder a child may have made awkward (no permissions on its own folders)."""
    if not path.exists():
        return
    for dirpath, dirnames, _ in os.walk(path):
        for name in dirnames:
            try:
                os.chmod(os.path.join(dirpath, name), 0o700, follow_symlinks=False)
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)

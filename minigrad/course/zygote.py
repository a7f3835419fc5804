"""The zygote: a warm, clean process that sandboxed children are forked from.

The grader starts it once per batch (sandbox.Session) with an empty environment. It imports
numpy and minigrad, prepares what each role disables (poison.py), leaves the network (a
namespace of its own, when the kernel lets it) and becomes a subreaper: every orphan of its
children comes back to it. Then it serves its control socket:

- spawn: fork a child (own session, limits, no environment, a private working folder,
  another user when the grader runs as root, Landlock), which then imports the submission
  and answers the grader on the socket it was given (child.py);
- end: kill every process below the zygote, however it was started (setsid, double fork:
  orphans come back here), reap them all, and say how the child ended.

One grader process uses one zygote, one child at a time, so "every process below" is exactly
that child and whatever it started. The zygote never imports a submission and never holds
the grader's data (cases, expected values, the teacher's folder): a child forked from it
finds none of that in its memory.
"""

from __future__ import annotations

import ctypes
import gc
import json
import linecache
import os
import resource
import shutil
import signal
import socket
import sys
import sysconfig
import time
from typing import Any

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
CLONE_NEWNET = 0x40000000
SCRATCH_MB = 64  # the children's working folders, all together (a tmpfs, as root)
MAX_CONTROL = 1 << 16


def _prctl(option: int, value: int) -> None:
    ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def main(control_fd: int) -> None:
    """Serve spawn requests on `control_fd` until the grader closes it."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)  # (the grader gone: so is the zygote)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    control = socket.socket(fileno=control_fd)
    import numpy  # noqa: F401  (everything a child needs is imported before it is forked)

    import minigrad
    from minigrad.course import child, landlock, mounts, poison

    poison.prepare(minigrad.Function)
    netns = ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWNET) == 0
    stdlib, shared = mounts.stdlib_for_children(os.getcwd())
    separate = os.geteuid() == 0 and shared and all(mounts.world_readable(p)
                                                    for p in mounts.numpy_folders())
    scratch_root = os.path.join(os.getcwd(), "scratch")
    os.makedirs(scratch_root, mode=0o711, exist_ok=True)
    tmpfs = mounts.private_tmp(scratch_root, SCRATCH_MB)
    info = {"landlock": landlock.abi(), "netns": netns, "root": os.geteuid() == 0,
            "user": "separate" if separate else "same", "tmpfs": tmpfs,
            "python": sys.version.split()[0]}
    scratches: dict[int, str] = {}
    readable = mounts.rules(stdlib)
    linecache.clearcache()
    gc.collect()
    gc.freeze()  # (objects made so far are never collected: fewer pages copied by forks)
    control.sendall(json.dumps(info).encode() + b"\n")
    signal.signal(signal.SIGTERM, lambda *_: (_kill_all(None), os._exit(0)))
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, MAX_CONTROL, 1)
        except OSError:
            break
        if not message:
            break
        request = json.loads(message)
        if "end" in request:
            status = _kill_all(int(request["end"]))
            reply = {"status": _describe(status) if status is not None else None}
            shutil.rmtree(scratches.pop(int(request["end"]), "/nonexistent"), ignore_errors=True)
        else:
            request["scratch"] = _scratch(scratch_root, len(scratches), request.get("uid"))
            pid = os.fork()
            if pid == 0:
                control.close()
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                _child(request, fds[0], child.serve, readable, stdlib)
            scratches[pid] = request["scratch"]
            reply = {"pid": pid}
        for fd in fds:
            os.close(fd)
        control.sendall(json.dumps(reply).encode() + b"\n")
    _kill_all(None)
    os._exit(0)


def _scratch(root: str, n: int, uid: int | None) -> str:
    """A new private working folder for a child (its user's, when it gets another)."""
    folder = os.path.join(root, f"run-{os.getpid()}-{n}-{time.monotonic_ns()}")
    os.mkdir(folder, 0o700)
    if uid is not None and os.geteuid() == 0:
        os.chown(folder, uid, uid)
    return folder


def _kill_all(pid: int | None) -> int | None:
    """SIGKILL every process below this one until none is left (orphans come back to a
    subreaper, so a daemon that left its session is found too); `pid`'s wait status."""
    status = None
    for _ in range(10000):
        children = _children()
        if not children:
            break
        for found in children:
            try:
                os.kill(found, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for found in children:
            try:
                _, code = os.waitpid(found, 0)
            except ChildProcessError:
                continue
            if found == pid:
                status = code
    return status


def _children() -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        try:
            with open(f"/proc/{os.getpid()}/task/{task}/children", encoding="ascii") as f:
                found += [int(p) for p in f.read().split()]
        except OSError:
            pass
    return found


def _describe(status: int) -> dict[str, Any]:
    if os.WIFSIGNALED(status):
        return {"signal": signal.Signals(os.WTERMSIG(status)).name}
    return {"exit_code": os.WEXITSTATUS(status)}


# -- the child ---------------------------------------------------------------------------------
def _child(spec: dict[str, Any], fd: int, serve: Any, readable: list, stdlib: str) -> None:
    """Lock the process down, then serve the grader's requests; never returns."""
    sock = socket.socket(fileno=fd)
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for target in (0, 1, 2):
            os.dup2(null, target)
        os.closerange(3, fd)
        os.closerange(fd + 1, 1 << 16)
        _limits(spec)
        os.chdir(spec["scratch"])
        os.environ.clear()  # (the zygote started with an empty one: this is the C copy too)
        os.environ.update(HOME=spec["scratch"], TMPDIR=spec["scratch"])
        if spec.get("uid") is not None and os.geteuid() == 0:
            os.setgroups([])
            os.setgid(spec["uid"])
            os.setuid(spec["uid"])
        from minigrad.course import landlock, mounts, poison

        disabled = poison.apply_role(spec["role"])
        version = landlock.restrict(readable + [(spec["package_dir"], "read"),
                                                (spec["scratch"], "write")])
        sys.path[:] = [spec["package_dir"], stdlib, os.path.join(stdlib, "lib-dynload")]
        mounts.rebase_packages(sysconfig.get_paths()["stdlib"], stdlib)
    except BaseException as exc:  # noqa: BLE001  (the grader's fault, not the submission's)
        from minigrad.course import protocol

        protocol.send(sock, {"kind": "setup_failed", "message": repr(exc)[:500]})
        os._exit(71)
    code = 0
    try:
        serve(sock, spec, {"landlock": version, "disabled": disabled})
    except BaseException:  # noqa: BLE001  (whatever happened, the child ends here)
        code = 70
    os._exit(code)


def _limits(spec: dict[str, Any]) -> None:
    """CPU seconds, address space, file size, open files and processes; no core dumps."""
    cpu = int(spec["cpu_seconds"])
    memory = _address_space() + int(spec["memory_mb"]) * (1 << 20)
    procs = int(spec["processes"])
    if os.geteuid() != 0 or spec.get("uid") is None:  # (counted per user: add ours)
        procs += _processes_of(os.getuid())
    for limit, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, memory),
                         (resource.RLIMIT_FSIZE, int(spec["file_bytes"])),
                         (resource.RLIMIT_NOFILE, int(spec["open_files"])),
                         (resource.RLIMIT_NPROC, procs), (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(limit, (value, value))


def _address_space() -> int:
    """Bytes of address space in use now: the memory limit comes on top of it."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("cannot read VmSize from /proc/self/status")


def _processes_of(uid: int) -> int:
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                count += os.stat(f"/proc/{name}").st_uid == uid
            except OSError:
                pass
    return count


if __name__ == "__main__":
    main(int(sys.argv[1]))

"""The sandbox's parts on their own: the message format refuses what it was not made for, a
child is locked down before the submission is imported (what it may read, write, reach,
signal; its limits), and what each role disables of minigrad."""

from __future__ import annotations

import json
import re
import socket
import struct
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from minigrad.course import landlock, protocol
from minigrad.course.sandbox import Limits, Session
from tests.course.conftest import require_isolation

PROBE = '''import os, socket, resource
import numpy as np
import minigrad

found = {"env": sorted(os.environ), "cwd": os.getcwd() == os.environ["HOME"],
         "uid": os.getuid(), "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0],
         "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0]}
for name, path in (("home", "/root"), ("etc", "/etc/passwd"), ("minigrad", minigrad.__file__),
                   ("torch", "TORCH")):
    try:
        open(path).read(1)
        found[name] = "read"
    except OSError as exc:
        found[name] = type(exc).__name__
try:
    open("note.txt", "w").write("mine")
    found["scratch"] = "written"
except OSError as exc:
    found["scratch"] = type(exc).__name__
try:
    import torch
    found["import torch"] = "imported"
except Exception as exc:
    found["import torch"] = type(exc).__name__
try:
    socket.create_connection(("127.0.0.1", 1), timeout=1)
except OSError as exc:
    found["tcp"] = type(exc).__name__
x = minigrad.tensor(np.ones(2), requires_grad=True)
try:
    minigrad.autograd.grad([x.exp().sum()], [x])
    found["autograd"] = "ran"
except RuntimeError as exc:
    found["autograd"] = str(exc)
print(FOUND_MARK, found)


class Probe(minigrad.Function):
    pass
'''


def test_a_message_round_trips_and_keeps_its_shapes() -> None:
    a, b = socket.socketpair()
    arrays = [np.full((), 1.5, dtype=np.float32), np.arange(6.0).reshape(2, 3), np.array([True]),
              np.zeros((0, 4))]
    protocol.send(a, {"kind": "x", "cases": [1]}, arrays)
    header, got = protocol.receive(b, time.monotonic() + 5, 1 << 16, 1 << 20)
    assert header == {"kind": "x", "cases": [1]}
    assert [(g.shape, g.dtype.str) for g in got] == \
        [((), "<f4"), ((2, 3), "<f8"), ((1,), "|b1"), ((0, 4), "<f8")]
    assert all(np.array_equal(g, w) for g, w in zip(got, arrays))


def framed(header: bytes) -> bytes:
    return protocol.MAGIC + struct.pack(">I", len(header)) + header


@pytest.mark.parametrize("raw, message", [
    (b"XXXX" + struct.pack(">I", 2) + b"{}", "does not start with the format's mark"),
    (b"MGC1" + struct.pack(">I", 1 << 30), "a header of 1073741824 bytes"),
    (b"MGC1" + struct.pack(">I", 3) + b"[1]", "a header that is not a JSON object"),
    (b"MGC1" + struct.pack(">I", 2000) + b"[" * 2000, "a header that is not JSON"),
    (framed(b'{"arrays": [["|O", [1]]]}'), "an array that cannot be read"),
    (framed(b'{"arrays": [["<f8", [-1]]]}'), "an array that cannot be read"),
    (framed(b'{"arrays": [["<f8", [99999999]]]}'), "more than 1048576 bytes of arrays"),
])
def test_a_message_that_breaks_the_format_is_refused(raw: bytes, message: str) -> None:
    a, b = socket.socketpair()
    a.sendall(raw)
    with pytest.raises(protocol.ProtocolError, match=message):
        protocol.receive(b, time.monotonic() + 5, 1 << 16, 1 << 20)


def test_a_message_that_never_comes_times_out() -> None:
    a, b = socket.socketpair()
    a.sendall(protocol.MAGIC)
    started = time.monotonic()
    with pytest.raises(protocol.Timeout):
        protocol.receive(b, time.monotonic() + 0.2, 1 << 16, 1 << 20)
    assert time.monotonic() - started < 2
    with pytest.raises(protocol.ProtocolError, match="cannot send an array of dtype object"):
        protocol.encode({}, [np.array([object()])])


def test_landlock_says_what_it_covers() -> None:
    assert landlock.what_it_covers(0) == []
    assert landlock.what_it_covers(7) == ["files outside the allowed folders",
                                          "TCP connections",
                                          "signals to processes outside the sandbox"]


@pytest.fixture
def torch_path() -> str:
    import importlib.util

    spec = importlib.util.find_spec("numpy")
    return str(Path(spec.origin).parents[1] / "torch" / "__init__.py")


def probe(tmp_path: Path, torch_path: str, role: str) -> dict[str, Any]:
    package = tmp_path / "homework"
    package.mkdir(exist_ok=True)
    (package / "probe.py").write_text(PROBE.replace("TORCH", torch_path).replace(
        "FOUND_MARK", "'FOUND'"))
    with Session(Limits()) as session:
        copy = session.copy_package(package, "homework")
        child = session.spawn(role, copy, "homework", "probe", "Probe", ("x",))
        reply, _ = child.request({"kind": "load"}, [], 30)
        child.end()
    text = reply["printed"]["text"]
    assert "FOUND " in text, reply
    return eval(text.split("FOUND ", 1)[1])  # noqa: S307  (our probe's dict of strings)


def test_what_a_child_may_do(isolation: dict[str, Any], tmp_path: Path, torch_path: str
                             ) -> None:
    require_isolation(isolation, landlock_abi=6, netns=True)
    found = probe(tmp_path, torch_path, "backward")
    assert found["env"] == ["HOME", "TMPDIR"] and found["cwd"]
    assert found["scratch"] == "written"
    for secret in ("home", "etc", "minigrad", "torch"):
        assert found[secret] == "PermissionError", (secret, found)
    assert found["import torch"] in ("ModuleNotFoundError", "PermissionError", "ImportError")
    assert found["tcp"] in ("PermissionError", "OSError", "ConnectionRefusedError")
    assert found["autograd"] == "minigrad-course: delegated to minigrad's own Sum.backward"
    assert found["nproc"] <= Limits().processes or not isolation["root"]
    assert found["nofile"] == Limits().open_files
    if isolation["root"]:
        assert found["uid"] >= 1_990_000_000  # (another user, who owns nothing)
    second = probe(tmp_path, torch_path, "second")
    assert second["autograd"] == "ran"  # (the second derivative needs minigrad's backwards)


def test_the_isolation_is_reported(isolation: dict[str, Any]) -> None:
    assert set(isolation) >= {"landlock", "netns", "root", "python"}
    assert json.dumps(isolation)


COVERAGE = '''import sys
import minigrad


def subclasses(root):
    for sub in root.__subclasses__():
        yield sub
        yield from subclasses(sub)


working = {"forward": [], "backward": [], "helper": []}
for cls in subclasses(minigrad.Function):
    if cls.__module__.startswith("minigrad."):
        for name in ("forward", "backward", "backward_arrays"):
            function = getattr(getattr(cls, name, None), "__func__", getattr(cls, name, None))
            code = getattr(function, "__code__", None)
            if code is not None and code.co_filename != "<minigrad-course>" and \
                    not function.__qualname__.startswith("Function."):  # (the base's)
                working["forward" if name == "forward" else "backward"].append(
                    cls.__name__ + "." + name)
for module_name, module in list(sys.modules.items()):
    if module_name.startswith("minigrad.ops.") and module is not None:
        for name, value in vars(module).items():
            code = getattr(value, "__code__", None)
            if code is not None and getattr(value, "__module__", "") == module_name and \\
                    code.co_filename != "<minigrad-course>":
                working["helper"].append(module_name + "." + name)
print("FOUND", {k: len(v) for k, v in working.items()}, working["backward"][:5])
disk = 0
try:
    while disk < 100:
        with open(f"fill{disk}", "wb") as f:
            f.write(b"x" * (1 << 20))
        disk += 1
except OSError as exc:
    print("DISK", disk, type(exc).__name__)


class Probe(minigrad.Function):
    pass
'''


def run_probe(tmp_path: Path, role: str, code: str) -> str:
    package = tmp_path / role / "homework"
    package.mkdir(parents=True)
    (package / "probe.py").write_text(code)
    with Session(Limits()) as session:
        copy = session.copy_package(package, "homework")
        child = session.spawn(role, copy, "homework", "probe", "Probe", ("x",))
        reply, _ = child.request({"kind": "load"}, [], 60)
        child.end()
    return reply["printed"]["text"]


def test_each_role_disables_what_it_must(isolation: dict[str, Any], tmp_path: Path) -> None:
    """No built-in backward (nor a gradient helper) works where backward is checked; no
    built-in op at all where forward is; all of minigrad where the second derivative is."""
    require_isolation(isolation, landlock_abi=6)
    found = {}
    for role in ("forward", "backward", "second"):
        text = run_probe(tmp_path, role, COVERAGE)
        found[role] = eval(text.split("FOUND ", 1)[1].split("} ")[0] + "}")  # noqa: S307
        if isolation["tmpfs"]:  # (as root: the working folders are a small tmpfs)
            assert re.search(r"DISK 6[0-4] OSError", text), text
    assert found["forward"] == {"forward": 0, "backward": 0, "helper": 0}
    assert found["backward"]["backward"] == 0 and found["backward"]["forward"] > 100
    assert found["second"]["backward"] > 100 and found["second"]["helper"] > 50

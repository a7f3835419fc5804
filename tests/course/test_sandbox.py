"""The sandbox's parts on their own: the message format refuses what it was not made for, a
child is locked down before the submission is imported (what it may read, write, reach,
signal; its limits), and what each role disables of minigrad."""

from __future__ import annotations

import json
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

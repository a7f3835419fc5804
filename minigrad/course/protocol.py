"""The one message format between the grader and a sandboxed child: a JSON header and plain
numeric arrays, each message limited in size. Nothing is ever unpickled or evaluated.

    b"MGC1" | header length (4 bytes, big-endian) | header (UTF-8 JSON) | array bytes...

The header lists the arrays that follow as `"arrays": [[dtype, shape], ...]`; each array is
its raw C-order bytes. Only float32, float64, int64 and bool arrays of at most 8 dimensions
are accepted. A reader that gets anything else (too big, too deep, an unknown dtype, a broken
header) raises `ProtocolError`; one that waits past its deadline raises `Timeout`.
"""

from __future__ import annotations

import json
import math
import socket
import struct
import time
from typing import Any

import numpy as np

MAGIC = b"MGC1"
DTYPES = {"<f4": np.float32, "<f8": np.float64, "<i8": np.int64, "|b1": np.bool_}
MAX_DIMS = 8
MAX_ARRAYS = 20000


class ProtocolError(Exception):
    """A message that does not follow the format (or is too big)."""


class Timeout(Exception):
    """No whole message arrived before the deadline."""


def encode(header: dict[str, Any], arrays: list[np.ndarray] = ()) -> bytes:
    """One message: `header` (JSON-able) and `arrays` (converted to an accepted dtype)."""
    plain = [_acceptable(a) for a in arrays]
    head = json.dumps({**header, "arrays": [[a.dtype.str, list(a.shape)] for a in plain]},
                      ensure_ascii=True, allow_nan=False).encode("ascii")
    return b"".join([MAGIC, struct.pack(">I", len(head)), head] + [a.tobytes() for a in plain])


def _acceptable(a: Any) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind == "f":
        a = a if a.dtype == np.float32 else a.astype(np.float64, copy=False)
    elif a.dtype.kind in "iu":
        a = a.astype(np.int64, copy=False)
    elif a.dtype.kind != "b":
        raise ProtocolError(f"cannot send an array of dtype {a.dtype}")
    a = a.astype(a.dtype.newbyteorder("<"), copy=False)
    return a if a.flags.c_contiguous else np.array(a, order="C")  # (keeps 0-d arrays 0-d)


def send(sock: socket.socket, header: dict[str, Any], arrays: list[np.ndarray] = ()) -> None:
    sock.sendall(encode(header, arrays))


def receive(sock: socket.socket, deadline: float, max_header: int, max_bytes: int
            ) -> tuple[dict[str, Any], list[np.ndarray]]:
    """Read one message before `deadline` (time.monotonic()); `max_header` bytes of header and
    `max_bytes` of arrays at most."""
    start = _read(sock, 8, deadline)
    if start[:4] != MAGIC:
        raise ProtocolError("the message does not start with the format's mark")
    (size,) = struct.unpack(">I", start[4:])
    if size > max_header:
        raise ProtocolError(f"a header of {size} bytes (the limit is {max_header})")
    try:
        header = json.loads(_read(sock, size, deadline).decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"a header that is not JSON: {str(exc)[:100]}") from None
    if not isinstance(header, dict):
        raise ProtocolError("a header that is not a JSON object")
    specs = _specs(header.pop("arrays", []), max_bytes)
    arrays = [np.frombuffer(_read(sock, nbytes, deadline), dtype=dtype).reshape(shape)
              for dtype, shape, nbytes in specs]
    return header, arrays


def _specs(raw: Any, max_bytes: int) -> list[tuple[Any, tuple[int, ...], int]]:
    if not isinstance(raw, list) or len(raw) > MAX_ARRAYS:
        raise ProtocolError("the list of arrays is not a list, or too long")
    specs, total = [], 0
    for item in raw:
        if not (isinstance(item, list) and len(item) == 2 and item[0] in DTYPES
                and isinstance(item[1], list) and len(item[1]) <= MAX_DIMS
                and all(type(n) is int and 0 <= n < 2**31 for n in item[1])):
            raise ProtocolError(f"an array that cannot be read: {str(item)[:80]}")
        dtype = np.dtype(DTYPES[item[0]]).newbyteorder("<")
        nbytes = math.prod(item[1]) * dtype.itemsize
        total += nbytes
        if total > max_bytes:
            raise ProtocolError(f"more than {max_bytes} bytes of arrays")
        specs.append((dtype, tuple(item[1]), nbytes))
    return specs


def _read(sock: socket.socket, n: int, deadline: float) -> bytes:
    buffer = bytearray(n)
    view, got = memoryview(buffer), 0
    while got < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise Timeout()
        sock.settimeout(left)
        try:
            count = sock.recv_into(view[got:], n - got)
        except TimeoutError:
            raise Timeout() from None
        except OSError as exc:
            raise ProtocolError(f"the connection failed: {exc}") from None
        if count == 0:
            raise ProtocolError("the other side closed the connection")
        got += count
    return bytes(buffer)

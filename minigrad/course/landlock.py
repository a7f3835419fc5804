"""Landlock (Linux 5.13 and later): a process gives up, for itself and every process it starts,
the right to touch files outside a few folders, to open TCP connections (ABI 4) and to signal
processes outside its own sandbox (ABI 6). No root is needed, and nothing can undo it.

Only `restrict` is used, by the sandboxed child just before it imports a submission (see
sandbox.py). The kernel's interface is three system calls, called here through ctypes.
"""

from __future__ import annotations

import ctypes
import os
import platform

# x86_64 and aarch64 share these numbers (the generic system call table)
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

# filesystem rights, and the ABI version that knows each one
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_RIGHTS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1,
             5: (1 << 16) - 1}
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1


class _Ruleset(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL | None:
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64"):
        return None
    return ctypes.CDLL(None, use_errno=True)


def abi() -> int:
    """The Landlock ABI version this kernel offers; 0 when there is none (or it is off)."""
    libc = _libc()
    if libc is None:
        return 0
    version = libc.syscall(CREATE_RULESET, None, ctypes.c_size_t(0), CREATE_RULESET_VERSION)
    return max(int(version), 0)


def what_it_covers(version: int) -> list[str]:
    """In words, what a Landlock sandbox of this ABI version keeps a submission from."""
    if version <= 0:
        return []
    covers = ["files outside the allowed folders"]
    if version >= 4:
        covers.append("TCP connections")
    if version >= 6:
        covers.append("signals to processes outside the sandbox")
    return covers


MODES = ("list", "read", "write")


def restrict(rules: list[tuple[str, str]]) -> int:
    """From now on allow only what `rules` allow: each is (path, mode), mode "list" (a folder's
    names, no file's content), "read" (files and folders below it) or "write" (everything
    below it); no program may be executed, no TCP port bound or connected (ABI 4) and no
    signal sent outside (ABI 6). Returns the ABI version used; 0 when Landlock is unavailable
    (then nothing is restricted). Paths that do not exist are left out."""
    libc = _libc()
    version = abi()
    if libc is None or version <= 0:
        return 0
    fs = FS_RIGHTS[min(version, 5)]
    file_rights = WRITE_FILE | READ_FILE | ((1 << 14) if version >= 3 else 0)
    rights = {"list": READ_DIR, "read": READ_FILE | READ_DIR, "write": fs & ~EXECUTE}
    net = NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 else 0
    attr = _Ruleset(fs, net, scoped)
    size = ctypes.sizeof(_Ruleset) if version >= 6 else (16 if version >= 4 else 8)
    ruleset = libc.syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for path, mode in rules:
            if not os.path.exists(path):
                continue
            allowed = rights[mode] if os.path.isdir(path) else rights[mode] & file_rights
            if not allowed:
                continue
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneath(allowed, fd)
                if libc.syscall(ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0):
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule {path} failed")
            finally:
                os.close(fd)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0):
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if libc.syscall(RESTRICT_SELF, ruleset, 0):
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return version

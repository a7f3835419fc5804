"""What a sandboxed child can read, and from where: Python's standard library and numpy.

When the grader runs as root, a child runs as another user who owns nothing; that user must
still be able to read the standard library (a submission may import `fractions`). Where the
library sits in a folder only root may enter (pyenv under /root), the zygote binds it,
read-only, into its own (private) mount namespace under the session's folder, which that
user may enter. `rules` turns the result into Landlock rules (landlock.py).
"""

from __future__ import annotations

import ctypes
import os
import stat
import sysconfig

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18


def world_readable(path: str) -> bool:
    """Whether any user may read `path` (a folder): it and every folder above it are open
    to others."""
    path = os.path.abspath(path)
    try:
        if (os.stat(path).st_mode & (stat.S_IROTH | stat.S_IXOTH)) != \
                stat.S_IROTH | stat.S_IXOTH:
            return False
        while path != "/":
            path = os.path.dirname(path)
            if not os.stat(path).st_mode & stat.S_IXOTH:
                return False
    except OSError:
        return False
    return True


def stdlib_for_children(folder: str) -> tuple[str, bool]:
    """Where children read the standard library from, and whether another user may: the
    library itself, or (as root, when it is closed to others) a read-only bind of it in
    `folder`, in a mount namespace of this process's own."""
    stdlib = sysconfig.get_paths()["stdlib"]
    if world_readable(stdlib) or os.geteuid() != 0:
        return stdlib, world_readable(stdlib)
    target = os.path.join(folder, "stdlib")
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        os.makedirs(target, mode=0o755, exist_ok=True)
        os.chmod(target, 0o755)
        _own_namespace()
        if libc.mount(stdlib.encode(), target.encode(), None, MS_BIND | MS_REC, None) or \
                libc.mount(None, target.encode(), None,
                           MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, None):
            raise OSError(ctypes.get_errno(), "mount")
    except OSError:
        return stdlib, False
    return target, world_readable(target)


_namespace: list[bool] = []


def _own_namespace() -> None:
    """This process in a mount namespace of its own (once), whose mounts nobody else sees."""
    if _namespace:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) or libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None):
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    _namespace.append(True)


def private_tmp(folder: str, megabytes: int) -> bool:
    """A tmpfs of at most `megabytes` on `folder` (as root): the children's working folders,
    so that a submission cannot fill the disk. False where it cannot be made."""
    if os.geteuid() != 0:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        _own_namespace()
        if libc.mount(b"tmpfs", folder.encode(), b"tmpfs", 0,
                      f"size={megabytes}m,mode=0711".encode()):
            raise OSError(ctypes.get_errno(), "mount tmpfs")
    except OSError:
        return False
    return True


def numpy_folders() -> list[str]:
    import numpy

    here = os.path.dirname(numpy.__file__)
    return [p for p in (here, here + ".libs", os.path.join(os.path.dirname(here), "numpy.libs"))
            if os.path.isdir(p)]


def rules(stdlib: str) -> list[tuple[str, str]]:
    """What a child may read, as Landlock rules: the standard library (not the site-packages
    inside it) and numpy. Never minigrad's source (every module a child uses is imported
    already), never another package (torch has an autograd of its own)."""
    found = [(stdlib, "list")]  # (its names: the importer lists it; the contents below)
    found += [(os.path.join(stdlib, name), "read") for name in sorted(os.listdir(stdlib))
              if name not in ("site-packages", "dist-packages")]
    return found + [(path, "read") for path in numpy_folders()]


def rebase_packages(original: str, seen_as: str) -> None:
    """Packages imported from `original` (the zygote's view of the standard library) find
    their submodules under `seen_as` (a child's): `json`, `encodings`... keep working."""
    import sys

    if original == seen_as:
        return
    for module in list(sys.modules.values()):
        path = getattr(module, "__path__", None)
        if isinstance(path, list):
            path[:] = [seen_as + p[len(original):] if p.startswith(original + os.sep) else p
                       for p in path]

"""The keyword names a function takes, minigrad's and PyTorch's (tests/core/test_keyword_names.py).

minigrad's are its signatures. PyTorch's come from `inspect.signature` where torch has one
(functions written in Python); its C-bound functions have none, and their docstrings and ATen
schemas name arguments the Python binding does not take (`Tensor.mul(value)`, `clone(out=)`),
so those are asked of torch itself: it is called with every candidate name as a keyword and
its parser's errors are read. An unexpected keyword is dropped, an argument of the wrong type
gets a value of the type asked for, a list of overloads is read whole, and once the parser is
past the arguments (any other error) the names left are the ones it took. torch is passed in:
minigrad never imports it.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

__all__ = ["Names", "minigrad_names", "torch_names"]


class Names:
    """One callable's keyword names (`open_ended`: it also takes **kwargs)."""

    def __init__(self, names: set[str], open_ended: bool = False) -> None:
        self.names, self.open_ended = names, open_ended


class _Odd:
    """A value of no type torch's argument parser takes."""


def _samples(torch: Any) -> dict[str, Callable[[], Any]]:
    return {"Tensor": lambda: torch.ones(2, 2), "int": lambda: 0, "float": lambda: 1.0,
            "Number": lambda: 1, "bool": lambda: False, "tuple of ints": lambda: (2, 2),
            "torch.dtype": lambda: torch.float32, "str": lambda: "x",
            "torch.memory_format": lambda: torch.preserve_format, "torch.device": lambda: "cpu",
            "torch.layout": lambda: torch.strided, "torch.Generator": lambda: None,
            "tuple of Tensors": lambda: (torch.ones(2, 2), torch.ones(2, 2)),
            "Generator": lambda: None}
# values for arguments torch's errors do not name: "must be real number, not _Odd"
_BY_NAME = {"data": lambda torch: [1.0], "dtype": lambda torch: torch.float32}


def _signature(fn: Any, method: bool) -> inspect.Signature | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    return sig.replace(parameters=params[1:] if method and params else params)


def _keywords(sig: inspect.Signature) -> Names:
    params = sig.parameters.values()
    return Names({p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD,
                                                           p.POSITIONAL_ONLY)},
                 any(p.kind is p.VAR_KEYWORD for p in params))


def minigrad_names(fn: Any, method: bool = False) -> Names | None:
    """The names minigrad's `fn` takes as keywords (a method's self left out)."""
    sig = _signature(fn, method)
    return None if sig is None else _keywords(sig)


def _listed(text: str) -> set[str]:
    """The argument names of the signatures torch's parser lists in an error."""
    names = set()
    for line in re.findall(r"^(?: \* |but expected )\((.*)\)$", text, re.M):
        for part in line.split(","):
            part = part.split("=")[0].strip()
            if part and part != "*":
                names.add(part.split()[-1])
    return names


def _asked(fn: Callable, candidates: set[str], torch: Any) -> set[str] | None:
    """The names among `candidates` (and any it says are missing) torch's parser takes."""
    kwargs: dict[str, Any] = {n: _Odd() for n in candidates}
    samples, tried = _samples(torch), {}
    for _ in range(60):
        try:
            fn(**kwargs)
            return set(kwargs)
        except TypeError as e:
            said = str(e)
            if "expected one of:" in said or "but expected (" in said:
                return _listed(said[said.index("but expected"):])
            if "takes no keyword arguments" in said:
                return set()
            if m := re.search(r"unexpected keyword argument '([^']+)'", said):
                if m.group(1) in kwargs:
                    del kwargs[m.group(1)]
                    continue
            if m := re.search(r"unrecognized keyword arguments: (.*)", said):
                # (it also lists a name whose value fits no overload: a number, then a tensor,
                # is tried before the name is dropped)
                name = m.group(1).split(", ")[0].strip()
                tries = tried.setdefault(name, [torch.ones(2, 2), 1])
                if tries:
                    kwargs[name] = tries.pop()
                else:
                    kwargs.pop(name, None)
                continue
            if m := re.search(r"argument '(\w+)' (?:\(position \d+\) )?must be (.+?), not", said):
                name, kind = m.groups()
                if kind in samples and isinstance(kwargs.get(name), _Odd):
                    kwargs[name] = samples[kind]()
                    continue
            if m := re.search(r"missing \d+ required positional arguments?: (.*)", said):
                kwargs.update((n, _Odd()) for n in re.findall(r'"(\w+)"', m.group(1)))
                continue
            odd = [n for n in _BY_NAME if isinstance(kwargs.get(n), _Odd)]
            if odd:
                kwargs[odd[0]] = _BY_NAME[odd[0]](torch)
                continue
            _asked.last = said  # type: ignore[attr-defined]
            return None
        except Exception:  # (past the parser: a shape or value error)
            return set(kwargs)
    return None


def _schema_names(torch: Any, name: str, method: bool) -> set[str]:
    found = set()
    for schema in torch._C._jit_get_schemas_for_operator("aten::" + name):
        args = schema.arguments
        if not args or args[0].name != "self":
            continue
        for a in args:
            writes = a.alias_info is not None and a.alias_info.is_write and a.kwarg_only
            found.add("out" if writes else "input" if a.name == "self" else a.name)
    return found - {"self"} - ({"input", "out"} if method else set())


def _doc_names(fn: Any, name: str) -> set[str]:
    found = set()
    for sig in re.findall(rf"^\s*{re.escape(name)}\((.*)\)\s*->", fn.__doc__ or "", re.M):
        for part in sig.split(","):
            part = part.split("=")[0].split(":")[0].strip().lstrip("*")
            if part and part != "/":
                found.add(part)
    return found


def torch_names(torch: Any, fn: Any, name: str, bound: Callable | None = None,
                guesses: set[str] = frozenset()) -> Names | None:
    """The names torch's `fn` takes as keywords. `bound`: a method, bound to a sample tensor
    (asked in its place); `guesses`: more names to try (minigrad's own)."""
    sig = _signature(fn, bound is not None)
    if sig is not None:
        return _keywords(sig)
    method = bound is not None
    candidates = _doc_names(fn, name) | _schema_names(torch, name, method) | set(guesses)
    asked = _asked(bound or fn, candidates - {"self"}, torch)
    return None if asked is None else Names(asked - {"self"})

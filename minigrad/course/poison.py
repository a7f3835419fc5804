"""What minigrad can no longer do inside a sandboxed child, so that a submission cannot hand its
work to minigrad's own ops (the exercise is to write them).

- In the child that checks forward ("forward" role), every built-in op's forward and backward
  stops working, and so does every function of minigrad's op modules (a stable softmax's
  numpy helper too): forward is written with numpy, so a forward that calls `x.exp()` (or an
  `apply` that returns `x.exp()`) gets an error that names the op.
- In the child that checks the first derivative ("backward" role), every built-in op's
  backward (and the numpy helpers that only backwards use) stops working, but forwards still
  work: a backward may compute `grad * x.exp()`, but neither call minigrad's autograd on
  `x.exp()` nor let an overridden `apply` bring in minigrad's own ExpBackward.
- The child that checks the second derivative has everything (minigrad's backwards are how
  a backward made of Tensor operations is differentiated); that check counts only when the
  first derivative passed in the "backward" child.

The code objects of those functions are replaced (`function.__code__`), not just the class
attributes, so a reference found another way (gc, a module's globals) is just as broken, and
the originals are gone from the child: minigrad's source files are not readable there.
The zygote prepares the table once (`prepare`); a child applies it (`apply_role`).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

MARK = "minigrad-course: delegated to minigrad's own "  # (the grader recognises this)
OP_MODULES = ("minigrad.ops.", "minigrad.broadcast", "minigrad.nn.")
HELPER_WORDS = ("grad", "backward")

_table: dict[str, list[tuple[types.FunctionType, types.CodeType]]] = {}


def _functions(root: type) -> Iterator[type]:
    for sub in root.__subclasses__():
        yield sub
        yield from _functions(sub)


def _raiser(name: str, code: types.CodeType) -> types.CodeType:
    """A code object that raises the delegation error naming `name`, with as many free
    variables as `code` (a closure's code can only be replaced by one that has as many)."""
    fn = code.co_name if code.co_name.isidentifier() else "disabled"
    free = [f"v{i}" for i in range(len(code.co_freevars))]
    cells = "".join(f"    {v} = None\n" for v in free)
    uses = f"        ({', '.join(free)},)\n" if free else ""
    source = (f"def outer():\n{cells}"
              f"    def {fn}(*args, **kwargs):\n{uses}"
              f"        raise RuntimeError({MARK + name!r})\n"
              f"    return {fn}\n")
    namespace: dict = {}
    exec(compile(source, "<minigrad-course>", "exec"), namespace)  # noqa: S102 (our text)
    return namespace["outer"]().__code__


def _plain(attr: object) -> types.FunctionType | None:
    function = getattr(attr, "__func__", attr)  # (a staticmethod or classmethod's function)
    return function if isinstance(function, types.FunctionType) else None


def prepare(function_base: type) -> None:
    """Build the table of what each role disables, from the built-in Function subclasses of
    `function_base` (minigrad.Function) and the gradient helpers of minigrad's op modules."""
    forwards, backwards = [], []
    for cls in _functions(function_base):
        if not cls.__module__.startswith("minigrad."):
            continue
        for attr, into in (("forward", forwards), ("backward", backwards),
                           ("backward_arrays", backwards)):
            function = _plain(cls.__dict__.get(attr))
            if function is not None:
                into.append((function, _raiser(f"{cls.__name__}.{attr}", function.__code__)))
    helpers = []  # (the numpy functions of the op modules: any of them in forward's child)
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith(OP_MODULES) or module is None:
            continue
        for name, value in vars(module).items():
            function = _plain(value)
            if function is None or function.__module__ != module_name:
                continue
            exported = getattr(sys.modules["minigrad"], name, None)  # (maybe out='s wrapper)
            public = value in (exported, getattr(exported, "__wrapped__", None))
            label = f"minigrad.{name}" if public else f"{module_name}.{name}"
            entry = (function, _raiser(label, function.__code__))
            helpers.append(entry)
            if module_name.startswith("minigrad.ops.") and \
                    any(word in name for word in HELPER_WORDS):
                backwards.append(entry)
    _table.update(forward=forwards + backwards + helpers, backward=backwards, second=[])


def apply_role(role: str) -> int:
    """Disable what `role` ("forward", "backward", "second") may not use; how many functions."""
    entries = _table.get(role, [])
    for function, raiser in entries:
        function.__code__ = raiser
    return len(entries)


def delegated_to(message: str) -> str | None:
    """The built-in op named in a delegation error's message, or None for another error."""
    return message[len(MARK):].strip()[:80] if message.startswith(MARK) else None

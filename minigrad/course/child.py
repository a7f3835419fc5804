"""Inside the sandbox: import the submission's op and answer the grader's requests.

Nothing here decides a grade: the child only runs the student's op on the arrays it is sent
and sends back what came out (values, gradients, or what went wrong). The grader compares
those with its own expected values. A submission may patch anything in this process: all it
can change is what the grader is told, and a wrong answer scores nothing.

Requests (protocol.py), each a list of cases `{"n": inputs, "params": settings}` whose arrays
follow in order:
- load: import `package.module` and find the class; is it a Function, does it override apply?
- forward: `Op.apply(*inputs, **params)` -> the output array;
- vjp: the same, then minigrad's autograd with a given `grad` -> what the student's backward
  returned (one gradient per input, its count, type and shape checked);
- vjp2: the first derivative with create_graph=True, then for each input i the derivative of
  sum(gradient_i * v_i) with respect to every input and to grad (the second derivative);
- time: the vjp of one case `repeat` times (the grader times the whole request).
"""

from __future__ import annotations

import importlib
import io
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

import numpy as np

import minigrad
from minigrad.course import poison, protocol

MAX_REQUEST_HEADER = 1 << 24
MAX_REQUEST_BYTES = 1 << 30
MAX_PRINTED = 2000
MAX_TEXT = 300


class CheckFailure(Exception):
    """What the student's op returned does not fit (count, type or shape of a result)."""

    def __init__(self, reason: str, **details: Any) -> None:
        super().__init__(reason)
        self.reason, self.details = reason, details


class Bounded(io.TextIOBase):
    """A text stream that keeps the first `limit` characters written and counts the rest."""

    def __init__(self, limit: int = MAX_PRINTED) -> None:
        self.limit, self.kept, self.dropped, self.sent = limit, io.StringIO(), 0, 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        room = max(self.limit - self.kept.tell(), 0)
        self.kept.write(text[:room])
        self.dropped += max(len(text) - room, 0)
        return len(text)

    def take(self) -> dict[str, Any]:
        """What was printed since the last take (and how much was dropped in all)."""
        text = self.kept.getvalue()
        new, self.sent = text[self.sent:], len(text)
        return {"text": new, "dropped": self.dropped}


class State:
    """The student's class (or why there is none), for every request of this child."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.names = tuple(spec["inputs"])
        self.folder = Path(spec["package_dir"]).resolve()
        self.cls: Any = None
        self.checked: Any = None
        self.error: dict[str, Any] | None = None
        self.raw: tuple = ()


def serve(sock: Any, spec: dict[str, Any], sandbox: dict[str, Any]) -> None:
    """Answer requests until the grader says bye (or closes the connection)."""
    printed = Bounded()
    sys.stdout = sys.stderr = printed
    warnings.simplefilter("ignore")  # (numpy's overflow warnings are not the student's print)
    state = State(spec)
    _load(state, spec)
    while True:
        try:
            header, arrays = protocol.receive(sock, time.monotonic() + 86400.0,
                                              MAX_REQUEST_HEADER, MAX_REQUEST_BYTES)
        except (protocol.ProtocolError, protocol.Timeout):
            return
        kind = header.get("kind")
        if kind == "bye":
            return
        if kind == "load":
            reply, out = _describe(state, sandbox), []
        elif state.error is not None:
            reply, out = {"error": state.error}, []
        else:
            reply, out = _cases(state, kind, header, arrays)
        reply["printed"] = printed.take()
        protocol.send(sock, reply, out)


def _load(state: State, spec: dict[str, Any]) -> None:
    where = {"file": f"{spec['package']}/{spec['module']}.py", "cls": spec["class"]}
    try:
        module = importlib.import_module(f"{spec['package']}.{spec['module']}")
        cls = getattr(module, spec["class"], None)
        if not (isinstance(cls, type) and issubclass(cls, minigrad.Function)):
            state.error = {"reason": "no_class", **where}
            return
        state.cls, state.checked = cls, _checked(cls, state)
    except BaseException as exc:  # noqa: BLE001  (a SyntaxError, an ImportError, an exit...)
        state.error = {"reason": "import_error", **where,
                       "error": _import_failure(exc, state.folder)}


def _describe(state: State, sandbox: dict[str, Any]) -> dict[str, Any]:
    if state.error is not None:
        return {"error": state.error, "sandbox": sandbox}
    mro = state.cls.__mro__
    own = mro[:mro.index(minigrad.Function)]
    overriding = [k.__name__ for k in own if "apply" in vars(k)]
    return {"ok": True, "apply_overridden": overriding, "sandbox": sandbox}


def _checked(cls: type, state: State) -> type:
    """`cls` with what its backward returns kept, and checked: one gradient per input, each a
    Tensor of its input's shape (the engine would otherwise sum a broadcast gradient for the
    student, as PyTorch's does)."""
    names = state.names

    class Checked(cls):  # type: ignore[misc, valid-type]
        @staticmethod
        def forward(ctx: Any, *args: Any, **params: Any) -> Any:
            ctx.course_shapes = tuple(tuple(a.shape) for a in args)
            return cls.forward(ctx, *args, **params)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            grads = cls.backward(ctx, grad)
            given = grads if isinstance(grads, tuple) else (grads,)
            if len(given) != len(names):
                raise CheckFailure("grad_count", expected=len(names), got=len(given))
            for name, g, shape in zip(names, given, ctx.course_shapes):
                if not isinstance(g, minigrad.Tensor):
                    raise CheckFailure("grad_type", input=name, got=type(g).__name__)
                if tuple(g.shape) != shape:
                    raise CheckFailure("grad_shape", input=name, expected=list(shape),
                                       got=list(g.shape))
            state.raw = given
            return grads

    return Checked


# -- the requests -------------------------------------------------------------------------------
def _cases(state: State, kind: Any, header: dict[str, Any], arrays: list[np.ndarray]
           ) -> tuple[dict[str, Any], list[np.ndarray]]:
    run = {"forward": _forward, "vjp": _vjp, "vjp2": _vjp2}.get(kind)
    if kind == "time":
        return _time(state, header, arrays)
    if run is None:
        return {"error": {"reason": "bad_request"}}, []
    results: list[dict[str, Any]] = []
    out: list[np.ndarray] = []
    at = 0
    for case in header.get("cases", []):
        n = int(case["n"])  # (the case's arrays: its inputs, then grad, then directions)
        inputs, at = arrays[at:at + n], at + n
        params = {k: tuple(v) if isinstance(v, list) else v for k, v in case["params"].items()}
        try:
            got = run(state, inputs, params)
        except BaseException as exc:  # noqa: BLE001  (the student's code may raise anything)
            results.append({"error": _failure(exc, state.folder)})
            if header.get("stop_at_error", True):
                break
            continue
        results.append({"count": len(got)})
        out += got
    return {"results": results}, out


def _tensors(state: State, arrays: list[np.ndarray]) -> list[Any]:
    return [minigrad.tensor(np.array(a), requires_grad=True) for a in arrays]


def _made_by(out: Any, cls: type) -> None:
    """The output must come from `cls`'s own node, made by minigrad's Function.apply."""
    if not isinstance(out, minigrad.Tensor):
        raise CheckFailure("forward_type", got=type(out).__name__)
    if getattr(type(out.grad_fn), "_function", None) is not cls:
        raise CheckFailure("not_recorded", node=type(out.grad_fn).__name__)


def _forward(state: State, arrays: list[np.ndarray], params: dict[str, Any]) -> list:
    out = state.cls.apply(*_tensors(state, arrays), **params)
    _made_by(out, state.cls)
    return [np.array(out.array)]


def _vjp(state: State, arrays: list[np.ndarray], params: dict[str, Any]) -> list:
    *inputs, grad = arrays
    xs = _tensors(state, inputs)
    out = state.checked.apply(*xs, **params)
    _made_by(out, state.checked)
    state.raw = ()
    minigrad.autograd.grad([out], xs, [minigrad.tensor(np.array(grad))], allow_unused=True)
    if len(state.raw) != len(xs):
        raise CheckFailure("backward_not_called")
    return [np.array(out.array)] + [np.array(g.array) for g in state.raw]


def _vjp2(state: State, arrays: list[np.ndarray], params: dict[str, Any]) -> list:
    n = len(state.names)
    inputs, grad, directions = arrays[:n], arrays[n], arrays[n + 1:]
    xs = _tensors(state, inputs)
    g = minigrad.tensor(np.array(grad), requires_grad=True)
    out = state.checked.apply(*xs, **params)
    _made_by(out, state.checked)
    grads = minigrad.autograd.grad([out], xs, [g], create_graph=True, allow_unused=True)
    result = []
    for gi, v in zip(grads, directions):
        if gi is None or not gi.requires_grad:
            result += [np.zeros_like(a) for a in inputs] + [np.zeros_like(grad)]
            continue
        s = (gi * minigrad.tensor(np.array(v))).sum()
        found = minigrad.autograd.grad([s], xs + [g], retain_graph=True, allow_unused=True)
        result += [np.zeros_like(a) if d is None else np.array(d.array)
                   for a, d in zip(inputs + [grad], found)]
    return result


def _time(state: State, header: dict[str, Any], arrays: list[np.ndarray]
          ) -> tuple[dict[str, Any], list[np.ndarray]]:
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in header["params"].items()}
    got: list = []
    try:
        for _ in range(int(header["repeat"])):
            got = _vjp(state, arrays, params)
    except BaseException as exc:  # noqa: BLE001
        return {"results": [{"error": _failure(exc, state.folder)}]}, []
    return {"results": [{"count": len(got)}]}, got


# -- what went wrong ----------------------------------------------------------------------------
def _failure(exc: BaseException, folder: Path) -> dict[str, Any]:
    if isinstance(exc, CheckFailure):
        return {"reason": exc.reason, **exc.details}
    message = str(exc)
    name = poison.delegated_to(message)
    if name is not None:
        return {"reason": "delegation", "name": name}
    where = student_frame(exc, folder)
    if isinstance(exc, NotImplementedError) and where:
        return {"reason": "not_implemented", "function": where["function"]}
    return {"reason": "exception", "type": type(exc).__name__,
            "message": message.strip()[:MAX_TEXT], "where": where}


def _import_failure(exc: BaseException, folder: Path) -> dict[str, Any]:
    where = student_frame(exc, folder)
    if isinstance(exc, SyntaxError) and exc.filename:
        path = Path(exc.filename).resolve()
        where = {"file": path.relative_to(folder).as_posix()
                 if path.is_relative_to(folder) else path.name,
                 "line": exc.lineno, "code": (exc.text or "").strip()[:MAX_TEXT], "function": ""}
    return {"type": type(exc).__name__, "message": str(exc).strip()[:MAX_TEXT], "where": where}


def student_frame(exc: BaseException, folder: Path) -> dict[str, Any] | None:
    """The deepest traceback frame in the submission's files: file, line, code, function."""
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename)
        if path.is_relative_to(folder):
            found = {"file": path.relative_to(folder).as_posix(), "line": frame.lineno,
                     "code": (frame.line or "").strip()[:MAX_TEXT], "function": frame.name}
    return found

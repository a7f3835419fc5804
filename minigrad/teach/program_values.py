"""Values as Python source, for `Trace.to_python()`: settings, numbers and whole arrays, each
written so that it reads back bit for bit (`np.array([0.1, 2.0], dtype=np.float32)` gives the
very float32 values the trace recorded).
"""

from __future__ import annotations

from typing import Any

import numpy as np

WIDTH = 96  # the longest line an array is written in
NESTED = 24  # arrays up to this many elements are written as nested lists, larger ones flat


def source(value: Any) -> str:
    """A setting as Python source: `1`, `(0, 2)`, `True`, `0.5`, `slice(1, 3, None)`."""
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return float_text(float(value))
    if isinstance(value, tuple):
        inner = ", ".join(source(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(source(v) for v in value) + "]"
    if isinstance(value, slice):
        return f"slice({source(value.start)}, {source(value.stop)}, {source(value.step)})"
    if value is Ellipsis:
        return "..."
    if isinstance(value, np.dtype):
        return dtype_text(value)
    if isinstance(value, np.ndarray):
        return array_text(value)
    return repr(value)


def float_text(v: float) -> str:
    """A Python float as source that reads back as the same float."""
    if v != v:
        return "np.nan"
    if v in (float("inf"), float("-inf")):
        return "np.inf" if v > 0 else "-np.inf"
    return repr(v)


def dtype_text(dtype: Any) -> str:
    """`np.float32`, `np.int64`, `np.bool_`."""
    if dtype is None:
        return "None"
    name = np.dtype(dtype).name
    return "np.bool_" if name == "bool" else f"np.{name}"


def number_text(v: Any, dtype: np.dtype) -> str:
    """One element of an array of `dtype` as source: the shortest text that numpy reads back
    as the same value of that dtype (a float32's `0.1`, not `0.10000000149011612`)."""
    if dtype.kind == "b":
        return str(bool(v))
    if dtype.kind in "iu":
        return str(int(v))
    f = float(v)
    if f != f or f in (float("inf"), float("-inf")) or dtype == np.float64:
        return float_text(f)
    short = str(dtype.type(v))
    back = np.array(float(short), dtype)
    if back.tobytes() == np.array(v, dtype).tobytes():
        return short
    return repr(f)  # (a float32 is exactly a float64: its full text always reads back)


def array_text(a: np.ndarray, indent: int = 0) -> str:
    """`np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)`; a large array as its values in
    a row, `.reshape(...)`d; lines wrapped to `WIDTH`, continued `indent + 4` spaces in."""
    a = np.asarray(a)
    dtype = dtype_text(a.dtype)
    if a.size == 0:
        return f"np.zeros({source(a.shape)}, dtype={dtype})"
    if a.ndim == 0:
        return f"np.array({number_text(a.item(), a.dtype)}, dtype={dtype})"
    flat = [number_text(v, a.dtype) for v in a.reshape(-1).tolist()]
    if a.size <= NESTED or a.ndim == 1:
        body = _nested(flat, a.shape)
        tail = f", dtype={dtype})"
    else:
        body = "[" + ", ".join(flat) + "]"
        tail = f", dtype={dtype}).reshape{source(a.shape)}"
    return _wrap("np.array(" + body + tail, indent)


def _nested(flat: list[str], shape: tuple) -> str:
    if len(shape) == 1:
        return "[" + ", ".join(flat) + "]"
    step = len(flat) // shape[0]
    return "[" + ", ".join(_nested(flat[i:i + step], shape[1:])
                           for i in range(0, len(flat), step)) + "]"


def _wrap(text: str, indent: int) -> str:
    """Break a long one-line array after commas, so no line passes `WIDTH`."""
    limit = WIDTH - indent
    if len(text) <= limit:
        return text
    lines, line = [], ""
    for piece in text.split(", "):
        candidate = piece if not line else f"{line}, {piece}"
        if len(candidate) + 1 > limit and line:
            lines.append(line + ",")
            line = piece
            limit = WIDTH - indent - 4
        else:
            line = candidate
    lines.append(line)
    return ("\n" + " " * (indent + 4)).join(lines)

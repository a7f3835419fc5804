"""Format arrays the way PyTorch prints tensors: `tensor([ 4., 10., 18.])`, `tensor(1.5000)`.

Used by `Tensor.__repr__` and by the explanations, so both read like what a PyTorch user
already knows. The rules follow `torch/_tensor_str.py`: integral floats print as `4.`, others
with 4 decimals, scientific notation when the range is wide, every element padded to one
width, long tensors summarised with `...`.
"""

from __future__ import annotations

import math

import numpy as np

LINE_WIDTH = 80
THRESHOLD = 1000
EDGE_ITEMS = 3


def _float_format(values: np.ndarray) -> tuple[str, bool]:
    """Pick `{:.0f}.`, `{:.4f}` or `{:.4e}` for a float array; say if integers."""
    finite = values[np.isfinite(values)]
    nonzero = np.abs(finite[finite != 0])
    if nonzero.size == 0:
        return "{:.0f}.", True
    lo, hi = float(nonzero.min()), float(nonzero.max())
    integral = bool(np.all(np.ceil(finite) == finite))
    if integral:
        if hi / lo > 1000.0 or hi > 1.0e8:
            return "{:.4e}", False
        return "{:.0f}.", True
    if hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4:
        return "{:.4e}", False
    return "{:.4f}", False


class _Formatter:
    """Formats single elements of one array at one common width. As in PyTorch, a tensor of
    more than THRESHOLD elements is formatted from the corners it prints alone (so printing
    `ones(1).expand(10**5, 10**5)` reads 36 elements, not 10**10)."""

    def __init__(self, values: np.ndarray) -> None:
        self.kind = values.dtype.kind
        # (as PyTorch: a summarised tensor's format is decided by the items it shows)
        shown = np.asanyarray(_summary(values) if values.size > THRESHOLD else values)
        if self.kind == "f":
            self.fmt, _ = _float_format(shown.astype(np.float64).ravel())
        sample = shown.ravel()
        if self.kind == "f":  # (as PyTorch: only nonzero finite values set the width)
            sample = sample[np.isfinite(sample) & (sample != 0)]
        self.width = max((len(self._raw(v)) for v in sample), default=1)

    def _raw(self, value: object) -> str:
        if self.kind == "b":
            return str(bool(value))
        if self.kind != "f":
            return str(int(value))  # type: ignore[call-overload]
        v = float(value)  # type: ignore[arg-type]
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return self.fmt.format(v)

    def __call__(self, value: object) -> str:
        return self._raw(value).rjust(self.width)


def _summary(values: np.ndarray) -> np.ndarray:
    """The elements PyTorch shows of a summarised tensor: along each dim longer than
    2 * EDGE_ITEMS, its first and last EDGE_ITEMS. Only those are read (one fancy index)."""
    if values.ndim == 0:
        return values
    picks = [np.r_[0:EDGE_ITEMS, n - EDGE_ITEMS:n] if n > 2 * EDGE_ITEMS else np.arange(n)
             for n in values.shape]
    return values[np.ix_(*picks)]


def _rows(values: np.ndarray, fmt: _Formatter, indent: int, summarize: bool) -> str:
    """Bracketed text of `values` (ndim >= 1), nested rows indented by `indent`."""
    n = values.shape[0]
    cut = summarize and n > 2 * EDGE_ITEMS
    head = range(EDGE_ITEMS) if cut else range(n)
    tail = range(n - EDGE_ITEMS, n) if cut else range(0)
    if values.ndim == 1:
        items = [fmt(values[i]) for i in head] + ([" ..."] if cut else [])  # (PyTorch pads it)
        items += [fmt(values[i]) for i in tail]
        per_line = max(1, (LINE_WIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = [_rows(values[i], fmt, indent + 1, summarize) for i in head]
    parts += ["..."] if cut else []
    parts += [_rows(values[i], fmt, indent + 1, summarize) for i in tail]
    sep = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def format_values(values: np.ndarray, indent: int = 7) -> str:
    """The bracketed body PyTorch prints for `values` (without `tensor(` and suffixes)."""
    values = np.asanyarray(values)
    if values.size == 0:
        return "[]"
    fmt = _Formatter(values)
    if values.ndim == 0:
        return fmt._raw(values.item())
    return _rows(values, fmt, indent, values.size > THRESHOLD)


def tensor_repr(values: np.ndarray, suffixes: list[str], prefix: str = "tensor(") -> str:
    """`tensor(<values>, <suffixes>)` exactly as PyTorch lays it out."""
    body = format_values(values, indent=len(prefix))
    if values.size == 0 and values.shape != (0,):
        suffixes = [f"size={tuple(values.shape)}"] + suffixes
    return _laid_out(prefix, body, suffixes)


def meta_repr(shape: tuple, suffixes: list[str]) -> str:
    """A meta tensor as PyTorch prints it: `tensor(..., device='meta', size=(2, 3))`."""
    return _laid_out("tensor(", "...", ["device='meta'", f"size={tuple(shape)}", *suffixes])


def _laid_out(prefix: str, body: str, suffixes: list[str]) -> str:
    parts = [prefix + body]
    last = len(parts[0]) - parts[0].rfind("\n") + 1  # (PyTorch's count: the last line + 2)
    for suffix in suffixes:  # (a suffix that would pass the line width starts a new line)
        # (measured as PyTorch's own `dtype=torch.float64` reads, so lines break where its do)
        n = len(suffix.replace("minigrad.", "torch."))
        if last + n + 2 > LINE_WIDTH:
            parts.append(",\n" + " " * len(prefix) + suffix)
            last = len(prefix) + n
        else:
            parts.append(", " + suffix)
            last += n + 2
    return "".join(parts) + ")"

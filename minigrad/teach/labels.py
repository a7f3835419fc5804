"""Labels and source lines for a Trace: the caller's variable names, `file.py:12: y = x * w`,
labels that never repeat, and how a constant input reads (`3`, `tensor([1., 0.])`).

Shared with `compare.trace_torch`, which labels PyTorch's tensors (tensor_type=torch.Tensor).
"""

from __future__ import annotations

import linecache
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.surface.printing import format_values

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # minigrad/


def user_frame(frame: Any, user_files: frozenset[str] = frozenset()) -> Any:
    """The first frame, from `frame` outwards, that is not minigrad's own code (files in
    `user_files` count as the user's even inside minigrad: the demo's own lines)."""
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE) \
            and frame.f_code.co_filename not in user_files:
        frame = frame.f_back
    return frame


def source_line(frame: Any) -> str | None:
    """`file.py:12: y = x * w`: where `frame` is, and that line of source (None: no frame).
    In a Jupyter notebook, the cell as its prompt numbers it: `In[3]:2: y = x * w`."""
    if frame is None:
        return None
    filename = frame.f_code.co_filename
    code = linecache.getline(filename, frame.f_lineno).strip()
    return f"{_cell_name(filename) or os.path.basename(filename)}:{frame.f_lineno}: {code}"


def _cell_name(filename: str) -> str | None:
    """`In[3]` when `filename` is the code of a notebook cell (IPython compiles cell 3 under
    a name like `/tmp/ipykernel_80/3883176065.py` and keeps the number in its compiler's
    `_filename_map`, which its own tracebacks read: "Cell In[3], line 2"); else None."""
    ipython = sys.modules.get("IPython")  # (only looked at where IPython already runs)
    shell = ipython.get_ipython() if ipython is not None else None
    number = getattr(getattr(shell, "compile", None), "_filename_map", {}).get(filename)
    return f"In[{number}]" if isinstance(number, int) and number > 0 else None


def frame_names(frame: Any, tensor_type: type = Tensor) -> dict[int, str]:
    """Variable names of the tensors bound in `frame` (for labels)."""
    if frame is None:
        return {}
    return {id(v): k for k, v in list(frame.f_locals.items())
            if isinstance(v, tensor_type) and not k.startswith("_")}


def callable_names(fn: Callable, tensor_type: type = Tensor) -> dict[int, str]:
    """The names under which a callable sees tensors: its closure cells and globals."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return {}
    names: dict[int, str] = {}
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if isinstance(value, tensor_type):
            names.setdefault(id(value), name)
    scope = getattr(fn, "__globals__", {})
    for name in code.co_names:
        value = scope.get(name)
        if isinstance(value, tensor_type):
            names.setdefault(id(value), name)
    return names


class UniqueLabels:
    """Hands out labels that never repeat: a name already taken gets `_2`, `_3`, ...; no name
    (None) gets the next free `t1`, `t2`, ..."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.counter = 0

    def __call__(self, name: str | None) -> str:
        if name is None:
            self.counter += 1
            name = f"t{self.counter}"
            while name in self.used:
                self.counter += 1
                name = f"t{self.counter}"
        base, k = name, 1
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        return name


class _Unknown:
    def __repr__(self) -> str:
        return "c"


UNKNOWN = _Unknown()  # a constant input whose value was not found: reads `c`


def constant_text(value: Any) -> str:
    """How a constant input reads in source form: `3`, `0.5`, `tensor([1., 0.])`, `mask`."""
    if isinstance(value, Tensor):
        if value.name:
            return value.name
        value = value.array
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return format_values(value)
        if value.size <= 4 and value.ndim == 1:
            return f"tensor({format_values(value)})"
        return f"const{tuple(value.shape)}"
    return repr(value)

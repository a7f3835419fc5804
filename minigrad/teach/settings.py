"""An op's settings as the records keep them (`TraceNode.attrs`).

The settings are what `Function.apply` got besides the inputs (`dims`, `keepdim`, `p`, `key`,
...), as its ForwardOp event carries them, with what the narration derives from them
(`op_words.narrated_settings`: Permute's `inverse`, a step op's symbol). A node recorded before
the recording began sent no event: its settings are read from what its forward kept.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.teach.op_words import narrated_settings


def node_settings(node: Any, settings: dict | None) -> dict[str, Any]:
    """The attrs of `node` from the `settings` of its ForwardOp (None: it sent none)."""
    if settings is None:
        return _kept_settings(node)
    function = type(node)._function
    return narrated_settings(node.name(), function.__name__ if function is not None else "",
                             {k: v for k, v in settings.items() if displayable(v)})


# what a node's forward keeps for its backward that is not a setting (see `_kept_settings`)
_NOT_SETTINGS = frozenset({"next_functions", "needs_input_grad", "metadata", "in_shape",
                           "mask", "share", "result", "condition"})


def _kept_settings(node: Any) -> dict[str, Any]:
    """The settings of a node recorded before the recording began (it sent no ForwardOp): what
    its forward kept as public attributes (`dims`, `p`, ...), the bookkeeping left out."""
    return {k: v for k, v in vars(node).items()
            if k[0] != "_" and k not in _NOT_SETTINGS and displayable(v)}


def displayable(value: Any) -> bool:
    """Settings worth keeping for source forms: numbers, dims, keys, dtypes, small index
    arrays (not big arrays, not objects)."""
    if value is None or isinstance(value, bool | int | float | str | slice | np.dtype):
        return True
    if value is Ellipsis or isinstance(value, np.integer | np.floating):
        return True
    if isinstance(value, np.ndarray):
        return value.size <= 64
    if isinstance(value, tuple | list):
        return all(displayable(v) for v in value)
    return False

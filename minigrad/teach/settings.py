"""An op's settings as the records keep them (`TraceNode.attrs`).

The settings are what `Function.apply` got besides the inputs (`dims`, `keepdim`, `p`, `key`,
...), as its ForwardOp event carries them, with what the narration derives from them
(`op_words.narrated_settings`: Permute's `inverse`, a step op's symbol). A node recorded before
the recording began sent no event: its settings are the ones it keeps (`Node.settings`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.teach.op_words import narrated_settings


def node_settings(node: Any, settings: dict | None = None) -> dict[str, Any]:
    """The attrs of `node`: the `settings` of its ForwardOp, or (for a node recorded before
    the recording began, which sent none) the settings the node keeps."""
    if settings is None:
        settings = node.settings
    function = node.function
    return narrated_settings(node.display_name(), function.__name__ if function is not None else "",
                             {k: v for k, v in settings.items() if displayable(v)})


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

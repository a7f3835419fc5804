"""PyTorch's errors for a saved value that backward can no longer use: freed by an earlier
backward without retain_graph, or changed in place since it was saved (Node.unpack_saved)."""

from __future__ import annotations

import re
from typing import Any

from minigrad.autograd import hooks

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


def modified_message(value: Any, version: int) -> str:
    """The error for `value`, saved at `version`, now at another (its kind, shape, maker)."""
    kind = hooks._tensor_type(value)  # minigrad.FloatTensor, as PyTorch's torch.FloatTensor
    made_by = ""
    if value.grad_fn is not None:
        op = re.sub(r"Backward\d*$", "", value.grad_fn.name())
        made_by = f", which is output {value._output_nr} of {op},"
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{kind} {list(value.array.shape)}]{made_by} is at version "
        f"{value._version}; expected version {version} instead. Hint: enable anomaly detection to "
        "find the operation that failed to compute its gradient, with "
        "minigrad.autograd.set_detect_anomaly(True, check_nan=False)."
    )

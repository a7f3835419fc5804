"""What a node keeps besides what `Node.save_for_backward` saves (node.py): the values
PyTorch's node shows as `_saved_*` (`keep_as_pytorch`), the saved output (`output`), one saved
value unpacked alone by saved-tensor hooks (`saved_tensor`), freeing it all after backward
(`release`), and the messages of what was freed or changed in place. A mixin of `Node`, which
declares the attributes it uses.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from minigrad.autograd import hooks
from minigrad.autograd import tensor as _tensor
from minigrad.autograd.forward_ad import set_tangent
from minigrad.autograd.saved_tensor_hooks import unpack

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class SavedValues:
    """Node's saving and unpacking (see the module docstring)."""

    def keep_as_pytorch(self, /, **values: Any) -> None:
        """Keep what PyTorch's node saves that this op's backward does not need (`self=x`,
        `indices=...`), for `grad_fn._saved_*` (saved_names.py); freed by backward."""
        if self._keeps_saved:
            self._as_pytorch = {**(self._as_pytorch or {}), **values}

    def release(self) -> bool:
        """Free what forward saved, once a backward without retain_graph ran this node: a
        second backward, or reading `saved_tensors`, then fails with FREED_MESSAGE. A node that
        saved nothing keeps nothing to free, and may run again."""
        if not (self._saved or self._output_array is not None or self._as_pytorch):
            return False
        self._saved, self._output_array, self._freed = (), None, True
        self._as_pytorch = None
        return True

    def _pack_order(self, n: int) -> Any:
        """The order saved-tensor hooks see the saved values in: PyTorch's, where an op's
        Function says it differs from the saving order (`pack_order`: MulBackward0's)."""
        return getattr(getattr(type(self), "_function", None), "pack_order", None) or range(n)

    def saved_tensor(self, i: int) -> Any:
        """`unpack_saved()[i]` alone (unpacking only it, where saved-tensor hooks packed it)."""
        packed = self._packed
        if packed is None or packed[i] is None:
            return self.unpack_saved()[i]
        if not self._saved and self._freed:
            raise RuntimeError(FREED_MESSAGE)
        return unpack(packed[i])

    @property
    def output(self) -> Any:
        """The (first) output of forward, for Functions that declare `saves_output = True`.

        Kept as data plus version counter, not as the Tensor itself, so the node and its
        output do not hold each other alive (PyTorch's SavedVariable does the same). The
        counter is the output tensor's own, which it makes only when first needed (a view, an
        in-place change) and then hands to this node; until then `_output_version_counter` is
        None and the output is at version 0. Stored as attributes rather than one tuple: fewer
        objects per node for the cycle collector to scan.
        """
        out = _tensor.make(self.output_data(), self, 0, self._output_version_counter)
        if self._output_tangents:  # forward mode: backward reads the output with its tangent
            for level, tangent in self._output_tangents.items():
                set_tangent(out, level, tangent)
        return out

    def output_data(self) -> np.ndarray:
        """`output`'s numpy array, checked the same way (for backwards that compute in numpy)."""
        data = self._output_array
        if data is None:
            raise RuntimeError(FREED_MESSAGE if self._freed else
                               f"{self.name()} did not save its output (saves_output is False)")
        counter = self._output_version_counter  # (None: the output never changed)
        if counter is not None and counter[0] != self._output_version:
            out = _tensor.make(data, self, 0, counter)
            raise RuntimeError(modified_message(out, self._output_version))
        if self._packed_output is not None:
            return unpack(self._packed_output).array
        return data


INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")


def modified_message(value: Any, version: int) -> str:
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

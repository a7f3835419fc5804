"""`state_dict` and `load_state_dict` of Module: every parameter and persistent buffer by its
dotted name, and loading them back with PyTorch's checks and messages. Nothing is written
unless every key and shape matches (or strict=False leaves the missing ones alone)."""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.autograd.tensor import Tensor


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict(strict=False) could not match."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class StateDictMixin:
    """Module's state_dict and load_state_dict."""

    def _state_entries(self, prefix: str = "") -> OrderedDict:
        """name -> tensor of every parameter and persistent buffer, module by module."""
        out: OrderedDict = OrderedDict()
        for module_name, module in self.named_modules(prefix=prefix.rstrip("."),
                                                      remove_duplicate=False):
            dotted = f"{module_name}." if module_name else ""
            for name, value in module._parameters.items():
                if value is not None:
                    out[dotted + name] = value
            for name, value in module._buffers.items():
                if value is not None and name not in module._non_persistent_buffers_set:
                    out[dotted + name] = value
        return out

    def state_dict(self, *args: Any, destination: dict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict:
        """Every parameter and persistent buffer by dotted name, as tensors detached from the
        graph that share memory with them, as in PyTorch (so a "best" state_dict kept while
        training goes on changes too: keep `copy.deepcopy(model.state_dict())`);
        `keep_vars=True` gives the Parameters themselves.
        """
        out = OrderedDict() if destination is None else destination
        for name, value in self._state_entries(prefix).items():
            out[name] = value if keep_vars else value.detach()
        return out

    def load_state_dict(self, state_dict: Mapping, strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy arrays (or tensors) into the parameters and buffers of the same names."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        if assign:
            raise NotImplementedError("minigrad's load_state_dict copies values into the "
                                      "module's tensors: assign=True is not supported")
        own = self._state_entries()
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        values = {name: _array(state_dict[name]) for name in own if name in state_dict}
        errors = [f"size mismatch for {name}: copying a param with shape "
                  f"minigrad.Size({list(array.shape)}) from checkpoint, the shape in current "
                  f"model is minigrad.Size({list(own[name].array.shape)})."
                  for name, array in values.items() if array.shape != own[name].array.shape]
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        with no_grad():
            for name, array in values.items():
                own[name].copy_(Tensor(array))
        return _IncompatibleKeys(missing, unexpected)


def _array(value: Any) -> np.ndarray:
    return np.asanyarray(value.array if isinstance(value, Tensor) else value)

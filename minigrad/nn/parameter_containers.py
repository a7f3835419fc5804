"""ParameterList and ParameterDict: parameters kept in a list or a dict and registered (named
"0", "1", ... or by key), so that `parameters()` and optimizers find them. Plain tensors put in
become Parameters, as in PyTorch."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from minigrad.autograd.tensor import Tensor
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.surface import dtypes


def _as_parameter(value: Any) -> Any:
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(
        value, Parameter) else value


def _describe(p: Any) -> str:
    if not isinstance(p, Tensor):
        return f"Object of type: {type(p).__name__}"
    size = "x".join(str(n) for n in p.shape)
    return f"Parameter containing: [{dtypes.name(p.array.dtype)} of size {size}]"


class ParameterList(Module):
    """A list of parameters, registered as "0", "1", ..."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        for value in values or ():
            self.append(value)

    def __getitem__(self, idx: int | slice) -> Any:
        items = list(self._parameters.values())
        if isinstance(idx, slice):
            return ParameterList(items[idx])
        if not -len(items) <= idx < len(items):
            raise IndexError(f"index {idx} is out of range")
        return items[idx]

    def __setitem__(self, idx: int, value: Any) -> None:
        key = str(idx % len(self))
        self.register_parameter(key, _as_parameter(value))

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._parameters.values())

    def append(self, value: Any) -> ParameterList:
        self.register_parameter(str(len(self)), _as_parameter(value))
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        for value in values:
            self.append(value)
        return self

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        return self.extend(values)

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p)}" for k, p in self._parameters.items())


class ParameterDict(Module):
    """A dict of parameters, registered under their keys."""

    def __init__(self, parameters: Mapping[str, Any] | Iterable | None = None) -> None:
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return self._parameters[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.register_parameter(key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._parameters[key]

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def __contains__(self, key: object) -> bool:
        return key in self._parameters

    def keys(self) -> Any:
        return self._parameters.keys()

    def values(self) -> Any:
        return self._parameters.values()

    def items(self) -> Any:
        return self._parameters.items()

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def update(self, parameters: Mapping[str, Any] | Iterable) -> None:
        pairs = parameters.items() if isinstance(parameters, Mapping) else parameters
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): Parameter containing: [{p.type()} of size "
                         f"{'x'.join(str(n) for n in p.shape)}]"
                         for k, p in self._parameters.items())

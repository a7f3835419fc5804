"""The named tuples that ops with several results return, as `torch.return_types`:
`x.max(dim=0)` is `minigrad.return_types.max(values=..., indices=...)`, and so are `sort`,
`topk`, `kthvalue`, `median`, `nanmedian`, `mode`. Each is a tuple (`values, indices = ...`
unpacks it) whose fields are also attributes (`.values`, `.indices`), and it prints as
PyTorch's does, with `minigrad.` in front.

(One difference on purpose: the class of `max` and `min` is named `ValuesIndices`, the name
minigrad's expression checker (minigrad/teach/expr.py) reports; PyTorch's is named `max`.)
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["kthvalue", "max", "median", "min", "mode", "nanmedian", "sort", "topk"]


class _ValuesIndices(NamedTuple):
    values: Any
    indices: Any


class ValuesIndices(_ValuesIndices):
    """`(values, indices)`: what max/min along a dim, sort, topk, ... return."""

    __slots__ = ()
    _torch_name = "max"

    def __repr__(self) -> str:
        return (f"minigrad.return_types.{self._torch_name}(\nvalues={self.values!r},\n"
                f"indices={self.indices!r})")


# where a user finds these classes (`minigrad.return_types.max`), as PyTorch's `torch.return_types`
PUBLIC_MODULE = "minigrad.return_types"


def _named(torch_name: str, class_name: str | None = None) -> type:
    """A ValuesIndices class for the op `torch_name` (printed as PyTorch prints it)."""
    name = class_name or torch_name
    return type(name, (ValuesIndices,), {"__slots__": (), "_torch_name": torch_name,
                                         "__qualname__": name, "__module__": PUBLIC_MODULE,
                                         "__doc__": f"What `{torch_name}` returns."})


max = _named("max", "ValuesIndices")
min = _named("min", "ValuesIndices")
sort, topk, kthvalue = _named("sort"), _named("topk"), _named("kthvalue")
median, nanmedian, mode = _named("median"), _named("nanmedian"), _named("mode")


_OUT_KINDS: dict[type, type] = {}


def out_kind(kind: type) -> type:
    """The class PyTorch returns when the op wrote into `out=` (`max_out` for `max`)."""
    if kind not in _OUT_KINDS:
        name = getattr(kind, "_torch_name", kind.__name__)
        _OUT_KINDS[kind] = _named(f"{name}_out") if hasattr(kind, "_torch_name") else kind
    return _OUT_KINDS[kind]

"""`Variable`: the pre-0.4 PyTorch wrapper, kept as PyTorch 2.13 keeps it.

Old code (blog posts, torchviz) still writes `Variable(t, requires_grad=True)` and
`isinstance(p, Variable)`. As in PyTorch, `Variable` is a class whose `isinstance` is true for
every Tensor, and calling it gives a plain Tensor: `t`'s memory cut from the graph (what
`t.detach()` gives), a leaf that requires grad when asked.
"""

from __future__ import annotations

import warnings
from typing import Any

from minigrad.autograd import tensor as _tensor

VOLATILE_WARNING = ("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                    "instead.")


class VariableMeta(type):
    """Makes `isinstance(x, Variable)` mean `isinstance(x, Tensor)`, as in PyTorch."""

    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, _tensor.Tensor)


class Variable(metaclass=VariableMeta):
    """`Variable(data, requires_grad=False, volatile=False)`: a new leaf Tensor on `data`'s
    memory (sharing its version counter), requiring grad when asked; `Variable()` is empty."""

    def __new__(cls, data: Any = None, requires_grad: bool = False,
                volatile: bool = False) -> Any:
        Tensor = _tensor.Tensor
        if volatile:
            warnings.warn(VOLATILE_WARNING, UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if data is None:
            data = Tensor()
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out

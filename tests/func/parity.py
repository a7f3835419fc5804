"""Run one case on minigrad and on PyTorch and compare what comes out: values (float64,
nested tuples, lists and dicts of tensors), `requires_grad`, or the error (type and message,
with `torch` read as `minigrad`).

A case is a function of the library module (`minigrad` or `torch`); it makes its inputs with
`lib.tensor(...)` from plain numbers, so both engines start from the same values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad


def outcome(case: Callable, lib: Any) -> Any:
    """What the case returns, or ("raised", type name, message)."""
    try:
        return case(lib)
    except Exception as exc:  # noqa: BLE001 (the error is the outcome compared)
        return ("raised", type(exc).__name__, str(exc).replace("torch", "minigrad"))


def raised(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], str) and \
        value[0] == "raised"


def plain(value: Any) -> Any:
    """Tensors as (shape, values, requires_grad), containers kept, other values as they are."""
    if isinstance(value, minigrad.Tensor):
        return ("tensor", tuple(value.shape), value.detach().numpy().astype(float),
                value.requires_grad)
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # a torch tensor
        return ("tensor", tuple(value.shape), value.detach().numpy().astype(float),
                value.requires_grad)
    if isinstance(value, tuple | list):
        return type(value).__name__, [plain(v) for v in value]
    if isinstance(value, dict):
        return "dict", {k: plain(v) for k, v in value.items()}
    return value


def assert_same(ours: Any, theirs: Any, where: str = "result") -> None:
    """Equal structure, shapes, requires_grad and (to 1e-6) values; errors equal."""
    if raised(theirs):
        assert raised(ours) and ours == theirs, (
            f"{where}: PyTorch raised {theirs}, minigrad gave {ours}")
        return
    assert not raised(ours), f"{where}: minigrad raised {ours}, PyTorch gave {theirs}"
    a, b = plain(ours), plain(theirs)
    _compare(a, b, where)


def _compare(a: Any, b: Any, where: str) -> None:
    if isinstance(b, tuple) and b[:1] == ("tensor",):
        assert isinstance(a, tuple) and a[:1] == ("tensor",), f"{where}: {a!r} is not a tensor"
        assert a[1] == b[1], f"{where}: shape {a[1]} != PyTorch's {b[1]}"
        np.testing.assert_allclose(a[2], b[2], rtol=1e-6, atol=1e-9, err_msg=where)
        assert a[3] == b[3], f"{where}: requires_grad {a[3]} != PyTorch's {b[3]}"
        return
    if isinstance(b, tuple) and len(b) == 2 and b[0] in ("tuple", "list", "dict"):
        assert isinstance(a, tuple) and a[0] == b[0], f"{where}: {a[0]!r} != {b[0]!r}"
        if b[0] == "dict":
            assert a[1].keys() == b[1].keys(), f"{where}: keys differ"
            for k in b[1]:
                _compare(a[1][k], b[1][k], f"{where}[{k!r}]")
            return
        assert len(a[1]) == len(b[1]), f"{where}: length {len(a[1])} != {len(b[1])}"
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            _compare(x, y, f"{where}[{i}]")
        return
    assert a == b, f"{where}: {a!r} != {b!r}"


def check(case: Callable, torch: Any) -> Any:
    """Run `case` on both engines and assert they agree; return minigrad's outcome."""
    ours = outcome(case, minigrad)
    assert_same(ours, outcome(case, torch))
    return ours

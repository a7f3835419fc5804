"""Values a PyTorch graph did not keep, recomputed with numpy from their inputs' values.

torch saves only what each backward needs; `compare.trace_torch` shows every node's output,
so for the ops minigrad knows it recomputes the missing ones (`recompute(name, inputs, attrs,
shape, dtype)`), checked against the shape torch recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


# -- values torch did not keep, recomputed from the inputs' values ---------------------------
def _softmax(a: np.ndarray, dim: int) -> np.ndarray:
    e = np.exp(a - a.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def _log_softmax(a: np.ndarray, dim: int) -> np.ndarray:
    shifted = a - a.max(axis=dim, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))


# ops whose output holds the input's values in another shape
RESHAPES = frozenset({"ViewBackward0", "UnsafeViewBackward0", "ReshapeAliasBackward0",
                      "SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward4",
                      "UnsqueezeBackward0", "CloneBackward0"})


def _same_shape(a: list, k: dict, s: tuple) -> np.ndarray:
    return np.reshape(a[0], s)


_FORWARD: dict[str, Callable[[list, dict, tuple], Any]] = {
    "AddBackward0": lambda a, k, s: a[0] + k.get("alpha", 1) * a[1],
    "SubBackward0": lambda a, k, s: a[0] - k.get("alpha", 1) * a[1],
    "MulBackward0": lambda a, k, s: a[0] * a[1],
    "DivBackward0": lambda a, k, s: a[0] / a[1],
    "RsubBackward1": lambda a, k, s: k["c"] - a[0],
    "NegBackward0": lambda a, k, s: -a[0],
    "PowBackward0": lambda a, k, s: a[0] ** k["p"],
    "PowBackward1": lambda a, k, s: a[0] ** a[1],
    "PowBackward2": lambda a, k, s: k["base"] ** a[0],
    "RemainderBackward0": lambda a, k, s: np.remainder(a[0], k["c"]),
    "RemainderBackward1": lambda a, k, s: np.remainder(a[0], a[1]),
    "ReciprocalBackward0": lambda a, k, s: 1 / a[0],
    "ExpBackward0": lambda a, k, s: np.exp(a[0]),
    "LogBackward0": lambda a, k, s: np.log(a[0]),
    "SqrtBackward0": lambda a, k, s: np.sqrt(a[0]),
    "AbsBackward0": lambda a, k, s: np.abs(a[0]),
    "TanhBackward0": lambda a, k, s: np.tanh(a[0]),
    "SigmoidBackward0": lambda a, k, s: 1 / (1 + np.exp(-a[0])),
    "ReluBackward0": lambda a, k, s: np.maximum(a[0], 0),
    "SinBackward0": lambda a, k, s: np.sin(a[0]),
    "CosBackward0": lambda a, k, s: np.cos(a[0]),
    "MaximumBackward0": lambda a, k, s: np.maximum(a[0], a[1]),
    "MinimumBackward0": lambda a, k, s: np.minimum(a[0], a[1]),
    "ClampBackward1": lambda a, k, s: np.clip(a[0], k.get("lo"), k.get("hi")),
    "CloneBackward0": lambda a, k, s: np.array(a[0]),
    "ToCopyBackward0": lambda a, k, s: a[0].astype(
        np.float32 if k["dtype"] == "bfloat16" else k["dtype"]),
    "SumBackward0": lambda a, k, s: a[0].sum(),
    "SumBackward1": lambda a, k, s: a[0].sum(axis=k["dims"], keepdims=k["keepdim"]),
    "MeanBackward0": lambda a, k, s: a[0].mean(),
    "MeanBackward1": lambda a, k, s: a[0].mean(axis=k["dims"], keepdims=k["keepdim"]),
    "AmaxBackward0": lambda a, k, s: a[0].max(axis=k["dims"], keepdims=k["keepdim"]),
    "AminBackward0": lambda a, k, s: a[0].min(axis=k["dims"], keepdims=k["keepdim"]),
    "LinalgVectorNormBackward0": lambda a, k, s: np.sqrt(
        (a[0] * a[0]).sum(axis=k["dims"], keepdims=k["keepdim"])),
    "MaxBackward0": lambda a, k, s: a[0].max(axis=k["dims"], keepdims=k["keepdim"]),
    "MinBackward0": lambda a, k, s: a[0].min(axis=k["dims"], keepdims=k["keepdim"]),
    "MaxBackward1": lambda a, k, s: a[0].max(),
    "MinBackward1": lambda a, k, s: a[0].min(),
    "ViewBackward0": _same_shape,
    "UnsafeViewBackward0": _same_shape,
    "ReshapeAliasBackward0": _same_shape,
    "SqueezeBackward0": _same_shape,
    "SqueezeBackward1": _same_shape,
    "SqueezeBackward4": _same_shape,
    "UnsqueezeBackward0": _same_shape,
    "ExpandBackward0": lambda a, k, s: np.broadcast_to(a[0], s).copy(),
    "TBackward0": lambda a, k, s: a[0].T.copy(),
    "TransposeBackward0": lambda a, k, s: np.swapaxes(a[0], k["d0"], k["d1"]).copy(),
    "PermuteBackward0": lambda a, k, s: np.transpose(a[0], np.argsort(k["inverse"])).copy(),
    "SelectBackward0": lambda a, k, s: np.array(a[0][k["key"]]),
    "SliceBackward0": lambda a, k, s: np.array(a[0][k["key"]]),
    "IndexBackward0": lambda a, k, s: np.array(a[0][k["key"]]),
    "MmBackward0": lambda a, k, s: a[0] @ a[1],
    "BmmBackward0": lambda a, k, s: a[0] @ a[1],
    "MvBackward0": lambda a, k, s: a[0] @ a[1],
    "DotBackward0": lambda a, k, s: a[0] @ a[1],
    "AddmmBackward0": lambda a, k, s: a[0] + a[1] @ a[2],
    "SoftmaxBackward0": lambda a, k, s: _softmax(a[0], k["dim"]),
    "LogSoftmaxBackward0": lambda a, k, s: _log_softmax(a[0], k["dim"]),
    "CatBackward0": lambda a, k, s: np.concatenate(a, axis=k["dim"]),
    "StackBackward0": lambda a, k, s: np.stack(a, axis=k["dim"]),
}


def bfloat16_values(a: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16's (the upper 16 bits, to nearest even), as float32:
    what torch's `.to(torch.bfloat16)` keeps of them (numpy has no bfloat16)."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = (bits + (0x7FFF + ((bits >> 16) & 1))) & np.uint32(0xFFFF0000)
    out = rounded.view(np.float32)
    return np.where(np.isnan(a), a, out).astype(np.float32)


def recompute(name: str, inputs: list[np.ndarray | None], attrs: dict[str, Any],
              shape: tuple | None, dtype: Any, bfloat16: bool = False) -> np.ndarray | None:
    """The output of op `name` from its inputs' values (None when it cannot be known).

    For the values of a graph torch did not keep (it saves only what backward needs); the
    result is checked against the shape torch recorded for the output.
    """
    forward = _FORWARD.get(name)
    if forward is None or shape is None or any(a is None for a in inputs):
        return None
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(forward([np.asarray(a) for a in inputs], attrs, shape))
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if out.shape != tuple(shape):
        return None
    if bfloat16:  # torch computed in bfloat16: its result has bfloat16's precision
        return bfloat16_values(out)
    return out.astype(dtype, copy=False) if dtype is not None else out

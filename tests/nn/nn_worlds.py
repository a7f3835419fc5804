"""The pieces of the nn state machine (test_state_machine_nn.py): layers drawn at random and
made twice with the same weights, inputs that fit them or do not, losses, optimizers,
schedulers and batches to collate, each a function of the library (`minigrad` or `torch`), and
the comparison of what two runs gave.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from hypothesis import strategies as st

import minigrad
from side_by_side import agree

DTYPES = ["float32", "float32", "float64", "float16", "int64"]


# ---------------------------------------------------------------------------------- layers
def _conv(nd: int, transposed: bool = False):
    kind = f"ConvTranspose{nd}d" if transposed else f"Conv{nd}d"
    params = st.fixed_dictionaries({
        "kernel_size": st.integers(1, 3), "stride": st.integers(1, 2),
        "padding": st.integers(0, 1), "bias": st.booleans(),
        **({} if transposed else {"dilation": st.integers(1, 2)})})
    return params.map(lambda p: (kind, (2, 3), p, ("N", 2, *["S"] * nd)))


def _pool(nd: int):
    return st.tuples(st.sampled_from(["Max", "Avg"]), st.integers(1, 3), st.integers(1, 2),
                     st.booleans()).map(lambda t: (
                         f"{t[0]}Pool{nd}d", (), {"kernel_size": t[1], "stride": t[2],
                                                   "padding": t[1] // 2, "ceil_mode": t[3]},
                         ("N", 2, *["S"] * nd)))


LAYERS = st.one_of(
    st.booleans().map(lambda b: ("Linear", (3, 2), {"bias": b}, ("N", 3))),
    st.just(("Sequential", (), {}, ("N", 3))),
    _conv(1), _conv(2), _conv(2, transposed=True), _pool(1), _pool(2),
    st.sampled_from([1, 2]).map(lambda o: ("AdaptiveAvgPool2d", (o,), {}, ("N", 2, "S", "S"))),
    st.tuples(st.sampled_from([1, 2]), st.booleans(), st.booleans()).map(lambda t: (
        f"BatchNorm{t[0]}d", (3,), {"affine": t[1], "track_running_stats": t[2]},
        ("N", 3, *["S"] * t[0]))),
    st.booleans().map(lambda b: ("LayerNorm", (3,), {"elementwise_affine": b}, ("N", "S", 3))),
    st.sampled_from([1, 2]).map(lambda g: ("GroupNorm", (g, 2), {}, ("N", 2, "S"))),
    st.tuples(st.sampled_from(["RNN", "LSTM", "GRU"]), st.integers(1, 2), st.booleans(),
              st.booleans(), st.booleans()).map(lambda t: (
                  t[0], (3, 2), {"num_layers": t[1], "bias": t[2], "batch_first": t[3],
                                 "bidirectional": t[4]},
                  ("N", "S", 3) if t[3] else ("S", "N", 3))),
    st.just(("Embedding", (5, 3), {"padding_idx": 1}, ("N", "S"))),
    st.sampled_from(["ReLU", "Tanh", "Sigmoid", "GELU", "LeakyReLU", "ELU", "Flatten"]).map(
        lambda k: (k, (), {}, ("N", 3))),
    st.sampled_from([0, 1, -1]).map(lambda d: ("Softmax", (d,), {}, ("N", 3))),
    st.sampled_from([0.0, 1.0]).map(lambda p: ("Dropout", (p,), {}, ("N", 3))),
)


def build(lib: Any, spec: tuple) -> Any:
    """The layer `spec` (kind, args, kwargs, input layout) of library `lib`."""
    kind, args, kwargs, _ = spec
    if kind == "Sequential":
        nn = lib.nn
        return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    return getattr(lib.nn, kind)(*args, **kwargs)


def twins(spec: tuple, torch: Any) -> tuple:
    """The layer in both libraries, minigrad's with PyTorch's initial weights and buffers."""
    torch.manual_seed(0)
    theirs = build(torch, spec)
    ours = build(minigrad, spec)
    ours.load_state_dict({k: minigrad.tensor(v.detach().numpy().copy())
                          for k, v in theirs.state_dict().items()})
    return ours, theirs


def input_shape(spec: tuple, batch: int, size: int, change: str) -> tuple:
    """The layer's input shape with `batch` samples and spatial `size`, changed by `change`
    ("none", "no batch dim", "one more dim", "other features")."""
    shape = [batch if d == "N" else size if d == "S" else d for d in spec[3]]
    if change == "no batch dim" and len(shape) > 1:
        shape.pop(spec[3].index("N"))
    elif change == "one more dim":
        shape.insert(0, 1)
    elif change == "other features" and isinstance(spec[3][-1], int):
        shape[-1] += 1
    elif change == "other features" and len(spec[3]) > 1 and isinstance(spec[3][1], int):
        shape[1] += 1
    return tuple(shape)


def values(shape: tuple, seed: int, dtype: str, kind: str) -> np.ndarray:
    """Input values (indices for an Embedding, some out of range when `seed` is odd)."""
    rng = np.random.default_rng(seed)
    if kind == "Embedding":
        top = 6 if seed % 5 == 1 else 5
        return rng.integers(0, top, shape).astype(dtype if dtype == "int64" else "int64")
    return (rng.standard_normal(shape) * 1.5).astype(dtype)


# ---------------------------------------------------------------------------------- losses
LOSSES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
          "binary_cross_entropy_with_logits", "binary_cross_entropy", "sum"]


def loss(lib: Any, kind: str, out: Any, seed: int, target_dtype: str) -> Any:
    """The loss `kind` of the output `out`, against targets drawn from `seed`."""
    F = lib.nn.functional
    rng = np.random.default_rng(seed)
    shape = tuple(out.shape)
    if kind == "sum":
        return out.sum()
    if kind in ("cross_entropy", "nll_loss"):
        classes = shape[1] if len(shape) > 1 else shape[0] if shape else 1
        labels = rng.integers(0, classes + (seed % 4 == 0), shape[:1] + shape[2:])
        target = lib.tensor(labels.tolist(), dtype=getattr(lib, target_dtype))
        x = F.log_softmax(out, 1 if len(shape) > 1 else 0) if kind == "nll_loss" else out
        return getattr(F, kind)(x, target)
    target = lib.tensor(rng.random(shape).round(2).tolist(), dtype=getattr(lib, target_dtype))
    if kind == "binary_cross_entropy":
        return F.binary_cross_entropy(out.sigmoid(), target)
    return getattr(F, kind)(out, target)


# --------------------------------------------------------------------------- optimizers
OPTIMIZERS = {
    "SGD": lambda o, ps: o.SGD(ps, lr=0.1),
    "SGD nesterov": lambda o, ps: o.SGD(ps, lr=0.1, momentum=0.9, nesterov=True,
                                        weight_decay=0.01),
    "Adam": lambda o, ps: o.Adam(ps, lr=0.01),
    "Adam amsgrad": lambda o, ps: o.Adam(ps, lr=0.01, amsgrad=True, weight_decay=0.1),
    "AdamW": lambda o, ps: o.AdamW(ps, lr=0.01),
    "RMSprop": lambda o, ps: o.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    "Adagrad": lambda o, ps: o.Adagrad(ps, lr=0.1, lr_decay=0.01),
    "SGD, a negative lr": lambda o, ps: o.SGD(ps, lr=-0.1),
    "Adam, a beta of 1": lambda o, ps: o.Adam(ps, betas=(1.0, 0.9)),
}
SCHEDULERS = {
    "StepLR": lambda s, o: s.StepLR(o, step_size=2, gamma=0.5),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[1, 3], gamma=0.1),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=3),
    "LinearLR": lambda s, o: s.LinearLR(o, start_factor=0.5, total_iters=2),
    "LambdaLR": lambda s, o: s.LambdaLR(o, lambda epoch: 1 / (epoch + 1)),
    "ReduceLROnPlateau": lambda s, o: s.ReduceLROnPlateau(o, patience=0),
    "OneCycleLR": lambda s, o: s.OneCycleLR(o, max_lr=0.1, total_steps=4),
}


# ------------------------------------------------------------------------------ batches
SAMPLES = st.sampled_from(["tensor", "array", "int", "float", "tuple", "dict", "bool",
                           "numpy number"])


def sample(lib: Any, kind: str, seed: int, dtype: str, size: int) -> Any:
    """One sample of a batch: `kind` of `dtype` and `size` (which may differ across it)."""
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(size).round(2).astype(dtype)
    if kind == "tensor":
        return lib.tensor(data.tolist(), dtype=getattr(lib, dtype))
    if kind == "array":
        return data
    if kind == "numpy number":  # (not bools: PyTorch reads a list of numpy integers and
        # bools with __index__, which numpy's bool refuses; minigrad makes them integers)
        return data.astype("int8")[0] if dtype == "bool" and size else data[0] if size \
            else np.float16(1)
    if kind == "int":
        return int(seed % 7)
    if kind == "float":
        return float(seed % 7) / 2
    if kind == "bool":
        return bool(seed % 2)
    if kind == "tuple":
        return (lib.tensor(data.tolist(), dtype=getattr(lib, dtype)), int(seed % 3))
    return {"x": data, "y": float(seed % 3)}


# --------------------------------------------------------------------------- comparing
def summary(value: Any) -> Any:
    """A result as plain data: tensors as (dtype, shape, float64 values), containers item by
    item."""
    if hasattr(value, "detach") and hasattr(value, "dtype"):
        array = np.asarray(value.detach().numpy(), dtype=np.float64)
        return "tensor", str(value.dtype).rsplit(".", 1)[-1], tuple(value.shape), array
    if isinstance(value, dict):
        return "dict", sorted((k, summary(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [summary(v) for v in value]
    return "value", value


def close(a: Any, b: Any, loose: bool = False) -> bool:
    """Two summaries agree (values within their dtype's tolerance, float16's if `loose`: what
    was computed from float16 values)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple) and a and a[0] == "tensor":
        if a[:3] != b[:3]:
            return False
        # (a float64 result may hold float32 values, summed in another order: their precision)
        tol = 1e-2 if loose else {"float16": 1e-2, "float32": 1e-4}.get(a[1], 1e-6)
        return bool(np.allclose(a[3], b[3], rtol=tol, atol=tol, equal_nan=True))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(close(x, y, loose) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        tol = 1e-2 if loose else 1e-4
        return a.shape == b.shape and bool(np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6) or a != a and b != b
    return a == b


def run(fn: Any) -> tuple:
    """("ok", summary) or (error class, words), warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return "ok", summary(fn())
        except Exception as exc:  # noqa: BLE001 - compared with the other library's
            words = str(exc).replace("torch.", "LIB.").replace("minigrad.", "LIB.")
            return type(exc).__name__, words


# Not compared word for word: PyTorch words some errors of a transposed convolution by the
# backend it picks (oneDNN for a batch of more than one): a dtype mismatch, and an output too
# small, which oneDNN reports as its own failure; minigrad always says what the other says.
BACKEND_WORDS = ("should be the same or input should be a MKLDNN tensor",
                 "could not construct a memory descriptor using a format tag")


def same(ours: tuple, theirs: tuple, loose: bool = False) -> bool:
    if ours[0] == "ok" or theirs[0] == "ok":
        return ours[0] == theirs[0] and close(ours[1], theirs[1], loose)
    return agree(ours, theirs) or ours[0] == theirs[0] and any(
        words in theirs[1] for words in BACKEND_WORDS)

"""The same callable on minigrad tensors and on torch tensors: the only place torch is imported.

How a callable sees the two engines:

- its parameters named like the inputs get tensors: `lambda x, y: (x * y).sum() * 3` runs as it
  is on both, because minigrad's Tensor methods and operators are PyTorch's;
- module-level functions differ (`minigrad.exp` vs `torch.exp`), so a parameter named `torch`
  receives the engine's top-level module, `F` its `nn.functional` and `nn` its `nn`:
  `lambda x, torch: torch.exp(x).sum()` or `lambda a, t, F: F.mse_loss(a, t)`. That is the
  `import minigrad as torch` idiom, done per call.

Inputs are numpy-convertible values. Floating inputs become float64 tensors that require grad
on both sides; integer and boolean inputs (class labels, masks) and values wrapped in
`constant(...)` become tensors without grad.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

TORCH_HINT = "pip install torch==2.13.0"
NAMESPACE_PARAMS = ("torch", "F", "nn")


def import_torch() -> Any:
    """The torch module, imported on first use, with the install command when it is missing."""
    try:
        return importlib.import_module("torch")
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"compare needs PyTorch to compare against: {TORCH_HINT} "
            f"(or `pip install -e '.[compare]'`); importing torch failed with: {exc}"
        ) from exc


@dataclass(frozen=True)
class constant:  # noqa: N801 - used like a function: constant(target)
    """An input that is data, not a variable: it gets no `requires_grad` on either side."""

    value: Any


def as_array(value: Any) -> tuple[np.ndarray, bool]:
    """The numpy array of an input and whether it requires grad (float, not `constant`)."""
    fixed = isinstance(value, constant)
    raw = value.value if fixed else value
    if hasattr(raw, "detach") and hasattr(raw, "numpy") and not isinstance(raw, np.ndarray):
        raw = raw.detach().numpy()  # a minigrad or torch tensor given as input
    array = np.array(raw)
    if array.dtype.kind == "f":
        array = array.astype(np.float64)
    elif array.dtype.kind not in "iub":
        raise TypeError(f"input of dtype {array.dtype} is not supported: give numbers, lists "
                        "or numpy arrays of floats, ints or bools")
    return array, array.dtype.kind == "f" and not fixed


class Engine:
    """What compare needs from one engine: make tensors, read them back, name its modules."""

    name = ""

    def module(self) -> Any:
        raise NotImplementedError

    def namespace(self, param: str) -> Any:
        """The object a callable's parameter called `torch`, `F` or `nn` receives."""
        top = self.module()
        if param == "torch":
            return top
        nn = importlib.import_module(f"{top.__name__}.nn")
        return nn if param == "nn" else importlib.import_module(f"{top.__name__}.nn.functional")

    def tensor(self, array: np.ndarray, requires_grad: bool) -> Any:
        raise NotImplementedError

    def numpy(self, t: Any) -> np.ndarray:
        return np.array(t.detach().numpy())

    def is_tensor(self, value: Any) -> bool:
        return isinstance(value, self.module().Tensor)


class MinigradEngine(Engine):
    name = "minigrad"

    def module(self) -> Any:
        return importlib.import_module("minigrad")

    def tensor(self, array: np.ndarray, requires_grad: bool) -> Any:
        return self.module().tensor(array.copy(), requires_grad=requires_grad)


class TorchEngine(Engine):
    name = "torch"

    def module(self) -> Any:
        return import_torch()

    def tensor(self, array: np.ndarray, requires_grad: bool) -> Any:
        return self.module().from_numpy(array.copy()).requires_grad_(requires_grad)


MINIGRAD, TORCH = MinigradEngine(), TorchEngine()


def call(fn: Callable, tensors: dict[str, Any], engine: Engine) -> Any:
    """Call `fn` with the tensors by parameter name (or in order), plus namespace parameters."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # builtins without a signature: positional tensors
        return fn(*tensors.values())
    extra = {p: engine.namespace(p) for p in NAMESPACE_PARAMS
             if p in params and p not in tensors}
    names = [p for p in params if p not in extra]
    if set(tensors) <= set(params) or any(
            p.kind is p.VAR_KEYWORD for p in params.values()):
        return fn(**tensors, **extra)
    if len(tensors) > len(names) and not any(p.kind is p.VAR_POSITIONAL
                                             for p in params.values()):
        raise TypeError(f"the callable takes {names} but {len(tensors)} inputs were given: "
                        f"{list(tensors)}")
    return fn(*tensors.values(), **extra)


@dataclass
class Run:
    """One engine's run: the leaf tensors by input name and the output (after backward)."""

    leaves: dict[str, Any]
    output: Any
    seed: np.ndarray | None  # the gradient given to backward (None: implicit 1 for a scalar)


def run(fn: Callable, arrays: dict[str, tuple[np.ndarray, bool]], engine: Engine,
        gradient: Any = None) -> Run:
    """Build the inputs on `engine`, call `fn`, run backward (see `compare.against_torch`).

    `gradient`: None, an array, or a function of the output's shape that returns the array.
    """
    leaves = {name: engine.tensor(a, grad) for name, (a, grad) in arrays.items()}
    output = call(fn, leaves, engine)
    if not engine.is_tensor(output):
        raise TypeError(f"the callable returned {type(output).__name__} on {engine.name}, not a "
                        f"tensor; return one tensor (e.g. `out.values` for max(dim))")
    if not output.requires_grad:
        return Run(leaves, output, None)
    seed = gradient(tuple(output.shape)) if callable(gradient) else gradient
    if seed is None and output.numel() != 1:
        seed = np.ones(tuple(output.shape))  # same gradients as output.sum().backward()
    if seed is None:
        output.backward()
    else:
        output.backward(engine.tensor(np.asarray(seed, dtype=engine.numpy(output).dtype),
                                      False))
    return Run(leaves, output, seed)

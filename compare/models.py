"""`modules`: a whole minigrad model against its PyTorch twin, parameter by parameter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from compare.against import ATOL, RTOL, compare_runs
from compare.report import Report
from compare.torch_bridge import MINIGRAD, TORCH, Engine, Run, call, import_torch


def modules(mg_model: Any, torch_model: Any, x: Any, loss: Any = None, *, target: Any = None,
            weights: str = "minigrad", atol: float = ATOL, rtol: float = RTOL,
            name: str | None = None) -> Report:
    """Copy weights by parameter name, run forward and backward in both, compare every gradient.

    Both models must have the same `named_parameters()` names and shapes (as a minigrad model
    written like its PyTorch twin has: `fc1.weight`, `0.bias`, ...). `weights="minigrad"` copies
    minigrad's values into the torch model, `"torch"` the other way. Both then compute in
    float64: the torch model is converted with `.double()` (in place) and minigrad's
    parameters get float64 arrays.

    `loss`: None (the output's sum), `"mse"` / `"cross_entropy"` (the functional loss against
    `target`), a callable `loss(output[, target])` run on both engines (a parameter named `F`
    or `torch` receives the engine's namespace, as in `against_torch`), or a pair
    `(minigrad_loss, torch_loss)` such as `(mg.nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss())`.
    The report's rows are the loss value and each parameter's gradient.
    """
    torch = import_torch()
    mg_params = dict(mg_model.named_parameters())
    th_params = dict(torch_model.named_parameters())
    _check_same_parameters(mg_params, th_params)
    torch_model.double()
    th_params = dict(torch_model.named_parameters())
    with torch.no_grad():
        for key, p in mg_params.items():
            source = p.array if weights == "minigrad" else th_params[key].detach().numpy()
            array = np.array(source, dtype=np.float64)
            th_params[key].copy_(torch.from_numpy(array.copy()))
            p.array = array
            p.grad = None
            th_params[key].grad = None
    x_array = np.asarray(x)
    x_array = x_array.astype(np.float64) if x_array.dtype.kind == "f" else x_array
    runs = []
    for engine, model, params, loss_fn in ((MINIGRAD, mg_model, mg_params, _side(loss, 0)),
                                           (TORCH, torch_model, th_params, _side(loss, 1))):
        out = model(engine.tensor(x_array, False))
        value = _loss(loss_fn, out, target, engine)
        value.backward()
        runs.append(Run(params, value, None))
    title = name or f"{type(mg_model).__name__} vs {type(torch_model).__name__}"
    return compare_runs(title, runs[0], runs[1], atol, rtol, forward_label="loss")


def _check_same_parameters(mine: dict, theirs: dict) -> None:
    only_mine = sorted(set(mine) - set(theirs))
    only_theirs = sorted(set(theirs) - set(mine))
    if only_mine or only_theirs:
        raise ValueError(f"the models' parameter names differ: only in minigrad {only_mine}, "
                         f"only in torch {only_theirs}")
    for key, p in mine.items():
        if tuple(p.shape) != tuple(theirs[key].shape):
            raise ValueError(f"parameter {key!r} has shape {tuple(p.shape)} in minigrad but "
                             f"{tuple(theirs[key].shape)} in torch")


def _side(loss: Any, index: int) -> Any:
    """The loss for one engine: a pair gives one each, anything else is shared."""
    return loss[index] if isinstance(loss, tuple) else loss


def _loss(loss: Any, out: Any, target: Any, engine: Engine) -> Any:
    args = [out]
    if target is not None:
        t = np.asarray(target)
        args.append(engine.tensor(t.astype(np.float64) if t.dtype.kind == "f" else t, False))
    if loss is None:
        return out.sum()
    if isinstance(loss, str):
        functional = engine.namespace("F")
        if loss not in ("mse", "cross_entropy", "mse_loss", "nll_loss", "sum", "mean"):
            raise ValueError(f"loss={loss!r}: use 'mse', 'cross_entropy', a callable or a pair")
        if loss in ("sum", "mean"):
            return getattr(out, loss)()
        return getattr(functional, loss if loss.endswith("loss") or loss == "cross_entropy"
                       else f"{loss}_loss")(*args)
    if not callable(loss):
        raise TypeError(f"loss must be None, a name, a callable or a pair, not {type(loss)}")
    return _call_loss(loss, args, engine)


def _call_loss(loss: Callable, args: list, engine: Engine) -> Any:
    if hasattr(loss, "parameters") or not hasattr(loss, "__code__"):
        return loss(*args)  # a loss module
    names = [n for n in loss.__code__.co_varnames[:loss.__code__.co_argcount]]
    tensors = dict(zip([n for n in names if n not in ("torch", "F", "nn")], args))
    return call(loss, tensors, engine)

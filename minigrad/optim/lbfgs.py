"""L-BFGS, as PyTorch's: a quasi-Newton step from the last `history_size` changes of the
parameters and gradients (the two-loop recursion), several iterations per `step(closure)`,
with an optional strong-Wolfe line search (line_search.py). All parameters are one flat
vector; there is one parameter group."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from minigrad.autograd.grad_mode import enable_grad, no_grad
from minigrad.optim.line_search import strong_wolfe
from minigrad.optim.optimizer import Optimizer, state_tensor, will_change
from minigrad.optim.rmsprop import check_non_negative


class LBFGS(Optimizer):
    """L-BFGS (see the module's docstring). `step` needs a closure that recomputes the loss
    (zeroing the gradients and calling backward) and returns it."""

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        check_non_negative(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size, line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self) -> np.ndarray:
        return np.concatenate([np.zeros(p.array.size, p.array.dtype) if p.grad is None
                               else p.grad.array.reshape(-1) for p in self._params])

    def _add(self, t: float, update: np.ndarray) -> None:
        """params += t * update (the flat update cut to each parameter's shape)."""
        offset = 0
        for p in self._params:
            n = p.array.size
            will_change(p)
            p.array += (t * update[offset:offset + n]).reshape(p.array.shape).astype(
                p.array.dtype)
            p._bump_version()
            offset += n

    def _evaluate(self, closure: Callable, t: float, d: np.ndarray) -> tuple:
        """The loss and flat gradient at params + t d; the params are put back after."""
        saved = [p.array.copy() for p in self._params]
        self._add(t, d)
        loss = float(closure())
        grad = self._flat_grad()
        for p, a in zip(self._params, saved):
            p.array[...] = a
            p._bump_version()
        return loss, grad

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Up to `max_iter` iterations (each one direction and one step along it)."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr, history = group["lr"], group["history_size"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]

        def evaluate() -> Any:
            with enable_grad():
                return closure()

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss, evals = float(orig_loss), 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if np.abs(g).max() <= tol_grad:
            return orig_loss
        d, t = _array(state.get("d")), state.get("t")
        dirs, steps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_g = state.get("H_diag"), _array(state.get("prev_flat_grad"))
        prev_loss, n_iter = state.get("prev_loss"), 0
        while n_iter < group["max_iter"]:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, dirs, steps, ro, h_diag = -g, [], [], [], 1.0
            else:
                d, h_diag = _direction(g, prev_g, d * t, dirs, steps, ro, history, h_diag,
                                       state)
            prev_g, prev_loss = g.copy(), loss
            t = min(1.0, 1.0 / float(np.abs(g).sum())) * lr if state["n_iter"] == 1 else lr
            gtd = float(g @ d)
            if gtd > -tol_change:
                break
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                loss, g, t, spent = strong_wolfe(
                    lambda s, d=d: self._evaluate(evaluate, s, d), t, d, loss, g, gtd,
                    max_ls=group["max_eval"] - evals)
                self._add(t, d)
            else:
                self._add(t, d)
                spent = 0
                if n_iter != group["max_iter"]:
                    loss, g, spent = float(evaluate()), self._flat_grad(), 1
            evals += spent
            state["func_evals"] += spent
            if n_iter == group["max_iter"] or evals >= group["max_eval"]:
                break
            if np.abs(g).max() <= tol_grad or np.abs(d * t).max() <= tol_change:
                break
            if abs(loss - prev_loss) < tol_change:
                break
        state.update(d=state_tensor(d), t=t, old_dirs=dirs, old_stps=steps, ro=ro,
                     H_diag=h_diag, prev_flat_grad=state_tensor(prev_g), prev_loss=prev_loss)
        return orig_loss


def _array(value: Any) -> Any:
    return value.array if hasattr(value, "array") else value


def _direction(g: np.ndarray, prev_g: np.ndarray, s: np.ndarray, dirs: list, steps: list,
               ro: list, history: int, h_diag: float, state: dict) -> tuple:
    """The next direction by the two-loop recursion, after noting the latest change (s, y)
    if its curvature y.s is positive."""
    y = g - prev_g
    ys = float(y @ s)
    if ys > 1e-10:
        if len(dirs) == history:
            dirs.pop(0)
            steps.pop(0)
            ro.pop(0)
        dirs.append(y)
        steps.append(s)
        ro.append(1.0 / ys)
        h_diag = ys / float(y @ y)
    al = state.setdefault("al", [None] * history)
    q = -g
    for i in range(len(dirs) - 1, -1, -1):
        al[i] = float(steps[i] @ q) * ro[i]
        q = q - al[i] * dirs[i]
    r = q * h_diag
    for i in range(len(dirs)):
        be_i = float(dirs[i] @ r) * ro[i]
        r = r + (al[i] - be_i) * steps[i]
    return r, h_diag

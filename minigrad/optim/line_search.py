"""L-BFGS's strong-Wolfe line search, as PyTorch's (`torch/optim/lbfgs.py`), on flat numpy
vectors: find a step t along the direction d where the loss fell enough (Armijo) and the slope
flattened enough (curvature), by bracketing then zooming with cubic interpolation."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def cubic_interpolate(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                      bounds: tuple[float, float] | None = None) -> float:
    """The minimum of the cubic through (x1, f1, g1) and (x2, f2, g2), within `bounds`."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = float(np.sqrt(d2_square))
        if x1 <= x2:
            at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(at, lo), hi)
    return (lo + hi) / 2.0


def strong_wolfe(obj: Callable, t: float, d: np.ndarray, f: float, g: np.ndarray, gtd: float,
                 c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                 max_ls: int = 25) -> tuple[float, np.ndarray, float, int]:
    """(loss, gradient, t, evaluations) at the step found; `obj(t)` evaluates at x + t d."""
    d_norm = float(np.abs(d).max())
    g = g.copy()
    f_new, g_new = obj(t)
    evals, gtd_new = 1, float(g_new @ d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done, ls_iter = False, 0
    bracket: list = []
    while ls_iter < max_ls:  # bracketing
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, fs, gs, gtds = [t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()], \
                [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, fs, gs, gtds, done = [t], [f_new], [g_new], [gtd_new], True
            break
        if gtd_new >= 0:
            bracket, fs, gs, gtds = [t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()], \
                [gtd_prev, gtd_new]
            break
        tmp = t
        t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                              bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj(t)
        evals, gtd_new, ls_iter = evals + 1, float(g_new @ d), ls_iter + 1
    if ls_iter == max_ls:
        bracket, fs, gs = [0, t], [f, f_new], [g, g_new]
    insufficient = False
    low, high = (0, 1) if fs[0] <= fs[-1] else (1, 0)
    while not done and ls_iter < max_ls:  # zooming
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = cubic_interpolate(bracket[0], fs[0], gtds[0], bracket[1], fs[1], gtds[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insufficient or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) \
                    else min(bracket) + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = obj(t)
        evals, gtd_new, ls_iter = evals + 1, float(g_new @ d), ls_iter + 1
        if f_new > f + c1 * t * gtd or f_new >= fs[low]:
            bracket[high], fs[high], gs[high], gtds[high] = t, f_new, g_new.copy(), gtd_new
            low, high = (0, 1) if fs[0] <= fs[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], fs[high], gs[high], gtds[high] = \
                    bracket[low], fs[low], gs[low], gtds[low]
            bracket[low], fs[low], gs[low], gtds[low] = t, f_new, g_new.copy(), gtd_new
    return fs[low], gs[low], bracket[low], evals

"""Where the bench's MLP step spends its time: minigrad against numpy by hand, part by part.

    python scripts/mlp_breakdown.py [--rounds N]     (one BLAS thread, as the bench)

1. The step in four parts (forward, loss, backward, SGD update), both engines interleaved.
2. Each numpy call of the step as numpy by hand makes it and as minigrad makes it (same
   shapes, minigrad's layouts: an nn.Linear weight is (out, in), so its forward is `x @ W.T`
   where numpy by hand has `x @ W` with W (in, out)), interleaved in a shuffled order.
3. The step of numpy by hand, of minigrad, and of a numpy "mirror" making exactly minigrad's
   numpy calls with nothing else: mirror - numpy is the cost of the calls and layouts,
   minigrad - mirror the cost of the Python around them (modules, nodes, the engine).

Each line is the 25th percentile of the rounds (the machine is shared: the low quartile is
what survives the other programs). Instruction counts: scripts/callgrind_counts.py.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # (read when numpy loads OpenBLAS)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import minigrad  # noqa: E402
from compare.bench_mlp import LR, mlp_case, mlp_data, mlp_model  # noqa: E402
from minigrad import nn  # noqa: E402
from minigrad.ops.selection import _keep_or_zero  # noqa: E402

now = time.perf_counter_ns


def interleaved(fns: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """The 25th percentile (µs) of each callable's time, run in a shuffled order each round,
    each right after an untimed run of itself (as the bench: its data are in the caches)."""
    times: dict[str, list] = {k: [] for k in fns}
    keys = list(fns)
    for _ in range(rounds):
        random.shuffle(keys)
        for k in keys:
            fns[k]()
            t0 = now()
            fns[k]()
            times[k].append(now() - t0)
    return {k: float(np.percentile(v, 25)) / 1e3 for k, v in times.items()}


def parts(rounds: int) -> None:
    """Forward, loss, backward and update of both engines, timed inside one step."""
    d = mlp_data()
    model, x, y = mlp_model(minigrad, d), minigrad.tensor(d.x), minigrad.tensor(d.y)
    params = list(model.parameters())

    def minigrad_step() -> tuple:
        t0 = now()
        out = model(x)
        t1 = now()
        loss = nn.functional.cross_entropy(out, y)
        t2 = now()
        loss.backward()
        t3 = now()
        with minigrad.no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
        return t1 - t0, t2 - t1, t3 - t2, now() - t3

    Ws, bs = [W.copy() for W, _ in d.weights], [b.copy() for _, b in d.weights]
    rows = np.arange(len(d.y))

    def numpy_step() -> tuple:  # compare.bench_mlp.mlp_numpy, with the clock read in it
        t0 = now()
        inputs, pre, h = [], [], d.x
        for i, (W, b) in enumerate(zip(Ws, bs)):
            inputs.append(h)
            z = h @ W + b
            if i < 2:
                pre.append(z)
                h = np.maximum(z, 0)
        t1 = now()
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        g = e / e.sum(axis=1, keepdims=True)
        -np.log(g[rows, d.y]).mean()
        g[rows, d.y] -= 1
        g /= len(rows)
        t2, grads = now(), []
        for i in (2, 1, 0):
            grads.append((inputs[i].T @ g, g.sum(axis=0)))
            if i > 0:
                g = (g @ Ws[i].T) * (pre[i - 1] > 0)
        t3 = now()
        for i, (gW, gb) in zip((2, 1, 0), grads):
            Ws[i] -= LR * gW
            bs[i] -= LR * gb
        return t1 - t0, t2 - t1, t3 - t2, now() - t3

    names = ("forward", "loss", "backward", "update")
    times: dict[str, list] = {"numpy": [], "minigrad": []}
    steps = {"numpy": numpy_step, "minigrad": minigrad_step}
    for step in steps.values():
        step()
    for _ in range(rounds):
        for k in random.sample(list(steps), 2):
            steps[k]()  # (untimed first, as the bench)
            times[k].append(steps[k]())
    print("1. the step in parts (µs, p25)")
    low = {k: np.percentile(np.array(v) / 1e3, 25, axis=0) for k, v in times.items()}
    for i, name in enumerate(names):
        a, b = low["numpy"][i], low["minigrad"][i]
        print(f"   {name:9s} numpy {a:8.1f}   minigrad {b:8.1f}   {b - a:+8.1f}")


def calls(rounds: int) -> None:
    """Each numpy call of the step: numpy by hand's (left) and minigrad's (right)."""
    d = mlp_data()
    rng = np.random.default_rng(1)
    w_in_out = [W for W, _ in d.weights]  # numpy by hand's weights
    w_out_in = [np.ascontiguousarray(W.T) for W in w_in_out]  # an nn.Linear's
    bias = [b for _, b in d.weights]
    h = [d.x]
    for W in w_in_out[:2]:
        h.append(np.maximum(h[-1] @ W, 0))
    g = [rng.standard_normal((len(d.y), W.shape[1]), dtype=np.float32) for W in w_in_out]
    pairs: dict[str, tuple] = {}
    for i in range(3):
        hi, gi, Wn, Wm, b = h[i], g[i], w_in_out[i], w_out_in[i], bias[i]
        pairs[f"forward {i}: h @ W + b | b + h @ W.T"] = (
            lambda hi=hi, Wn=Wn, b=b: hi @ Wn + b, lambda hi=hi, Wm=Wm, b=b: b + hi @ Wm.T)
        pairs[f"weight grad {i}: h.T @ g | (g.T @ h).T"] = (
            lambda hi=hi, gi=gi: hi.T @ gi, lambda hi=hi, gi=gi: (gi.T @ hi).T)
        pairs[f"bias grad {i}: g.sum(0) | add.reduce"] = (
            lambda gi=gi: gi.sum(axis=0), lambda gi=gi: np.add.reduce(gi, 0))
        if i:
            keep = h[i] > 0
            pairs[f"input grad {i}: g @ W.T | g @ W"] = (
                lambda gi=gi, Wn=Wn: gi @ Wn.T, lambda gi=gi, Wm=Wm: gi @ Wm)
            below = g[i - 1]
            pairs[f"relu grad {i}: g * keep | _keep_or_zero"] = (
                lambda gi=below, k=keep: gi * k, lambda gi=below, k=keep: _keep_or_zero(gi, k))
        pairs[f"update {i}: W -= LR * gW"] = (
            lambda Wn=Wn: np.subtract(Wn, LR * Wn, Wn), lambda Wm=Wm: np.subtract(Wm, LR * Wm, Wm))
    flat = {f"{k}\0{side}": f for k, fs in pairs.items() for side, f in enumerate(fs)}
    low = interleaved(flat, rounds)
    print("2. each numpy call (µs, p25): numpy by hand | minigrad's")
    total = [0.0, 0.0]
    for k in pairs:
        a, b = low[f"{k}\0{0}"], low[f"{k}\0{1}"]
        total[0], total[1] = total[0] + a, total[1] + b
        print(f"   {k:44s} {a:8.1f} {b:8.1f}   {b - a:+7.1f}")
    print(f"   {'all':44s} {total[0]:8.1f} {total[1]:8.1f}   {total[1] - total[0]:+7.1f}")


def mirror_step() -> Callable[[], float]:
    """minigrad's numpy calls for one step (weights (out, in)), and nothing else."""
    d = mlp_data()
    Ws, bs = [np.ascontiguousarray(W.T) for W, _ in d.weights], [b.copy() for _, b in d.weights]
    x, y, n = d.x, d.y, len(d.y)
    rows = np.arange(n)

    def step() -> float:
        ins, outs, h = [], [], x
        for i, (W, b) in enumerate(zip(Ws, bs)):  # Addmm, Relu
            ins.append(h)
            z = b + h @ W.T
            if i < 2:
                h = np.maximum(z, np.float32(0))
                outs.append(h)
        shifted = z - np.maximum.reduce(z, 1, keepdims=True)  # log_softmax
        logp = shifted - np.log(np.add.reduce(np.exp(shifted), 1, keepdims=True))
        coef = np.zeros(logp.shape, logp.dtype)  # nll_loss, its gradient
        coef[rows, y] = np.float32(-1) / np.float32(n)
        loss = np.add.reduce(-logp[rows, y], axis=None) / np.float32(n)
        g = np.ones((), np.float32) * coef
        g = g - np.exp(logp) * np.add.reduce(g, 1, keepdims=True)
        grads = []
        for i in (2, 1, 0):
            grads.append(((g.T @ ins[i]).T.T, np.add.reduce(g, 0)))
            if i:
                g = _keep_or_zero(g @ Ws[i], outs[i - 1] > 0)
        for i, (gW, gb) in zip((2, 1, 0), grads):
            Ws[i] -= LR * gW
            bs[i] -= LR * gb
        return float(loss)

    return step


def steps(rounds: int) -> None:
    d = mlp_data()
    fns = {"numpy by hand": mlp_case("numpy", d).prepare(),
           "minigrad": mlp_case("minigrad", d, True).prepare(), "mirror": mirror_step()}
    for f in fns.values():
        f()
    low = interleaved(fns, rounds)
    print("3. whole steps (µs, p25)")
    for k, t in low.items():
        print(f"   {k:14s} {t:8.1f}   {t / low['numpy by hand']:.3f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1000)
    args = parser.parse_args()
    gc.collect()
    gc.freeze()
    parts(args.rounds)
    calls(args.rounds)
    steps(args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())

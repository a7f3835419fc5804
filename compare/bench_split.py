"""The bench's `split` item: where minigrad's time goes, per chain node and per training step.

For the small-op chain (us/node), the MLP step and the LeNet step (ms/step), minigrad alone:
- forward: the forward under no_grad (numpy's work and the ops' own Python), and record: what
  recording the graph adds (the recorded forward's time less that);
- the backward, cut where the engine hands over: backward call (`Node.call_backward`: the
  ops' backward formulas), send/fit (`GraphTask.send`: each gradient fitted to its input's
  shape and added into the next node's buffer), accumulate (`AccumulateGrad.accumulate`:
  into `.grad`), and engine loop (the rest: counting dependencies, the ready queue, hooks'
  checks, freeing what nodes saved);
- update (steps only): `p -= lr * p.grad; p.grad = None` under no_grad, as the bench's step.

Each part is a median over the rounds. The three backward parts are timed from the inside, in
runs of their own: for those runs only, the three methods are wrapped with a clock read on
entry and exit (the wrapper's own cost lands in none of them); the engine loop is the plain
backward's median less the three.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from compare import bench_peers as peers
from compare.bench_cnn import cnn_data, cnn_loss
from compare.bench_config import Config
from compare.bench_mlp import mlp_data, mlp_loss, sgd_update
from compare.bench_peers import Unavailable
from compare.bench_timing import Item, Row

BACKWARD_PARTS = ("backward call", "send/fit", "accumulate")


def _inner_methods(mg: Any) -> dict[str, tuple[type, str]]:
    """Each backward part's method, as (class, name)."""
    engine, node = mg.autograd.engine, mg.autograd.node
    return {"backward call": (node.Node, "call_backward"),
            "send/fit": (engine.GraphTask, "send"),
            "accumulate": (node.AccumulateGrad, "accumulate")}


@contextmanager
def timed_parts(mg: Any, spent: dict[str, float]) -> Iterator[None]:
    """Within the block, add the seconds spent inside each backward part to `spent`."""
    methods = _inner_methods(mg)
    originals = {name: vars(cls)[attr] for name, (cls, attr) in methods.items()}

    def timed(name: str, method: Callable) -> Callable:
        clock = time.perf_counter

        def run(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return method(*args, **kwargs)
            finally:
                spent[name] += clock() - start

        return run

    for name, (cls, attr) in methods.items():
        setattr(cls, attr, timed(name, originals[name]))
    try:
        yield
    finally:
        for name, (cls, attr) in methods.items():
            setattr(cls, attr, originals[name])


def split(mg: Any, forward: Callable[[], Any], update: Callable[[], None] | None,
          rounds: int) -> dict[str, float]:
    """The median seconds of each part of `forward()` + its backward (+ `update()`)."""
    samples: dict[str, list[float]] = {}

    def note(name: str, seconds: float) -> None:
        samples.setdefault(name, []).append(seconds)

    clock = time.perf_counter
    for _ in range(rounds + 1):  # (the first round warms up and is dropped)
        out = None  # (the last round's graph is freed here, outside the clock)
        gc.collect()
        with mg.no_grad():
            start = clock()
            forward()
            note("forward", clock() - start)
        start = clock()
        out = forward()
        note("recorded", clock() - start)
        start = clock()
        out.backward()
        note("backward", clock() - start)
        if update is not None:
            start = clock()
            update()
            note("update", clock() - start)
        out = None
        out = forward()
        spent = dict.fromkeys(BACKWARD_PARTS, 0.0)
        with timed_parts(mg, spent):
            out.backward()
        for name in BACKWARD_PARTS:
            note(name, spent[name])
        if update is not None:
            update()
    med = {name: statistics.median(values[1:]) for name, values in samples.items()}
    parts = {"forward": med["forward"], "record": med["recorded"] - med["forward"]}
    parts.update({name: med[name] for name in BACKWARD_PARTS})
    parts["engine loop"] = med["backward"] - sum(med[name] for name in BACKWARD_PARTS)
    if update is not None:
        parts["update"] = med["update"]
    return parts


def chain_forward(mg: Any, n: int, width: int) -> Callable[[], Any]:
    """The bench's chain (mul, add, tanh, ...) ending in `.sum()`, from a new leaf each run."""
    x0 = np.linspace(-1, 1, width, dtype=np.float32)

    def forward() -> Any:
        y = mg.tensor(x0, requires_grad=True)
        for i in range(n):
            k = i % 3
            y = y * peers.MUL if k == 0 else y + peers.ADD if k == 1 else y.tanh()
        return y.sum()

    return forward


def item_split(cfg: Config) -> Item:
    item = Item("split", "where minigrad's time goes: forward (under no_grad), record, backward "
                "call, send/fit, accumulate, engine loop, update", "", ratios=False)
    item.notes.append("each part's median; the backward's parts timed from the inside in runs "
                      "of their own, the engine loop the rest of the plain backward; record "
                      "and engine loop are differences of medians (near 0: within the noise)")
    try:
        mg = peers.load("minigrad")
    except Unavailable as exc:
        item.rows.append(Row("minigrad", None, "unavailable", str(exc)))
        return item
    mlp, cnn = mlp_data(cfg.mlp_sizes, cfg.batch), cnn_data(cfg.cnn_batch)
    mlp_forward, mlp_params = mlp_loss(mg, mlp, True)
    cnn_forward, cnn_params = cnn_loss(mg, cnn)
    work = [(f"chain, us/node ({cfg.chain_n})", chain_forward(mg, cfg.chain_n, cfg.chain_width),
             None, 1e6 / cfg.chain_n, cfg.chain_repeats),
            ("MLP step, ms", mlp_forward, lambda: sgd_update(mg, mlp_params), 1e3,
             cfg.mlp_repeats // 3),
            ("LeNet step, ms", cnn_forward, lambda: sgd_update(mg, cnn_params), 1e3,
             cfg.cnn_repeats)]
    for label, forward, update, scale, rounds in work:
        try:
            parts = split(mg, forward, update, max(rounds, 1))
        except Exception as exc:  # noqa: BLE001 - a failing part is a result
            item.rows.append(Row(label, None, "fails", f"fails ({type(exc).__name__}: {exc})"))
            continue
        total = sum(parts.values())
        item.rows.append(Row(label, total, extra={**{k: v * scale for k, v in parts.items()},
                                                  "total": total * scale}))
    return item

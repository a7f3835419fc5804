"""The bench's work items, one function each (the forward-mode ones in `bench_forward.py`, the
cost split in `bench_split.py`):
which engines run what (`bench_mlp.py`, `bench_peers.py`), timed how (`bench_timing.py`), and
the notes each item's section prints. `RUNNERS` lists them in the order they run.
"""

from __future__ import annotations

import gc
import importlib
import io
import statistics
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import replace
from typing import Any

import numpy as np

from compare import bench_peers as peers
from compare.bench_cnn import cnn_case, cnn_data
from compare.bench_config import Config
from compare.bench_forward import item_jacobians, item_jvp
from compare.bench_mlp import missing_nn, mlp_case, mlp_data, mlp_torchlike
from compare.bench_peers import Case, NotApplicable, Unavailable
from compare.bench_split import item_split
from compare.bench_timing import Item, Row, interleaved, make_cases, peak_memory, timed_item


def minigrad_uses_nn(cfg: Config) -> tuple[bool, str]:
    """Use minigrad.nn for the MLP when it exists and runs; else plain tensors (say which)."""
    try:
        mg = peers.load("minigrad")
    except Unavailable:
        return False, ""
    why = missing_nn(mg)
    if why:
        return False, f"{why}: minigrad and torch run plain tensors + matmul"
    try:
        step = mlp_torchlike(mg, mlp_data(cfg.mlp_sizes, cfg.batch), True).prepare()
        step()
    except Exception as exc:  # noqa: BLE001
        return False, (f"minigrad.nn failed ({type(exc).__name__}: {exc}); minigrad and torch "
                       "run plain tensors + matmul")
    return True, "minigrad and torch run the same nn.Sequential(Linear, ReLU, ...) code"


def item_mlp(cfg: Config) -> Item:
    sizes = "-".join(map(str, cfg.mlp_sizes))
    item = Item("mlp", f"MLP {sizes} training step, batch {cfg.batch} (forward, cross-entropy, "
                "backward, SGD)", "ms/step")
    use_nn, note = minigrad_uses_nn(cfg)
    if note:
        item.notes.append(note)
    data = mlp_data(cfg.mlp_sizes, cfg.batch)
    return timed_item(item, cfg, lambda e: mlp_case(e, data, use_nn), cfg.mlp_repeats)


def item_chain(cfg: Config) -> Item:
    item = Item("chain", f"chain of {cfg.chain_n} small ops (mul, add, tanh, ...) on a "
                f"{cfg.chain_width}-element vector: forward + backward", "us/node")
    make = lambda e: peers.chain_case(e, cfg.chain_n, cfg.chain_width, True)
    return timed_item(item, cfg, make, cfg.chain_repeats, per=cfg.chain_n)


def item_deep(cfg: Config) -> Item:
    item = Item("deep", f"{cfg.deep_n:,}-deep chain: forward + backward", "us/node")
    make = lambda e: peers.chain_case(e, cfg.deep_n, cfg.chain_width)
    timed_item(item, cfg, make, cfg.deep_repeats, per=cfg.deep_n, warmup=0, settle=False)
    if cfg.huge_n and "minigrad" in cfg.engines:
        row = Row(f"minigrad {cfg.huge_n:,}", status="skipped")
        try:
            case = peers.chain_case("minigrad", cfg.huge_n, cfg.chain_width)
            timed = interleaved({row.engine: case}, 1, warmup=0, settle=False)
            row = timed[row.engine]
            row.spread = None
            row.note = "completes (one run)" if row.status == "ok" else row.note
            if row.value is not None:
                row.value /= cfg.huge_n
        except Unavailable as exc:
            row = Row(row.engine, None, "unavailable", str(exc))
        item.rows.append(row)
    elif cfg.huge_n is None:
        item.notes.append("the 1,000,000-deep minigrad chain is skipped in --quick")
    return item


def find_trace(mg: Any) -> Callable[..., Any] | None:
    """`minigrad.trace` (the function), or None while it does not exist."""
    trace = getattr(mg, "trace", None)
    if trace is not None and not callable(trace):  # the module, not re-exported yet
        trace = getattr(trace, "trace", None)
    if trace is None:
        try:
            trace = importlib.import_module("minigrad.teach.trace").trace
        except (ImportError, AttributeError):
            return None
    return trace


def trace_context(mg: Any) -> tuple[Callable[[], Any], str]:
    """`minigrad.trace()` when it exists, else a listener that does nothing (a stand-in)."""
    trace = find_trace(mg)
    if trace is not None:
        return trace, "minigrad.trace()"
    return (lambda: mg.events.listen(lambda event: None),
            "STAND-IN: minigrad.trace() does not exist yet; timed under "
            "minigrad.events.listen(lambda e: None) instead")


def item_trace(cfg: Config) -> Item:
    item = Item("trace", "the MLP step under minigrad.trace() (trace overhead)", "ms/step")
    engines = [e for e in ("numpy", "torch", "minigrad") if e in cfg.engines]
    use_nn, _ = minigrad_uses_nn(cfg)
    data = mlp_data(cfg.mlp_sizes, cfg.batch)
    try:
        mg = peers.load("minigrad")
    except Unavailable as exc:
        item.rows.append(Row("minigrad", None, "unavailable", str(exc)))
        return item
    context, how = trace_context(mg)
    item.notes.append(how)

    def traced() -> Case:
        step = mlp_case("minigrad", data, use_nn).prepare()

        def run() -> None:
            with context():
                step()

        return Case(peers.same(run), "traced")

    def make(engine: str) -> Case:
        return traced() if engine == "minigrad traced" else mlp_case(engine, data, use_nn)

    timed_item(item, replace(cfg, engines=(*engines, "minigrad traced")), make, cfg.mlp_repeats)
    plain, under = item.value("minigrad"), item.value("minigrad traced")
    if plain and under:
        item.row("minigrad traced").note = f"{under / plain:.2f}x the untraced step"
    return item


def item_explain(cfg: Config) -> Item:
    n = cfg.explain_n
    item = Item("explain", f"explain() of a {n:,}-node graph (a chain of small ops)", "s",
                ratios=False)
    try:
        mg = peers.load("minigrad")
    except Unavailable as exc:
        item.rows.append(Row("minigrad", None, "unavailable", str(exc)))
        return item
    trace = find_trace(mg)
    if trace is None:
        item.rows.append(Row("minigrad", None, "skipped", "minigrad.trace() does not exist yet"))
        return item
    x0 = np.linspace(-1, 1, cfg.chain_width, dtype=np.float32)
    times: dict[str, list[float]] = {"trace": [], "explanation": []}
    lines = 0
    try:
        for _ in range(cfg.explain_repeats):
            x = mg.tensor(x0, requires_grad=True)
            y = x
            for i in range(n - 1):
                y = y * peers.MUL if i % 3 == 0 else y + peers.ADD if i % 3 == 1 else y.tanh()
            y = y.sum()
            gc.collect()
            start = time.perf_counter()
            t = trace(y)
            middle = time.perf_counter()
            text = explanation_text(t)
            end = time.perf_counter()
            times["trace"].append(middle - start)
            times["explanation"].append(end - middle)
            lines = text.count("\n") + 1
    except Exception as exc:  # noqa: BLE001
        item.rows.append(Row("minigrad", None, "fails", f"fails ({type(exc).__name__}: {exc})"))
        return item
    tr, ex = statistics.median(times["trace"]), statistics.median(times["explanation"])
    item.rows += [Row("minigrad trace(y)", tr), Row("minigrad explanation()", ex,
                                                    note=f"{lines:,} lines of text"),
                  Row("minigrad total", tr + ex)]
    return item


def explanation_text(t: Any) -> str:
    """The explanation as text: `Trace.explanation()`, or what `Trace.explain()` prints."""
    if hasattr(t, "explanation"):
        return t.explanation()
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        t.explain()
    return buffer.getvalue()


def item_memory(cfg: Config) -> Item:
    first, last = cfg.memory_steps
    item = Item("memory", f"peak memory over {last} MLP training steps (tracemalloc, above the "
                "memory held before step 1)", "MiB", ratios=False)
    item.notes.append(f"columns: peak after {first} steps, peak after {last} steps, ratio; "
                      "memory still held after the last step")
    data = mlp_data(cfg.mlp_sizes, cfg.batch)
    use_nn, _ = minigrad_uses_nn(cfg)
    for engine in cfg.engines:
        if engine == "torch":
            item.rows.append(Row(engine, None, "n/a", "torch's allocator is invisible to "
                                                      "tracemalloc"))
            continue
        try:
            step = mlp_case(engine, data, use_nn).prepare()
            marks = peak_memory(step, cfg.memory_steps)
        except Unavailable as exc:
            item.rows.append(Row(engine, None, "unavailable", str(exc)))
            continue
        except NotApplicable as exc:
            item.rows.append(Row(engine, None, "n/a", str(exc).removeprefix("n/a: ")))
            continue
        except Exception as exc:  # noqa: BLE001
            item.rows.append(Row(engine, None, "fails", f"fails ({type(exc).__name__})"))
            continue
        p1, p2 = marks[first][1], marks[last][1]
        item.rows.append(Row(engine, p2, extra={f"peak@{first}": p1, f"peak@{last}": p2,
                                                "ratio": p2 / p1 if p1 else None,
                                                "held": marks[last][0]}))
    return item


def item_fan_in(cfg: Config) -> Item:
    n = cfg.fan_in_n
    item = Item("fanin", f"fan-in: one leaf used {n:,} and {2 * n:,} times in a sum "
                "(backward only)", "ms", ratios=False)
    item.notes.append(f"columns: backward time at {n:,} uses, at {2 * n:,} uses, ratio "
                      "(about 2 means linear)")
    cases = {}  # both sizes in the same rounds, so that a busy spell hits both alike
    for engine, case in make_cases(item, cfg, lambda e: peers.fan_in_case(e, n)).items():
        cases[f"{engine}|{n}"] = case
        cases[f"{engine}|{2 * n}"] = peers.fan_in_case(engine, 2 * n)
    timed = interleaved(cases, cfg.fan_in_repeats)
    rows = []
    for key in list(timed)[::2]:
        engine = key.split("|")[0]
        small, big = timed[key], timed[f"{engine}|{2 * n}"]
        if small.status != "ok" or big.status != "ok":
            bad = small if small.status != "ok" else big
            rows.append(replace(bad, engine=engine))
            continue
        t1, t2 = small.value, big.value
        rows.append(Row(engine, t2, extra={f"{n:,}": t1 * 1e3, f"{2 * n:,}": t2 * 1e3,
                                           "ratio": t2 / t1}))
    item.rows = rows + item.rows
    return item


def item_cnn(cfg: Config) -> Item:
    item = Item("cnn", f"LeNet-style CNN training step, 28x28 inputs, batch {cfg.cnn_batch} "
                "(conv 6 5x5, relu, maxpool 2, conv 16 5x5, relu, maxpool 2, linear 120-84-10, "
                "cross-entropy, backward, SGD)", "ms/step")
    item.notes.append("minigrad and torch run the same nn.Sequential(Conv2d, ReLU, MaxPool2d, "
                      "...) code from the same weights; numpy is written by hand")
    data = cnn_data(cfg.cnn_batch)
    return timed_item(item, cfg, lambda e: cnn_case(e, data), cfg.cnn_repeats)


RUNNERS: dict[str, Callable[[Config], Item]] = {
    "mlp": item_mlp, "chain": item_chain, "deep": item_deep, "trace": item_trace,
    "explain": item_explain, "memory": item_memory, "fanin": item_fan_in,
    "cnn": item_cnn, "split": item_split, "jvp": item_jvp, "jacobians": item_jacobians}
"""Each work item's key and function, in the order they run and print."""

"""`python -m compare bench`: minigrad side by side with numpy by hand, torch, autograd, mygrad
and micrograd on the same work, in one process.

How it measures: single-threaded BLAS (numpy and torch), every engine's run of a work item
interleaved with the others' (one timed run each per round, right after an untimed run of
the same engine, in a shuffled order: a slow phase of the machine hits all engines alike and
none is timed in the state another engine left), the median over repeats, a garbage
collection before each run (outside the timer). Work items (issue 9): an MLP training step,
a chain of small ops, a very deep chain, the MLP step under `minigrad.trace()`, `explain()`
of a 10,000-node graph, peak memory over 100 training steps, and a fan-in check. The work
each engine does is in `bench_peers.py`; the printed report is made in `bench_report.py`.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import glob
import importlib
import io
import json
import os
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from compare import bench_peers as peers
from compare.bench_peers import ENGINES, Case, NotApplicable, Unavailable
from compare.bench_report import report

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass
class Config:
    """Sizes and repeats of every work item (`quick()` and `tiny()` make smaller ones)."""

    mlp_sizes: tuple = (784, 256, 256, 10)
    batch: int = 128
    mlp_repeats: int = 150  # (a step is short and noisy: many samples for a steady median)
    chain_n: int = 1000
    chain_width: int = 16
    chain_repeats: int = 80
    deep_n: int = 100_000
    deep_repeats: int = 5
    huge_n: int | None = 1_000_000  # minigrad alone, once; None skips it
    explain_n: int = 10_000
    explain_repeats: int = 3
    memory_steps: tuple = (10, 100)
    fan_in_n: int = 10_000
    fan_in_repeats: int = 7
    items: tuple = ()  # empty: every item
    engines: tuple = ENGINES
    json_path: str | None = None

    @classmethod
    def quick(cls) -> Config:
        return cls(mlp_repeats=10, chain_repeats=7, deep_n=20_000, deep_repeats=1, huge_n=None,
                   explain_repeats=1, fan_in_n=2_000, fan_in_repeats=5)

    @classmethod
    def tiny(cls) -> Config:
        """For the smoke test: every code path, a fraction of a second of work."""
        return cls(mlp_sizes=(12, 8, 8, 3), batch=4, mlp_repeats=2, chain_n=30, chain_repeats=2,
                   deep_n=3000, deep_repeats=1, huge_n=5000, explain_n=40, explain_repeats=1,
                   memory_steps=(2, 4), fan_in_n=50, fan_in_repeats=1)


@dataclass
class Row:
    """One engine's result in one work item. `value` is in the item's unit (None: no number)."""

    engine: str
    value: float | None = None
    status: str = "ok"  # ok | n/a | unavailable | fails | skipped
    note: str = ""
    spread: float | None = None  # median absolute deviation / median
    extra: dict = field(default_factory=dict)


@dataclass
class Item:
    key: str
    title: str
    unit: str  # "ms/step", "us/node", "s", "MiB", "ms"
    rows: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    ratios: bool = True  # show x numpy and x torch columns

    def row(self, engine: str) -> Row | None:
        return next((r for r in self.rows if r.engine == engine), None)

    def value(self, engine: str) -> float | None:
        r = self.row(engine)
        return r.value if r is not None and r.status == "ok" else None


ITEMS = ("mlp", "chain", "deep", "trace", "explain", "memory", "fanin")


# -- threads ---------------------------------------------------------------------------------
def limit_threads() -> str:
    """One BLAS thread for numpy; says how it was done.

    numpy is usually loaded before this runs (`import compare` loads it), so the environment
    variables alone come too late: threadpoolctl when installed, else OpenBLAS's own
    set_num_threads through ctypes. torch gets torch.set_num_threads(1) in `peers.load`.
    """
    for var in THREAD_VARS:
        os.environ[var] = "1"  # for libraries not loaded yet
    try:
        from threadpoolctl import threadpool_info, threadpool_limits

        threadpool_limits(1)
        counts = sorted({p["num_threads"] for p in threadpool_info()})
        return f"BLAS threads {counts} (threadpoolctl)"
    except ImportError:
        pass
    threads = _openblas_threads(set_to=1)
    if threads is not None:
        return f"numpy OpenBLAS threads: {threads} (set and read back through ctypes)"
    return "numpy BLAS threads: not verified (OPENBLAS_NUM_THREADS=1 set; no threadpoolctl)"


def _openblas_threads(set_to: int | None = None) -> int | None:
    """Set/get the thread count of numpy's bundled OpenBLAS (what threadpoolctl does)."""
    libs_dir = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in glob.glob(os.path.join(libs_dir, "*openblas*")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix, suffix in (("scipy_openblas", "64_"), ("openblas", "64_"), ("openblas", "")):
            get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
            put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
            if get is not None and put is not None:
                if set_to is not None:
                    put(set_to)
                return int(get())
    return None


# -- timing ----------------------------------------------------------------------------------
def interleaved(cases: dict[str, Case], repeats: int, warmup: int = 1,
                settle: bool = True) -> dict[str, Row]:
    """Time every case `repeats` times, one timed run of each per round; a Row per engine
    (median seconds).

    What one engine leaves behind (caches, allocator state) slows the next one measurably:
    after a torch step, an MLP step here took ~7% longer than after a numpy step. So each
    timed run comes right after an untimed run of the same engine (`settle`; the state it
    would find in its own training loop), and each round runs the engines in a new order
    (shuffled, seeded). Long runs (the deep chain) need no settling run.
    """
    samples: dict[str, list[float]] = {name: [] for name in cases}
    failed: dict[str, str] = {}
    order = list(cases.items())
    shuffle = random.Random(0).shuffle
    for round_ in range(warmup + repeats):
        shuffle(order)
        for name, case in order:
            if name in failed:
                continue
            try:
                if settle:
                    case.prepare()()
                fn = case.prepare()
                gc.collect()
                start = time.perf_counter()
                fn()
                seconds = time.perf_counter() - start
            except Exception as exc:  # noqa: BLE001 - a failing engine is a result
                failed[name] = f"fails ({type(exc).__name__})"
                continue
            finally:
                fn = None  # free the graph before the next engine runs
            if round_ >= warmup:
                samples[name].append(seconds)
    rows = {}
    for name, case in cases.items():
        if name in failed:
            rows[name] = Row(name, None, "fails", failed[name])
        else:
            med = statistics.median(samples[name])
            mad = statistics.median(abs(s - med) for s in samples[name])
            spread = mad / med if med and len(samples[name]) >= 3 else None
            rows[name] = Row(name, med, note=case.note, spread=spread)
    return rows


def make_cases(item: Item, cfg: Config, make: Callable[[str], Case]) -> dict[str, Case]:
    """A Case per engine; engines that cannot run get their row in `item` right away."""
    cases = {}
    for engine in cfg.engines:
        try:
            cases[engine] = make(engine)
        except Unavailable as exc:
            item.rows.append(Row(engine, None, "unavailable", str(exc)))
        except NotApplicable as exc:
            item.rows.append(Row(engine, None, "n/a", str(exc).removeprefix("n/a: ")))
    return cases


def timed_item(item: Item, cfg: Config, make: Callable[[str], Case], repeats: int,
               per: int = 1, warmup: int = 1, settle: bool = True) -> Item:
    rows = interleaved(make_cases(item, cfg, make), repeats, warmup, settle)
    for row in rows.values():
        if row.value is not None:
            row.value /= per
    item.rows = list(rows.values()) + item.rows
    return item


# -- the work items --------------------------------------------------------------------------
def minigrad_uses_nn(cfg: Config) -> tuple[bool, str]:
    """Use minigrad.nn for the MLP when it exists and runs; else plain tensors (say which)."""
    try:
        mg = peers.load("minigrad")
    except Unavailable:
        return False, ""
    why = peers.missing_nn(mg)
    if why:
        return False, f"{why}: minigrad and torch run plain tensors + matmul"
    try:
        step = peers.mlp_torchlike(mg, peers.mlp_data(cfg.mlp_sizes, cfg.batch), True).prepare()
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
    data = peers.mlp_data(cfg.mlp_sizes, cfg.batch)
    return timed_item(item, cfg, lambda e: peers.mlp_case(e, data, use_nn), cfg.mlp_repeats)


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
    data = peers.mlp_data(cfg.mlp_sizes, cfg.batch)
    try:
        mg = peers.load("minigrad")
    except Unavailable as exc:
        item.rows.append(Row("minigrad", None, "unavailable", str(exc)))
        return item
    context, how = trace_context(mg)
    item.notes.append(how)

    def traced() -> Case:
        step = peers.mlp_case("minigrad", data, use_nn).prepare()

        def run() -> None:
            with context():
                step()

        return Case(peers.same(run), "traced")

    def make(engine: str) -> Case:
        return traced() if engine == "minigrad traced" else peers.mlp_case(engine, data, use_nn)

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


def peak_memory(step: Callable[[], Any], checkpoints: tuple) -> dict[int, tuple[float, float]]:
    """Run `step` max(checkpoints) times under tracemalloc: (current, peak) MiB at each one."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out = {}
        for i in range(1, max(checkpoints) + 1):
            step()
            if i in checkpoints:
                current, peak = tracemalloc.get_traced_memory()
                out[i] = ((current - base) / 2**20, (peak - base) / 2**20)
    finally:
        tracemalloc.stop()
    return out


def item_memory(cfg: Config) -> Item:
    first, last = cfg.memory_steps
    item = Item("memory", f"peak memory over {last} MLP training steps (tracemalloc, above the "
                "memory held before step 1)", "MiB", ratios=False)
    item.notes.append(f"columns: peak after {first} steps, peak after {last} steps, ratio; "
                      "memory still held after the last step")
    data = peers.mlp_data(cfg.mlp_sizes, cfg.batch)
    use_nn, _ = minigrad_uses_nn(cfg)
    for engine in cfg.engines:
        if engine == "torch":
            item.rows.append(Row(engine, None, "n/a", "torch's allocator is invisible to "
                                                      "tracemalloc"))
            continue
        try:
            step = peers.mlp_case(engine, data, use_nn).prepare()
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
                      "(issue 2: about 2 means linear)")
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


RUNNERS = {"mlp": item_mlp, "chain": item_chain, "deep": item_deep, "trace": item_trace,
           "explain": item_explain, "memory": item_memory, "fanin": item_fan_in}


def run(cfg: Config, progress: Callable[[str], None] | None = None) -> list[Item]:
    """Run the work items `cfg` selects, in order. Every engine is imported first, then the
    objects alive (the modules of every engine, ...) are frozen, so that the collection before
    each timed run scans only that run's objects. (Imported later, torch's ~160,000 objects
    made each of those collections take ~90 ms and leave the caches cold for the timed run.)"""
    for engine in cfg.engines:
        try:
            peers.load(engine)
        except peers.Unavailable:
            pass  # its rows will say so
    items = []
    gc.collect()
    gc.freeze()
    try:
        for key in ITEMS:
            if cfg.items and key not in cfg.items:
                continue
            if progress:
                progress(f"running {key} ...")
            started = time.perf_counter()
            item = RUNNERS[key](cfg)
            item.notes.append(f"({time.perf_counter() - started:.1f} s)")
            items.append(item)
    finally:
        gc.unfreeze()
    return items


# -- command line ----------------------------------------------------------------------------
def parse(argv: list[str]) -> Config:
    parser = argparse.ArgumentParser(
        prog="python -m compare bench",
        description="minigrad vs numpy by hand, torch, autograd, mygrad, micrograd (issue 9)")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (about 30 s)")
    parser.add_argument("--repeat", type=int, metavar="N", help="repeats of every timed item")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help=f"run only these items ({', '.join(ITEMS)}) or engines "
                             f"({', '.join(ENGINES)}; numpy and torch always run, for the "
                             "ratios); repeatable, or comma-separated")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    cfg = Config.quick() if args.quick else Config()
    names = [n.strip() for spec in args.only for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in ITEMS and n not in ENGINES]
    if unknown:
        parser.error(f"--only: unknown name(s) {unknown}; items: {ITEMS}, engines: {ENGINES}")
    items = tuple(n for n in names if n in ITEMS)
    engines = tuple(e for e in ENGINES if e in names or e in ("numpy", "torch")) if any(
        n in ENGINES for n in names) else ENGINES
    cfg = replace(cfg, items=items, engines=engines, json_path=args.json)
    if args.repeat:
        cfg = replace(cfg, **{k: args.repeat for k in ("mlp_repeats", "chain_repeats",
                                                       "deep_repeats", "explain_repeats",
                                                       "fan_in_repeats")})
    return cfg


def main(argv: list[str] | None = None) -> int:
    cfg = parse(sys.argv[1:] if argv is None else list(argv))
    threads = limit_threads()
    if "torch" in cfg.engines:
        try:
            peers.load("torch")  # sets torch's threads to 1 before any work
        except Unavailable:
            pass
    items = run(cfg, progress=lambda msg: print(msg, file=sys.stderr, flush=True))
    print(report(cfg, items, threads), end="")
    if cfg.json_path:
        with open(cfg.json_path, "w", encoding="utf-8") as f:
            json.dump([asdict(i) for i in items], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

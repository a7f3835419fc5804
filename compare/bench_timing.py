"""How the bench measures: one BLAS thread, every engine's runs interleaved in shuffled rounds
(each timed run right after an untimed run of the same engine), the median and its spread, peak
memory under tracemalloc; and the `Row`s and `Item`s the results go into.
"""

from __future__ import annotations

import ctypes
import gc
import glob
import os
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from compare.bench_config import Config
from compare.bench_peers import Case, NotApplicable, Unavailable

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


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
    """One work item's results: a Row per engine, and the notes printed under its title (the
    last one, how long the item took, under its table)."""

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


# -- threads ---------------------------------------------------------------------------------
def limit_threads() -> str:
    """One BLAS thread for numpy; says how it was done.

    numpy is usually loaded before this runs (`import compare` loads it), so the environment
    variables alone come too late: threadpoolctl when installed, else OpenBLAS's own
    set_num_threads through ctypes. torch gets torch.set_num_threads(1) in `bench_peers.load`.
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

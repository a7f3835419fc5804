"""The printed report of `python -m compare bench`: a header saying how it measured, a table per
work item (value, x numpy and x torch ratios, spread), and the bench's targets checked against
the run. `bench_timing.py` and `bench_items.py` measure; this file only formats.
"""

from __future__ import annotations

import os
import platform

from compare import bench_peers as peers
from compare.bench_config import Config
from compare.bench_forward import faster_way
from compare.bench_timing import Item

SCALE = {"ms/step": 1e3, "us/node": 1e6, "s": 1.0, "ms": 1e3}


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    v = value * SCALE.get(unit, 1.0)
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}" if abs(v) < 0.1 else f"{v:.2f}"


def format_item(number: int, item: Item) -> list[str]:
    lines = [f"{number}. {item.title}"]
    lines += [f"   {note}" for note in item.notes[:-1]]
    base, torch_value = item.value("numpy"), item.value("torch")
    for row in item.rows:
        if row.status != "ok":  # a "fails" note already starts with "fails (...)"
            status = "" if row.status == "fails" else f"{row.status} "
            lines.append(f"   {row.engine:<24} {status}{row.note}".rstrip())
            continue
        if row.extra:
            cells = "  ".join(f"{k} {_num(v)}" for k, v in row.extra.items())
            lines.append(f"   {row.engine:<24} {cells}  {row.note}".rstrip())
            continue
        text = f"   {row.engine:<24} {fmt(row.value, item.unit):>9} {item.unit:<8}"
        if item.ratios:
            for ref in (base, torch_value):
                text += f" {row.value / ref:6.2f}x" if ref else "       -"
        if row.spread is not None:
            text += f"  ±{row.spread * 100:.0f}%"
        lines.append(f"{text}  {row.note}".rstrip())
    lines.append(f"   {item.notes[-1]}" if item.notes else "")
    return lines


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}" if abs(v) < 100 else f"{v:,.0f}"


def header(cfg: Config, threads: str) -> list[str]:
    versions = ", ".join(f"{e} {peers.version(e)}" for e in cfg.engines)
    lines = [f"python -m compare bench: Python {platform.python_version()}, {versions}",
             f"{threads}; torch.set_num_threads(1); {os.cpu_count()} cores",
             "medians over repeats, engines interleaved (one timed run each per round, in a "
             "shuffled order, each right after an untimed run of the same engine except in the "
             "deep chain), gc.collect() before each run (the objects alive at the start frozen: "
             "gc.freeze()); ratio columns: x numpy (by hand), x torch; ± is the median absolute "
             "deviation"]
    if os.environ.get("OPENBLAS_CORETYPE"):
        lines.append(f"note: OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']} is set, "
                     "which may slow numpy's BLAS")
    return lines


def targets(items: list[Item]) -> list[str]:
    """The speed and memory targets minigrad is held to, each checked against this run: met,
    NOT MET, or n/a (not run, or no numbers)."""
    by = {i.key: i for i in items}
    checks = []

    def check(label: str, ok: bool | None, detail: str) -> None:
        mark = "n/a" if ok is None else "met" if ok else "NOT MET"
        checks.append(f"   [{mark:^7}] {label}: {detail}")

    if "mlp" in by:
        mg, npy, th, my = (by["mlp"].value(e) for e in ("minigrad", "numpy", "torch", "mygrad"))
        ok = None if not (mg and npy) else mg <= 1.10 * npy and all(
            mg < t for t in (th, my) if t)
        check("MLP step <= 1.10x numpy, ahead of torch and mygrad", ok,
              f"{mg / npy:.2f}x numpy" + (f", {mg / th:.2f}x torch" if th else "")
              if mg and npy else "no numbers")
    for key, label in (("chain", "small-op chain"), ("deep", "100,000-deep chain")):
        if key in by:
            mg, th = by[key].value("minigrad"), by[key].value("torch")
            check(f"{label}: minigrad us/node <= 0.9x torch's", None if not (mg and th)
                  else mg <= 0.9 * th, f"{mg * 1e6:.2f} vs {th * 1e6:.2f} us/node "
                  f"({mg / th:.2f}x)" if mg and th else "no numbers")
    if "deep" in by:
        huge = next((r for r in by["deep"].rows if r.engine.startswith("minigrad ")), None)
        check("a 1,000,000-deep chain completes", None if huge is None or huge.status in (
            "skipped", "unavailable") else huge.status == "ok",
            "not run" if huge is None else huge.note or huge.status)
    if "cnn" in by:
        mg, th = by["cnn"].value("minigrad"), by["cnn"].value("torch")
        check("LeNet step <= 1.5x torch", None if not (mg and th) else mg <= 1.5 * th,
              f"{mg / th:.2f}x torch" if mg and th else "no numbers")
    if "trace" in by:
        plain, under = by["trace"].value("minigrad"), by["trace"].value("minigrad traced")
        check("MLP step under trace() <= 1.3x untraced", None if not (plain and under)
              else under <= 1.3 * plain,
              f"{under / plain:.2f}x" + (" (stand-in)" if any("STAND-IN" in n for n in
                                                              by["trace"].notes) else "")
              if plain and under else "no numbers")
    if "explain" in by:
        total = by["explain"].value("minigrad total")
        failed = by["explain"].row("minigrad")
        if failed is not None and failed.status == "fails":
            check("explain of 10,000 nodes <= 1 s", False, failed.note)
        else:
            check("explain of 10,000 nodes <= 1 s", None if total is None else total <= 1,
                  f"{total:.2f} s" if total is not None else "not run")
    if "memory" in by:
        row = by["memory"].row("minigrad")
        ratio = row.extra.get("ratio") if row is not None and row.status == "ok" else None
        check("peak memory after 100 steps within 10% of after 10", None if ratio is None
              else ratio <= 1.10, f"{ratio:.3f}x" if ratio is not None else "no numbers")
    if "fanin" in by:
        row = by["fanin"].row("minigrad")
        ratio = row.extra.get("ratio") if row is not None and row.status == "ok" else None
        check("fan-in: doubling the uses roughly doubles the backward time", None
              if ratio is None else ratio <= 2.5, f"{ratio:.2f}x" if ratio else "no numbers")
    if "jacobians" in by:
        faster = faster_way(by["jacobians"])
        wide = next((v for k, v in faster.items() if k.startswith("wide")), None)
        tall = next((v for k, v in faster.items() if k.startswith("tall")), None)
        check("minigrad: jacrev is the faster on the wide function, jacfwd on the tall one",
              None if not (wide and tall) else (wide, tall) == ("jacrev", "jacfwd"),
              f"wide: {wide}, tall: {tall}" if wide and tall else "no numbers")
    return ["targets (this run):", *checks]


def report(cfg: Config, items: list[Item], threads: str) -> str:
    lines = header(cfg, threads) + [""]
    for number, item in enumerate(items, 1):
        lines += format_item(number, item)
    return "\n".join(lines + targets(items)) + "\n"

"""`python -m compare bench`: minigrad side by side with numpy by hand, torch, autograd, mygrad
and micrograd on the same work, in one process.

The work items, in the order they run and print (`bench_items.py`; sizes in `bench_config.py`):
1. mlp: an MLP 784-256-256-10 training step, batch 128 (forward, cross-entropy, backward,
   SGD), in ms/step: minigrad and torch run the same nn.Sequential code;
2. chain: 1,000 small ops (mul, add, tanh) on a 16-element vector, forward + backward, in
   us/node: the overhead of one node;
3. deep: a 100,000-deep chain, us/node (micrograd's recursive sort fails there), then
   minigrad alone at 1,000,000 deep, once;
4. trace: the MLP step under `minigrad.trace()`, against the same step untraced;
5. explain: `trace(y)` and `explanation()` of a 10,000-node chain, in seconds (minigrad only);
6. memory: tracemalloc's peak over 10 and over 100 MLP steps (torch's allocator is invisible);
7. fanin: the backward of one leaf used 10,000 and 20,000 times (a ratio of about 2: linear);
8. cnn: a LeNet-style CNN training step;
9. split: where minigrad's time goes in the chain (per node), the MLP and the LeNet step: the
   forward, recording it, the backward's calls, sends, accumulations and loop, the update
   (`bench_split.py`);
10. jvp: the MLP's loss and its derivative along a direction in the weights, one forward-mode
   pass (numpy by hand, minigrad.func.jvp, torch.func.jvp; `bench_forward.py`);
11. jacobians: jacrev and jacfwd on a wide and a tall function, minigrad.func and torch.func.
The report (`bench_report.py`) ends with the targets, each checked against this run.

How runs are ordered (`bench_timing.py`): every engine is imported first and the objects alive
then are frozen (`gc.freeze()`), with one BLAS thread. Within an item, each round runs every
engine once, in a new shuffled (seeded) order, after one untimed warm-up round, and each timed
run comes right after an untimed run of the same engine (the deep chain, whose runs are long,
has neither): a slow phase of the machine hits all engines alike and none is timed in the state
another engine left. A garbage collection precedes each run, outside the timer; the figure is
the median over the rounds, ± the median absolute deviation. The fan-in times both sizes in the
same rounds; memory and explain run each engine on its own. What each engine runs is in
`bench_mlp.py` (the MLP step) and `bench_peers.py` (the engines, the chains and the fan-in).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, replace

from compare import bench_peers as peers
from compare.bench_config import Config
from compare.bench_items import RUNNERS
from compare.bench_peers import ENGINES, Unavailable
from compare.bench_report import report
from compare.bench_timing import Item, interleaved, limit_threads

__all__ = ["ITEMS", "Config", "interleaved", "main", "parse", "report", "run"]

ITEMS = tuple(RUNNERS)  # the work items' keys, in the order they run


def run(cfg: Config, progress: Callable[[str], None] | None = None) -> list[Item]:
    """Run the work items `cfg` selects, in order. Every engine is imported first, then the
    objects alive (the modules of every engine, ...) are frozen, so that the collection before
    each timed run scans only that run's objects. (Imported later, torch's ~160,000 objects
    made each of those collections take ~90 ms and leave the caches cold for the timed run.)"""
    for engine in cfg.engines:
        try:
            peers.load(engine)
        except Unavailable:
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
        description="minigrad vs numpy by hand, torch, autograd, mygrad, micrograd")
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

"""Machine instructions per chain node, per MLP step and per LeNet step, under callgrind.

    python scripts/callgrind_counts.py [WORK ...] [--runs K]   (WORK: a name of WORK below)

Wall-clock timings on a shared machine move by 10% from one minute to the next; instruction
counts do not, so A/B decisions about a speed path are made on these. Each work item runs
twice under `valgrind --tool=callgrind`: once with 1 run of the work and once with 1 + K runs
(after one untimed run that warms the caches of both); the difference over K is the cost of one
run, without Python's start-up and imports. The work is what `python -m compare bench` runs,
made small: a chain of 200 small ops (per node), 5 MLP steps, 2 LeNet steps (per step).
`chain-forward` is the chain's forward alone, `chain-nograd` the same under no_grad: the
record's cost is their difference, the backward's the chain's less chain-forward. `deep` is
one chain of 20,000 (what a long graph adds per node). `mlp-numpy` and `cnn-numpy` are the
bench's numpy by hand, the 1.00x of its ratios. `mlp-forward`, `mlp-loss` and `mlp-backward`
run the MLP step up to the end of that part (the model's forward, then cross_entropy, then
backward; `mlp` adds the update): a part's cost is the difference from the one before. The
`-tiny` ones do the same on an MLP 8-8-8-4 of batch 4, whose BLAS calls cost next to nothing:
what is left is the Python around them. `mlp-traced` is the MLP step inside
`with minigrad.trace():` (the bench's `trace` item); `explain` is `trace(y)` and
`explanation()` of a chain of 1,000 small ops (the bench's `explain` item, made small: per
node). PYTHONHASHSEED=0 and one BLAS thread.

`--inner WORK N` is what valgrind runs (the work, N times); `--profile WORK` prints cProfile's
top functions for it instead.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# name: (nodes per run, runs counted, unit)
WORK = {"chain": (200, 20, "node"), "chain-forward": (200, 20, "node"),
        "chain-nograd": (200, 20, "node"), "deep": (20_000, 1, "node"),
        "mlp": (1, 5, "step"), "cnn": (1, 2, "step"),
        "mlp-numpy": (1, 5, "step"), "cnn-numpy": (1, 2, "step"),
        "mlp-traced": (1, 5, "step"), "explain": (1000, 2, "node")}
DEFAULT = tuple(WORK)  # (what runs without WORK named; the MLP's parts run when named)
MLP_PARTS = ("forward", "loss", "backward")
WORK.update({f"mlp-{part}": (1, 5, "step") for part in MLP_PARTS})
WORK.update({f"mlp{part}-tiny": (1, 10, "step") for part in ("", "-numpy") + tuple(
    f"-{p}" for p in MLP_PARTS)})
CHAIN_N = 200


def work(name: str) -> Callable[[], object]:
    """The callable one run of `name` is (its setup done)."""
    sys.path.insert(0, str(ROOT))
    from compare import bench_peers as peers
    from compare.bench_cnn import cnn_case, cnn_data
    from compare.bench_mlp import mlp_case, mlp_data

    if name in ("chain", "deep"):
        return peers.chain_case("minigrad", WORK[name][0]).prepare()
    if name.startswith("chain-"):  # the forward alone: recorded, or under no_grad
        import minigrad

        x = minigrad.tensor(np.linspace(-1, 1, 16, dtype=np.float32), requires_grad=True)
        mode = minigrad.no_grad if name == "chain-nograd" else minigrad.enable_grad

        def forward() -> None:
            with mode():
                y = x
                for i in range(CHAIN_N):
                    k = i % 3
                    y = y * peers.MUL if k == 0 else y + peers.ADD if k == 1 else y.tanh()

        return forward
    if name == "mlp-traced":
        return traced_mlp(mlp_case("minigrad", mlp_data(), True).prepare())
    if name == "explain":
        return explained_chain(WORK[name][0])
    engine = "numpy" if "-numpy" in name else "minigrad"  # (numpy by hand: the 1.00x)
    data = mlp_data((8, 8, 8, 4), 4) if name.endswith("-tiny") else mlp_data()
    part = name.removesuffix("-tiny").removeprefix("mlp-")
    if part in MLP_PARTS:
        return mlp_part(data, part)
    if name.startswith("mlp"):
        return mlp_case(engine, data, True).prepare()
    return cnn_case(engine, cnn_data()).prepare()


def mlp_part(data: object, part: str) -> Callable[[], object]:
    """The bench's minigrad MLP step, up to the end of `part` (`.grad = None` after backward,
    as the step's update does: so it counts in backward's part)."""
    import minigrad
    from compare.bench_mlp import mlp_model

    model = mlp_model(minigrad, data)
    params = list(model.parameters())
    x, y = minigrad.tensor(data.x), minigrad.tensor(data.y)

    def run() -> None:
        out = model(x)
        if part == "forward":
            return
        loss = minigrad.nn.functional.cross_entropy(out, y)
        if part == "backward":
            loss.backward()
            for p in params:
                p.grad = None

    return run


def traced_mlp(step: Callable[[], object]) -> Callable[[], object]:
    """`step` inside `with minigrad.trace():`, as the bench's `trace` item runs it."""
    import minigrad

    def run() -> None:
        with minigrad.trace():
            step()

    return run


def explained_chain(n: int) -> Callable[[], object]:
    """`trace(y)` of a chain of `n` small ops, then its `explanation()` (the bench's `explain`
    item; the chain's own forward, untimed there, is a small part of each run here)."""
    import minigrad
    from compare import bench_peers as peers

    x0 = np.linspace(-1, 1, 16, dtype=np.float32)

    def run() -> None:
        y = minigrad.tensor(x0, requires_grad=True)
        for i in range(n - 1):
            y = y * peers.MUL if i % 3 == 0 else y + peers.ADD if i % 3 == 1 else y.tanh()
        minigrad.trace(y.sum()).explanation()

    return run


def inner(name: str, runs: int) -> None:
    import gc

    fn = work(name)
    fn()  # the warm-up both counts share
    gc.collect()
    gc.freeze()  # as the bench does: collections scan only the work's own objects
    for _ in range(runs):
        fn()


def instructions(name: str, runs: int) -> int:
    """Ir of the whole process running `name` `runs` times (after its warm-up)."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1",
           "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        sys.executable, __file__, "--inner", name, str(runs)],
                       check=True, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        text = out.read_text()
    return int(re.search(r"^(?:summary|totals): (\d+)", text, re.M).group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", nargs="*",
                        help=f"any of {', '.join(WORK)} (default: {', '.join(DEFAULT)})")
    parser.add_argument("--runs", type=int, help="K: runs counted beyond the first")
    parser.add_argument("--inner", nargs=2, metavar=("WORK", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--profile", metavar="WORK")
    args = parser.parse_args()
    if args.inner:
        inner(args.inner[0], int(args.inner[1]))
        return 0
    if args.profile:
        import cProfile
        import pstats

        fn = work(args.profile)
        fn()
        profile = cProfile.Profile()
        profile.runcall(lambda: [fn() for _ in range(WORK[args.profile][1] * 5)])
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
        return 0
    unknown = [w for w in args.work if w not in WORK]
    if unknown:
        parser.error(f"unknown work {unknown}: choose from {list(WORK)}")
    for name in args.work or DEFAULT:
        per, runs, unit = WORK[name]
        runs = args.runs or runs
        base, more = instructions(name, 1), instructions(name, 1 + runs)
        print(f"{name}: {(more - base) / runs / per:,.0f} instructions per {unit} "
              f"({runs} runs)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

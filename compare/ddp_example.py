"""A DistributedDataParallel training step on two local processes, traced by trace_torch.

`trace_on_two_processes()` starts two processes (torch.multiprocessing, spawn), each joins a
`gloo` process group on this machine (a rendezvous file, the loopback interface: no network,
no port to pick), builds the same small model from its own seed (so that the weights differ
until DDP, which broadcasts rank 0's at construction, makes them equal), wraps it in DDP with
two gradient buckets, runs `compare.trace_torch` on its own batch under PyTorch's own profiler
(`torch.profiler`), and hands back what its trace says: the explanation (en and zh, without
timings), each bucket's all-reduce, its gradients, one weight before and after DDP, the
backward nodes and all-reduce launches the profiler recorded, in order, and how many
all-reduces DDP's documented `bucket_cap_mb` would have made. A process that hangs is stopped
after `timeout` seconds.

This is lesson 18's program (tutorials/en/18-distributed-backward.md).
"""

from __future__ import annotations

import copy
import datetime
import functools
import os
import pickle
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["ddp_step", "trace_on_two_processes"]

WORLD = 2
BUCKET_BYTES = 160  # fc2 (8 + 1 floats) in one bucket, fc1 (32 + 8) in another


def _model(torch: Any, rank: int) -> Any:
    nn = torch.nn
    torch.manual_seed(rank)  # each process its own weights: DDP broadcasts rank 0's
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))


def _all_reduces_with_bucket_cap_mb(torch: Any, ddp: Any, x: Any) -> int:
    """How many all-reduces one backward of the same model makes under DDP's documented
    `bucket_cap_mb` of the same 160 bytes (as counted by PyTorch's profiler)."""
    model = ddp(_model(torch, 0), bucket_cap_mb=BUCKET_BYTES / 2 ** 20)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        model(x).sum().backward()
    return sum(e.name == "c10d::allreduce_" for e in prof.events())


def _profiled(profile: Any) -> list[str]:
    """The backward nodes and the all-reduce launches the profiler saw, in the order they
    began (`gloo:all_reduce`, which runs on gloo's own thread, left out: where it falls
    among the steps changes from run to run)."""
    events = sorted(profile.events(), key=lambda e: e.time_range.start)
    return [e.name for e in events if e.name == "c10d::allreduce_" or (
        e.name.endswith(("Backward0", "AccumulateGrad")) and "evaluate_function" not in e.name)]


def ddp_step(rank: int, init_file: str, out_dir: str) -> None:
    """One process: join the group, trace a DDP step on this rank's batch, save the result."""
    if Path("/sys/class/net/lo").exists():
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # localhost only
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    import compare

    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank,
                            world_size=WORLD, timeout=datetime.timedelta(seconds=30))
    try:
        net = _model(torch, rank)
        before = net[0].weight[0, 0].item()
        # bucket_cap_mb_list: an argument of DDP that its documentation does not mention; the
        # documented bucket_cap_mb gives this model one bucket (`one_bucket` below checks it)
        model = DDP(net, bucket_cap_mb_list=[BUCKET_BYTES / 2 ** 20])
        torch.manual_seed(1 + rank)  # each process its own batch
        x, y = torch.randn(4, 4), torch.randn(4, 1)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            trace = compare.trace_torch(
                lambda: torch.nn.functional.mse_loss(model(x), y), params=model)
        result = {
            "weight_before_ddp": before, "weight_after_ddp": net[0].weight[0, 0].item(),
            "profiled": _profiled(prof),
            "all_reduces_with_bucket_cap_mb": _all_reduces_with_bucket_cap_mb(torch, DDP, x),
            "rank": rank,
            "explanation": trace.explanation(timing=False),
            "explanation_zh": trace.explanation(lang="zh", timing=False),
            "allreduces": trace.allreduces,
            "steps": [(s.index, trace.node(s.node).name, trace.node(s.node).label)
                      for s in trace.steps],
            "grads": {name: p.grad.numpy().copy() for name, p in model.named_parameters()},
            "leaf_grads": {leaf.label: leaf.grad for leaf in trace.leaves},
        }
        dist.barrier()
    finally:
        dist.destroy_process_group()
    with open(Path(out_dir) / f"rank{rank}.pkl", "wb") as f:
        pickle.dump(result, f)


def trace_on_two_processes(timeout: float = 60.0) -> list[dict]:
    """Run `ddp_step` on two processes; return both ranks' results (rank 0 first).

    The run is deterministic, so one process runs it once: speed, lesson 18 (en, zh) and its
    test share one run (each start of two processes imports torch twice, 20 s or more on two
    busy cores). Each call gets its own copy of the results.
    """
    return copy.deepcopy(_run_once(float(timeout)))


@functools.lru_cache(maxsize=1)
def _run_once(timeout: float) -> list[dict]:
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as out_dir:
        init_file = str(Path(out_dir) / "rendezvous")
        context = mp.start_processes(ddp_step, args=(init_file, out_dir), nprocs=WORLD,
                                     join=False, start_method="spawn")
        deadline = time.monotonic() + timeout
        try:
            while not context.join(timeout=max(deadline - time.monotonic(), 0.1)):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the DDP processes did not finish in {timeout:.0f} s")
        finally:
            for process in context.processes:
                if process.is_alive():
                    process.terminate()
        results = []
        for rank in range(WORLD):
            with open(Path(out_dir) / f"rank{rank}.pkl", "rb") as f:
                results.append(pickle.load(f))
    return results

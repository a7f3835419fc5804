"""What `compare.trace_torch` costs: its time over a plain forward and backward (issue 21).

    python -m compare trace-cost [--runs 20] [--only transformer]

For ResNet-18 (a batch of 2 images, 32x32) and the 2-layer Transformer encoder (2 sequences
of 5 tokens) of `compare.torch_models`, prints per form the median time of

    plain:     loss = f(model); loss.backward()
    callable:  trace_torch(lambda: f(model), params=model)   (runs the forward itself)
    tensor:    trace_torch(f(model), params=model)            (the forward counted too)
    + read:    the tensor form, and its records built (the Trace's first read, `t.nodes`)

over `--runs` runs after a warm-up, single-threaded, the forms interleaved run by run so that
a busy machine slows each the same; and each traced form's cost = its time / plain's time.
Gradients are set to None before every run, outside the time measured.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from compare.torch_bridge import import_torch
from compare.torch_models import resnet18, transformer_encoder

__all__ = ["cost", "main"]


def _models(torch: Any) -> dict[str, tuple[Any, Callable[[Any], Any]]]:
    F = torch.nn.functional
    torch.manual_seed(0)
    resnet, x, y = resnet18(), torch.randn(2, 3, 32, 32), torch.tensor([1, 2])
    encoder, tokens = transformer_encoder(), torch.randint(0, 50, (2, 5))
    return {
        "resnet18": (resnet, lambda m: F.cross_entropy(m(x), y)),
        "transformer": (encoder, lambda m: F.cross_entropy(m(tokens).flatten(0, 1),
                                                           tokens.flatten())),
    }


def cost(model: Any, loss: Callable[[Any], Any], runs: int = 20, warmup: int = 3
         ) -> dict[str, float]:
    """Median seconds of the plain backward and of both traced forms, and the ratios."""
    from compare.trace_torch import trace_torch

    forms: dict[str, Callable[[], Any]] = {
        "plain": lambda: loss(model).backward(),
        "callable": lambda: trace_torch(lambda: loss(model), params=model),
        "tensor": lambda: trace_torch(loss(model), params=model),
        "+ read": lambda: trace_torch(loss(model), params=model).nodes,
    }
    times: dict[str, list[float]] = {name: [] for name in forms}
    for i in range(warmup + runs):
        for name, run in forms.items():
            model.zero_grad(set_to_none=True)
            start = time.perf_counter()
            run()
            if i >= warmup:
                times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    return {**medians, **{f"{name} cost": medians[name] / medians["plain"]
                          for name in ("callable", "tensor", "+ read")}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compare trace-cost",
                                     description="trace_torch's time over a plain backward")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--only", choices=("resnet18", "transformer"))
    args = parser.parse_args(argv)
    torch = import_torch()
    torch.set_num_threads(1)
    print(f"load average {os.getloadavg()[0]:.2f}, median of {args.runs} runs, 1 thread")
    for name, (model, loss) in _models(torch).items():
        if args.only and name != args.only:
            continue
        found = cost(model, loss, args.runs)
        print(f"{name:12} plain {found['plain'] * 1e3:7.2f} ms   "
              f"callable {found['callable'] * 1e3:7.2f} ms ({found['callable cost']:.2f}x)   "
              f"tensor {found['tensor'] * 1e3:7.2f} ms ({found['tensor cost']:.2f}x)   "
              f"+ read {found['+ read'] * 1e3:7.2f} ms ({found['+ read cost']:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

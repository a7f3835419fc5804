"""What `compare.trace_torch` costs: its time over a plain forward and backward, and the time
to draw a long graph (issue 21).

    python -m compare trace-cost [--runs 20] [--only transformer|resnet18|lstm-cell]

For ResNet-18 (a batch of 2 images, 32x32) and the 2-layer Transformer encoder (2 sequences
of 5 tokens) of `compare.torch_models`, prints per form the median time of

    plain:     loss = f(model); loss.backward()
    callable:  trace_torch(lambda: f(model), params=model)   (runs the forward itself)
    tensor:    trace_torch(f(model), params=model)            (the forward counted too)
    + read:    the tensor form, and its records built (the Trace's first read, `t.nodes`)

over `--runs` runs after a warm-up, single-threaded, the forms interleaved run by run so that
a busy machine slows each the same; and each traced form's cost = its time / plain's time.
Gradients are set to None before every run, outside the time measured.

And for an nn.LSTMCell unrolled over 24 steps (`compare.torch_models`, 369 nodes traced), the
seconds of one `render()` of the whole graph (which picks light labels at that size) and of
one at `depth=1` (one box per module), graphviz's `dot` included.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

from compare.torch_bridge import import_torch
from compare.torch_models import resnet18, transformer_encoder, unrolled_lstm_cell

__all__ = ["cost", "draw_cost", "main"]


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


def draw_cost(torch: Any, steps: int = 24) -> dict[str, Any]:
    """The unrolled LSTMCell's node count and the seconds of a flat and a depth-1 render."""
    from compare.trace_torch import trace_torch

    torch.manual_seed(0)
    model, xs = unrolled_lstm_cell(), torch.randn(steps, 2, 8)
    t = trace_torch(lambda: model(xs).sum(), params=model)
    found: dict[str, Any] = {"nodes": len(t.nodes)}
    with tempfile.TemporaryDirectory() as folder:
        for name, depth in (("flat", None), ("depth 1", 1)):
            start = time.perf_counter()
            path = t.render(os.path.join(folder, f"{name}.svg"), depth=depth)
            found[name] = time.perf_counter() - start
            if depth is None:
                found["light"] = "drawn with light labels" in path.read_text(encoding="utf-8")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compare trace-cost",
                                     description="trace_torch's time over a plain backward")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--only", choices=("resnet18", "transformer", "lstm-cell"))
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
    if args.only in (None, "lstm-cell"):
        drawn = draw_cost(torch)
        light = " (light labels)" if drawn["light"] else ""
        print(f"{'lstm-cell':12} {drawn['nodes']} nodes   render {drawn['flat']:6.2f} s{light}"
              f"   render(depth=1) {drawn['depth 1']:6.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

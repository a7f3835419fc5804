"""What distributed training adds to backward: DDP's all-reduce of each gradient bucket.

`DistributedDataParallel` groups the parameters into buckets (in about the reverse of the
order forward used them) and, as soon as every gradient of a bucket is ready during
backward, starts an all-reduce that averages the bucket over the processes, while backward
goes on with the rest. `compare.trace_torch(..., params=ddp_model)` watches it with a DDP
communication hook (`register_comm_hook`) that notes the bucket's index, its parameters,
this process's gradients and the averaged ones, and when it was launched and done; then runs
DDP's own all-reduce (`default_hooks.allreduce_hook`), so the gradients are as without it.

DDP takes one communication hook per model, for good: trace_torch registers its recorder
once (it does nothing outside a trace). A model with a hook of its own is traced without the
all-reduces, and the explanation says why.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from minigrad.surface.printing import tensor_repr
from minigrad.teach.phrases import PHRASES
from minigrad.teach.trace import Trace

__all__ = ["BucketAllReduce", "DistributedTrace", "is_ddp", "watch_buckets"]


@dataclass
class BucketAllReduce:
    """One bucket's all-reduce: `params` (names), launched and done (seconds after backward
    began), after which backward step, this process's gradients and their mean."""

    index: int
    params: list[str]
    launched: float
    done: float | None = None
    after_step: int = 0
    local: list[np.ndarray] = field(default_factory=list)
    mean: list[np.ndarray] = field(default_factory=list)


class _Recorder:
    """The comm hook's state: who listens (None outside a trace) and what it saw."""

    def __init__(self) -> None:
        self.active: list[BucketAllReduce] | None = None
        self.start = 0.0
        self.names: dict[int, str] = {}


def _recording_allreduce(state, bucket):  # (unannotated: DDP checks the annotations' types)
    """The comm hook: note the bucket, run DDP's all-reduce, note its mean when done."""
    from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook

    seen = state.active
    if seen is None:
        return allreduce_hook(None, bucket)
    params = list(bucket.parameters())
    entry = BucketAllReduce(bucket.index(), [state.names.get(id(p), "?") for p in params],
                            time.perf_counter() - state.start,
                            local=[g.detach().numpy().copy() for g in bucket.gradients()])
    seen.append(entry)
    shapes = [tuple(p.shape) for p in params]

    def done(future: Any) -> Any:
        flat = future.value()
        entry.done = time.perf_counter() - state.start
        values = flat.detach().numpy()
        offsets = np.cumsum([0] + [int(np.prod(s)) for s in shapes])
        entry.mean = [values[a:b].reshape(s).copy()
                      for a, b, s in zip(offsets[:-1], offsets[1:], shapes)]
        return flat

    return allreduce_hook(None, bucket).then(done)


def is_ddp(model: Any) -> bool:
    return type(model).__name__ == "DistributedDataParallel" and hasattr(
        model, "register_comm_hook")


@contextlib.contextmanager
def watch_buckets(ddp: Any, names: dict[int, str]) -> Any:
    """While open, every bucket all-reduce of `ddp` is noted in the list it yields (None if
    the model has a communication hook of its own)."""
    recorder = getattr(ddp, "_minigrad_recorder", None)
    if recorder is None:
        if ddp._comm_hooks:
            yield None
            return
        recorder = _Recorder()
        ddp.register_comm_hook(recorder, _recording_allreduce)
        ddp._minigrad_recorder = recorder
    recorder.active, recorder.names, recorder.start = [], names, time.perf_counter()
    try:
        yield recorder.active
    finally:
        recorder.active = None


WORDS = {
    "en": {
        "launched": "all-reduce  bucket {i} ({params}): its gradients are ready, so DDP "
                    "starts averaging them over the {world} processes ({backend}) while "
                    "backward goes on",
        "timing": "launched {launched:.2f} ms into backward, done at {done:.2f} ms",
        "grad": "{name}.grad: this process {local} -> mean {mean}",
        "summary": "Distributed: DDP on {world} processes ({backend}) added {n} all-reduces "
                   "to this backward, one per gradient bucket, each started as soon as its "
                   "bucket was ready ({order}); backward ended only when all were done, so "
                   "every process holds the same averaged .grad.",
        "after": "bucket {i} after step {step}", "sep": ", ", "params_sep": ", ",
        "short": "shape {shape}, norm {norm:.4g}",
        "own_hook": "Distributed: this DDP model has its own communication hook "
                    "(register_comm_hook), so trace_torch could not watch its all-reduces.",
    },
    "zh": {
        "launched": "all-reduce  第 {i} 个桶（{params}）：它的梯度都算好了，DDP 开始在 {world} "
                    "个进程之间求平均（{backend}），反向传播同时继续往下走",
        "timing": "反向传播开始后 {launched:.2f} 毫秒发出，{done:.2f} 毫秒完成",
        "grad": "{name}.grad：本进程 {local} -> 平均 {mean}",
        "summary": "分布式：DDP 在 {world} 个进程上（{backend}）给这次反向传播加了 {n} 次 "
                   "all-reduce，每个梯度桶一次，桶一就绪就开始（{order}）；全部完成后反向传播"
                   "才结束，所以每个进程的 .grad 都是同一个平均值。",
        "after": "第 {i} 个桶在第 {step} 步之后", "sep": "，", "params_sep": "、",
        "short": "形状 {shape}，范数 {norm:.4g}",
        "own_hook": "分布式：这个 DDP 模型有自己的通信钩子（register_comm_hook），"
                    "trace_torch 看不到它的 all-reduce。",
    },
}


def _short(a: np.ndarray, words: dict[str, str]) -> str:
    if a.size <= 4:
        return " ".join(tensor_repr(a, []).split())
    return words["short"].format(shape=a.shape, norm=np.linalg.norm(a))


class DistributedTrace(Trace):
    """A Trace of one process of a DDP model, with its buckets' all-reduces (`allreduces`,
    None if they could not be watched) told between the backward steps."""

    allreduces: list[BucketAllReduce] | None = None
    world_size = 1
    rank = 0
    backend = ""

    def explanation(self, lang: str = "en", timing: bool = True, lines: bool | None = None
                    ) -> str:
        text = super().explanation(lang=lang, timing=timing, lines=lines).splitlines()
        words = WORDS[lang]
        if self.allreduces is None:
            return "\n".join(text + [words["own_hook"]])
        def step_line(i: int) -> str:  # ("  step 1 ", not the start of "  step 10")
            return "  " + PHRASES[lang]["step"].format(i=i) + " "

        for entry in sorted(self.allreduces, key=lambda e: -e.after_step):
            at = next((k for k, line in enumerate(text)
                       if line.startswith(step_line(entry.after_step + 1))), None)
            if at is None:  # after the last step: before the blank line that ends them
                start = next(k for k, line in enumerate(text)
                             if line.startswith(step_line(entry.after_step)))
                at = next(k for k in range(start, len(text)) if not text[k].strip())
            text[at:at] = self._told(entry, words, timing)
        order = words["sep"].join(words["after"].format(i=e.index, step=e.after_step)
                                  for e in self.allreduces)
        summary = words["summary"].format(world=self.world_size, backend=self.backend,
                                          n=len(self.allreduces), order=order)
        leaves = next((k for k, line in enumerate(text)
                       if line.startswith(PHRASES[lang]["leaves"].strip())), len(text))
        text[leaves:leaves] = [summary, ""]
        return "\n".join(text)

    def _told(self, entry: BucketAllReduce, words: dict, timing: bool) -> list[str]:
        out = ["          " + words["launched"].format(
            i=entry.index, params=words["params_sep"].join(entry.params), world=self.world_size,
            backend=self.backend)]
        if timing and entry.done is not None:
            out.append("                      " + words["timing"].format(
                launched=entry.launched * 1e3, done=entry.done * 1e3))
        for name, local, mean in zip(entry.params, entry.local, entry.mean):
            out.append("                      " + words["grad"].format(
                name=name, local=_short(local, words), mean=_short(mean, words)))
        return out

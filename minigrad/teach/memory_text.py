"""What `explain(memory=True)` says about memory, in English and Chinese: one line per backward
step (what it freed, what the graph still holds, the gradients waiting) and one summary line
(what the graph holds in all, the largest piece and when it went, the peak)."""

from __future__ import annotations

from minigrad.teach.memory import MemoryReport, Saved, size_text

PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "label": "memory",
        "step": "frees {freed}; the graph holds {held}; gradients waiting {grads}",
        "nothing": "nothing",
        "rerun": "; the block run again keeps {size} meanwhile",
        "names": " ({names})",
        "none": "Memory: the graph keeps no tensor for backward.",
        "summary": "Memory: the graph holds {total} in {n} saved tensor{s}{leaves}; the "
                   "largest{rest}: {name}, {size}, {fate}; at most {peak} with the gradients "
                   "waiting{when}",
        "leaves": ", {size} of it the leaves' own",
        "rest": " of the rest",
        "freed_at": "freed at step {k}",
        "leaf": "the leaf's own memory",
        "kept": "kept until the graph is dropped",
        "not_freed": "not freed (retain_graph=True, or backward did not reach it)",
        "after": " (after step {k})",
        "before": " (before backward)",
        "sep": ", ",
        "made_by": " ({module}'s output)",
        "possessive": "'s ",
        "result": "result",
        "results": "'s result",
    },
    "zh": {
        "label": "内存",
        "possessive": " 的 ",
        "result": "输出",
        "results": " 的输出",
        "step": "释放 {freed}；计算图仍占 {held}；等待中的梯度 {grads}",
        "nothing": "0 B",
        "rerun": "；重算的块这时另占 {size}",
        "names": "（{names}）",
        "none": "内存：计算图没有为反向传播保存任何张量。",
        "summary": "内存：计算图保存了 {n} 个张量，共 {total}{leaves}；{rest}最大的是 {name}，"
                   "{size}，{fate}；连同等待中的梯度，最多占 {peak}{when}",
        "leaves": "（其中 {size} 本来就是叶子节点的）",
        "rest": "其余的张量中",
        "freed_at": "第 {k} 步之后释放",
        "leaf": "它是叶子节点自己的内存",
        "kept": "要等整张计算图被丢弃才释放",
        "not_freed": "没有释放（retain_graph=True，或者反向传播没有经过它）",
        "after": "（第 {k} 步之后）",
        "before": "（反向传播开始之前）",
        "sep": "、",
        "made_by": "（{module} 的输出）",
    },
}


def name_of(s: Saved, lang: str) -> str:
    """A leaf by its label; a tensor of the trace by its label, and the module that made it
    (`t3, conv1's output`); anything else as what its node keeps (`t3's mask`)."""
    if s.leaf:
        return s.leaf
    if s.tensor:
        return s.tensor + (PHRASES[lang]["made_by"].format(module=s.module) if s.module else "")
    return _local(f"{s.label}'s {s.name}", lang)


def step_line(report: MemoryReport, index: int, lang: str = "en") -> str:
    """`memory  frees 1.2 kB (t1's x); the graph holds 3.4 kB; gradients waiting 48 B`."""
    p = PHRASES[lang]
    step = next(s for s in report.steps if s.index == index)
    freed = p["nothing"] if not step.freed else size_text(step.freed) + p["names"].format(
        names=p["sep"].join(dict.fromkeys(_local(n, lang) for n in step.freed_names)))
    rerun = p["rerun"].format(size=size_text(step.recomputed)) if step.recomputed else ""
    return f"{p['label']}  " + p["step"].format(freed=freed, held=size_text(step.held),
                                                grads=size_text(step.gradients)) + rerun


def _local(name: str, lang: str) -> str:
    """A name in `lang`: `t1's result` is `t1 的输出（result）` in Chinese."""
    if lang != "zh":
        return name
    words = PHRASES["zh"]
    return name.replace("'s result", words["results"]).replace("'s ", words["possessive"]).replace(
        "result", words["result"])


def summary_line(report: MemoryReport, lang: str = "en") -> str:
    """`Memory: the graph holds 12.4 MB in 38 saved tensors; the largest: ...`."""
    p = PHRASES[lang]
    largest = report.largest
    if largest is None:
        return p["none"]
    n = len(report.saved)
    return p["summary"].format(
        total=size_text(report.total), n=n, s="" if n == 1 else "s",
        leaves=p["leaves"].format(size=size_text(report.leaves)) if report.leaves else "",
        rest=p["rest"] if report.leaves and not largest.leaf else "",
        name=name_of(largest, lang), size=size_text(largest.nbytes), fate=_fate(largest, p),
        peak=size_text(report.peak), when=p["before"] if report.peak_step is None else
        p["after"].format(k=report.peak_step))


def _fate(s: Saved, p: dict[str, str]) -> str:
    if s.leaf:
        return p["leaf"]
    if s.kept:
        return p["kept"]
    return p["not_freed"] if s.freed_at is None else p["freed_at"].format(k=s.freed_at)


"""Lesson 20's own engine: the learner's micro-engine, as the lesson writes it, is 50 lines of
code and gets minigrad's gradients on the lesson's examples (and on a few more, so that it is
not right by accident).

The lesson's tests (test_tutorials.py) check that it prints what it shows; these run the
engine's block on its own, in English and in Chinese (the same code, comments aside).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigrad
from minigrad.teach import tutorial

ROOT = Path(__file__).resolve().parents[2] / "tutorials"
LESSONS = [tutorial.find(20, lang, ROOT) for lang in ("en", "zh")]
MAX_CODE_LINES = 50


def engine_block(path: Path) -> str:
    """The code of the lesson's block that defines the micro-engine."""
    blocks = [c.code for c in tutorial.load(path).cells if "class Node" in c.code.text]
    assert len(blocks) == 1, f"{path}: expected one block that defines the engine"
    assert not blocks[0].minigrad_only  # (it runs on PyTorch's side of the lesson too)
    return blocks[0].text


def engine(path: Path) -> dict:
    namespace: dict = {}
    exec(compile(engine_block(path), str(path), "exec"), namespace)  # noqa: S102
    return namespace


def code_lines(code: str) -> int:
    return sum(1 for line in code.splitlines()
               if line.strip() and not line.strip().startswith("#"))


def lesson_examples(path: Path) -> dict:
    """The lesson's EXAMPLES, from its checking block."""
    block = next(c.code.text for c in tutorial.load(path).cells if "EXAMPLES = {" in c.code.text)
    start = block.index("EXAMPLES = {")
    namespace: dict = {}
    exec(block[start:block.index("}\n", start) + 2], namespace)  # noqa: S102
    return namespace["EXAMPLES"]


MORE = {
    "a constant and a broadcast add": lambda x, w: (x * 2.0 + w).sum(),
    "a leaf used three times": lambda x, w: ((x * x) * x + w * w).sum(),
    "a node used twice": lambda x, w: (lambda y: (y * y + y).sum())((x * w).tanh()),
}
X, W = [[0.3, -1.2, 2.0], [1.5, 0.7, -0.4]], [0.5, -1.0, 2.0]


def gradients(make, f, hook=False):
    x, w = make(X), make(W)
    if hook:
        w.register_hook(lambda g: g * 2)
    f(x, w).backward()
    return x.grad, w.grad


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.parent.name)
def test_the_micro_engine_is_50_lines_of_code(path: Path) -> None:
    n = code_lines(engine_block(path))
    assert n <= MAX_CODE_LINES, f"{path}: the micro-engine has {n} lines of code"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.parent.name)
def test_the_micro_engine_gets_minigrads_gradients(path: Path) -> None:
    ns = engine(path)
    examples = {**lesson_examples(path), **MORE}
    assert len(examples) >= 7
    for name, f in examples.items():
        hook = "hook" in name
        ours = gradients(lambda v: ns["Tensor"](v, requires_grad=True), f, hook)
        theirs = gradients(lambda v: minigrad.tensor(v, dtype=minigrad.float64,
                                                     requires_grad=True), f, hook)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b.numpy(), rtol=1e-9, atol=1e-12, err_msg=name)


def test_the_english_and_chinese_engines_are_the_same_code() -> None:
    def code(path: Path) -> list[str]:
        return [line.split("#")[0].rstrip() for line in engine_block(path).splitlines()
                if line.strip() and not line.strip().startswith("#")]

    en, zh = LESSONS
    assert code(en) == code(zh)


def test_a_wrong_micro_engine_is_caught() -> None:
    """Without undoing broadcasting, w's gradient has the wrong shape: the check fails."""
    ns = engine(LESSONS[0])
    ns["sum_to"] = lambda g, shape: g
    ours = gradients(lambda v: ns["Tensor"](v, requires_grad=True),
                     lesson_examples(LESSONS[0])["(x * w).sum()"])
    theirs = gradients(lambda v: minigrad.tensor(v, dtype=minigrad.float64, requires_grad=True),
                       lesson_examples(LESSONS[0])["(x * w).sum()"])
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(ours[1], theirs[1].numpy())

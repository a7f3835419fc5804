"""Runaway input is refused: string expressions and the command line are bounded in size,
memory and time, and every refusal is one `error:` line with exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

import minigrad
from minigrad.teach import expr

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("source, words", [
    ("cat([x]*1000000000000)", "would make a list of 1,000,000,000,000 items"),
    ("stack(1000000000000*[x])", "would make a list of 1,000,000,000,000 items"),
    ("x[[0]*100000]", "would make a list of 100,000 items"),
    ("x.reshape(1, -1).expand(1000000, 3).sum()", ""),
    ("x.reshape(1, -1).expand(100000000, 3).sum()", "would make 300,000,000 elements"),
    ("(x.reshape(-1, 1) * x.reshape(1, -1)).sum()", None),
    ("9999999999999999999999*9999999999999999999999", "a number too large"),
    ("x ** 9**9**9", "OverflowError"),
])
def test_an_expression_cannot_make_huge_values(source, words):
    x = minigrad.ones(3)
    start = time.perf_counter()
    if words == "":  # within the limit: computed
        assert expr.evaluate(source, {"x": x}).item() == 3_000_000
        return
    if words is None:  # 3 x 3: fine; 5000 x 5000 is 25 million elements: refused first
        assert expr.evaluate(source, {"x": x}).item() == 9
        big = minigrad.ones(5000)
        with pytest.raises(expr.ExpressionError, match="would make 25,000,000 elements"):
            expr.evaluate(source, {"x": big})
        return
    with pytest.raises(expr.ExpressionError, match=words.replace("*", r"\*")):
        expr.evaluate(source, {"x": x})
    assert time.perf_counter() - start < 1


def test_a_matmul_is_sized_before_it_is_computed():
    v = minigrad.ones(5000)
    with pytest.raises(expr.ExpressionError, match="25,000,000 elements"):
        expr.evaluate("v.reshape(-1, 1) @ v.reshape(1, -1)", {"v": v})
    with pytest.raises(expr.ExpressionError, match="25,000,000 elements"):
        expr.evaluate("matmul(v.reshape(-1, 1), v.reshape(1, -1))", {"v": v})


def test_trace_keeps_a_broadcast_view_at_the_size_of_its_memory():
    b = minigrad.ones(3, requires_grad=True)
    tracemalloc.start()
    try:
        with minigrad.trace() as t:
            b.expand(10**6, 3).sum().backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert b.grad.tolist() == [1e6, 1e6, 1e6]
    assert peak < 5_000_000  # the expanded view is 12 MB of float32 if copied in full
    assert len(t.steps) >= 2


def test_a_label_longer_than_graphviz_takes_is_cut(dot_bin, tmp_path):
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="x" * 100_000)
    t = minigrad.trace(lambda: (x * 2).sum())
    svg = minigrad.viz.pipe(t.to_dot(), "svg").decode()
    assert "xxxx…" in svg and len(svg) < 50_000
    t.to_html(tmp_path / "p.html")
    assert "<svg" in (tmp_path / "p.html").read_text()


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "minigrad", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, words", [
    (["cat([x]*1000000000000)", "x=1"], "would make a list of"),
    (["x.reshape(1,-1).expand(100000000,2).sum()", "x=1,2"], "would make 200,000,000 elements"),
    (["x*2", "x=1,,2"], "cannot read the values of x: '1,,2'"),
    (["x*2", "x="], "cannot read the values of x: ''"),
    (["x*2", "x=,"], "cannot read the values of x: ','"),
    (["params*2", "params=1"], "an input cannot be named 'params'"),
    (["gradient*2", "gradient=1"], "an input cannot be named 'gradient'"),
    (["x*2", "x=1", "--dot", "out.txt"], "--dot out.txt: the file name must end in .svg"),
    (["x*2", "x=1", "--dot", "nodir/g.svg"], "--dot nodir/g.svg: there is no folder nodir"),
    (["x**9**9**9", "x=1"], "OverflowError"),
])
def test_every_refusal_is_one_error_line_and_exit_code_2(args, words, tmp_path):
    done = cli("explain", *args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], lines
    assert list(tmp_path.iterdir()) == []


FUZZ_CHILD = r'''
import random, resource, signal, sys, time
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GB for everything
import numpy as np
import minigrad
from minigrad.teach.expr import ExpressionError

ATOMS = ["x", "y", "1", "2.5", "1000000", "100000000", "10**6", "9**9", "[x]", "(x, y)",
         "-x", "x.T", "q", "'s'", "x.__class__", "None", "...", "[0]", "True"]
UNARY = ["sum({})", "exp({})", "{}.sum(dim=0)", "{}.reshape(-1, 1)", "{}.reshape(1, -1)",
         "{}.expand(1000, 1000)", "{}.expand(100000, 100000)", "cat([{0}, {0}])",
         "stack([{}] * 1000000)", "softmax({}, dim=0)", "{}[0]", "{}[::2]", "{}.max(dim=0)",
         "{}.max(dim=0).values", "relu({})", "{}.t()", "flatten({})", "({}) ** 2",
         "__import__('os')", "open({})", "{}.numpy()", "lambda: {}", "[{0} for _ in x]"]
BINARY = ["{} + {}", "{} * {}", "{} @ {}", "{} / {}", "{} ** {}", "{} - {}", "{} < {}",
          "maximum({}, {})", "where({0} > 0, {0}, {1})", "matmul({}, {})", "{} * 100000"]

def make(rng, depth):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(ATOMS)
    if rng.random() < 0.5:
        return rng.choice(UNARY).format(make(rng, depth - 1))
    return rng.choice(BINARY).format(make(rng, depth - 1), make(rng, depth - 1))

def alarm(*_):
    raise TimeoutError("an expression ran for 10 s")

signal.signal(signal.SIGALRM, alarm)
rng = random.Random(int(sys.argv[1]))
allowed = (ExpressionError, ValueError, RuntimeError, IndexError, TypeError)
worst = 0.0
for i in range(int(sys.argv[2])):
    source = make(rng, rng.randint(1, 6))[:10_000]
    x = minigrad.tensor(np.linspace(-1, 1, 3000), requires_grad=True)
    y = minigrad.tensor(np.linspace(0, 1, 3000), requires_grad=True)
    start = time.perf_counter()
    signal.alarm(10)
    try:
        minigrad.trace(source, x=x, y=y)
    except allowed:
        pass
    finally:
        signal.alarm(0)
    worst = max(worst, time.perf_counter() - start)
print(f"ok {worst:.2f}")
'''


def test_fuzzed_expressions_stay_within_time_and_memory(tmp_path):
    """300 random expressions (fixed seed) built from pieces that try every way to make a huge
    value, to run code or to run long, each traced under a 1 GB address-space limit and a
    10 s alarm: each is computed or refused with one of the documented errors."""
    script = tmp_path / "fuzz.py"
    script.write_text(FUZZ_CHILD)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(script), "20261202", "300"], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("ok ")
    assert float(done.stdout.split()[1]) < 10

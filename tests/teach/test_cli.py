"""`python -m minigrad explain ...` and `python -m minigrad demo`, run as a learner runs them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from minigrad.__main__ import parse_input

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path, path: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, "-m", "minigrad", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_explain_prints_the_narration(tmp_path):
    done = run("explain", "sum(x*y)*3", "x=1,2,3", "y=4,5,6", "--no-timing", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Forward pass: 3 operations\n")
    assert "  t1   = x * y        MulBackward0    shape (3,)  tensor([ 4., 10., 18.])" in \
        done.stdout
    assert "to x      [3., 3., 3.] * y = tensor([12., 15., 18.])" in done.stdout
    assert done.stdout.rstrip().endswith("Summary: 3 operations, 5 backward steps, 2 leaves")


def test_explain_in_chinese_with_matrices_and_a_drawing(tmp_path, dot_bin):
    done = run("explain", "(w @ x).relu().sum()", "w=[[1,-2],[3,4]]", "x=1,1", "--lang", "zh",
               "--dot", "g.svg", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "前向传播：共 3 个运算" in done.stdout and "叶子节点：" in done.stdout
    assert "计算图已画到 g.svg" in done.stdout
    assert "<svg" in (tmp_path / "g.svg").read_text()


def test_explain_refuses_unsafe_text_and_bad_inputs(tmp_path):
    done = run("explain", "__import__('os').system('touch pwned')", cwd=tmp_path)
    assert done.returncode == 2
    assert "refused `__import__`" in done.stderr
    assert not (tmp_path / "pwned").exists()
    done = run("explain", "x*2", "x=a,b", cwd=tmp_path)
    assert done.returncode == 2 and "cannot read the values of x" in done.stderr
    done = run("explain", "x*y", "x=1,2", "y=1,2,3", cwd=tmp_path)
    assert done.returncode == 2 and "broadcast" in done.stderr


def test_demo_explains_and_draws(tmp_path, dot_bin):
    done = run("demo", "--no-timing", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "minigrad.trace(lambda: (x * y).sum() * 3).explain()" in done.stdout
    assert "Leaves: x.grad = tensor([12., 15., 18.]), y.grad = tensor([3., 6., 9.])" in \
        done.stdout
    svg = tmp_path / "minigrad-demo" / "graph.svg"
    assert f"Graph drawn to {Path('minigrad-demo') / 'graph.svg'}" in done.stdout
    assert "<svg" in svg.read_text()


def test_demo_without_graphviz_writes_dot_text_and_says_how(tmp_path):
    bare = tmp_path / "bin"
    bare.mkdir()
    done = run("demo", "--lang", "zh", cwd=tmp_path, path=str(bare))
    assert done.returncode == 0, done.stderr
    assert "反向传播" in done.stdout
    assert "apt-get install graphviz" in done.stderr and "dot -Tsvg" in done.stderr
    assert (tmp_path / "minigrad-demo" / "graph.dot").read_text().startswith("digraph {")


def test_help_lists_the_commands(tmp_path):
    done = run("--help", cwd=tmp_path)
    assert done.returncode == 0 and "explain" in done.stdout and "demo" in done.stdout


@pytest.mark.parametrize("text, name, value", [
    ("x=1,2,3", "x", [1.0, 2.0, 3.0]),
    ("x=2", "x", 2.0),
    ("x=2,", "x", [2.0]),
    ("w=[[1,2],[3,4]]", "w", [[1.0, 2.0], [3.0, 4.0]]),
])
def test_parse_input(text, name, value):
    got_name, got = parse_input(text)
    assert got_name == name and got.tolist() == value and got.dtype.name == "float32"


def test_parse_input_refuses_nonsense():
    for text in ["x", "1x=2", "x=__import__('os')", "x=[1,'a']"]:
        with pytest.raises(ValueError):
            parse_input(text)


def test_errors_are_in_chinese_under_lang_zh_and_in_english_otherwise(tmp_path):
    done = run("explain", "x.foo", "x=1", "--lang", "zh", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("错误：不接受 `x.foo`：不允许使用属性 `.foo`"), done.stderr
    done = run("explain", "x.foo", "x=1", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("error: refused `x.foo`: attribute")
    done = run("explain", "x*2", "x=a,b", "--lang", "zh", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("错误：读不懂 x 的数值：'a,b'")
    done = run("explain", "x*2", "x=1", "--dot", "g.txt", "--lang", "zh", cwd=tmp_path)
    assert done.returncode == 2 and "文件名必须以 .svg" in done.stderr
    done = run("tutorial", "99", "--lang", "zh", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("错误：没有第 99 课（已有的课：1, 2,")
    assert len(done.stderr.strip().splitlines()) == 1


def _default_ctrl_c() -> None:
    # A command started in the background of a shell without job control (as CI may run the
    # suite) inherits an ignored SIGINT, and Python then leaves it ignored: Ctrl-C in a
    # learner's terminal is the default, so the command gets the default
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _popen(*args: str, cwd: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "minigrad", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_ctrl_c)


def test_a_closed_pipe_ends_the_command_quietly(tmp_path):
    # as `python -m minigrad tutorial 1 | head`, where head has gone before the lesson is done:
    # here the reader is gone before the first line
    proc = _popen("tutorial", "1", cwd=tmp_path)
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=120)
    assert proc.returncode == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_ctrl_c_ends_the_command_quietly(tmp_path):
    proc = _popen("tutorial", "13", cwd=tmp_path)  # the longest lesson: still running
    assert proc.stdout.readline().startswith("# Lesson 13")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def test_explain_python_prints_a_program_that_gives_the_gradients(tmp_path):
    done = run("explain", "sum(x*y)*3", "x=1,2,3", "y=4,5,6", "--python", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# This trace's forward and backward as one numpy program")
    assert "g_x = g_t1 * y" in done.stdout and "Forward pass" not in done.stdout
    (tmp_path / "backward.py").write_text(done.stdout)
    ran = subprocess.run([sys.executable, "backward.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == ["x.grad = [12. 15. 18.]", "y.grad = [3. 6. 9.]"]


def test_explain_memory_says_what_each_step_frees(tmp_path):
    done = run("explain", "sum(exp(x)*y)", "x=1,2,3", "y=4,5,6", "--memory", "--no-timing",
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines()]
    assert sum(line.startswith("memory  frees") for line in lines) == 5
    assert "Memory: the graph holds 24 B in 3 saved tensors, 12 B of it the leaves' own; the " \
           "largest of the rest: t1, 12 B, freed at step 5" in done.stdout

"""What the student reads in an assignment, in English and Chinese: the README, the docstrings
of the stubs, and the tests file that runs the grader's checks."""

from __future__ import annotations

from minigrad.course.entry import POINTS, Op

LANGS = ("en", "zh")

WORDS: dict[str, dict[str, str]] = {
    "package_doc": {
        "en": '"""Your homework: one op per file. Check it with `python -m minigrad course '
              'grade .`"""',
        "zh": '"""你的作业：每个文件一个运算。用 `python -m minigrad course grade .` 检查。"""',
    },
    "module_doc": {
        "en": "{name}: write {cls}.forward and {cls}.backward below.\n\n"
              "Check your work from the assignment's folder: python -m minigrad course grade .",
        "zh": "{name}：在下面写出 {cls}.forward 和 {cls}.backward。\n\n"
              "在作业的文件夹里检查：python -m minigrad course grade .",
    },
    "forward_doc": {
        "en": "The inputs are Tensors: compute with numpy on their arrays (`x.array`) and "
              "return\n        a numpy array. Keep on ctx what backward needs.",
        "zh": "输入是 Tensor：用 numpy 对它们的数组（`x.array`）计算，返回一个 numpy 数组。\n"
              "        把 backward 要用的东西存在 ctx 上。",
    },
    "backward_doc": {
        "en": "grad is d loss / d out (a Tensor of out's shape). Return d loss / d each input,\n"
              "        multiplied by grad, of the input's shape, computed with Tensor "
              "operations.",
        "zh": "grad 是 d loss / d out（与 out 同形的 Tensor）。返回 d loss / d 每个输入：\n"
              "        乘上 grad，与输入同形，并且用 Tensor 运算来算。",
    },
    "your_code": {"en": "your code here", "zh": "在这里写你的代码"},
    "wrote": {
        "en": "Wrote an assignment of {count} ops:\n"
              "  {teacher}   the teacher's copy: the solutions and the hidden cases' seed "
              "(keep it)\n"
              "  {student}   the student's copy: hand this one out\n"
              "Check the solutions: python -m minigrad course grade {teacher} --teacher "
              "{teacher}",
        "zh": "已写好一份作业，共 {count} 个运算：\n"
              "  {teacher}   老师的版本：答案和隐藏用例的种子（自己留着）\n"
              "  {student}   学生的版本：发给学生的就是这一份\n"
              "检查答案：python -m minigrad course grade {teacher} --teacher {teacher}",
    },
    "released": {"en": "Wrote the student's copy to {student}: hand this one out",
                 "zh": "学生的版本已写到 {student}：发给学生的就是这一份"},
}


def word(key: str, lang: str) -> str:
    return WORDS[key][lang]


BREAK_AFTER = "，。；：、）"  # where a Chinese line may end


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """Lines of at most `width` columns (a Chinese character takes two), each after `indent`.
    Breaks at spaces and after Chinese punctuation, else between two Chinese characters."""
    lines: list[str] = []
    line = ""
    strong = weak = 0  # where `line` may be cut: after a space or punctuation; between CJK
    for ch in text:
        # (punctuation never starts a line: it may stick out past `width` instead)
        if display_width(indent + line + ch) > width and max(strong, weak) > 0 and \
                ch not in BREAK_AFTER:
            cut = strong if strong > len(line) // 2 or weak <= strong else weak
            lines.append(line[:cut].rstrip())
            line = line[cut:].lstrip()
            strong = weak = 0
        if line and _wide(ch) and _wide(line[-1]):
            weak = len(line)
        line += ch
        if ch == " " or ch in BREAK_AFTER:
            strong = len(line)
    lines.append(line)
    return [indent + row for row in lines if row]


def _wide(ch: str) -> bool:
    return "\u2e80" <= ch <= "\uffef"


def display_width(text: str) -> int:
    """Columns `text` takes in a terminal: a Chinese character takes two."""
    return sum(2 if _wide(ch) else 1 for ch in text)


CHECK_NAMES: dict[str, dict[str, str]] = {
    "forward": {"en": "forward", "zh": "前向"},
    "backward": {"en": "backward", "zh": "反向"},
    "broadcasting": {"en": "broadcasting", "zh": "广播"},
    "dim": {"en": "any dim", "zh": "任意 dim"},
    "batched": {"en": "a batch", "zh": "带批次"},
    "second": {"en": "second derivative", "zh": "二阶导数"},
    "stability": {"en": "stability", "zh": "数值稳定性"},
    "speed": {"en": "speed", "zh": "速度"},
}

README = {
    "en": """# Homework: write the backward pass

You write the forward and the backward of {count} operation{s}, each a `minigrad.Function`,
one per file in `homework/`. A grader then checks them the way a careful engineer would.

## What to do

In each file of `homework/`, replace every `raise NotImplementedError(...)` with your code.

- `forward(ctx, ...)` receives minigrad Tensors. Compute the result with numpy on their
  arrays (`x.array`) and return a numpy array. Keep on `ctx` what backward will need
  (`ctx.save_for_backward(x)`, or `ctx.dim = dim`).
- `backward(ctx, grad)` receives `grad`, the gradient of the loss with respect to the output
  (a Tensor of the output's shape). Return the gradient with respect to each input (a tuple
  when there are two), keeping three rules:
  1. multiply by `grad`: that is the chain rule;
  2. give each gradient the shape of its input: where broadcasting stretched an input, sum
     the gradient back over those dimensions;
  3. compute with Tensor operations (`grad * x.cos()`, not `np.cos(x.array)`), so that your
     backward can itself be differentiated: the grader checks the second derivative too.

Each class's docstring gives the maths, the shapes and what to watch for.

## The operations

| file | class | what it computes |
|---|---|---|
{rows}

## Check your work

```bash
python -m minigrad course grade .     # run in this folder: feedback and a score per op
pytest tests                          # the same checks, one test per op
```

For every op the grader checks the forward values; the gradients your backward gives, for a
random `grad`, against the right ones; the harder shapes (broadcasting, another `dim`, a
batch); the second derivative (your backward, differentiated); and the speed of forward and
backward on a large input (within {factor}x of the teacher's solution). When a check fails it
shows which input and which element are wrong, the right value next to yours, and the
smallest example it found. Start from that example: work it out by hand.

Your teacher's grade runs more: hidden cases (larger shapes, more batch dimensions,
zero-size dimensions, float32 inputs) and a stability check at extreme values (1000, 1e-300:
nothing may overflow into inf or nan where the right answer is a number). Two rules hold:
forward computes with numpy (it may not call minigrad's ops), and backward is your own
formula (it may not call minigrad's autograd); `apply` is minigrad's, leave it alone.

## Points

{points}. A check counts only when the checks it builds on passed (the second derivative,
the harder shapes and the speed build on backward). A check that runs longer than the time
limit, or crashes, gets no points, and the other ops are graded all the same.
""",
    "zh": """# 作业：写出反向传播

你要为 {count} 个运算写出前向和反向，每个运算是一个 `minigrad.Function`，`homework/` 里每个文件
一个。写完之后，评分程序会像一位细心的工程师那样逐个检查。

## 要做什么

把 `homework/` 里每个文件中的 `raise NotImplementedError(...)` 换成你自己的代码。

- `forward(ctx, ...)` 收到的是 minigrad 的 Tensor。用 numpy 对它们的数组（`x.array`）计算结果，
  返回一个 numpy 数组。backward 要用的东西存在 `ctx` 上（`ctx.save_for_backward(x)`，
  或者 `ctx.dim = dim`）。
- `backward(ctx, grad)` 收到 `grad`，即损失对输出的梯度（与输出同形的 Tensor）。返回损失对每个
  输入的梯度（有两个输入时返回一个元组），并遵守三条规则：
  1. 乘上 `grad`：这就是链式法则；
  2. 每个梯度都与它的输入同形：某个输入被广播拉伸过，就要沿那些维度把梯度加回去；
  3. 用 Tensor 运算来算（写 `grad * x.cos()`，不要写 `np.cos(x.array)`），这样你的 backward
     本身也能再求导：评分程序也会检查二阶导数。

每个类的文档字符串里写着数学公式、形状，以及需要留意的地方。

## 运算列表

| 文件 | 类 | 计算什么 |
|---|---|---|
{rows}

## 检查你的作业

```bash
python -m minigrad course grade .     # 在这个文件夹里运行：给出反馈和每个运算的得分
pytest tests                          # 同样的检查，每个运算一个测试
```

评分程序对每个运算检查：前向的数值；给定一个随机的 `grad`，你的 backward 算出的梯度是否正确；
更难的形状（广播、换一个 `dim`、批次）；二阶导数（对你的 backward 再求导）；以及在一个大输入上
forward 加 backward 的速度（不能超过老师答案用时的 {factor} 倍）。某项检查没通过时，它会指出哪个输入
的哪个元素错了，把正确值和你的结果并排列出，并给出它找到的最小反例。从这个反例入手，先用笔算一遍。

老师评分时还会运行更多检查：隐藏用例（更大的形状、更多的批次维、长度为 0 的维度、float32 输入），
以及极端数值（1000、1e-300）下的数值稳定性检查：正确答案是普通的数时，你的结果不能溢出成 inf 或
nan。另有两条规矩：forward 用 numpy 计算（不能调用 minigrad 的运算），backward 是你自己推出的公式
（不能借 minigrad 的自动求导）；`apply` 是 minigrad 的，不要改它。

## 分数

{points}。一项检查只有在它所依赖的检查都通过时才计分（二阶导数、更难的形状和速度都依赖 backward）。
某项检查超过时间限制或者崩溃，就得不到分数，但其他运算照常评分。
""",
}

POINTS_LINE = {"en": "Per op: {items}", "zh": "每个运算：{items}"}
POINT_WORD = {"en": "{name} {n}", "zh": "{name} {n} 分"}


def readme(ops: list[Op], lang: str, factor: float = 50.0) -> str:
    """The student's README.md for these ops."""
    rows = "\n".join(f"| `homework/{op.name}.py` | `{op.cls}` | {op.what[lang]} |"
                     for op in ops)
    used = {c for op in ops for c in op.checks}
    shown = [c for c in POINTS if c in used]
    sep = "; " if lang == "en" else "；"
    items = sep.join(POINT_WORD[lang].format(name=CHECK_NAMES[c][lang], n=POINTS[c])
                     for c in shown)
    points = POINTS_LINE[lang].format(items=items)
    return README[lang].format(count=len(ops), s="" if len(ops) == 1 else "s", rows=rows,
                               points=points, factor=f"{factor:g}")


TESTS = '''"""The grader's checks, one test per op: `pytest tests` (or `python -m minigrad course
grade .` for the whole report)."""

from pathlib import Path

import pytest

from minigrad.course import grade, read_manifest

HERE = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("op", read_manifest(HERE)["ops"])
def test_op(op):
    report = grade(HERE, ops=[op])
    assert report.passed, report.text()
'''


def clean(text: str) -> str:
    """`text` without control characters (a submission's output, shown in feedback): only
    newlines and tabs are kept, so nothing it printed can move the cursor or change colours."""
    return "".join(ch for ch in text if ch in "\n\t" or (ch >= " " and ch != "\x7f"
                                                         and not "\x80" <= ch <= "\x9f"))

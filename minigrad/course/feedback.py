"""The feedback a student reads, in English or Chinese, made from the plain results of the
checks: for each failing check what is wrong, where (input and element), the numerical and
the analytical value, and the smallest failing example hypothesis found; then the scores."""

from __future__ import annotations

from typing import Any

from minigrad.course.entry import Op
from minigrad.course.texts import CHECK_NAMES

MAX_PRINTED = 2000  # characters of the student's printed output kept per op

T: dict[str, dict[str, str]] = {
    "jacobian": {
        "en": "the gradient of {input} is wrong{at}: finite differences give {numerical}, "
              "your backward gives {analytical}.",
        "zh": "{input} 的梯度{at}不对：有限差分得到 {numerical}，你的 backward 给出 "
              "{analytical}。"},
    "second_jacobian": {
        "en": "the second derivative is wrong: the gradient of {gradient_of}, differentiated "
              "with respect to {input}{at}, is {numerical} by finite differences and "
              "{analytical} through your backward. Write backward with Tensor operations (no "
              "numpy, no .array), so that it can be differentiated in turn.",
        "zh": "二阶导数不对：{gradient_of} 的梯度对 {input} {at}求导，有限差分得到 "
              "{numerical}，沿你的 backward 求出的却是 {analytical}。backward 要用 Tensor 运算"
              "来写（不用 numpy，也不取 .array），这样它才能再求一次导。"},
    "not_multiplied": {
        "en": "backward does not multiply by grad: with grad = 0 the gradient of {input} is not "
              "0 (chain rule: every term is multiplied by grad).",
        "zh": "backward 没有乘上 grad：grad 全为 0 时，{input} 的梯度却不是 0（链式法则：每一项"
              "都要乘上 grad）。"},
    "gradcheck": {"en": "gradcheck: {message}", "zh": "gradcheck：{message}"},
    "grad_count": {
        "en": "backward returned {got} gradient(s), but {op} has {expected} input(s): return "
              "one gradient per input (a tuple when there are two).",
        "zh": "backward 返回了 {got} 个梯度，而 {op} 有 {expected} 个输入：每个输入返回一个梯度"
              "（两个时返回元组）。"},
    "grad_type": {
        "en": "backward returned a {got} for {input}: return a Tensor, computed from grad with "
              "Tensor operations.",
        "zh": "backward 为 {input} 返回的是 {got}：应当返回 Tensor，由 grad 经 Tensor 运算得到。"},
    "grad_shape": {
        "en": "backward returned a gradient of shape {got} for {input}, whose shape is "
              "{expected}.",
        "zh": "backward 返回的 {input} 的梯度形状是 {got}，而 {input} 的形状是 {expected}。"},
    "grad_shape_broadcast": {
        "en": " Sum it over the dimensions that broadcasting added or stretched "
              "(g.sum_to_size({input}.shape)).",
        "zh": "广播新增或拉伸过的维度，要把梯度沿这些维度加起来（g.sum_to_size({input}.shape)）。"},
    "forward_type": {"en": "forward returned a {got}: return a numpy array.",
                     "zh": "forward 返回的是 {got}：应当返回 numpy 数组。"},
    "forward_value/shape": {"en": "forward returned shape {got}, the right shape is {expected}.",
                            "zh": "forward 返回的形状是 {got}，正确的形状是 {expected}。"},
    "forward_value/value": {"en": "forward is wrong{at}: yours is {got}, the right value "
                                  "is {expected}.",
                            "zh": "forward {at}算错了：你的结果是 {got}，正确值是 "
                                  "{expected}。"},
    "torch_value/shape": {"en": "out has shape {got}, PyTorch's has {expected}.",
                          "zh": "out 的形状是 {got}，PyTorch 的是 {expected}。"},
    "torch_value/value": {"en": "out differs from PyTorch's{at}: PyTorch {expected}, "
                                "yours {got}.",
                          "zh": "out {at}与 PyTorch 不同：PyTorch 得 {expected}，你的是 "
                                "{got}。"},
    "torch_grad/shape": {"en": "the gradient of {input} has shape {got}, PyTorch's has "
                               "{expected}.",
                         "zh": "{input} 的梯度形状是 {got}，PyTorch 的是 {expected}。"},
    "torch_grad/value": {"en": "the gradient of {input} differs from PyTorch's{at}: "
                               "PyTorch {expected}, yours {got}.",
                         "zh": "{input} 的梯度{at}与 PyTorch 不同：PyTorch 得 {expected}，"
                               "你的是 {got}。"},
    "not_implemented": {"en": "{function} is not written yet (it raises NotImplementedError).",
                        "zh": "{function} 还没有写（它抛出了 NotImplementedError）。"},
    "exception": {"en": "your code raised {type}: {message}",
                  "zh": "你的代码抛出了 {type}：{message}"},
    "where": {"en": "in {file}, line {line}: {code}", "zh": "位置：{file} 第 {line} 行：{code}"},
    "no_torch": {"en": "not run: PyTorch is not installed.", "zh": "没有运行：没有安装 PyTorch。"},
    "timeout": {
        "en": "stopped after {limit} s, the time limit per op: an endless loop, or far too "
              "slow? This op gets no points; the other ops were graded as usual.",
        "zh": "运行超过了每个运算 {limit} 秒的时间限制，被停了下来：是不是有死循环，或者慢得"
              "离谱？这个运算不得分，其他运算照常评分。"},
    "crashed": {"en": "the process grading this op died ({how}). This op gets no points; the "
                      "other ops were graded as usual.",
                "zh": "评分这个运算的进程意外终止了（{how}）。这个运算不得分，其他运算照常评分。"},
    "at": {"en": " at {where}", "zh": "在 {where} 处"},
    "exit_code": {"en": "exit code {code}", "zh": "退出码 {code}"},
    "signal": {"en": "killed by {signal}", "zh": "被信号 {signal} 终止"},
    "import": {"en": "{file} could not be imported: ", "zh": "无法导入 {file}："},
    "no_class": {"en": "{file} has no class {cls} (a subclass of minigrad.Function).",
                 "zh": "{file} 里没有 {cls} 类（它应当是 minigrad.Function 的子类）。"},
    "example": {"en": "smallest failing example (found by hypothesis):",
                "zh": "hypothesis 找到的最小反例："},
    "settings": {"en": "settings: {params}", "zh": "设置：{params}"},
    "shape": {"en": "shape", "zh": "形状"},
    "printed": {"en": "your code printed (the first {limit} characters are kept):",
                "zh": "你的代码打印了这些内容（只保留前 {limit} 个字符）："},
    "dropped": {"en": "... and {n} more characters", "zh": "……后面还有 {n} 个字符"},
    "scores": {"en": "Scores", "zh": "得分"},
    "total": {"en": "total", "zh": "总分"},
    "all_passed": {"en": "every check passed", "zh": "全部检查通过"},
    "failed": {"en": "failed: {checks}", "zh": "没通过：{checks}"},
    "title": {"en": "Grading {folder}: {count} op{s}", "zh": "评分 {folder}：共 {count} 个运算"},
    "time": {"en": "graded in {seconds:.1f} s", "zh": "评分用时 {seconds:.1f} 秒"},
}
LIST_SEP = {"en": ", ", "zh": "、"}


def say(key: str, lang: str, **values: Any) -> str:
    return T[key][lang].format(**values)


def number(v: Any) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def shape(s: Any) -> str:
    return str(tuple(s)) if isinstance(s, list) else str(s)


def at(name: str, element: list, lang: str) -> str:
    """Where in a tensor: " at x[0, 1]" (zh "在 x[0, 1] 处"), nothing for a scalar."""
    if not element:
        return ""
    where = f"{name}[{', '.join(str(i) for i in element)}]"
    return say("at", lang, where=where)


def check_message(result: dict[str, Any], op: Op, lang: str) -> str:
    """What is wrong in one failed (or skipped) check, in a sentence or two."""
    reason, d = result.get("reason", ""), result
    if reason in ("forward_value", "torch_value", "torch_grad"):
        key = f"{reason}/{d.get('problem', 'value')}"
        target = d.get("input", "out")
        return say(key, lang, got=_fmt(d.get("got"), key), expected=_fmt(d.get("expected"), key),
                   input=target, at=at(target, d.get("element") or [], lang))
    if reason in ("jacobian", "second_jacobian"):
        return say(reason, lang, input=d.get("input"), gradient_of=d.get("gradient_of"),
                   at=at(str(d.get("input")), d.get("element") or [], lang),
                   numerical=number(d.get("numerical")), analytical=number(d.get("analytical")))
    if reason == "grad_shape":
        text = say(reason, lang, input=d.get("input"), got=shape(d.get("got")),
                   expected=shape(d.get("expected")))
        if op.kind in ("binary", "matmul"):
            text += say("grad_shape_broadcast", lang, input=d.get("input"))
        return text
    if reason == "exception":
        return exception_text(d, lang)
    if reason in T:
        return say(reason, lang, **{**d, "op": op.name})
    return str(d.get("message", reason))


def _fmt(v: Any, key: str) -> str:
    return shape(v) if key.endswith("/shape") else number(v)


def exception_text(d: dict[str, Any], lang: str) -> str:
    text = say("exception", lang, type=d.get("type"), message=d.get("message"))
    where = d.get("where")
    if isinstance(where, dict):
        text += "\n" + say("where", lang, **where)
    return text


def example_lines(example: dict[str, Any] | None, lang: str) -> list[str]:
    """The smallest failing example: each input's values and shape, then the settings."""
    if not example:
        return []
    lines = [say("example", lang)]
    for x in example.get("inputs", []):
        values = str(x.get("values", "")).splitlines() or [""]
        head = f"  {x.get('name')} = "
        lines.append(f"{head}{values[0]}")
        lines += [" " * len(head) + v for v in values[1:]]
        lines.append(" " * len(head) + f"{say('shape', lang)} {shape(x.get('shape'))}")
    params = example.get("params") or {}
    if params:
        shown = ", ".join(f"{k}={tuple(v) if isinstance(v, list) else v!r}"
                          for k, v in params.items())
        lines.append("  " + say("settings", lang, params=shown))
    return lines


def check_name(check: str, lang: str) -> str:
    return CHECK_NAMES[check][lang]


def check_names(checks: list[str], lang: str) -> str:
    return LIST_SEP[lang].join(check_name(c, lang) for c in checks)


def printed_lines(text: str, dropped: int, limit: int, lang: str) -> list[str]:
    if not text:
        return []
    lines = [say("printed", lang, limit=limit)] + ["  | " + row for row in text.splitlines()]
    if dropped:
        lines.append("  " + say("dropped", lang, n=dropped))
    return lines

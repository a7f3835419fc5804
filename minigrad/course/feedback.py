"""The feedback a student reads, in English or Chinese: what is wrong in one check, made from
the plain data of its result (checks.py). The report around it is render.py."""

from __future__ import annotations

from typing import Any

from minigrad.course.entry import Op
from minigrad.course.texts import CHECK_NAMES

MAX_PRINTED = 2000  # characters of the student's printed output kept per op
NO_NUMPY = {"en": " Write backward with Tensor operations (no numpy, no .array), so that it "
                  "can be differentiated in turn.",
            "zh": "backward 要用 Tensor 运算来写（不用 numpy，也不取 .array），这样它才能"
                  "再求一次导。"}

T: dict[str, dict[str, str]] = {
    "forward_value/value": {"en": "forward is wrong{at}: yours is {got}, the right value is "
                                  "{expected}.",
                            "zh": "forward {at}算错了：你的结果是 {got}，正确值是 {expected}。"},
    "forward_value/shape": {"en": "forward returned shape {got}, the right shape is {expected}.",
                            "zh": "forward 返回的形状是 {got}，正确的形状是 {expected}。"},
    "forward_value/dtype": {"en": "forward returned {got} values for {expected} inputs: keep "
                                  "the inputs' dtype.",
                            "zh": "输入是 {expected}，forward 却返回了 {got}：要保持输入的 "
                                  "dtype。"},
    "grad_value/value": {"en": "the gradient of {input} is wrong{at}: the right value is "
                               "{expected}, your backward gives {got}.",
                         "zh": "{input} 的梯度{at}不对：正确值是 {expected}，你的 backward 给出 "
                               "{got}。"},
    "grad_value/shape": {"en": "backward returned a gradient of shape {got} for {input}, whose "
                               "shape is {expected}.",
                         "zh": "backward 返回的 {input} 的梯度形状是 {got}，而 {input} 的形状是 "
                               "{expected}。"},
    "grad_value/dtype": {"en": "backward returned a {got} gradient for {input}, whose dtype is "
                               "{expected}.",
                         "zh": "backward 为 {input} 返回的梯度是 {got}，而 {input} 的 dtype 是 "
                               "{expected}。"},
    "second_value/value": {"en": "the second derivative is wrong: the gradient of "
                                 "{gradient_of}, differentiated with respect to {input}{at} "
                                 "(along a random direction), should be {expected}; through "
                                 "your backward it is {got}.",
                           "zh": "二阶导数不对：{gradient_of} 的梯度（沿一个随机方向）对 {input} "
                                 "{at}求导，应当是 {expected}，沿你的 backward 求出的却是 {got}。"},
    "stability_value/value": {"en": "at extreme values forward gives {got}{at}, the right value "
                                    "is {expected}: compute it so that nothing overflows (for "
                                    "exp, subtract the largest value first).",
                              "zh": "在极端数值下，forward {at}给出 {got}，正确值是 {expected}："
                                    "换一种不会溢出的算法（比如先减去最大值再取 exp）。"},
    "stability_grad/value": {"en": "at extreme values the gradient of {input} is {got}{at}, the "
                                   "right value is {expected}: compute it so that nothing "
                                   "overflows.",
                             "zh": "在极端数值下，{input} 的梯度{at}是 {got}，正确值是 "
                                   "{expected}：换一种不会溢出的算法。"},
    "not_multiplied": {"en": "backward does not multiply by grad: with grad = 0 the gradient of "
                             "{input} is not 0 (chain rule: every term is multiplied by grad).",
                       "zh": "backward 没有乘上 grad：grad 全为 0 时，{input} 的梯度却不是 0（链式"
                             "法则：每一项都要乘上 grad）。"},
    "grad_count": {"en": "backward returned {got} gradient(s), but {op} has {expected} "
                         "input(s): return one gradient per input (a tuple when there are two).",
                   "zh": "backward 返回了 {got} 个梯度，而 {op} 有 {expected} 个输入：每个输入返回"
                         "一个梯度（两个时返回元组）。"},
    "grad_type": {"en": "backward returned a {got} for {input}: return a Tensor, computed from "
                        "grad with Tensor operations.",
                  "zh": "backward 为 {input} 返回的是 {got}：应当返回 Tensor，由 grad 经 Tensor "
                        "运算得到。"},
    "grad_shape": {"en": "backward returned a gradient of shape {got} for {input}, whose shape is "
                         "{expected}.",
                   "zh": "backward 返回的 {input} 的梯度形状是 {got}，而 {input} 的形状是 "
                         "{expected}。"},
    "grad_shape_broadcast": {"en": " Sum it over the dimensions that broadcasting added or "
                                   "stretched (g.sum_to_size({input}.shape)).",
                             "zh": "广播新增或拉伸过的维度，要把梯度沿这些维度加起来"
                                   "（g.sum_to_size({input}.shape)）。"},
    "forward_type": {"en": "apply returned a {got}: forward returns a numpy array, which apply "
                           "makes a Tensor.",
                     "zh": "apply 返回的是 {got}：forward 应当返回 numpy 数组，由 apply 把它变成 "
                           "Tensor。"},
    "not_recorded": {"en": "the output was not made by your class through Function.apply (its "
                           "grad_fn is {node}).",
                     "zh": "输出不是由你的类经 Function.apply 得到的（它的 grad_fn 是 {node}）。"},
    "apply_overridden": {"en": "{classes} overrides apply: the grader calls your op through "
                               "minigrad's own Function.apply, so write forward and backward and "
                               "leave apply alone. Scored as not implemented.",
                         "zh": "{classes} 重写了 apply：评分程序通过 minigrad 自己的 "
                               "Function.apply 调用你的运算，所以要写 forward 和 backward，不要"
                               "改 apply。按没有实现计分。"},
    "delegation": {"en": "this runs minigrad's own {name}, which is the exercise: forward "
                         "computes with numpy on the arrays, backward with your own formula in "
                         "Tensor operations (no autograd of minigrad's ops inside it). Scored "
                         "as not implemented.",
                   "zh": "这里调用了 minigrad 自己的 {name}，而这正是要你自己写的：forward 用 "
                         "numpy 对数组计算，backward 用你自己推出的公式、以 Tensor 运算写成（里面"
                         "不能借 minigrad 的自动求导）。按没有实现计分。"},
    "backward_not_called": {"en": "your backward was never called.",
                            "zh": "你的 backward 根本没有被调用。"},
    "not_implemented": {"en": "{function} is not written yet (it raises NotImplementedError).",
                        "zh": "{function} 还没有写（它抛出了 NotImplementedError）。"},
    "exception": {"en": "your code raised {type}: {message}",
                  "zh": "你的代码抛出了 {type}：{message}"},
    "where": {"en": "in {file}, line {line}: {code}", "zh": "位置：{file} 第 {line} 行：{code}"},
    "slow": {"en": "forward and backward took {ratio}x as long as the reference solution on "
                   "inputs of shape {shapes} (the limit is {factor}x): compute on whole "
                   "arrays, not element by element in Python.",
             "zh": "在形状为 {shapes} 的输入上，forward 加 backward 用的时间是参考答案的 {ratio} "
                   "倍（上限是 {factor} 倍）：要对整个数组运算，不要在 Python 里逐个元素地算。"},
    "slow_stopped": {"en": "forward and backward took more than {ratio}x as long as the "
                           "reference solution on inputs of shape {shapes} and were stopped "
                           "(the limit is {factor}x): compute on whole arrays, not element by "
                           "element in Python.",
                     "zh": "在形状为 {shapes} 的输入上，forward 加 backward 用的时间超过参考答案"
                           "的 {ratio} 倍，被停了下来（上限是 {factor} 倍）：要对整个数组运算，"
                           "不要在 Python 里逐个元素地算。"},
    "timeout": {"en": "stopped after {limit} s, the time limit: an endless loop, or far too "
                      "slow?",
                "zh": "运行超过了 {limit} 秒的时间限制，被停了下来：是不是有死循环，或者慢得"
                      "离谱？"},
    "crashed": {"en": "the process running your op died ({how}).",
                "zh": "运行你的运算的进程意外终止了（{how}）。"},
    "exit_code": {"en": "exit code {code}", "zh": "退出码 {code}"},
    "signal": {"en": "killed by {signal}", "zh": "被信号 {signal} 终止"},
    "import_error": {"en": "{file} could not be imported: ", "zh": "无法导入 {file}："},
    "no_class": {"en": "{file} has no class {cls} (a subclass of minigrad.Function).",
                 "zh": "{file} 里没有 {cls} 类（它应当是 minigrad.Function 的子类）。"},
    "no_package": {"en": "the submission has no {package}/ folder, and none of its files "
                         "({files}): upload the {package} folder (or the .py files in it).",
                   "zh": "提交的内容里既没有 {package}/ 文件夹，也没有其中的文件（{files}）："
                         "请上传 "
                         "{package} 文件夹（或者其中的 .py 文件）。"},
    "custom": {"en": "{message}", "zh": "{message}"},
    "not_judged": {"en": "not judged: it builds on {builds}, which did not pass.",
                   "zh": "未评：它建立在{builds}之上，而{builds}没有通过。"},
    "hidden": {"en": "run when your teacher grades (hidden checks).",
               "zh": "老师评分时才运行（隐藏检查）。"},
    "no_reference": {"en": "not run: there is no reference solution to time against.",
                     "zh": "没有运行：没有可以对比计时的参考答案。"},
    "check_error": {"en": "not counted: the check itself failed ({message}).",
                    "zh": "不计分：这项检查本身出错了（{message}）。"},
    "at": {"en": " at {where}", "zh": "在 {where} 处"},
    "approximate": {"en": " They agree to 6 digits, not to 11: is it computed exactly, or "
                          "approximated (finite differences)?",
                    "zh": "两者前 6 位相同，到第 11 位就不同了：它是精确算出来的，还是近似的"
                          "（有限差分）？"},
}
LIST_SEP = {"en": ", ", "zh": "、"}
HIDDEN_CASES = {
    "larger": {"en": "larger shapes", "zh": "更大的形状"},
    "zero_size": {"en": "a zero-size dimension", "zh": "长度为 0 的维度"},
    "float32": {"en": "float32 inputs", "zh": "float32 输入"},
    "more_batch": {"en": "two or more batch dimensions", "zh": "两个及以上的批次维"},
    "extreme": {"en": "extreme values", "zh": "极端数值"},
}


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
    return say("at", lang, where=f"{name}[{', '.join(str(i) for i in element)}]")


def check_message(result: dict[str, Any], op: Op, lang: str) -> str:
    """What is wrong in one failed check (or why it was not judged), in a sentence or two."""
    reason, d = result.get("reason", ""), result
    if result["status"] == "not_judged":
        return say("not_judged", lang, builds=check_names(d.get("builds_on", []), lang))
    if result["status"] == "hidden":
        return say("hidden", lang)
    if reason.endswith(("_value", "_grad")):
        key = f"{reason}/{d.get('problem', 'value')}"
        key = key if key in T else f"grad_value/{d.get('problem', 'value')}"
        target = d.get("input", "out")
        got, expected = _fmt(d.get("got"), key), _fmt(d.get("expected"), key)
        close = got == expected  # (equal to 6 digits: show them all, and say why it matters)
        if close:
            got, expected = (f"{d.get(k):.15g}" for k in ("got", "expected"))
        text = say(key, lang, got=got, expected=expected, input=target,
                   gradient_of=d.get("gradient_of"),
                   at=at(str(target if reason != "forward_value" else "out"),
                         d.get("element") or [], lang))
        text += say("approximate", lang) if close else ""
        return text + (NO_NUMPY[lang] if reason == "second_value" else "")
    if reason == "grad_shape":
        text = say(reason, lang, input=d.get("input"), got=shape(d.get("got")),
                   expected=shape(d.get("expected")))
        if op.kind in ("binary", "matmul"):
            text += say("grad_shape_broadcast", lang, input=d.get("input"))
        return text
    if reason == "slow":
        return say("slow_stopped" if d.get("stopped") else "slow", lang, ratio=d.get("ratio"),
                   factor=number(d.get("factor")),
                   shapes=" and ".join(shape(s) for s in d.get("shapes", [])))
    if reason == "exception":
        return exception_text(d, lang)
    if reason == "import_error":
        return say(reason, lang, file=d.get("file")) + exception_text(d.get("error") or {},
                                                                    lang)
    if reason == "crashed":
        how = say("signal", lang, signal=d["signal"]) if d.get("signal") else \
            d.get("message") or say("exit_code", lang, code=d.get("exit_code"))
        return say("crashed", lang, how=how)
    if reason == "apply_overridden":
        return say(reason, lang, classes=", ".join(d.get("classes", [])))
    if reason == "timeout":
        return say(reason, lang, limit=number(d.get("limit")))
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


def check_name(check: str, lang: str) -> str:
    names = CHECK_NAMES.get(check)
    return names[lang] if names else check


def check_names(checks: list[str], lang: str) -> str:
    return LIST_SEP[lang].join(check_name(c, lang) for c in checks)

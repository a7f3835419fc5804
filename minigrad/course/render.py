"""The grade as text: one block per op that did not pass everything (the checks that passed on
one line, then each failing check with what is wrong and its example), then the scores.
feedback.py words each check; this file lays them out."""

from __future__ import annotations

from typing import Any

from minigrad.course import feedback
from minigrad.course.feedback import HIDDEN_CASES, check_name, check_names
from minigrad.course.texts import display_width, wrap

WIDTH = 96  # columns of the feedback's prose

WORDS: dict[str, dict[str, str]] = {
    "title": {"en": "Grading {folder}: {count} op{s}", "zh": "评分 {folder}：共 {count} 个运算"},
    "visible_only": {"en": "(visible checks only: the hidden ones run when your teacher "
                           "grades; this is not your grade)",
                     "zh": "（只运行了公开的检查：隐藏检查在老师评分时才运行；这不是你的成绩）"},
    "scores": {"en": "Scores", "zh": "得分"},
    "total": {"en": "total", "zh": "总分"},
    "failed": {"en": "failed: {checks}", "zh": "没通过：{checks}"},
    "not_judged": {"en": "not judged: {checks}", "zh": "未评：{checks}"},
    "time": {"en": "graded in {seconds:.1f} s", "zh": "评分用时 {seconds:.1f} 秒"},
    "example": {"en": "smallest failing example:", "zh": "最小的反例："},
    "hidden_example": {"en": "failing example (a hidden case: {what}):",
                       "zh": "反例（隐藏的用例：{what}）："},
    "hidden_kept": {"en": "it failed on a hidden case ({what}); its values are shown when "
                          "grades are published.",
                    "zh": "它在一个隐藏用例（{what}）上没有通过；具体数值在公布成绩后显示。"},
    "settings": {"en": "settings: {params}", "zh": "设置：{params}"},
    "shape": {"en": "shape", "zh": "形状"},
    "printed": {"en": "your code printed (the first {limit} characters are kept):",
                "zh": "你的代码打印了这些内容（只保留前 {limit} 个字符）："},
    "dropped": {"en": "... and {n} more characters", "zh": "……后面还有 {n} 个字符"},
    "passed": {"en": "passed", "zh": "通过"},
    "hidden_cases": {"en": "the hidden cases it failed on", "zh": "没通过的隐藏用例"},
    "loose": {"en": "note: the files were uploaded without their {package}/ folder; they were "
                    "graded as {package}/*.py.",
              "zh": "注意：上传的文件没有放在 {package}/ 文件夹里；已按 {package}/*.py 评分。"},
    "nested": {"en": "note: the {package}/ folder was found one folder down, and graded.",
               "zh": "注意：{package}/ 文件夹在下一层目录里找到，已评分。"},
    "batch_start": {"en": "{n} submissions: {done} already graded, {todo} to grade",
                    "zh": "共 {n} 份提交：{done} 份已经评过，{todo} 份待评"},
    "batch_summary": {
        "en": "{students} students: mean {mean:.1f}, median {median:g} of {top}; {full} with "
              "full marks, {not_graded} not graded (no package or an error)\nscores: {csv}\n"
              "feedback and Gradescope results, one file per student: {results}/",
        "zh": "{students} 个学生：平均 {mean:.1f} 分，中位数 {median:g} 分，满分 {top} 分；"
              "{full} 人满分，{not_graded} 人未能评分（没有 package，或者出错）\n得分：{csv}\n"
              "反馈和 Gradescope 结果，每个学生一个文件：{results}/"},
    "batch_time": {"en": "graded in {seconds:.0f} s", "zh": "评分用时 {seconds:.0f} 秒"},
    "zip": {"en": "Wrote {out}: upload it as the autograder of a Gradescope programming "
                  "assignment",
            "zh": "已写好 {out}：把它上传为 Gradescope 编程作业的自动评分程序"},
    "sandbox": {"en": "sandbox: {parts}, {limit}, {memory} MiB",
                "zh": "沙盒：{parts}，{limit}，{memory} MiB"},
}
SANDBOX = {
    "landlock": {"en": "Landlock ABI {abi} ({covers})", "zh": "Landlock ABI {abi}（{covers}）"},
    "no_landlock": {"en": "no Landlock: files, TCP and signals are not confined",
                    "zh": "没有 Landlock：文件、TCP 和信号都不受限"},
    "netns": {"en": "own network namespace", "zh": "独立的网络命名空间"},
    "no_netns": {"en": "the grader's network", "zh": "与评分程序共用网络"},
    "user": {"en": "another user", "zh": "另一个用户"},
    "no_user": {"en": "the grader's user", "zh": "与评分程序同一个用户"},
    "processes": {"en": "at most {n} processes", "zh": "最多 {n} 个进程"},
    "no_processes": {"en": "no process limit (root)", "zh": "没有进程数限制（root）"},
}


def word(key: str, lang: str, **values: Any) -> str:
    return WORDS[key][lang].format(**values)


def op_lines(grade: Any, lang: str, reveal: bool = True) -> list[str]:
    """The feedback for one op: its score, the checks that passed, each failing group."""
    lines = [f"{'✓' if grade.passed else '✗'} {grade.op.name}  {grade.score}/{grade.max_score}"]
    whole = [c for c in grade.checks if c.get("whole_op")]
    if whole:  # (the op could not be run at all: one reason for every check)
        lines += paragraphs(feedback.check_message(whole[0], grade.op, lang), 2)
    else:
        lines += _check_lines(grade, lang, reveal)
    lines += ["  " + row for row in printed_lines(grade.printed, grade.printed_dropped, lang)]
    return lines


def _check_lines(grade: Any, lang: str, reveal: bool) -> list[str]:
    """Passed checks on one line; the others grouped by message, each with its example."""
    passed = [c["check"] for c in grade.checks if c["status"] == "passed"]
    lines = [f"  ✓ {check_names(passed, lang)}"] if passed else []
    groups: dict[str, list[dict[str, Any]]] = {}
    for c in grade.checks:
        if c["status"] not in ("passed", "hidden"):  # (the title says hidden checks exist)
            groups.setdefault(feedback.check_message(c, grade.op, lang), []).append(c)
    for message, group in groups.items():
        mark = "✗" if group[0]["status"] == "failed" else "-"
        lines.append(f"  {mark} {check_names([c['check'] for c in group], lang)}")
        lines += paragraphs(message, 6)
        example = group[0].get("example")
        if example and example.get("hidden") and not reveal:
            what = HIDDEN_CASES[example["hidden"]][lang]
            lines += paragraphs(word("hidden_kept", lang, what=what), 6)
        else:
            lines += ["      " + row for row in example_lines(example, lang)]
    return lines


def paragraphs(text: str, indent: int) -> list[str]:
    return [row for paragraph in text.splitlines()
            for row in wrap(paragraph, WIDTH, " " * indent)]


def example_lines(example: dict[str, Any] | None, lang: str) -> list[str]:
    """The failing example: each input's values and shape, then the settings."""
    if not example:
        return []
    hidden = example.get("hidden")
    lines = [word("hidden_example", lang, what=HIDDEN_CASES[hidden][lang]) if hidden
             else word("example", lang)]
    for x in example.get("inputs", []):
        values = str(x.get("values", "")).splitlines() or [""]
        head = f"  {x.get('name')} = "
        lines.append(f"{head}{values[0]}")
        lines += [" " * len(head) + v for v in values[1:]]
        dtype = "" if x.get("dtype", "float64") == "float64" else f", {x['dtype']}"
        lines.append(" " * len(head) + f"{word('shape', lang)} {feedback.shape(x['shape'])}"
                     + dtype)
    params = example.get("params") or {}
    if params:
        shown = ", ".join(f"{k}={tuple(v) if isinstance(v, list) else v!r}"
                          for k, v in params.items())
        lines.append("  " + word("settings", lang, params=shown))
    return lines


def printed_lines(text: str, dropped: int, lang: str) -> list[str]:
    if not text:
        return []
    lines = [word("printed", lang, limit=feedback.MAX_PRINTED)]
    lines += ["  | " + row for row in text.splitlines()]
    if dropped:
        lines.append("  " + word("dropped", lang, n=dropped))
    return lines


def report_text(report: Any, lang: str, timing: bool, reveal: bool) -> str:
    """The whole grade: a title, the block of each op that did not pass, the scores."""
    lines = [word("title", lang, folder=report.folder, count=len(report.ops),
                  s="" if len(report.ops) == 1 else "s")]
    if not report.teacher:
        lines.append(word("visible_only", lang))
    lines += [word(n, lang, package=report.package) for n in report.notes
              if n in ("loose", "nested")]
    lines.append("")
    for g in report.ops:
        if not g.passed:
            lines += op_lines(g, lang, reveal) + [""]
    width = max(len(g.op.name) for g in report.ops) + 2
    lines.append(word("scores", lang))
    for g in report.ops:
        lines.append(f"  {g.op.name:<{width}}{g.score:>3}/{g.max_score:<3} "
                     f"{score_note(g, lang)}".rstrip())
    total = word("total", lang)
    pad = " " * (width - display_width(total))
    lines.append(f"  {total}{pad}{report.score:>3}/{report.max_score}")
    if timing:
        lines.append(word("time", lang, seconds=report.seconds))
        if report.teacher and report.isolation:
            lines.append(isolation_text(report.isolation, lang))
    return "\n".join(lines) + "\n"


def isolation_text(info: dict[str, Any], lang: str = "en") -> str:
    """What the sandbox kept the submission from, on this machine (for the teacher)."""
    from minigrad.course.landlock import what_it_covers

    abi = info.get("landlock") or 0
    say = lambda key, **v: SANDBOX[key][lang].format(**v)  # noqa: E731
    parts = [say("landlock", abi=abi, covers=", ".join(what_it_covers(abi))) if abi
             else say("no_landlock"), say("netns" if info.get("netns") else "no_netns"),
             say("user" if info.get("user") == "separate" else "no_user")]
    limited = info.get("user") == "separate" or not info.get("root")
    limit = say("processes", n=info.get("processes")) if limited else say("no_processes")
    sep = ", " if lang == "en" else "，"
    return word("sandbox", lang, parts=sep.join(parts), limit=limit,
                memory=info.get("memory_mb"))


def score_note(grade: Any, lang: str) -> str:
    """"failed: backward; not judged: second derivative" (or nothing)."""
    failed = [c["check"] for c in grade.checks if c["status"] == "failed"]
    unjudged = [c["check"] for c in grade.checks if c["status"] == "not_judged"]
    parts = [word("failed", lang, checks=_names(failed, lang))] if failed else []
    parts += [word("not_judged", lang, checks=_names(unjudged, lang))] if unjudged else []
    return ("; " if lang == "en" else "；").join(parts)


def _names(checks: list[str], lang: str) -> str:
    return feedback.LIST_SEP[lang].join(check_name(c, lang) for c in checks)

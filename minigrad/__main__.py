"""The command line.

    python -m minigrad explain "sum(x*y)*3" x=1,2,3 y=4,5,6 [--lang zh] [--dot graph.svg]
                                                            [--python] [--memory]
    python -m minigrad demo [--lang zh] [--out minigrad-demo]

`explain` traces a string expression over named inputs (read safely, see `minigrad.teach.expr`)
and prints what its backward pass does (`--python`: as a numpy program instead, `--memory`:
with what the graph keeps at each step); `demo` runs the classic `loss = sum(x*y)*3`, prints
its explanation and draws its graph. Each subcommand is one `add_*` function below. With
`--lang zh` every message is in Chinese, errors too. Piped into `head`, or stopped with
Ctrl-C, a command ends quietly (exit 141 or 130), without a traceback. numpy's
RuntimeWarnings (`log(0)`) stay quiet, as PyTorch is.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from minigrad.course.cli import add_course
from minigrad.teach.expr import ExpressionError
from minigrad.teach.trace import Trace, trace
from minigrad.teach.tutorial_cli import add_tutorial
from minigrad.teach.viz import GraphvizNotFound, render
from minigrad.teach.words import both, say

# what the commands say, in the language of `--lang` (a phrase table: minigrad.teach.words)
CLI_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "error": "error: {message}",
        "player": "Backward player written to {path} (open it in a browser).",
        "no_dot": "\nCould not draw {path}: {error}\nWrote the DOT text to {fallback} instead; "
                  "turn it into an SVG with `dot -Tsvg {fallback} -o {path}`.",
        "drawn": "\nGraph drawn to {path} (open it in a browser).",
        "ending": "--dot {path}: the file name must end in {endings} (the format is read from "
                  "it)",
        "no_folder": "--dot {path}: there is no folder {folder}",
        "name_values": "inputs are written NAME=VALUES (like x=1,2,3), not {text!r}",
        "reserved": "an input cannot be named {name!r}: it is one of trace()'s options "
                    "({options}); choose another name",
        "values": "cannot read the values of {name}: {shown!r} (write numbers separated by "
                  "commas, or nested lists)",
    },
    "zh": {
        "error": "错误：{message}",
        "player": "反向传播逐步演示页已写入 {path}（用浏览器打开）。",
        "no_dot": "\n没能画出 {path}：{error}\n改为把 DOT 文本写入了 {fallback}；"
                  "用 `dot -Tsvg {fallback} -o {path}` 把它转成 SVG。",
        "drawn": "\n计算图已画到 {path}（用浏览器打开）。",
        "ending": "--dot {path}：文件名必须以 {endings} 之一结尾（格式由扩展名决定）",
        "no_folder": "--dot {path}：文件夹 {folder} 不存在",
        "name_values": "输入要写成 名字=数值（如 x=1,2,3），而不是 {text!r}",
        "reserved": "输入不能叫 {name!r}：这是 trace() 自己的选项（{options}）；请换个名字",
        "values": "读不懂 {name} 的数值：{shown!r}（请写用逗号隔开的数字，或嵌套列表）",
    },
}


class InputError(ValueError):
    """A command-line input that cannot be used; `.zh` says it in Chinese."""

    def __init__(self, key: str, **values: Any) -> None:
        message, self.zh = both(CLI_WORDS, key, **values)
        super().__init__(message)


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit code. Ends quietly when the reader of stdout goes away
    (`| head`: exit 141, as a tool killed by SIGPIPE) or on Ctrl-C (exit 130)."""
    try:
        # PyTorch returns inf and nan (`log(0)`, `x % 0`) without a word: so does the command
        # line (the library itself leaves numpy's warnings on, see tutorials/differences.md)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return _main(argv)
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return 130
    except BrokenPipeError:
        quiet_stdout()
        return 141


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so that Python's last flush at exit cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass  # stdout is not a real file (a test's capture): nothing left to flush
    finally:
        os.close(devnull)


def _main(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m minigrad",
        description="minigrad: see what loss.backward() does, step by step.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in COMMANDS.values():
        add(commands)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return args.run(args)


def add_explain(commands: Any) -> None:
    p = commands.add_parser(
        "explain", help="explain the backward pass of an expression",
        description="Trace an expression over named inputs and explain its backward pass.",
        epilog='example: python -m minigrad explain "sum(x*y)*3" x=1,2,3 y=4,5,6')
    p.add_argument("expression", help='e.g. "sum(x*y)*3" or "(x @ w).relu().mean()"')
    p.add_argument("inputs", nargs="*", metavar="NAME=VALUES",
                   help="x=1,2,3 (a vector), x=2 (a scalar), w=[[1,2],[3,4]] (nested lists)")
    _common(p)
    p.add_argument("--dot", metavar="PATH",
                   help="also draw the graph to PATH (.svg, .png, or .dot for the DOT text)")
    add_program_options(p)
    p.set_defaults(run=run_explain)


def add_program_options(p: argparse.ArgumentParser) -> None:
    """`--python` and `--memory` (also `python -m compare explain-torch`'s)."""
    p.add_argument("--python", action="store_true",
                   help="print the forward and backward as one numpy program (Trace.to_python)"
                        " instead of the explanation")
    p.add_argument("--memory", action="store_true",
                   help="say at each backward step what the graph keeps (explain(memory=True))")


def add_demo(commands: Any) -> None:
    p = commands.add_parser("demo", help="run the classic example loss = sum(x*y)*3",
                            description="Explain loss = sum(x*y)*3 and draw its graph.")
    _common(p)
    p.add_argument("--out", default="minigrad-demo", metavar="DIR",
                   help="where to write graph.svg (default: ./minigrad-demo)")
    p.set_defaults(run=run_demo)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lang", choices=("en", "zh"), default="en",
                   help="language of the explanation (zh: Chinese)")
    p.add_argument("--no-timing", action="store_true",
                   help="leave the time out of the summary (stable output)")


def run_explain(args: argparse.Namespace) -> int:
    return explain_expression(trace, args)


# what a wrong expression or wrong inputs raise: printed as `error: ...`, exit code 2
EXPLAIN_ERRORS = (ExpressionError, ValueError, RuntimeError, IndexError, TypeError,
                  MemoryError, OverflowError, RecursionError)
# trace()'s own keywords: an input of one of these names could not be told from the option
RESERVED = ("gradient", "retain_graph", "params", "backward")
DRAW_FORMATS = ("svg", "png", "pdf", "dot", "gv")


def explain_expression(trace_fn: Callable[..., Trace], args: argparse.Namespace,
                       errors: tuple[type[Exception], ...] = EXPLAIN_ERRORS) -> int:
    """Trace `args.expression` over `args.inputs` with `trace_fn`, print the explanation and,
    with `args.dot`, draw the graph; the exit code. (`python -m compare explain-torch` too.)"""
    try:
        if args.dot:
            check_drawing_path(Path(args.dot))
        inputs = dict(parse_input(text) for text in args.inputs)
        t = trace_fn(args.expression, **inputs)
    except errors as exc:
        message = str(exc).strip().splitlines() or [type(exc).__name__]
        # minigrad's own messages carry a Chinese version (`.zh`); an error of the computation
        # is in PyTorch's words, which are English in PyTorch too
        zh = getattr(exc, "zh", None) if args.lang == "zh" else None
        print(say(CLI_WORDS, args.lang, "error",
                  message=zh.splitlines()[0] if zh else message[0]), file=sys.stderr)
        return 2
    if getattr(args, "python", False):
        print(t.to_python(), end="")
    else:
        print(t.explanation(lang=args.lang, timing=not args.no_timing,
                            memory=getattr(args, "memory", False) or None))
    if args.dot:
        return 0 if draw_to(t, Path(args.dot), args.lang) else 1
    return 0


def run_demo(args: argparse.Namespace) -> int:
    import minigrad

    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True, name="x")
    y = minigrad.tensor([4.0, 5.0, 6.0], requires_grad=True, name="y")
    t = trace(lambda: (x * y).sum() * 3)
    print(">>> x = minigrad.tensor([1., 2., 3.], requires_grad=True, name='x')")
    print(">>> y = minigrad.tensor([4., 5., 6.], requires_grad=True, name='y')")
    print(">>> minigrad.trace(lambda: (x * y).sum() * 3).explain()\n")
    print(t.explanation(lang=args.lang, timing=not args.no_timing))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    draw_to(t, out / "graph.svg", lang=args.lang, legend=True)
    t.to_html(out / "player.html", lang=args.lang)
    player = out / "player.html"
    print(say(CLI_WORDS, args.lang, "player", path=player))
    return 0


def draw_to(t: Trace, path: Path, lang: str = "en", **options: Any) -> bool:
    """Render `t` to `path` (`options` as `viz.draw`'s); without graphviz's `dot`, write the
    DOT text next to it."""
    try:
        render(t, path, lang=lang, **options)
    except GraphvizNotFound as exc:
        fallback = path.with_suffix(".dot")
        render(t, fallback, lang=lang, **options)
        print(say(CLI_WORDS, lang, "no_dot", path=path, error=exc, fallback=fallback),
              file=sys.stderr)
        return False
    print(say(CLI_WORDS, lang, "drawn", path=path))
    return True


def check_drawing_path(path: Path) -> None:
    """Refuse, before anything is printed, a drawing that could not be written."""
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in DRAW_FORMATS:
        endings = ", ".join("." + f for f in DRAW_FORMATS)
        raise InputError("ending", path=path, endings=endings)
    if not path.parent.is_dir():
        raise InputError("no_folder", path=path, folder=path.parent)


def parse_input(text: str) -> tuple[str, Any]:
    """`x=1,2,3` -> ("x", [1.0, 2.0, 3.0]); `x=2` -> 2.0; `w=[[1,2],[3,4]]` -> nested list.

    Every value must be a number: `x=` and `x=1,,2` are refused, as are names that are
    trace()'s own options (`params`, `gradient`, ...)."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier():
        raise InputError("name_values", text=text)
    if name in RESERVED:
        raise InputError("reserved", name=name, options=", ".join(RESERVED))
    values = values.strip()
    try:
        if values.startswith("["):
            data = ast.literal_eval(values)
        else:
            parts = values.split(",")
            vector = len(parts) > 1  # (`x=2,` is a vector of one, as Python's `(2,)`)
            if vector and not parts[-1].strip():
                parts = parts[:-1]
            data = [float(v) for v in parts]  # ("" is not a number: x=, x=1,,2)
            data = data if vector else data[0]
        array = np.asarray(data, dtype=np.float32)
        if array.dtype.kind != "f" or array.size == 0:
            raise ValueError
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        shown = values if len(values) <= 60 else values[:57] + "..."
        raise InputError("values", name=name, shown=shown) from None
    return name, array


COMMANDS: dict[str, Callable[[Any], None]] = {"explain": add_explain, "demo": add_demo,
                                              "tutorial": add_tutorial, "course": add_course}

if __name__ == "__main__":
    sys.exit(main())

"""The words of `python -m minigrad tutorial` and of a lesson's notebook, in English and
Chinese (same keys in every language; `tutorial_cli` and `tutorial_notebook` fill in the
`{placeholders}`), and what each thing a lesson may need is called and how it is installed.

A lesson says what it needs in its own first lines, in these names (`NEEDS_WORDS`):
"*... Needs, besides minigrad: PyTorch, matplotlib.*" (English), "*……除 minigrad 外还需要：
PyTorch、matplotlib。*" (Chinese), or "... besides minigrad: nothing." / "……还需要：无。"
"""

from __future__ import annotations

__all__ = ["NEEDS_WORDS", "TUTORIAL_WORDS"]

# The CPU build of PyTorch 2.13: on Linux a plain `pip install torch` is the CUDA build (with
# NVIDIA's libraries, several GB); this index has the CPU wheel (about 190 MB).
TORCH_CPU = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"

NEEDS_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "dot": "graphviz's `dot` program",
        "dot_install": "sudo apt-get install graphviz (macOS: brew install graphviz)",
        "hypothesis": "hypothesis",
        "hypothesis_install": "pip install hypothesis (or: pip install -e '.[dev]')",
        "torch": "PyTorch",
        "torch_install": f"{TORCH_CPU} (the CPU build)",
        "matplotlib": "matplotlib",
        "matplotlib_install": "pip install matplotlib (or: pip install -e '.[plot]')",
        "minigrad": "minigrad",
        "minigrad_install": "pip install -e . (in minigrad's folder; make demo does it)",
    },
    "zh": {
        "dot": "graphviz 的 `dot` 程序",
        "dot_install": "sudo apt-get install graphviz（macOS 上：brew install graphviz）",
        "hypothesis": "hypothesis",
        "hypothesis_install": "pip install hypothesis（或者 pip install -e '.[dev]'）",
        "torch": "PyTorch",
        "torch_install": f"{TORCH_CPU}（CPU 版）",
        "matplotlib": "matplotlib",
        "matplotlib_install": "pip install matplotlib（或者 pip install -e '.[plot]'）",
        "minigrad": "minigrad",
        "minigrad_install": "pip install -e .（在 minigrad 的文件夹里运行；make demo 会替你做）",
    },
}

TUTORIAL_WORDS: dict[str, dict[str, str]] = {
    "en": {
        # in a lesson's first lines: what it needs (parsed by tutorial_cli.needs)
        "needs": "Needs, besides minigrad: ", "needs_sep": ", ", "needs_end": ".",
        "needs_nothing": "nothing",
        # python -m minigrad tutorial
        "listed_needs": "  (needs {needs})",
        "run_one": "\nRun one with: python -m minigrad tutorial N --lang {lang}",
        "no_lesson": "error: there is no lesson {number} (lessons: {available})",
        "missing": "error: lesson {number} needs {what}, which is not installed here; "
                   "install it with: {install}",
        "changed": "\nnote: block(s) {blocks} printed something else than the lesson shows",
        "wrote": "Wrote {path} ({title})",
        "wrote_all": "Wrote {n} notebooks to {folder} (open them with: jupyter lab {folder})",
        # the first cell of a lesson's notebook
        "check_comment": "# {title}\n# This cell checks that what the lesson needs is "
                         "installed (run the cells in order: each uses what the cells before "
                         "it made).",
        "check_ok": "{lesson}: needs {needs}; all installed.",
        "check_missing": "{lesson} needs {what}, not installed in this kernel: {install}",
        "check_sep": "; ",
    },
    "zh": {
        "needs": "除 minigrad 外还需要：", "needs_sep": "、", "needs_end": "。",
        "needs_nothing": "无",
        "listed_needs": "  （需要 {needs}）",
        "run_one": "\n运行其中一课：python -m minigrad tutorial N --lang {lang}",
        "no_lesson": "错误：没有第 {number} 课（已有的课：{available}）",
        "missing": "错误：第 {number} 课需要 {what}，但这里没有安装；安装方法：{install}",
        "changed": "\n注意：第 {blocks} 段代码打印的内容和课文里的不一样",
        "wrote": "已写入 {path}（{title}）",
        "wrote_all": "已把 {n} 个笔记本写入 {folder}（用 jupyter lab {folder} 打开）",
        "check_comment": "# {title}\n# 这个单元格检查这一课需要的东西是否都已安装（请按顺序运行"
                         "各个单元格：后面的单元格要用到前面算出的变量）。",
        "check_ok": "{lesson}：需要 {needs}，都已安装。",
        "check_missing": "{lesson}需要 {what}，这个内核里没有装。安装方法：{install}",
        "check_sep": "；",
    },
}

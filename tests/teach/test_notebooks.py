"""Every lesson works where students are: exported as a notebook and run in a real Jupyter
kernel, it prints exactly what the lesson shows, and what it leaves at the end of a cell shows
itself. (This is the check that each lesson's code prints its output blocks; the check on
PyTorch runs the lesson in-process: tests/teach/test_tutorials.py.)

`python -m minigrad tutorial --notebook DIR` writes every lesson and the teacher's page (en and
zh); each notebook is executed by nbclient in an ipykernel kernel of this Python (its
kernelspec is written here, so another `python3` kernel on the machine is never used). Checked:
- the first cell checks the lesson's requirements and says so in one line;
- every code cell prints (stdout) exactly what the lesson's output block shows; a traced line
  names the notebook cell (`In[57]:3:`), which is read back as the lesson's own Markdown line
  (`03-drawing-the-graph.md:120:`, what the lesson shows) from the cell's execution count;
- an object a cell leaves as its last expression that would show as a bare repr (a Trace, a
  path, a figure, a report, a long string) displays as a picture or HTML instead (SVG, PNG,
  an HTML table or the player); and the lessons that draw show those MIME types (`SHOWN`).

One kernel runs all the notebooks one after another, each after `%reset -f` (and `__spec__ =
None`, which a fresh kernel has and the reset removes; multiprocessing's spawn reads it), with
the cell count back at 1 and in its own folder: a kernel start and PyTorch's import cost
seconds each on two busy cores.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from pathlib import Path

import pytest

from minigrad.__main__ import main as minigrad_main
from minigrad.teach import tutorial, tutorial_needs, tutorial_notebook
from minigrad.teach.tutorial_notebook import check_source, notebook, write_notebook
from minigrad.teach.tutorial_words import TUTORIAL_WORDS

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "zh")
PAGES = [p for lang in LANGS for p in tutorial.pages(lang)]
RICH = {"image/svg+xml", "image/png", "text/html"}
# lessons whose notebook must show these MIME types (at least once each)
SHOWN = {"03": {"image/svg+xml"}, "05": {"text/html"}, "13": {"text/html"},
         "17": {"image/svg+xml", "image/png", "text/html"}}
# requirement -> the fixture that provides it (skip locally when missing, fail under CI)
FIXTURES = {"dot": "dot_bin", "torch": "torch_mod"}
CELL_LINE = re.compile(r"In\[(\d+)\]:(\d+):")  # a traced line, as a notebook names it


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


# -- the export, without a kernel ----------------------------------------------------------
@pytest.mark.parametrize("path", PAGES, ids=_id)
def test_the_notebook_is_nbformat_4_and_opens_with_its_requirements(path: Path) -> None:
    lesson = tutorial.load(path)
    nb = notebook(lesson)
    assert nb["nbformat"] == 4 and nb["nbformat_minor"] >= 5
    assert nb["metadata"]["kernelspec"]["language"] == "python"
    ids = [c["id"] for c in nb["cells"]]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[a-zA-Z0-9-_]{1,64}", i)
                                              for i in ids)
    first, *rest = nb["cells"]
    assert first["cell_type"] == "code" and "".join(first["source"]) == check_source(lesson)
    code = ["".join(c["source"]) for c in rest if c["cell_type"] == "code"]
    assert code == [c.code.text for c in lesson.cells]  # all the lesson's code, in order
    outputs = ["".join(o["text"]) for c in rest if c["cell_type"] == "code"
               for o in c["outputs"]]
    assert outputs == [c.expected + "\n" for c in lesson.cells if c.expected]
    markdown = "".join("".join(c["source"]) for c in rest if c["cell_type"] == "markdown")
    assert lesson.title in markdown and rest[0]["cell_type"] == "markdown"


def test_the_check_cell_says_in_one_line_what_to_install(tmp_path: Path) -> None:
    """Run as plain Python where PyTorch and matplotlib are 'missing' (find_spec says None)."""
    lesson = tutorial.load(tutorial.find(17, "en"))
    source = check_source(lesson)
    hide = ("import importlib.util\nreal = importlib.util.find_spec\nimportlib.util.find_spec"
            " = lambda name, *a: None if name in ('torch', 'matplotlib') else real(name, *a)\n")
    script = tmp_path / "check.py"
    script.write_text(hide + source, encoding="utf-8")
    import subprocess

    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    last = done.stderr.strip().splitlines()[-1]
    assert last == ("RuntimeError: Lesson 17 needs PyTorch, not installed in this kernel: "
                    "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
                    " (the CPU build); "
                    "Lesson 17 needs matplotlib, not installed in this kernel: pip install "
                    "matplotlib (or: pip install -e '.[plot]')")
    script.write_text(source, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout == ("Lesson 17: needs minigrad, PyTorch, matplotlib, graphviz's `dot` "
                           "program; all installed.\n")
    zh = check_source(tutorial.load(tutorial.find(17, "zh")))
    assert "'第 17 课需要 {what}，这个内核里没有装。安装方法：{how}'" in zh
    assert "第 17 课：需要 minigrad、PyTorch、matplotlib、graphviz 的 `dot` 程序，都已安装。" in zh


def test_the_command_writes_every_lesson_and_the_teachers_page(tmp_path: Path, capsys) -> None:
    for lang in LANGS:
        folder = tmp_path / lang
        assert minigrad_main(["tutorial", "--notebook", str(folder), "--lang", lang]) == 0
        written = sorted(p.name for p in folder.iterdir())
        assert written == sorted(f"{p.stem}.ipynb" for p in tutorial.pages(lang))
        assert "teachers.ipynb" in written and len(written) == len(tutorial.lessons(lang)) + 1
    out = capsys.readouterr().out
    assert f"Wrote {len(tutorial.pages('en'))} notebooks to {tmp_path / 'en'}" in out
    assert f"已把 {len(tutorial.pages('zh'))} 个笔记本写入" in out
    assert minigrad_main(["tutorial", "teachers", "--notebook", str(tmp_path / "t.ipynb")]) == 0
    assert json.loads((tmp_path / "t.ipynb").read_text(encoding="utf-8"))["nbformat"] == 4


# -- run in a real kernel ------------------------------------------------------------------
@pytest.fixture(scope="module")
def kernel(jupyter, tmp_path_factory):
    """One ipykernel kernel of this Python, with this checkout's minigrad on its path."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    specs = tmp_path_factory.mktemp("kernels")
    (specs / "minigrad-lessons").mkdir()
    (specs / "minigrad-lessons" / "kernel.json").write_text(json.dumps({
        # (no history database: the cell count goes back to 1 for each notebook)
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                 "--HistoryManager.enabled=False"],
        "display_name": "minigrad lessons", "language": "python"}), encoding="utf-8")
    km = KernelManager(kernel_name="minigrad-lessons",
                       kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(specs)]))
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    km.start_kernel(env=env)
    try:
        yield km
    finally:
        km.shutdown_kernel(now=True)


def _run(km, jupyter, lesson, folder: Path):
    """The lesson's notebook, written as the command writes it, read back and executed."""
    import nbformat

    node = nbformat.read(write_notebook(lesson, folder / "lesson.ipynb"), as_version=4)
    nbformat.validate(node)
    setup = nbformat.v4.new_code_cell(  # as a fresh kernel: the next cell is In[1]
        f"%reset -f\n__spec__ = None\nget_ipython().execution_count = 1\n"
        f"__import__('os').chdir({str(folder)!r})")
    node.cells.insert(0, setup)
    jupyter.NotebookClient(node, km=km, timeout=600, allow_errors=False).execute()
    node.cells.pop(0)
    return node


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # (jupyter_client's own)
@pytest.mark.parametrize("path", PAGES, ids=_id)
def test_the_notebook_runs_in_a_kernel_and_prints_and_shows_what_the_lesson_shows(
        path: Path, kernel, jupyter, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    lesson = tutorial.load(path)
    for req in tutorial_needs.needs(lesson):
        if req.key in FIXTURES:
            request.getfixturevalue(FIXTURES[req.key])
    ran = _run(kernel, jupyter, lesson, tmp_path)
    code = [c for c in ran.cells if c.cell_type == "code"]
    check, cells = code[0], code[1:]
    words = TUTORIAL_WORDS[tutorial_notebook.lesson_lang(lesson)]
    assert _stdout(check).strip().endswith(words["check_ok"].split("{needs}")[1]), \
        _stdout(check)
    starts = {k + 2: block.code.start for k, block in enumerate(lesson.cells)}  # In[2], ...

    def as_in_the_lesson(match: re.Match) -> str:  # In[57]:3: -> NN-name.md:<its line>:
        return f"{path.name}:{starts[int(match[1])] + 1 + int(match[2])}:"

    shown: set[str] = set()
    problems = []
    for k, (cell, block) in enumerate(zip(cells, lesson.cells, strict=True), 1):
        printed = tutorial.normalise(CELL_LINE.sub(as_in_the_lesson, _stdout(cell)))
        if printed != tutorial.normalise(block.expected):
            diff = difflib.unified_diff(tutorial.normalise(block.expected).splitlines(),
                                        printed.splitlines(), "the lesson shows",
                                        "the notebook printed", lineterm="")
            problems.append(f"{path}:{block.code.start + 1}: code block {k}:\n"
                            + "\n".join(diff))
        for out in cell.outputs:
            if out.output_type in ("execute_result", "display_data"):
                types = set(out.data) & RICH
                text = out.data.get("text/plain", "")
                assert types or not _bare(text), \
                    f"{path}: block {k} left an object that shows only as {text[:200]!r}"
                shown |= types
    assert not problems, "\n\n".join(problems) + (
        "\n\nIf the new output is right, refresh the lesson with "
        f"`python -m minigrad.teach.tutorial --update {path}` and reread its prose.")
    number = path.name[:2]
    assert SHOWN.get(number, set()) <= shown, f"{path}: its notebook showed only {shown}"
    if any(re.search(r"[\w-]+\.md:\d+: ", c.expected) for c in lesson.cells):
        assert any(CELL_LINE.search(_stdout(c)) for c in cells), \
            "a traced line in a notebook names its cell, In[N]:line"


def _bare(text: str) -> bool:
    """A repr that says what an object is rather than showing it (a short number or string
    shows itself well enough as text)."""
    return text.startswith(("<", "[GradRow", "PosixPath(", "WindowsPath(", "Drawing(")) \
        or len(text) > 1000


def _stdout(cell) -> str:
    return "".join(o.text for o in cell.outputs
                   if o.output_type == "stream" and o.name == "stdout")

"""The tutorials are tested: every lesson's code runs, and prints exactly what the lesson shows.

That each lesson (English and Chinese) prints what its ```text blocks show is checked where
students run it, in a Jupyter kernel: tests/teach/test_notebooks.py. Here: the lessons teach
only what is true of PyTorch: each lesson runs on PyTorch, block by block in one namespace by
`minigrad.teach.tutorial` (its blocks not fenced ```python minigrad-only, with `minigrad`
renamed `torch`), and must print what the lesson shows, but for the masks the block names,
each listed in tutorials/differences.md. Also: every lesson exists in both languages, says
what it needs and that its blocks run in order, the index links them all in order, and the
runner itself notices wrong output.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from minigrad.__main__ import main as minigrad_main
from minigrad.teach import tutorial, tutorial_needs
from minigrad.teach import tutorial_torch as on_torch

ROOT = Path(__file__).resolve().parents[2] / "tutorials"
LANGS = ("en", "zh")
LESSONS = [p for lang in LANGS for p in tutorial.lessons(lang, ROOT)]
# Lessons whose every block is minigrad-only, and why (all the others run on PyTorch too).
MINIGRAD_ONLY_LESSONS = {
    "03": "drawing is minigrad's own (trace, to_dot, render)",
    "10": "property-based checks with minigrad.testing's strategies and gradcheck",
    "11": "it compares minigrad with PyTorch: each block runs both",
    "18": "compare.trace_ddp records DDP's all-reduces: a tool of minigrad's own",
    "19": "the coursework kit (python -m minigrad course) is minigrad's own",
}
# The lessons deliberately do what warns (anomaly mode is slow, reading a non-leaf's .grad,
# numpy's sqrt of -1, PyTorch's create_graph=True reference cycle): a learner sees those
# warnings on stderr; what a lesson shows, and these tests check, is what it prints.
lesson_warnings = pytest.mark.filterwarnings("ignore::UserWarning",
                                             "ignore::RuntimeWarning")


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@lesson_warnings
@pytest.mark.parametrize("path", LESSONS, ids=_id)
def test_lesson_prints_the_same_on_pytorch(path: Path, torch_mod, tmp_path: Path) -> None:
    """The lesson's blocks not fenced minigrad-only, run once on PyTorch, print what the
    lesson shows (where a block names masks, once those are applied to both)."""
    ran = tutorial.run(on_torch.torch_version(tutorial.load(path)), workdir=tmp_path)
    if path.name[:2] in MINIGRAD_ONLY_LESSONS:
        assert not ran.cells, f"{path}: lesson {path.name[:2]} now has blocks for PyTorch: " \
                              "take it out of MINIGRAD_ONLY_LESSONS"
        return
    assert ran.cells, f"{path}: every block is minigrad-only"
    problems = on_torch.torch_failures(ran)
    assert not problems, "\n\n".join(problems) + (
        "\n\nWhat a lesson says about PyTorch must be true of PyTorch: make the block run the "
        "same on both, or fence it ```python minigrad-only and say why in the prose (and in "
        "tutorials/differences.md), or name a mask from tutorial_torch.MASKS on its fence.")


FENCE_WORDS = {"no-run", tutorial.MINIGRAD_ONLY}


@pytest.mark.parametrize("path", LESSONS, ids=_id)
def test_every_python_fence_says_only_known_words(path: Path) -> None:
    """A typo (`minigrad_only`, `torch-mask=randon`) must not silently run a block on PyTorch
    or mask nothing."""
    for block in tutorial.load(path).blocks:
        if block.lang != "python":
            continue
        for word in block.info.split():
            if word.startswith("torch-mask="):
                assert block.masks and all(m in on_torch.MASKS for m in block.masks), (
                    f"{path}:{block.start + 1}: unknown mask in {word!r}; the masks are "
                    f"{sorted(on_torch.MASKS)}")
            else:
                assert word in FENCE_WORDS, f"{path}:{block.start + 1}: unknown fence word {word!r}"


DIFFERENCES = {"en": ROOT / "differences.md", "zh": ROOT / "differences.zh.md"}


def test_every_mask_is_listed_with_its_reason_on_the_differences_page() -> None:
    used = {m for p in LESSONS for b in tutorial.load(p).blocks for m in b.masks}
    assert used <= set(on_torch.MASKS)
    for lang, page in DIFFERENCES.items():
        text = page.read_text(encoding="utf-8")
        for name, mask in on_torch.MASKS.items():
            line = next((x for x in text.splitlines() if f"`torch-mask={name}`" in x), None)
            assert line is not None, f"{page.name} does not list the mask {name!r}"
            if lang == "en":
                assert mask.reason in " ".join(text.split()), \
                    f"{page.name} does not give the reason of mask {name!r}: {mask.reason!r}"
            else:
                assert len(re.findall(r"[\u4e00-\u9fff]", line)) > 10, line


def test_the_differences_page_is_linked_from_the_readme_and_the_lessons() -> None:
    readme = (ROOT.parent / "README.md").read_text(encoding="utf-8")
    assert "tutorials/differences.md" in readme and "tutorials/differences.zh.md" in readme
    index = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(differences.md)" in index and "(differences.zh.md)" in index
    for path in LESSONS:
        lesson = tutorial.load(path)
        if any(b.minigrad_only or b.masks for b in lesson.blocks) and \
                path.name[:2] not in MINIGRAD_ONLY_LESSONS:
            page = "differences.md" if path.parent.name == "en" else "differences.zh.md"
            assert f"(../{page}" in "\n".join(lesson.lines), \
                f"{path} has minigrad-only or masked blocks but does not link {page}"
    for page in DIFFERENCES.values():  # the pages link each other and exist
        assert page.exists()
    assert "(differences.zh.md)" in DIFFERENCES["en"].read_text(encoding="utf-8")
    assert "(differences.md)" in DIFFERENCES["zh"].read_text(encoding="utf-8")


def test_every_lesson_exists_in_both_languages() -> None:
    names = {lang: [p.name for p in tutorial.lessons(lang, ROOT)] for lang in LANGS}
    assert len(names["en"]) >= 13
    assert names["en"] == names["zh"]
    numbers = [int(n[:2]) for n in names["en"]]
    assert numbers == list(range(1, len(numbers) + 1)), "lessons are numbered 01, 02, ..."
    for p in tutorial.lessons("zh", ROOT):  # the Chinese lessons are written in Chinese
        text = p.read_text(encoding="utf-8")
        assert len(re.findall(r"[\u4e00-\u9fff]", text)) > 300, p


# The learners' questions: the lesson that answers each, a phrase its question
# paragraph must contain in English and in Chinese, and a word its code or output must show.
QUESTIONS = {
    "see what loss.backward() does": ("01", "loss.backward()", "loss.backward()", "backward()"),
    "walk grad_fn": ("02", "walk the graph back", "往回走", "next_functions"),
    "print every parameter's gradient": ("05", "print the gradient of every parameter",
                                         "每个参数的梯度都打印出来", "named_parameters()"),
    "the scalar-output error": ("04", "grad can be implicitly created only for scalar outputs",
                                "grad can be implicitly created only for scalar outputs",
                                "grad can be implicitly created only for scalar outputs"),
    "the gradient= argument": ("04", "`gradient=` argument", "`gradient=` 参数", "gradient="),
    "write my own Function": ("07", "write my own autograd Function",
                              "自定义的 autograd Function", "minigrad.autograd.Function"),
    "debug backward": ("09", "How do I find out what went wrong", "怎么找出问题在哪儿",
                       "detect_anomaly"),
}


@pytest.mark.parametrize("question", QUESTIONS)
def test_every_question_has_a_lesson_in_both_languages(question: str) -> None:
    number, en, zh, shown = QUESTIONS[question]
    for lang, phrase in (("en", en), ("zh", zh)):
        lesson = tutorial.load(tutorial.find(int(number), lang, ROOT))
        text = "\n".join(lesson.lines)
        asked = " ".join(text[:text.index("\n## ")].split())  # the question paragraph
        assert phrase in asked, f"{lang} lesson {number} does not ask {phrase!r}"
        code = "\n".join(c.code.text + "\n" + c.expected for c in lesson.cells)
        assert shown in code, f"{lang} lesson {number} never shows {shown!r}"


def test_lessons_end_with_a_link_to_the_next() -> None:
    for lang in LANGS:
        paths = tutorial.lessons(lang, ROOT)
        for here, nxt in zip(paths, paths[1:]):
            assert f"({nxt.name})" in here.read_text(encoding="utf-8"), (here, nxt.name)


def test_index_links_every_lesson_in_order_with_a_summary() -> None:
    index = (ROOT / "README.md").read_text(encoding="utf-8")
    for lang in LANGS:
        expected = [f"{lang}/{p.name}" for p in tutorial.lessons(lang, ROOT)]
        linked = re.findall(rf"\]\(({lang}/\d\d-[\w-]+\.md)\)", index)
        assert linked == expected, f"index links to {lang} lessons: {linked}"
    for p in tutorial.lessons("en", ROOT):
        line = next(x for x in index.splitlines() if f"(en/{p.name})" in x)
        summary = re.sub(r"\[[^\]]*\]\([^)]*\)", "", line).strip(" |·-")
        assert len(summary.split()) >= 5, f"no one-line summary for {p.name}: {line!r}"


# -- the runner itself ------------------------------------------------------------------------
LESSON = """# A lesson

Some prose.

```python
x = 1 + 1
print(x)
```

```text
2
```

```python no-run
this is not run
```

```python
print(x * 10)
```
"""


def test_runner_accepts_right_output_and_reports_missing_output() -> None:
    lesson = tutorial.run(tutorial.parse(LESSON))
    assert [c.printed for c in lesson.cells] == ["2\n", "20\n"]
    assert lesson.cells[0].ok
    problems = tutorial.failures(lesson)
    assert len(problems) == 1 and "has no ```text block" in problems[0]
    assert "+20" in problems[0]


def test_runner_reports_wrong_output_and_errors() -> None:
    wrong = tutorial.run(tutorial.parse(LESSON.replace("```text\n2\n", "```text\n3\n")))
    assert "-3" in tutorial.failures(wrong)[0] and "+2" in tutorial.failures(wrong)[0]
    broken = tutorial.run(tutorial.parse(LESSON.replace("1 + 1", "1 / 0")))
    (message,) = tutorial.failures(broken)
    assert "ZeroDivisionError" in message and "line 6" in message  # the Markdown line


def test_update_fills_in_and_replaces_output_blocks() -> None:
    text = tutorial.updated(tutorial.run(tutorial.parse(LESSON.replace("```text\n2\n",
                                                                       "```text\nold\n"))))
    assert "```text\n2\n```" in text and "old" not in text
    assert text.rstrip().endswith("```python\nprint(x * 10)\n```\n\n```text\n20\n```")
    again = tutorial.run(tutorial.parse(text))
    assert not tutorial.failures(again)
    assert tutorial.updated(again) == text


TORCH_LESSON = """# A lesson

```python
import minigrad
x = minigrad.tensor([1., 2.], requires_grad=True, name="x")
```

```python
print(minigrad.ones(2).shape, "from minigrad")
```

```text
minigrad.Size([2]) from minigrad
```

```python minigrad-only
print(x.name)
```

```text
x
```

```python torch-mask=random
print(minigrad.randn(2).shape, minigrad.randn(()).item())
```

```text
minigrad.Size([2]) 0.125
```
"""


def test_the_torch_version_renames_minigrad_and_leaves_out_minigrad_only_blocks() -> None:
    lesson = tutorial.parse(TORCH_LESSON)
    assert [c.code.minigrad_only for c in lesson.cells] == [False, False, True, False]
    assert lesson.cells[3].code.masks == ["random"]
    torch_lesson = on_torch.torch_version(lesson)
    assert [c.code.text.splitlines()[0] for c in torch_lesson.cells] == [
        "import torch", 'print(torch.ones(2).shape, "from torch")',
        "print(torch.randn(2).shape, torch.randn(()).item())"]
    assert torch_lesson.filename.endswith("(on PyTorch)")
    assert "torch.tensor" in "\n".join(torch_lesson.lines)  # what its tracebacks show
    assert on_torch.for_torch("from minigrad.utils.data import DataLoader  # minigrad's") == \
        "from torch.utils.data import DataLoader  # torch's"


def test_torch_failures_compare_with_the_renamed_output_and_apply_masks() -> None:
    torch_lesson = on_torch.torch_version(tutorial.parse(TORCH_LESSON))
    first, second, third = torch_lesson.cells
    second.printed = "torch.Size([2]) from torch\n"
    third.printed = "torch.Size([2]) -1.5\n"  # another random number: masked
    assert on_torch.torch_failures(torch_lesson) == []
    third.printed = "torch.Size([2]) nan\n"  # only numbers are masked
    (problem,) = on_torch.torch_failures(torch_lesson)
    assert "on PyTorch, this code block prints something else" in problem
    assert "-torch.Size([ #]) #" in problem and "+torch.Size([ #]) nan" in problem
    first.error = "TypeError: tensor() got an unexpected keyword argument 'name'"
    (problem,) = on_torch.torch_failures(torch_lesson)
    assert "raised" in problem and "minigrad-only" in problem
    with pytest.raises(KeyError, match="unknown torch-mask"):
        on_torch.masked("x", ["nonsense"])


def test_unclosed_fence_is_an_error() -> None:
    with pytest.raises(ValueError, match="never closed"):
        tutorial.parse("```python\nprint(1)\n")


# -- the command line -------------------------------------------------------------------------
def test_command_runs_a_lesson(capsys: pytest.CaptureFixture[str]) -> None:
    assert minigrad_main(["tutorial", "1"]) == 0
    out = capsys.readouterr().out
    lesson = tutorial.load(tutorial.find(1, "en", ROOT))
    for cell in lesson.cells:
        assert cell.expected in out
    assert "out.backward()" in out


def test_command_lists_lessons_and_writes_notebooks(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    assert minigrad_main(["tutorial", "--lang", "zh"]) == 0
    listing = capsys.readouterr().out
    assert all(tutorial.load(p).title in listing for p in tutorial.lessons("zh", ROOT))
    path = tmp_path / "lesson02.ipynb"
    assert minigrad_main(["tutorial", "2", "--lang", "zh", "--notebook", str(path)]) == 0
    assert json.loads(path.read_text(encoding="utf-8"))["nbformat"] == 4
    assert minigrad_main(["tutorial", "99"]) == 2
    assert "there is no lesson 99" in capsys.readouterr().err


# -- a core fix the lessons rely on ----------------------------------------------------------
def test_zero_dim_tensor_formats_as_its_number_like_pytorch() -> None:
    import minigrad

    loss = minigrad.tensor(0.25, requires_grad=True) * 2
    assert f"{loss:.3f}" == "0.500" and f"{loss}" == "0.5"  # torch: f"{t}" of a 0-d tensor
    assert f"{minigrad.ones(2)}" == "tensor([1., 1.])"


def test_node_hook_receives_tuples_like_pytorch() -> None:
    import minigrad

    x = minigrad.tensor([1., 2.], requires_grad=True)
    y = x * x
    seen = []
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(
        (type(grad_inputs), type(grad_outputs))))
    y.sum().backward()
    assert seen == [(tuple, tuple)]


def test_a_lesson_whose_requirement_is_missing_says_in_one_line_what_to_install(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    real = tutorial_needs.importlib.util.find_spec
    monkeypatch.setattr(tutorial_needs.importlib.util, "find_spec",
                        lambda name, *a: None if name == "hypothesis" else real(name, *a))
    assert minigrad_main(["tutorial", "10"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines() == [
        "error: lesson 10 needs hypothesis, which is not installed here; install it with: "
        "pip install hypothesis (or: pip install -e '.[dev]')"]
    assert minigrad_main(["tutorial", "10", "--lang", "zh"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "错误：第 10 课需要 hypothesis，但这里没有安装；安装方法：pip install hypothesis"
        "（或者 pip install -e '.[dev]'）"]
    assert minigrad_main(["tutorial"]) == 0
    assert "(needs hypothesis)" in capsys.readouterr().out


def test_the_index_says_what_each_lesson_needs_installed() -> None:
    index = (ROOT / "README.md").read_text(encoding="utf-8")
    for lang in LANGS:
        for p in tutorial.lessons(lang, ROOT):
            line = next(x for x in index.splitlines() if f"({lang}/{p.name})" in x)
            needs = tutorial_needs.needs(tutorial.load(p))
            if lang == "en":
                expected = ("*needs " + ", ".join(r.name() for r in needs) + "*") if needs \
                    else "*minigrad only*"
            else:
                expected = ("*需要 " + "、".join(r.name("zh") for r in needs) + "*") if needs \
                    else "*只需 minigrad*"
            assert line.rstrip().endswith(expected), (line, expected)
    table = index[index.index("## What each lesson needs installed"):]
    table = table[:table.index("\n## ")]
    for req in tutorial_needs.REQUIREMENTS.values():  # a row per requirement: its lessons
        lessons = [int(p.name[:2]) for p in tutorial.lessons("en", ROOT)
                   if req in tutorial_needs.needs(tutorial.load(p))]
        row = next((x for x in table.splitlines() if f"| {req.name()} |" in x), None)
        if not lessons:
            assert row is None, f"the index lists {req.name()}, which no lesson needs"
            continue
        assert row is not None, f"the index's table has no row for {req.name()}"
        assert row.startswith(f"| {', '.join(map(str, lessons))} |"), (row, lessons)
        assert req.install().split(" (")[0] in row, (row, req.install())


@pytest.mark.parametrize("path", [p for lang in LANGS for p in tutorial.pages(lang, ROOT)],
                         ids=_id)
def test_every_page_says_its_blocks_run_in_order_and_what_it_needs(path: Path) -> None:
    """Lesson 14's step 3 copied alone fails with NameError: each page says, before anything
    else, that its blocks share their variables, and what it needs (the same in both
    languages)."""
    lesson = tutorial.load(path)
    intro = " ".join(lesson.lines[2:6])
    said = ("Run the blocks in order, top to bottom" if path.parent.name == "en"
            else "请从上往下依次运行各段代码")
    assert intro.startswith("*" + said), f"{path}: line 3 should begin {said!r}"
    other = tutorial.load(path.parents[1] / ("zh" if path.parent.name == "en" else "en")
                          / path.name)
    assert tutorial_needs.needs(lesson) == tutorial_needs.needs(other)


# -- Chinese rules: explain(lang="zh") must not print English words in a rule -----------------
ENGLISH_WORDS = re.compile(r"\b(?!grad\b|sum\b|mean\b)[a-z]{3,}\s+(?!grad\b)[a-z]{3,}\b")


def test_every_rule_with_english_words_has_its_chinese_with_the_same_parts() -> None:
    from minigrad.teach import op_words, phrases

    formulas = {c._node_class.formula for c in op_words._walk()
                if c.__module__.startswith("minigrad.") and c._node_class.formula}
    worded = sorted(f for f in formulas if ENGLISH_WORDS.search(f))
    assert len(worded) > 50  # (the pattern still finds them)
    missing = [f for f in worded if f not in phrases.RULES["zh"]]
    assert not missing, 'say these rules in Chinese in phrases.RULES["zh"]:\n' + "\n".join(missing)
    for en, zh in phrases.RULES["zh"].items():
        assert en in formulas, f"RULES has a rule no op has (any more): {en!r}"
        assert zh.count(";") == en.count(";"), (en, zh)
        assert re.search(r"[\u4e00-\u9fff]", zh) and not ENGLISH_WORDS.search(zh), zh


def test_a_rule_is_said_in_chinese_and_keeps_only_the_inputs_that_get_a_gradient() -> None:
    from minigrad.teach import op_words

    view = op_words.formula_for("ViewBackward0")
    assert op_words.rule("ViewBackward0", view, [False]) == view  # English unchanged
    assert op_words.rule("ViewBackward0", view, [False], "zh") == "view：梯度变回输入的形状"
    where = op_words.formula_for("WhereBackward0")
    assert op_words.rule("WhereBackward0", where, [False, True], "zh") == \
        "d where(c,a,b)/da = c 成立处为 1"


def test_the_checker_checks_a_lesson_on_pytorch_from_the_command_line(
        torch_mod, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = tmp_path / "good.md"
    good.write_text("```python\nimport minigrad\nprint(minigrad.ones(2).shape)\n```\n\n"
                    "```text\nminigrad.Size([2])\n```\n", encoding="utf-8")
    assert tutorial.main(["--torch", str(good)]) == 0
    assert "ok" in capsys.readouterr().out
    bad = tmp_path / "bad.md"
    bad.write_text("```python\nimport minigrad\nx = minigrad.tensor([1.], name='x')\n```\n",
                   encoding="utf-8")
    assert tutorial.main(["--torch", str(bad)]) == 1
    captured = capsys.readouterr()
    assert "FAIL" in captured.out and "unexpected keyword argument 'name'" in captured.err


# -- what the differences page says, checked on both engines ----------------------------------
class Note:
    """Not a tensor, a number or a container: minigrad.save refuses it, torch.load too."""


def test_the_differences_page_says_what_both_engines_do(torch_mod, tmp_path: Path) -> None:
    import warnings

    import numpy as np

    import minigrad

    torch = torch_mod
    for lib in (minigrad, torch):  # .data is a Tensor, outside the graph, the same memory
        x = lib.tensor([1., 2.], requires_grad=True)
        assert type(x.data) is type(x) and not x.data.requires_grad and x.data.is_leaf
        x.data[0] = 5.
        assert x.detach().numpy()[0] == 5.
        assert lib.cuda.is_available() is False
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            x.cuda()
    assert isinstance(minigrad.ones(2).array, np.ndarray) and not hasattr(torch.ones(2), "array")
    assert torch.trace(torch.tensor([[1., 2.], [3., 4.]])).item() == 5.  # not minigrad's trace
    assert minigrad.tensor([[1., 2.], [3., 4.]]).diagonal().sum().item() == 5.

    kept = {}  # a backward that fails: PyTorch keeps what it accumulated, minigrad undoes it
    for lib in (minigrad, torch):
        x = lib.tensor([-1., 0.25, 4.], requires_grad=True)
        a = lib.tensor([1., 2.], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # anomaly mode says it is slow; numpy's sqrt(-1)
            with lib.autograd.detect_anomaly(), pytest.raises(RuntimeError, match="SqrtBackward0"):
                (lib.where(x > 0, x.sqrt(), lib.zeros(3)).sum() + (a * 2).sum()).backward()
        kept[lib.__name__] = None if a.grad is None else a.grad.tolist()
    assert kept == {"minigrad": None, "torch": [2., 2.]}

    names = {}  # backward(create_graph=True): the node of the new .grad (PyTorch also warns
    for lib in (minigrad, torch):  # about a reference cycle, but once per process only)
        x = lib.tensor(3., requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x ** 3).backward(create_graph=True)
        names[lib.__name__] = x.grad.grad_fn.name()
    assert names == {"minigrad": "MulBackward0", "torch": "torch::autograd::CopyBackwards"}

    for lib in (minigrad, torch):  # any object is saved; only weights_only=False loads it
        lib.save({"note": Note()}, tmp_path / f"{lib.__name__}.pt")
        with pytest.raises(Exception, match="Weights only load failed"):
            lib.load(tmp_path / f"{lib.__name__}.pt")
        assert type(lib.load(tmp_path / f"{lib.__name__}.pt", weights_only=False)["note"]) is Note

    with warnings.catch_warnings(record=True) as seen:  # numpy's warnings: minigrad's only
        warnings.simplefilter("always")
        assert (minigrad.tensor([1.]) / 0).item() == float("inf")
        assert (torch.tensor([1.]) / 0).item() == float("inf")
    assert [str(w.message) for w in seen] == ["divide by zero encountered in divide"]

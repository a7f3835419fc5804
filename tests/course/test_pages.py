"""The teacher's page (English and Chinese) is run like a lesson: its commands print what it
shows. (Lesson 19, the student's side, is run with the other lessons in tests/teach.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from minigrad.teach import tutorial

TUTORIALS = Path(__file__).resolve().parents[2] / "tutorials"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_teachers_page_prints_what_it_shows(lang: str, tmp_path: Path) -> None:
    path = TUTORIALS / lang / "teachers.md"
    lesson = tutorial.run(tutorial.load(path), workdir=tmp_path)
    assert len(lesson.cells) >= 5
    problems = tutorial.failures(lesson)
    assert not problems, "\n\n".join(problems) + (
        f"\n\nIf the new output is right: python -m minigrad.teach.tutorial --update {path}")


def test_both_pages_are_linked_and_the_chinese_one_is_in_chinese() -> None:
    index = (TUTORIALS / "README.md").read_text(encoding="utf-8")
    for lang in ("en", "zh"):
        assert f"]({lang}/teachers.md)" in index
        assert f"]({lang}/19-your-first-op-graded.md)" in index
        lesson = (TUTORIALS / lang / "19-your-first-op-graded.md").read_text(encoding="utf-8")
        assert "(teachers.md)" in lesson
    text = (TUTORIALS / "zh/teachers.md").read_text(encoding="utf-8")
    assert len(re.findall(r"[\u4e00-\u9fff]", text)) > 1000

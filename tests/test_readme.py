"""README.md's example runs and prints what the README shows."""

from pathlib import Path

from minigrad.teach import tutorial

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_code_prints_what_the_readme_shows():
    lesson = tutorial.load(README)
    assert lesson.cells, "README.md has no python block"
    tutorial.run(lesson)
    assert tutorial.failures(lesson) == []

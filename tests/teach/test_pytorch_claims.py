"""What the lessons say about PyTorch is checked on PyTorch.

A block of a lesson that runs on PyTorch (every block not fenced `minigrad-only` is run there by
tests/teach/test_tutorials.py, and a `minigrad-only` block that calls torch or `compare` runs
it itself) shows what PyTorch does. So every sentence of the lessons, the teacher's page, the
differences pages and the tutorials index that names PyTorch (or torch) must either sit next to
such a block (in the prose right before or after it), or be listed in `pytorch_claims.CLAIMS`:
with a check that runs it on torch here, with the command that checks it by hand (what needs
the network), or, if it says nothing about what PyTorch does, with why not.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pytorch_claims import CLAIMS, Claim

from minigrad.teach import tutorial

ROOT = Path(__file__).resolve().parents[2] / "tutorials"
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.md"))
NAMES_PYTORCH = re.compile(r"\bPyTorch\b|\btorch\b")
RUNS_PYTORCH = re.compile(r"\btorch\b|\bcompare\b|trace_torch")
# sentences that name PyTorch without saying anything it does: a heading, the line saying what
# a lesson needs, a link to the next lesson, an entry of the index's list of lessons
NOT_SAID = re.compile(r"^#|^\*?(Run the blocks in order|请从上往下)|^(Next|下一课)[:：]|"
                      r"^\d+\. \[|^\*(needs|需要) |^Needs, besides minigrad|除 minigrad 外还需要")


def sentences(text: str) -> list[str]:
    """The sentences of a prose block, inline code kept, fenced code dropped."""
    text = re.sub(r"^(\s*)[-*] ", r"\1", text, flags=re.M)  # list items start sentences too
    parts = re.split(r"(?<=[^0-9][.!?])\s+(?=[A-Z*(`\[|])|(?<=[。！？])|\n\s*\n|"
                     r"\n(?=\d+\. \[)|\n(?=\|)", text)
    return [" ".join(p.split()) for p in parts if p.strip()]


def shows_pytorch(block: tutorial.Block | None) -> bool:
    """The block runs on PyTorch: in the PyTorch run of its lesson, or by calling torch."""
    if block is None or block.lang != "python" or "no-run" in block.info:
        return False
    return not block.minigrad_only or RUNS_PYTORCH.search(block.text) is not None


def unshown(page: str) -> list[str]:
    """The sentences of `page` that name PyTorch and sit next to no block that shows it."""
    lesson = tutorial.load(ROOT / page)
    found = []
    for k, block in enumerate(lesson.blocks):
        if block.lang:
            continue
        before = next((b for b in reversed(lesson.blocks[:k]) if b.lang == "python"), None)
        after = next((b for b in lesson.blocks[k + 1:] if b.lang == "python"), None)
        if shows_pytorch(before) or shows_pytorch(after):
            continue
        found += [s for s in sentences(block.text)
                  if NAMES_PYTORCH.search(s) and not NOT_SAID.search(s)]
    return found


def listed(page: str) -> list[tuple[str, Claim]]:
    return [(fragment, claim) for claim in CLAIMS for where, fragment in claim.quotes
            if where == page]


@pytest.mark.parametrize("page", PAGES)
def test_every_sentence_about_pytorch_is_shown_or_listed_with_its_check(page: str) -> None:
    fragments = [fragment for fragment, _ in listed(page)]
    missing = [s for s in unshown(page) if not any(f in s for f in fragments)]
    assert not missing, (
        f"tutorials/{page}: these sentences say what PyTorch does, next to no block that shows "
        "it on PyTorch; show it, or list each in tests/teach/pytorch_claims.py with the check "
        "that runs it:\n" + "\n".join(f"- {s}" for s in missing))


@pytest.mark.parametrize("page", PAGES)
def test_every_listed_sentence_is_still_on_its_page(page: str) -> None:
    said = unshown(page)
    stale = [f for f, _ in listed(page) if not any(f in s for s in said)]
    assert not stale, (f"tutorials/{page}: pytorch_claims.CLAIMS lists sentences that are not "
                       f"there (any more), or sit next to a block that shows them: {stale}")


def test_every_claim_is_checked_or_says_why_not() -> None:
    for claim in CLAIMS:
        assert claim.quotes and all(page in PAGES for page, _ in claim.quotes), claim.quotes
        assert (claim.check is not None) + bool(claim.command) + bool(claim.not_a_claim) == 1, \
            claim.quotes


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.check is not None],
                         ids=lambda c: c.check.__name__)
def test_the_claim_holds_on_pytorch(claim: Claim, torch_mod, tmp_path: Path) -> None:
    claim.check(torch_mod, tmp_path)


def test_the_sentences_of_a_page_are_found() -> None:
    page = ("Some prose. PyTorch keeps the gradients.\n\n- a list item that names torch\n\n"
            "## A heading about PyTorch\n\n```python minigrad-only\nx = 1\n```\n\nMore prose.")
    found = [s for s in sentences(page) if NAMES_PYTORCH.search(s)]
    assert found == ["PyTorch keeps the gradients.", "a list item that names torch",
                     "## A heading about PyTorch"]
    assert [s for s in found if not NOT_SAID.search(s)] == found[:2]

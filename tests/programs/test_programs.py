"""Learner programs, written in the style of the PyTorch tutorials and d2l (not copied), run
unchanged on minigrad and on PyTorch: only the import lines name another module
(`import minigrad as torch` for `import torch`, `from minigrad import nn` for `from torch
import nn`, ...). Each test runs one program on both and compares what it prints, with
"minigrad" read as "torch" (the module's name is the one difference: `minigrad.Size([2, 3])`,
`minigrad.float32`). The programs print no random value, only facts that hold whatever the
generator draws (shapes, dtypes, "loss small: True")."""

from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from pathlib import Path

import pytest

PROGRAMS = sorted(Path(__file__).parent.glob("p[0-9][0-9]_*.py"))


def as_torch(source: str) -> str:
    """The same program for PyTorch: `minigrad` becomes `torch` in the import lines only."""
    return re.sub(r"^(\s*(?:import|from)\s+)minigrad\b", r"\1torch", source, flags=re.M)


def run(source: str, path: Path, folder: Path) -> str:
    out = io.StringIO()
    here = os.getcwd()
    os.chdir(folder)  # (programs that save files write them here)
    try:
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(source, str(path), "exec"), {"__name__": "__main__"})
    finally:
        os.chdir(here)
    return out.getvalue()


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_prints_what_pytorch_prints(path: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    source = path.read_text(encoding="utf-8")
    (tmp_path / "torch").mkdir()
    (tmp_path / "minigrad").mkdir()
    theirs = run(as_torch(source), path, tmp_path / "torch")
    ours = run(source, path, tmp_path / "minigrad").replace("minigrad", "torch")
    assert ours.splitlines() == theirs.splitlines()


def test_there_are_programs() -> None:
    assert len(PROGRAMS) >= 30

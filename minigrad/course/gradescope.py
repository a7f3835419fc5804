"""`course gradescope`: a ready-to-upload Gradescope autograder, and what it runs.

    python -m minigrad course gradescope TEACHER -o autograder.zip

The zip holds, at its root (Gradescope unpacks it into /autograder/source):
- setup.sh: installs Python and numpy in Gradescope's container (once, when the autograder
  is built);
- run_autograder: runs `python -m minigrad course autograde` on /autograder/submission and
  always writes /autograder/results/results.json;
- requirements.txt, minigrad/ (this grader, as it is now), teacher/ (the teacher's copy: the
  solutions, course.json with the hidden cases' seed, grading/ with custom checks).

Students never see the zip's contents. `autograde` grades a submission with the teacher's
copy and writes results.json whatever happens: a submission without the package folder
(files uploaded loose are found and graded), or one that cannot be graded at all, gets a
results file with its message, never a traceback and a missing file.
"""

from __future__ import annotations

import json
import shutil
import stat
import tempfile
import traceback
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from minigrad.course import reports
from minigrad.course.grading import Grader
from minigrad.course.manifest import load_course
from minigrad.course.sandbox import ROOT, Limits

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's container image.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
apt-get update
apt-get install -y --no-install-recommends python3 python3-venv python3-pip
python3 -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --no-cache-dir -r "$ROOT/source/requirements.txt"
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for every submission, as root, in its container. It always writes
# $ROOT/results/results.json: a submission that cannot be graded gets 0 and a message.
ROOT="${AUTOGRADER_ROOT:-/autograder}"
PYTHON="$ROOT/venv/bin/python"
[ -x "$PYTHON" ] || PYTHON=python3
mkdir -p "$ROOT/results"
cd "$ROOT/source" || exit 1
PYTHONPATH="$ROOT/source" "$PYTHON" -m minigrad course autograde "$ROOT/submission" \\
    --teacher "$ROOT/source/teacher" --results "$ROOT/results/results.json"
"""


def build(teacher: str | Path, out: str | Path) -> Path:
    """Write the autograder zip for the teacher's copy `teacher` to `out`."""
    teacher, out = Path(teacher), Path(out)
    course = load_course(teacher, teacher=True)
    if course.secret is None:
        raise ValueError(f"{teacher} has no hidden_seed in its course.json: is it the "
                         "teacher's copy?")
    if out.exists():
        raise FileExistsError(f"{out} already exists: choose a new name")
    files: dict[str, bytes] = {"setup.sh": SETUP.encode(), "run_autograder": RUN.encode(),
                               "requirements.txt": f"numpy=={np.__version__}\n".encode()}
    for path in sorted((ROOT / "minigrad").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix == ".py":
            files[path.relative_to(ROOT).as_posix()] = path.read_bytes()
    for path in sorted(teacher.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files["teacher/" + path.relative_to(teacher).as_posix()] = path.read_bytes()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            executable = name in ("setup.sh", "run_autograder")
            info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return out


def autograde(submission: str | Path, teacher: str | Path, results: str | Path,
              limits: Limits | None = None) -> dict[str, Any]:
    """Grade `submission` with the teacher's copy and write Gradescope's results.json; a
    results file is written whatever happens."""
    results = Path(results)
    try:
        course = load_course(teacher, teacher=True)
        with Grader(course, limits=limits) as grader:
            report = grader.grade(_unpacked(Path(submission)))
        data = reports.gradescope(report)
        print(report.text(reveal=False), end="")
    except Exception as exc:  # noqa: BLE001  (Gradescope must get a results file)
        message = f"The grader could not grade this submission: {type(exc).__name__}: {exc}"
        data = {"score": 0, "output": message, "visibility": "visible",
                "stdout_visibility": "hidden", "tests": []}
        print(message + "\n" + traceback.format_exc(limit=-3))
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return data


def _unpacked(submission: Path) -> Path:
    """The submission folder; an uploaded .zip in it is opened into a private folder first
    (only regular files, no paths outside it)."""
    zips = sorted(submission.glob("*.zip")) if submission.is_dir() else []
    if not zips or any(p.suffix == ".py" for p in submission.rglob("*.py")):
        return submission
    folder = Path(tempfile.mkdtemp(prefix="submission-"))
    with zipfile.ZipFile(zips[0]) as zf:
        for info in zf.infolist()[:1000]:
            target = (folder / info.filename).resolve()
            if info.is_dir() or not target.is_relative_to(folder.resolve()) or \
                    info.file_size > 1 << 20:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, target.open("wb") as dst:
                shutil.copyfileobj(src, dst)
    return folder

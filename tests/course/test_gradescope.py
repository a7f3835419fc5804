"""`course gradescope` end to end: the zip is unpacked as Gradescope does, its setup.sh runs
(with apt-get and pip replaced by stand-ins that only record what they were asked: they would
install system packages), and its run_autograder grades sample submissions into a valid
results.json with visibility fields: a right one, files uploaded loose, and an empty upload."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from minigrad.__main__ import main
from minigrad.course import new_assignment

STAND_INS = {
    "apt-get": '#!/bin/sh\necho "apt-get $*" >> "$LOG"\n',
    "python3": '#!/bin/sh\necho "python3 $*" >> "$LOG"\n'
               'if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then\n'
               '  mkdir -p "$3/bin"\n'
               '  printf \'#!/bin/sh\\nif [ "$1" = "-m" ] && [ "$2" = "pip" ]; then '
               'echo "pip $*" >> "%s"; exit 0; fi\\nexec %s "$@"\\n\' "$LOG" "$REAL" '
               '> "$3/bin/python"\n'
               '  chmod +x "$3/bin/python"\n'
               'fi\n',
}


@pytest.fixture(scope="module")
def autograder(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("gradescope")
    teacher, student = new_assignment(root / "hw", "mul,exp")
    out = root / "autograder.zip"
    assert main(["course", "gradescope", str(teacher), "-o", str(out)]) == 0
    home = root / "autograder"
    with zipfile.ZipFile(out) as zf:  # (as Gradescope's unzip: with the files' modes)
        names = zf.namelist()
        for info in zf.infolist():
            path = Path(zf.extract(info, home / "source"))
            path.chmod(info.external_attr >> 16 & 0o777)
    bin_ = root / "bin"
    bin_.mkdir()
    for name, text in STAND_INS.items():
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(0o755)
    env = {"PATH": f"{bin_}:/usr/bin:/bin", "AUTOGRADER_ROOT": str(home),
           "LOG": str(root / "installed.log"), "REAL": sys.executable}
    setup = subprocess.run(["bash", str(home / "source/setup.sh")], env=env,
                           capture_output=True, text=True, timeout=60)
    shutil.copy(home / "source/run_autograder", home / "run_autograder")
    return {"root": root, "home": home, "env": env, "names": names, "setup": setup,
            "teacher": teacher, "student": student}


def run_autograder(autograder: dict[str, Any], fill: Any) -> tuple[Any, dict[str, Any]]:
    home = autograder["home"]
    shutil.rmtree(home / "submission", ignore_errors=True)
    shutil.rmtree(home / "results", ignore_errors=True)
    (home / "submission").mkdir()
    fill(home / "submission")
    done = subprocess.run(["bash", str(home / "run_autograder")], env=autograder["env"],
                          capture_output=True, text=True, timeout=300)
    return done, json.loads((home / "results/results.json").read_text())


def test_the_zip_has_what_gradescope_needs(autograder: dict[str, Any]) -> None:
    names = autograder["names"]
    assert {"setup.sh", "run_autograder", "requirements.txt", "teacher/course.json",
            "teacher/homework/mul.py", "minigrad/course/zygote.py"} <= set(names)
    modes = {n: (autograder["home"] / "source" / n).stat().st_mode for n in
             ("setup.sh", "run_autograder")}
    assert all(mode & stat.S_IXUSR for mode in modes.values())
    assert json.loads((autograder["home"] / "source/teacher/course.json").read_text())[
        "hidden_seed"]  # (the hidden cases travel in the zip, never to students)


def test_setup_installs_python_and_numpy(autograder: dict[str, Any]) -> None:
    setup = autograder["setup"]
    assert setup.returncode == 0, setup.stderr
    log = (autograder["root"] / "installed.log").read_text().splitlines()
    assert log[0] == "apt-get update"
    assert log[1].startswith("apt-get install -y --no-install-recommends python3")
    assert log[2] == f"python3 -m venv {autograder['home']}/venv"
    assert log[3].startswith("pip -m pip install --no-cache-dir -r ") and \
        log[3].endswith("source/requirements.txt")


def test_a_right_submission_gets_full_marks(autograder: dict[str, Any]) -> None:
    done, results = run_autograder(autograder, lambda to: shutil.copytree(
        autograder["teacher"] / "homework", to / "homework"))
    assert done.returncode == 0, done.stderr
    assert results["score"] == 13 and results["visibility"] == "visible"
    tests = results["tests"]
    assert len(tests) == 11 and all(t["score"] == t["max_score"] for t in tests)
    assert {t["visibility"] for t in tests} == {"visible", "after_published"}
    assert [t["name"] for t in tests if t["visibility"] == "after_published"] == \
        ["mul: stability", "exp: stability"]


def test_loose_files_are_graded_with_a_note(autograder: dict[str, Any]) -> None:
    def loose(to: Path) -> None:
        shutil.copy(autograder["teacher"] / "homework/mul.py", to / "mul.py")
        shutil.copy(autograder["student"] / "homework/exp.py", to / "exp.py")

    done, results = run_autograder(autograder, loose)
    assert done.returncode == 0
    assert results["score"] == 7
    assert "note: the files were uploaded without their homework/ folder; they were graded " \
           "as homework/*.py." in results["output"]


def test_an_empty_upload_gets_a_results_file_that_says_so(autograder: dict[str, Any]) -> None:
    done, results = run_autograder(autograder, lambda to: (to / "README.txt").write_text("hi"))
    assert done.returncode == 0
    assert results["score"] == 0 and len(results["tests"]) == 11
    assert "the submission has no homework/ folder, and none of its files (mul.py, exp.py): " \
           "upload the homework folder (or the .py files in it)." in results["tests"][0][
               "output"].replace("\n", " ")


def test_a_broken_teacher_copy_still_writes_results(autograder: dict[str, Any],
                                                    tmp_path: Path) -> None:
    from minigrad.course.gradescope import autograde

    data = autograde(tmp_path, tmp_path / "no-teacher", tmp_path / "out/results.json")
    assert data["score"] == 0 and data["output"].startswith(
        "The grader could not grade this submission: FileNotFoundError")
    assert json.loads((tmp_path / "out/results.json").read_text()) == data
    assert os.path.isfile(autograder["home"] / "run_autograder")

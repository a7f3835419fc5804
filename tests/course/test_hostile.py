"""Hostile submissions, each graded with the teacher's copy, each getting the score its real
work deserves: 0 for the forged ones, full marks for a right op that also attacks the
grader (the attack fails, the op is right). The assignment is `exp,mul` (6 + 7 points); every
submission below leaves mul as the stub unless it says otherwise.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import textwrap
from pathlib import Path
from typing import Any

import pytest

from minigrad.__main__ import main
from minigrad.course import Grader, load_course, new_assignment
from tests.course.conftest import require_isolation

RIGHT_EXP = '''
class Exp(minigrad.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.exp(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.exp()
'''
STUB_EXP = '''
class Exp(minigrad.Function):
    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError('your code here')

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError('your code here')
'''
HEAD = "import os\nimport sys\nimport time\n\nimport numpy as np\n\nimport minigrad\n"

# name: (the code run when homework/exp.py is imported, the class after it, exp's score)
ATTACKS: dict[str, tuple[str, str, int]] = {
    "rewrites the result file": ('''
        for path in [RESULTS, "/autograder/results/results.json"]:
            try:
                with open(path, "w") as f:
                    f.write('{"score": 999, "tests": []}')
            except OSError as exc:
                print("cannot write", path, type(exc).__name__)
    ''', STUB_EXP, 0),
    "writes the result file, then os._exit": ('''
        try:
            with open(RESULTS, "w") as f:
                f.write('{"score": 999, "tests": []}')
        finally:
            os._exit(0)
    ''', STUB_EXP, 0),
    "monkeypatches the checks and numpy": ('''
        np.allclose = lambda *a, **k: True
        np.isclose = lambda *a, **k: np.True_
        np.array_equal = lambda *a, **k: True
        try:
            import minigrad.course.checks as checks
            checks.judge = checks.compare = lambda *a, **k: None
        except Exception as exc:
            print("cannot patch the checks:", type(exc).__name__)
    ''', STUB_EXP, 0),
    "overrides apply": ("", '''
class Exp(minigrad.Function):
    @classmethod
    def apply(cls, x):
        return x.exp()

    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError
''', 0),
    "delegates forward and backward to minigrad's exp": ("", '''
class Exp(minigrad.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp().array

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        with minigrad.enable_grad():
            y = x.detach().requires_grad_()
            (g,) = minigrad.autograd.grad(y.exp(), [y], [grad])
        return g
''', 0),
    "delegates backward to minigrad's ExpBackward": ("", '''
class Exp(minigrad.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.exp(x.array)

    @staticmethod
    def backward(ctx, grad):
        from minigrad.ops.unary import Exp as BuiltIn
        (x,) = ctx.saved_tensors
        with minigrad.enable_grad():
            y = x.detach().requires_grad_()
            out = BuiltIn.apply(y)
        return out.grad_fn._function.backward(out.grad_fn, grad)
''', 1),  # (forward is its own work: 1 point)
    "edits installed minigrad files and the teacher's copy": ('''
        targets = [os.path.join(os.path.dirname(minigrad.__file__), "course", "checks.py"),
                   os.path.join(TEACHER, "course.json"), os.path.join(TEACHER, "homework",
                                                                      "exp.py")]
        for path in targets:
            try:
                with open(path, "a") as f:
                    f.write("\\nSCORE = 999\\n")
            except OSError as exc:
                print("cannot edit", os.path.basename(path), type(exc).__name__)
    ''', STUB_EXP, 0),
    "reads the teacher's solution and another student's work": ('''
        found = {}
        for path in [os.path.join(TEACHER, "homework", "exp.py"), OTHER]:
            try:
                with open(path) as f:
                    exec(f.read(), found)
            except OSError as exc:
                print("cannot read", os.path.basename(path), type(exc).__name__)
        if "Exp" in found:
            Exp = found["Exp"]
    ''', "\nif 'Exp' not in globals():\n" + textwrap.indent(STUB_EXP, "    "), 0),
    "reads os.environ": ('''
        print("environment:", sorted(os.environ), os.environ.get("MINIGRAD_TEST_SECRET"))
    ''', STUB_EXP, 0),
    "prints 10 MB": ('''
        print("x" * 10_000_000)
    ''', STUB_EXP, 0),
    "a fork bomb": ('''
        forked = 0
        while forked < 1000:
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(3600)
                os._exit(0)
            forked += 1
        print("forked", forked)
    ''', STUB_EXP, 0),
    "leaves setsid survivors (right op)": ('''
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(3600)
            os._exit(0)
    ''', RIGHT_EXP, 6),
    "opens sockets (right op)": ('''
        for family, kind in ((socket.AF_INET, socket.SOCK_STREAM),
                             (socket.AF_INET, socket.SOCK_DGRAM)):
            try:
                s = socket.socket(family, kind)
                s.settimeout(1)
                if kind == socket.SOCK_STREAM:
                    s.connect(("127.0.0.1", TCP_PORT))
                    s.sendall(b"leak")
                else:
                    s.sendto(b"leak", ("127.0.0.1", UDP_PORT))
            except OSError as exc:
                print("no network:", type(exc).__name__)
    ''', RIGHT_EXP, 6),
    "computes backward by finite differences": ("", RIGHT_EXP.replace(
        "return grad * x.exp()",
        "h = 1e-6\n        return grad * ((x + h).exp() - (x - h).exp()) / (2 * h)"), 1),
    "kills its parent and the grader (right op)": ('''
        import signal
        for pid in (os.getppid(), GRADER):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError as exc:
                print("cannot kill", type(exc).__name__)
    ''', RIGHT_EXP, 6),
}


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory, isolation: dict[str, Any]
           ) -> dict[str, Any]:
    require_isolation(isolation, landlock_abi=6, netns=True)
    root = tmp_path_factory.mktemp("hostile")
    teacher, student = new_assignment(root / "hw", "exp,mul")
    other = root / "other"
    shutil.copytree(teacher, other)  # (a classmate's right solution)
    return {"root": root, "teacher": teacher, "student": student,
            "other": other / "homework/exp.py"}


@pytest.fixture(scope="module")
def grader(course: dict[str, Any]) -> Grader:
    with Grader(load_course(course["teacher"])) as grader:
        yield grader


def submission(course: dict[str, Any], name: str, attack: str, cls: str,
               **values: Any) -> Path:
    folder = course["root"] / name.replace(" ", "_").replace("'", "")
    shutil.copytree(course["student"], folder)
    names = {"RESULTS": str(course["root"] / "results.json"), "TEACHER": str(course["teacher"]),
             "OTHER": str(course["other"]), "GRADER": os.getpid(), **values}
    setup = "".join(f"{k} = {v!r}\n" for k, v in names.items())
    code = HEAD + "import socket\n" + setup + textwrap.dedent(attack) + cls
    (folder / "homework/exp.py").write_text(code)
    return folder


def zygote_children(grader: Grader) -> list[int]:
    """Processes whose parent is the grader's zygote (orphans come back to it)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        ppid = next(line.split()[1] for line in status.splitlines() if line.startswith("PPid"))
        if int(ppid) == grader.session.zygote.pid:
            found.append(int(pid))
    return found


def minigrad_digest() -> str:
    import minigrad

    h = hashlib.sha256()
    for path in sorted(Path(minigrad.__file__).parent.rglob("*.py")):
        h.update(path.read_bytes())
    return h.hexdigest()


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_hostile_submission_scores_only_its_real_work(
        course: dict[str, Any], grader: Grader, name: str, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    monkeypatch.setenv("MINIGRAD_TEST_SECRET", "hunter2")
    attack, cls, expected = ATTACKS[name]
    tcp, udp = socket.socket(), socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    udp.bind(("127.0.0.1", 0))
    before = minigrad_digest(), (course["teacher"] / "homework/exp.py").read_text()
    folder = submission(course, name, attack, cls, TCP_PORT=tcp.getsockname()[1],
                        UDP_PORT=udp.getsockname()[1])
    report = grader.grade(folder)
    scores = {g.op.name: g.score for g in report.ops}
    assert scores == {"exp": expected, "mul": 0}, report.text()
    # nothing escaped: no process left, no file changed, no packet, no secret
    assert zygote_children(grader) == []
    assert (minigrad_digest(), (course["teacher"] / "homework/exp.py").read_text()) == before
    for s in (tcp, udp):
        s.setblocking(False)
        with pytest.raises(BlockingIOError):
            s.accept() if s is tcp else s.recvfrom(10)
        s.close()
    text = report.text()
    assert "hunter2" not in text
    exp = next(g for g in report.ops if g.op.name == "exp")
    if "environ" in name:
        assert "environment: ['HOME', 'TMPDIR'] None" in exp.printed
    if "fork bomb" in name:
        forked = int(exp.printed.split("forked ")[1].split()[0])
        assert 0 < forked < grader.limits.processes
    if "10 MB" in name:
        assert len(exp.printed) <= 2000 and exp.printed_dropped > 9_000_000
    if "reads" in name and "teacher" in name:
        assert exp.printed.count("cannot read") >= 2 and "PermissionError" in exp.printed


def test_the_reasons_are_said(course: dict[str, Any], grader: Grader) -> None:
    texts = {}
    for name in ("overrides apply", "delegates forward and backward to minigrad's exp",
                 "delegates backward to minigrad's ExpBackward"):
        attack, cls, _ = ATTACKS[name]
        texts[name] = grader.grade(submission(course, name + " again", attack, cls)).text()
    assert "Exp overrides apply: the grader calls your op through minigrad's own " \
           "Function.apply" in texts["overrides apply"]
    both = texts["delegates forward and backward to minigrad's exp"]
    assert "this runs minigrad's own minigrad.exp, which is the exercise" in both
    backward = texts["delegates backward to minigrad's ExpBackward"]
    assert "✓ forward" in backward and "minigrad's own Exp.backward" in backward


def test_the_submissions_course_json_is_never_read(course: dict[str, Any], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    folder = course["root"] / "forged_manifest"
    shutil.copytree(course["student"], folder)
    shutil.copy(course["teacher"] / "homework/mul.py", folder / "homework/mul.py")
    (folder / "course.json").write_text(json.dumps({
        "minigrad_course": 2, "package": "homework", "lang": "en", "ops": ["mul"],
        "points": {"forward": 100, "backward": 100}, "hidden_seed": 1}))
    code = main(["course", "grade", str(folder), "--teacher", str(course["teacher"]),
                 "--json", str(tmp_path / "r.json"), "--no-timing"])
    results = json.loads((tmp_path / "r.json").read_text())
    assert code == 1 and (results["score"], results["max_score"]) == (7, 13)
    assert "  total  7/13" in capsys.readouterr().out


def test_the_results_file_is_the_graders(course: dict[str, Any]) -> None:
    for name in ("rewrites the result file", "writes the result file, then os._exit"):
        attack, cls, _ = ATTACKS[name]
        folder = submission(course, name + " cli", attack, cls)
        results = course["root"] / "results.json"
        code = main(["course", "grade", str(folder), "--teacher", str(course["teacher"]),
                     "--json", str(results), "--no-timing"])
        data = json.loads(results.read_text())
        assert code == 1 and data["score"] == 0 and data["max_score"] == 13
        assert len(data["tests"]) == 11  # (the 5 checks of exp, the 6 of mul)


def test_links_to_the_teachers_files_are_not_followed(course: dict[str, Any],
                                                      grader: Grader) -> None:
    folder = course["root"] / "links_folder"
    folder.mkdir()
    (folder / "homework").symlink_to(course["teacher"] / "homework")
    report = grader.grade(folder)
    assert report.score == 0 and "no_package" in report.notes
    files = course["root"] / "links_files"
    shutil.copytree(course["student"], files)
    (files / "homework/exp.py").unlink()
    (files / "homework/exp.py").symlink_to(course["teacher"] / "homework/exp.py")
    report = grader.grade(files)
    assert report.score == 0
    assert "homework/exp.py could not be imported: your code raised ModuleNotFoundError" in \
        report.text()  # (the link was left out of the copy)

"""A class of submissions for `course grade-all`: copies of a mixed set (right, a wrong sign, a
forgotten broadcast sum, a numpy backward, a stub, files uploaded loose, a crash, an endless
loop), made for the batch test and, as a script, for timing a large class:

    python -m tests.course.batch_copies 300 /tmp/class     # 300 students, 8 ops each, timed

Nothing it writes is committed: the script makes the class in the folder it is given.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

from minigrad.course import new_assignment

OPS = "mul,div,exp,log,sum,softmax,matmul,relu"
KINDS = {  # kind: (op file, the solution's text, what replaces it); None: as is
    "right": None,
    "wrong_sign": ("div", "ga, gb = grad / b, -grad * a / b ** 2",
                   "ga, gb = grad / b, grad * a / b ** 2"),
    "no_broadcast_sum": ("mul", "return ga.sum_to_size(a.shape), gb.sum_to_size(b.shape)",
                         "return ga, gb"),
    "numpy_backward": ("exp", "return grad * x.exp()",
                       "return grad * minigrad.tensor(np.exp(x.array))"),
    "stub": ("log", "ctx.save_for_backward(x)\n        return np.log(x.array)",
             "raise NotImplementedError"),
    "loose_files": None,  # (the op files without their homework/ folder)
    "crash": ("relu", "return np.maximum(x.array, 0.0)", "import os\n        os._exit(1)"),
    "endless_loop": ("sum", "return np.sum(x.array, axis=dim, keepdims=keepdim)",
                     "while True:\n            pass"),
}


def make_class(root: Path, count: int, kinds: list[str] | None = None) -> tuple[Path, Path]:
    """The teacher's copy and a folder of `count` submissions, the kinds taken in turn."""
    teacher, _ = new_assignment(root / "hw", OPS)
    submissions = root / "submissions"
    kinds = kinds or list(KINDS)
    for i in range(count):
        kind = kinds[i % len(kinds)]
        folder = submissions / f"student{i:03d}_{kind}"
        change = KINDS[kind]
        if kind == "loose_files":
            shutil.copytree(teacher / "homework", folder)
            continue
        shutil.copytree(teacher / "homework", folder / "homework")
        if change is not None:
            op, solution, bug = change
            path = folder / f"homework/{op}.py"
            text = path.read_text()
            assert text.count(solution) == 1, (kind, op)
            path.write_text(text.replace(solution, bug))
    return teacher, submissions


def main(argv: list[str]) -> int:
    from minigrad.__main__ import main as minigrad_main

    count, root = int(argv[0]), Path(argv[1])
    teacher, submissions = make_class(root, count)
    started = time.monotonic()
    load = os.getloadavg()
    code = minigrad_main(["course", "grade-all", str(submissions), "--teacher", str(teacher),
                          "--csv", str(root / "scores.csv")])
    seconds = time.monotonic() - started
    print(f"graded {count} submissions of {len(OPS.split(','))} ops in {seconds:.0f} s on "
          f"{os.cpu_count()} cores; load average before {load[0]:.1f}, after "
          f"{os.getloadavg()[0]:.1f}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""course.json: what an assignment grades, and with how many points.

    {"minigrad_course": 2, "package": "homework", "lang": "en", "ops": ["mul", "exp", "cube"],
     "points": {"forward": 1, "backward": 2, ...},      per check, every op (optional)
     "op_points": {"exp": {"backward": 3}},             per op and check (optional)
     "speed_factor": 50,                               the speed check's bar (optional)
     "hidden_seed": 8374...,                           the teacher's copy only: hidden cases
     "custom_ops": {"cube": {"class": "Cube", "kind": "unary", "signature": "x",
                             "domains": ["real"], "second": true,
                             "what": {"en": "x cubed.", "zh": "x 的三次方。"}}},
     "custom_checks": [{"name": "zeros", "op": "mul", "function": "check_zeros",
                        "points": 1, "builds_on": ["forward"]}]}

A grade always reads the teacher's copy (`--teacher`): a submission's own course.json is
never read then. `release` leaves `hidden_seed` out of the student's copy, and the teacher's
`grading/` folder (the custom checks' code) too.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minigrad.course.catalog import OPS, select
from minigrad.course.entry import KINDS, ORDER, POINTS, Op
from minigrad.course.texts import LANGS
from minigrad.testing.domains import DOMAINS

MANIFEST = "course.json"
FORMATS = (1, 2)
FORMAT = 2
GRADING = "grading"  # the teacher's own folder: custom checks, never released
TEACHER_ONLY = ("hidden_seed",)
SPEED_FACTOR = 50.0
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class CustomCheck:
    """A lecturer's check: `function` in grading/checks.py, run on `op` by the grader."""

    name: str
    op: str
    function: str
    points: int
    builds_on: tuple[str, ...] = ()


@dataclass
class Course:
    """An assignment as the grader reads it from one copy's course.json."""

    folder: Path
    package: str
    lang: str
    ops: list[Op]
    points: dict[str, dict[str, int]]
    speed_factor: float = SPEED_FACTOR
    secret: int | None = None  # the hidden cases' seed; None: visible checks only
    custom_checks: list[CustomCheck] = field(default_factory=list)
    custom_ops: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def teacher(self) -> bool:
        return self.secret is not None

    def digest(self) -> str:
        """A fingerprint of everything that decides a grade: course.json, the teacher's
        solutions and custom checks (a results file graded with another is graded again)."""
        h = hashlib.sha256()
        for path in sorted([self.folder / MANIFEST, *(self.folder / self.package).glob("*.py"),
                            *(self.folder / GRADING).glob("*.py")]):
            h.update(path.name.encode() + b"\0" + path.read_bytes())
        return h.hexdigest()[:16]


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The assignment's course.json, checked: a clear error for a folder that is not one."""
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(f"{folder} is not an assignment: it has no {MANIFEST} (make "
                                "one with `python -m minigrad course new DIR`)")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("minigrad_course") not in FORMATS:
        raise ValueError(f"{path} is not a minigrad course manifest (format {FORMAT})")
    custom = manifest.get("custom_ops") or {}
    _check(isinstance(custom, dict), path, "custom_ops must be an object")
    for name, spec in custom.items():
        _custom_op(path, name, spec)
    ops = manifest.get("ops")
    _check(isinstance(ops, list) and all(isinstance(o, str) for o in ops), path,
           "ops must be a list of names")
    _check(bool(ops), path, "ops is empty: name at least one op")
    if any(o not in custom for o in ops):
        select([o for o in ops if o not in custom])  # (refuses unknown ops)
    _check(len(set(ops)) == len(ops), path, "an op is named twice in ops")
    _check(manifest.get("lang") in LANGS, path, f"lang must be one of {', '.join(LANGS)}")
    _check(IDENTIFIER.match(str(manifest.get("package", "homework"))) is not None, path,
           "package must be a Python name")
    _points(path, manifest.get("points") or {}, "points")
    for op, table in (manifest.get("op_points") or {}).items():
        _check(op in ops, path, f"op_points names {op!r}, which is not in ops")
        _points(path, table, f"op_points.{op}")
    factor = manifest.get("speed_factor", SPEED_FACTOR)
    _check(isinstance(factor, int | float) and math.isfinite(factor) and factor >= 1, path,
           "speed_factor must be a number of at least 1")
    seed = manifest.get("hidden_seed")
    _check(seed is None or (isinstance(seed, int) and not isinstance(seed, bool)), path,
           "hidden_seed must be an integer")
    for check in manifest.get("custom_checks") or []:
        _custom_check(path, check, ops)
    return manifest


def _check(ok: bool, path: Path, message: str) -> None:
    if not ok:
        raise ValueError(f"{path}: {message}")


def _points(path: Path, table: Any, where: str) -> None:
    _check(isinstance(table, dict), path, f"{where} must be an object")
    for check, n in table.items():
        _check(check in ORDER, path, f"{where}: unknown check {check!r} (the checks: "
                                     f"{', '.join(ORDER)})")
        _check(isinstance(n, int) and not isinstance(n, bool) and n >= 0, path,
               f"{where}.{check} must be a whole number of points, 0 or more")


def _custom_op(path: Path, name: str, spec: Any) -> None:
    _check(IDENTIFIER.match(name) is not None and name not in OPS, path,
           f"custom op {name!r}: a new Python name, not one of the catalogue's")
    _check(isinstance(spec, dict) and IDENTIFIER.match(str(spec.get("class", ""))) is not None,
           path, f"custom op {name}: give its class name (\"class\": \"Cube\")")
    _check(spec.get("kind") in KINDS, path, f"custom op {name}: kind must be one of "
                                            f"{', '.join(KINDS)}")
    _check(isinstance(spec.get("signature"), str) and spec["signature"].strip() != "", path,
           f"custom op {name}: give forward's parameters after ctx (\"signature\": \"x\")")
    for domain in spec.get("domains", ["real"]):
        _check(domain in DOMAINS, path, f"custom op {name}: unknown domain {domain!r} (the "
                                        f"domains: {', '.join(DOMAINS)})")


def _custom_check(path: Path, check: Any, ops: list[str]) -> None:
    _check(isinstance(check, dict), path, "each custom check must be an object")
    name = str(check.get("name", ""))
    _check(IDENTIFIER.match(name) is not None and name not in ORDER, path,
           f"custom check {name!r}: a Python name, not one of the built-in checks")
    _check(check.get("op") in ops, path, f"custom check {name}: op must be one of ops")
    _check(IDENTIFIER.match(str(check.get("function", ""))) is not None, path,
           f"custom check {name}: function must name a function of {GRADING}/checks.py")
    _points(path, {"forward": check.get("points", 1)}, f"custom check {name}")
    for other in check.get("builds_on", []):
        _check(other in ORDER, path, f"custom check {name}: builds_on {other!r} is no check")


def load_course(folder: str | Path, teacher: bool = True) -> Course:
    """The Course of the copy in `folder`. `teacher`: a teacher's copy, whose hidden seed
    makes the hidden checks run (a student's copy has none: visible checks only)."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    custom = manifest.get("custom_ops") or {}
    ops = [OPS[name] if name not in custom else custom_op(name, custom[name])
           for name in manifest["ops"]]
    base = {**POINTS, **(manifest.get("points") or {})}
    points = {op.name: {c: (manifest.get("op_points") or {}).get(op.name, {}).get(c, base[c])
                        for c in op.checks} for op in ops}
    checks = [CustomCheck(c["name"], c["op"], c["function"], int(c.get("points", 1)),
                          tuple(c.get("builds_on", ())))
              for c in manifest.get("custom_checks") or []]
    secret = int(manifest.get("hidden_seed", 0)) if teacher else None
    return Course(folder, manifest.get("package", "homework"), manifest["lang"], ops, points,
                  float(manifest.get("speed_factor", SPEED_FACTOR)), secret, checks, custom)


def custom_op(name: str, spec: dict[str, Any]) -> Op:
    """A lecturer's op from its course.json entry: its reference is the teacher's solution."""
    what = spec.get("what") or {}
    words = {lang: str(what.get(lang) or what.get("en") or name) for lang in LANGS}
    return Op(name, spec["class"], spec["kind"], spec["signature"], str(spec.get("maths", "")),
              words, "", "", None, tuple(DOMAINS[d] for d in spec.get("domains", ["real"])),
              bool(spec.get("second", True)))

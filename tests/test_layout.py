"""The code's shape, checked: small files, a short engine loop, imports that run one way.

minigrad exists to be read, so the layout is part of the contract:
- no non-test file in `minigrad/` or `compare/` passes 400 lines (past that it does two jobs);
- every module has its home: the engine in `minigrad/autograd/`, PyTorch's surface around it in
  `minigrad/surface/`, the libraries (ops, nn, optim, ...) in their folders; the top level holds
  only `__init__.py` and `__main__.py`, so `ls minigrad/` shows the architecture;
- the engine folder imports nothing but itself and the surface's values (dtypes, devices, size,
  printing, summation), except across the seam;
- `autograd/engine.py` stays at most 200 lines and its loop, `execute`, at most 60;
  `Function.apply`, the one path every op goes through, at most 40;
- the core and ops never import the layers built on them (teach, nn, optim, testing);
- every op class has its one home: a docstring, its `formula`, its `source` and `gradients`
  (how the explanation reads it);
- imports form no circle, except the one seam: Tensor (`autograd/tensor.py`) and its mixins
  (`surface/tensor_info.py`, `surface/tensor_methods.py`) call up into the code built on Tensor
  (operators into `ops`, `backward` into `autograd`, hooks into `autograd/hooks.py`, a leaf's
  AccumulateGrad from `autograd/node.py`), and that code imports `tensor`. Imports inside
  functions count.

Each check is a function of a source tree, so the tests below also run it on a planted
violation and read the message it gives.
"""

from __future__ import annotations

import ast
import shutil
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("minigrad", "compare")
MAX_LINES = 400
ENGINE, ENGINE_MAX_LINES, LOOP_MAX_LINES = "minigrad/autograd/engine.py", 200, 60
APPLY, APPLY_MAX_LINES = "minigrad/autograd/function.py", 40
# Tensor and its mixins may import these (the seam: the modules named, and all of `ops`);
# nothing else may close a circle.
SEAM = (("minigrad.autograd.tensor", "minigrad.surface.tensor_info",
         "minigrad.surface.tensor_methods"),
        ("minigrad.ops", "minigrad.autograd", "minigrad.autograd.hooks", "minigrad.autograd.node"))
SEAM_PACKAGES = ("minigrad.ops.",)
# Where each kind of module lives. The top level holds only these files:
TOP_LEVEL_FILES = ("__init__.py", "__main__.py")
ENGINE_MODULES = ("tensor", "function", "node", "engine", "ready_queue", "broadcast", "hooks",
                  "grad_mode", "events", "anomaly_mode", "graph", "saved_names",
                  "saved_tensor_hooks", "saved_values", "forward_ad", "jvp_apply")
SURFACE_MODULES = ("dtypes", "devices", "size", "printing", "summation", "tensor_info",
                   "tensor_methods", "factories", "random_factories", "legacy_tensors",
                   "type_info", "return_types", "cuda", "backends", "accelerator", "random",
                   "meta")
# What the engine may import from the surface: values, not the API built on Tensor (meta: the
# meta device's arrays, which the engine keeps meta through an op and into a gradient).
SURFACE_VALUES = ("dtypes", "devices", "size", "printing", "summation", "meta")


def oversized_files(root: Path) -> list[str]:
    """'path: N lines' for each non-test Python file over its budget."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            n = len(path.read_text(encoding="utf-8").splitlines())
            rel = path.relative_to(root).as_posix()
            budget = ENGINE_MAX_LINES if rel == ENGINE else MAX_LINES
            if n > budget:
                found.append(f"{rel}: {n} lines (budget {budget})")
    return found


def function_length(path: Path, name: str) -> int:
    """Lines of the top-level function `name` (or method `Class.name`) in `path`, from `def`
    to its last line."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    *classes, function = name.split(".")
    for cls in classes:
        body = next((n.body for n in body if isinstance(n, ast.ClassDef) and n.name == cls), [])
    for node in body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return node.end_lineno - node.lineno + 1
    raise LookupError(f"{path} has no function {name}")


def module_names(root: Path, package: str) -> dict[str, Path]:
    mods = {}
    for path in (root / package).rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (anywhere in the file)."""
    mods = module_names(root, package)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the module's own package upwards
                    parts = mod.split(".")[: len(mod.split(".")) - node.level + is_package]
                    base = ".".join(parts + ([node.module] if node.module else []))
                # `from minigrad import events` imports the module minigrad.events
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                         for a in node.names]
            graph[mod].update(n for n in names if n in mods and n != mod)
    return graph


def upward_imports(root: Path) -> list[str]:
    """'module -> module' for each core or ops module that imports a layer built on it."""
    upper = ("minigrad.teach", "minigrad.nn", "minigrad.optim", "minigrad.testing",
             "minigrad.course")
    found = []
    for mod, imports in sorted(import_graph(root, "minigrad").items()):
        if mod in ("minigrad", "minigrad.__main__") or mod.startswith(upper):
            continue
        found += [f"{mod} -> {m}" for m in sorted(imports) if m.startswith(upper)]
    return found


def misplaced_modules(root: Path) -> list[str]:
    """'path: why' for each module outside its home (see ENGINE_MODULES, SURFACE_MODULES)."""
    found = []
    top = root / "minigrad"
    for path in sorted(top.iterdir()):
        if path.suffix == ".py" and path.name not in TOP_LEVEL_FILES:
            home = ("minigrad/autograd/" if path.stem in ENGINE_MODULES else
                    "minigrad/surface/" if path.stem in SURFACE_MODULES else
                    "a folder named for what it does")
            found.append(f"minigrad/{path.name}: the top level holds only "
                         f"{' and '.join(TOP_LEVEL_FILES)}; its home is {home}")
    for folder, names in (("autograd", ENGINE_MODULES), ("surface", SURFACE_MODULES)):
        for name in names:
            if not ((top / folder / f"{name}.py").exists() or (top / folder / name).is_dir()):
                found.append(f"minigrad/{folder}/{name}.py: missing from its home")
    return found


def engine_imports_outside(root: Path) -> list[str]:
    """'module -> module' for each import of the engine folder that leaves it, other than the
    surface's values and the seam."""
    allowed = tuple(f"minigrad.surface.{v}" for v in SURFACE_VALUES)
    seam_from, seam_to = SEAM
    found = []
    for mod, imports in sorted(import_graph(root, "minigrad").items()):
        if not (mod == "minigrad.autograd" or mod.startswith("minigrad.autograd.")):
            continue
        for m in sorted(imports):
            inside = m == "minigrad.autograd" or m.startswith(("minigrad.autograd.",) + allowed)
            across_seam = mod in seam_from and (m in seam_from or m in seam_to
                                                or m == "minigrad.ops"
                                                or m.startswith(SEAM_PACKAGES))
            if not (inside or across_seam):
                found.append(f"{mod} -> {m}")
    return found


def import_circles(root: Path, package: str) -> list[list[str]]:
    """The groups of modules that import each other in a circle, once the seam is cut."""
    graph = import_graph(root, package)
    seam_from, seam_to = SEAM
    for module in seam_from:
        if module in graph:
            graph[module] = {m for m in graph[module]
                             if m not in seam_to and not m.startswith(SEAM_PACKAGES)}
    return [sorted(group) for group in _strongly_connected(graph) if len(group) > 1]


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (so any depth works)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        group.append(m)
                        if m == node:
                            break
                    groups.append(group)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return groups


# -- the real tree ---------------------------------------------------------------------------
def test_no_file_passes_its_line_budget():
    assert oversized_files(ROOT) == []


def test_the_engine_loop_fits_on_a_screen():
    assert function_length(ROOT / ENGINE, "execute") <= LOOP_MAX_LINES


def test_function_apply_is_one_short_path():
    assert function_length(ROOT / APPLY, "Function.apply") <= APPLY_MAX_LINES


def test_every_module_is_in_its_home():
    assert misplaced_modules(ROOT) == []


def test_the_engine_folder_imports_only_itself_and_the_surface_values():
    assert engine_imports_outside(ROOT) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_run_one_way_but_for_the_tensor_seam(package):
    assert import_circles(ROOT, package) == []


def test_the_core_and_ops_never_import_the_layers_above():
    assert upward_imports(ROOT) == []


def op_classes() -> list[type]:
    """minigrad's own op classes: every Function subclass that names its node."""
    import minigrad
    from minigrad.autograd.function import Function

    found, todo = [], list(Function.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls.__module__.startswith("minigrad.") and "node_name" in vars(cls):
            found.append(cls)
    assert minigrad.ops  # (imported: every op class is defined)
    return sorted(found, key=lambda c: c.__qualname__)


def missing_op_text(cls: type) -> list[str]:
    """What op class `cls` lacks of its one home: docstring, rule, source form, gradients,
    and for minigrad's own ops the JVP rule and its text."""
    missing = []
    if not (vars(cls).get("__doc__") or "").strip():
        missing.append("a docstring")
    if not isinstance(cls.formula, str) or not cls.formula:
        missing.append("a formula")
    if not hasattr(cls, "source") or not (cls.source is None or isinstance(cls.source, str)
                                          or callable(cls.source)):
        missing.append("a source (str, callable or None)")
    gradients = getattr(cls, "gradients", None)
    if not isinstance(gradients, tuple) or not all(g is None or isinstance(g, str)
                                                   for g in gradients):
        missing.append("gradients (a tuple of str or None)")
    if cls.__module__.startswith(("minigrad.ops.", "minigrad.autograd.")):  # forward mode
        if getattr(cls, "jvp", None) is None and not getattr(cls, "jvp_refused", None):
            missing.append("a jvp rule (or jvp_refused: PyTorch's words)")
        if getattr(cls, "jvp", None) is not None and not isinstance(
                getattr(cls, "tangent", None), str):
            missing.append("tangent (its jvp rule's text)")
    return missing


def test_every_op_has_its_rule_and_narration_text():
    classes = op_classes()
    assert len(classes) > 50
    assert {c.__name__: missing_op_text(c) for c in classes
            if missing_op_text(c)} == {}


def test_trace_the_function_does_not_shadow_trace_the_module():
    import minigrad
    import minigrad.teach.trace

    assert isinstance(minigrad.teach.trace, types.ModuleType)
    assert minigrad.trace is minigrad.teach.trace.trace


# -- the checks catch what they are for ------------------------------------------------------
@pytest.fixture
def planted(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_a_planted_long_file_is_named(planted: Path):
    (planted / "minigrad/long.py").write_text("x = 1\n" * 401)
    engine = planted / ENGINE
    engine.write_text(engine.read_text() + "\n" * 201)
    found = oversized_files(planted)
    assert "minigrad/long.py: 401 lines (budget 400)" in found
    assert any(v.startswith(ENGINE + ": ") and v.endswith("(budget 200)")
               for v in found), found


def test_a_planted_long_apply_is_measured(planted: Path):
    path = planted / APPLY
    text = path.read_text()
    at = text.index("        node = _new_node(")
    path.write_text(text[:at] + "        pass\n" * 41 + text[at:])
    assert function_length(planted / APPLY, "Function.apply") > APPLY_MAX_LINES
    with pytest.raises(LookupError, match="has no function Function.run"):
        function_length(planted / APPLY, "Function.run")


def test_a_planted_circle_is_named(planted: Path):
    # events is imported by the engine; make it import the engine back, inside a function
    with (planted / "minigrad/autograd/events.py").open("a") as f:
        f.write("\n\ndef _late():\n    from minigrad.autograd import engine\n    return engine\n")
    circles = import_circles(planted, "minigrad")
    assert any({"minigrad.autograd.engine", "minigrad.autograd.events"} <= set(c)
               for c in circles), circles


def test_a_planted_upward_import_is_named(planted: Path):
    with (planted / ENGINE).open("a") as f:
        f.write("\n\ndef _late():\n    from minigrad.teach import trace\n    return trace\n")
    assert upward_imports(planted) == ["minigrad.autograd.engine -> minigrad.teach.trace"]


def test_an_op_without_its_text_is_named():
    from minigrad.autograd.function import Function

    class Bare(Function):
        node_name = "BareBackward0"

    assert missing_op_text(Bare) == ["a docstring", "a formula", "a source (str, callable or None)",
                                     "gradients (a tuple of str or None)"]

    class BuiltIn(Function):
        """an op of minigrad's own, with its backward's words but no forward-mode rule"""

        __module__ = "minigrad.ops.planted"
        node_name, formula, source, gradients = "BuiltInBackward0", "d/da = 1", "{0}", ("{g}",)

    assert missing_op_text(BuiltIn) == ["a jvp rule (or jvp_refused: PyTorch's words)"]
    BuiltIn.jvp = staticmethod(lambda ctx, t: t)
    assert missing_op_text(BuiltIn) == ["tangent (its jvp rule's text)"]


def test_a_circle_through_tensor_outside_the_seam_is_named(planted: Path):
    with (planted / "minigrad/autograd/tensor.py").open("a") as f:
        f.write("\n\ndef _late():\n    from minigrad.autograd import engine\n    return engine\n")
    circles = import_circles(planted, "minigrad")
    assert any({"minigrad.autograd.engine", "minigrad.autograd.tensor"} <= set(c)
               for c in circles), circles


def test_a_planted_misplaced_module_is_named(planted: Path):
    shutil.copy(planted / ENGINE, planted / "minigrad/engine.py")
    shutil.copy(planted / "minigrad/surface/dtypes.py", planted / "minigrad/ops/dtypes.py")
    (planted / "minigrad/surface/dtypes.py").unlink()
    assert misplaced_modules(planted) == [
        "minigrad/engine.py: the top level holds only __init__.py and __main__.py; its home is "
        "minigrad/autograd/",
        "minigrad/surface/dtypes.py: missing from its home"]


def test_a_planted_engine_import_of_the_api_is_named(planted: Path):
    with (planted / ENGINE).open("a") as f:
        f.write("\n\ndef _late():\n    from minigrad.surface import factories\n"
                "    return factories\n")
    assert engine_imports_outside(planted) == [
        "minigrad.autograd.engine -> minigrad.surface.factories"]

"""Command line: minigrad against PyTorch.

    python -m compare "sum(x*y)*3" x=[1,2,3] y=[4,5,6]     one expression, printed report
    python -m compare "A @ B" A="randn(2,3)" B="randn(3,4)"  random inputs (seeded: --seed)
    python -m compare "v @ B (vm)"                           a corpus expression by name
    python -m compare corpus [-k TEXT] [-v]                  every corpus expression, one line each
    python -m compare bench [...]                            the speed benchmark (compare.bench)
    python -m compare explain-torch "sum(x*y)*3" x=1,2,3     PyTorch's backward, explained
    python -m compare trace-cost [--runs 20]                 trace_torch's time / a plain backward,
                                                             and a 369-node graph's drawing time

Input values: a number or nested list (`x=[1,2,3]`, made float64 with requires_grad), or
`randn(2,3)`, `rand(3)`, `ones(3)`, `zeros(2,2)`, `arange(6)`; integer data (no gradient) with
`labels(4, 5)` (4 class labels below 5) or `long([0, 2, 1])`; and `const(...)` around any value
for float data that needs no gradient (a target).
Exit status: 0 when everything matches, 1 on a mismatch, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from typing import Any

BENCH_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "bench":
        if "numpy" not in sys.modules:  # single-threaded BLAS, set before numpy loads it
            for var in BENCH_THREAD_VARS:
                os.environ[var] = "1"
        from compare import bench

        return bench.main(argv[1:])
    if argv and argv[0] == "corpus":
        return corpus_main(argv[1:])
    if argv and argv[0] == "trace-cost":
        from compare.trace_cost import main as trace_cost

        return trace_cost(argv[1:])
    if argv and argv[0] == "explain-torch":
        from compare.trace_torch import explain_main

        return explain_main(argv[1:])
    return expression_main(argv)


def expression_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m compare", description="Run one expression in minigrad and in PyTorch "
        "and compare the values, the gradients and the graph. Also: `python -m compare corpus`,"
        " `python -m compare bench`.")
    parser.add_argument("expression", help='e.g. "sum(x*y)*3", or the name of a corpus entry')
    parser.add_argument("inputs", nargs="*", metavar="NAME=VALUE",
                        help="x=[1,2,3], A=randn(2,3), lab=labels(4,5), t=const(rand(3))")
    parser.add_argument("--atol", type=float, default=None)
    parser.add_argument("--rtol", type=float, default=None)
    parser.add_argument("--gradient", choices=("ones", "random"), default="ones",
                        help="seed gradient for a non-scalar output (ones = as for .sum())")
    parser.add_argument("--seed", type=int, default=0, help="seed of randn/rand inputs")
    args = parser.parse_args(argv)

    from compare.against import against_torch
    from compare.corpus import by_name

    tolerances = {k: v for k, v in (("atol", args.atol), ("rtol", args.rtol)) if v is not None}
    gradient = "random" if args.gradient == "random" else None
    try:
        if not args.inputs and _is_case(args.expression):
            report = by_name(args.expression).run(**tolerances)
        else:
            inputs = parse_inputs(args.inputs, args.seed)
            report = against_torch(args.expression, gradient=gradient, **tolerances, **inputs)
    except (ValueError, TypeError, RuntimeError, ModuleNotFoundError) as exc:
        print(f"python -m compare: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    print(report)
    return 0 if report.ok else 1


def _is_case(name: str) -> bool:
    from compare.corpus import CORPUS

    return any(case.name == name for case in CORPUS)


def corpus_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m compare corpus",
                                     description="Run every corpus expression on both engines.")
    parser.add_argument("-k", metavar="TEXT", default="", help="only names containing TEXT")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print the full report of every expression that does not match")
    args = parser.parse_args(argv)

    from compare.corpus import CORPUS

    cases = [c for c in CORPUS if args.k in c.name]
    reports = []
    width = max((len(c.name) for c in cases), default=0)
    for case in cases:
        report = case.run()
        reports.append(report)
        print(report.summary(width), flush=True)
        if args.verbose and not report.ok:
            print(report, "\n")
    ok = sum(r.ok for r in reports)
    equal = sum(r.graph is not None and r.graph.equal for r in reports)
    design = sum(r.graph is not None and r.graph.by_design is not None for r in reports)
    print(f"\n{ok}/{len(reports)} expressions: gradients match, graph shape matches "
          f"({equal} graphs equal, {design} differ by design)")
    failed = [r.title for r in reports if not r.ok]
    if failed:
        print("mismatches: " + "; ".join(failed))
    return 0 if not failed else 1


# ------------------------------------------------------------------ NAME=VALUE inputs
_MAKERS = ("randn", "rand", "ones", "zeros", "arange", "labels", "long", "const")


def parse_inputs(items: list[str], seed: int = 0) -> dict[str, Any]:
    """`["x=[1,2,3]", "A=randn(2,3)"]` -> {"x": array, "A": array} (no eval: literals only)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.isidentifier():
            raise ValueError(f"input {item!r}: write NAME=VALUE, e.g. x=[1,2,3]")
        try:
            tree = ast.parse(text.strip(), mode="eval").body
        except SyntaxError:
            raise ValueError(f"input {name}: cannot read {text!r}") from None
        out[name] = _value(tree, rng, name)
    return out


def _value(node: ast.AST, rng: Any, name: str) -> Any:
    import numpy as np

    from compare.torch_bridge import constant

    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in _MAKERS and not node.keywords:
        if node.func.id in ("const", "long"):
            if len(node.args) != 1:
                raise ValueError(f"input {name}: {node.func.id}(...) takes one value")
            value = _value(node.args[0], rng, name)
            return constant(value) if node.func.id == "const" else value.astype(np.int64)
        try:
            dims = [ast.literal_eval(a) for a in node.args]
        except ValueError:
            raise ValueError(f"input {name}: {node.func.id}(...) takes integer sizes") from None
        if not all(isinstance(d, int) for d in dims):
            raise ValueError(f"input {name}: {node.func.id}(...) takes integer sizes")
        kind = node.func.id
        if kind == "labels":
            if len(dims) != 2:
                raise ValueError(f"input {name}: labels(n, classes)")
            return rng.integers(0, dims[1], dims[0])
        if kind == "arange":
            return np.arange(*dims, dtype=np.float64)
        shape = tuple(dims)
        return {"randn": lambda: rng.standard_normal(shape), "rand": lambda: rng.random(shape),
                "ones": lambda: np.ones(shape), "zeros": lambda: np.zeros(shape)}[kind]()
    try:
        return np.asarray(ast.literal_eval(node), dtype=np.float64)
    except (ValueError, TypeError):
        raise ValueError(f"input {name}: use a number, a nested list, or one of "
                         f"{', '.join(m + '(...)' for m in _MAKERS)}") from None


if __name__ == "__main__":
    sys.exit(main())

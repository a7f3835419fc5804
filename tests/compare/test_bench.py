"""Smoke tests of the benchmark (`python -m compare bench`): tiny sizes, structure only.

No assertion here is about speed: the machine running the tests is shared and noisy.
"""

from __future__ import annotations

import json

import pytest

from compare import bench
from compare.bench_peers import ENGINES

STATUSES = {"ok", "n/a", "unavailable", "fails", "skipped"}


@pytest.fixture(scope="module")
def items():
    return bench.run(bench.Config.tiny())


def test_every_item_runs_with_a_row_per_engine(items):
    assert [i.key for i in items] == list(bench.ITEMS)
    by = {i.key: i for i in items}
    for key in ("mlp", "chain", "deep"):
        engines = [r.engine for r in by[key].rows]
        assert set(ENGINES) <= set(engines), (key, engines)
        for row in by[key].rows:
            assert row.status in STATUSES
            assert (row.value is not None) == (row.status == "ok"), row
    for key in ("mlp", "chain", "deep"):
        assert by[key].value("numpy") > 0
        assert by[key].value("minigrad") > 0


def test_engines_that_cannot_run_say_why(items):
    by = {i.key: i for i in items}
    micro = by["mlp"].row("micrograd")
    assert micro.status in {"n/a", "unavailable"}
    if micro.status == "n/a":
        assert "scalar" in micro.note
        deep = by["deep"].row("micrograd")  # 3,000 deep: past the default recursion limit
        assert (deep.status, deep.note) == ("fails", "fails (RecursionError)")
    for row in by["chain"].rows:
        if row.status == "unavailable":
            assert "pip install" in row.note


def test_extra_items(items):
    by = {i.key: i for i in items}
    huge = [r for r in by["deep"].rows if r.engine.startswith("minigrad ")]
    assert len(huge) == 1 and huge[0].status == "ok"  # the stand-in for 1,000,000 deep
    trace = by["trace"]
    assert trace.value("minigrad") > 0 and trace.value("minigrad traced") > 0
    assert "untraced step" in trace.row("minigrad traced").note
    explain = by["explain"]
    assert explain.rows and all(r.status in {"ok", "skipped"} for r in explain.rows)
    if explain.rows[0].status == "ok":
        assert explain.value("minigrad total") > 0
    memory = by["memory"].row("minigrad")
    assert set(memory.extra) == {"peak@2", "peak@4", "ratio", "held"}
    assert memory.extra["peak@4"] >= memory.extra["peak@2"] > 0
    fan = by["fanin"].row("minigrad")
    assert set(fan.extra) == {"50", "100", "ratio"} and fan.extra["ratio"] > 0


def test_the_split_item_names_every_part(items):
    """Where minigrad's time goes: each part of the chain (per node) and of both steps."""
    split = {i.key: i for i in items}["split"]
    rows = {r.engine.split(",")[0]: r for r in split.rows}
    assert set(rows) == {"chain", "MLP step", "LeNet step"}
    backward = ["backward call", "send/fit", "accumulate", "engine loop"]
    assert list(rows["chain"].extra) == ["forward", "record", *backward, "total"]
    for step in ("MLP step", "LeNet step"):
        assert list(rows[step].extra) == ["forward", "record", *backward, "update", "total"]
    for row in rows.values():
        assert row.status == "ok" and row.value > 0
        assert row.extra["forward"] > 0 and row.extra["backward call"] > 0
        parts = sum(v for k, v in row.extra.items() if k != "total")
        assert parts == pytest.approx(row.extra["total"])
    text = "\n".join(bench.report(bench.Config.tiny(), [split], "threads: test").splitlines())
    assert "send/fit" in text and "engine loop" in text


def test_report_layout(items):
    text = bench.report(bench.Config.tiny(), items, "threads: test")
    lines = text.splitlines()
    assert lines[0].startswith("python -m compare bench: Python ")
    for number, item in enumerate(items, 1):
        assert any(line.startswith(f"{number}. ") for line in lines), item.key
    numpy_rows = [line for line in lines if line.split()[:1] == ["numpy"] and "x" in line]
    assert numpy_rows and all(" 1.00x" in line for line in numpy_rows)
    assert "targets (this run):" in lines
    assert sum(1 for line in lines if line.lstrip().startswith("[")) == 10
    assert any("LeNet step <= 1.5x torch" in line for line in lines)
    assert any("MLP step <= 1.10x numpy, ahead of torch and mygrad" in line for line in lines)


def test_torch_runs_every_timed_item(items, torch_mod):
    by = {i.key: i for i in items}
    for key in ("mlp", "chain", "deep", "trace"):
        assert by[key].row("torch").status == "ok", (key, by[key].row("torch"))
    assert torch_mod.get_num_threads() == 1


def test_command_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(bench.Config, "quick", classmethod(lambda cls: bench.Config.tiny()))
    out = tmp_path / "bench.json"
    assert bench.main(["--quick", "--only", "chain,minigrad", "--repeat", "1",
                       "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "1. chain of 30 small ops" in text and "mygrad" not in text
    data = json.loads(out.read_text())
    assert [item["key"] for item in data] == ["chain"]
    assert {row["engine"] for row in data[0]["rows"]} == {"numpy", "minigrad", "torch"}


def test_unknown_only_name_is_an_error():
    with pytest.raises(SystemExit):
        bench.parse(["--only", "jax"])


def test_engines_are_imported_before_the_objects_are_frozen(monkeypatch):
    """gc.freeze() must see every engine's modules: otherwise each gc.collect() before a timed
    run scans them all (~90 ms for torch) and the run starts with cold caches."""
    import gc
    import sys

    from compare.bench_peers import PEER_MODULES

    seen = {}
    real_freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (seen.update(modules=set(sys.modules)),
                                               real_freeze()))
    monkeypatch.setattr(bench, "ITEMS", ())  # no work items: only what run() does first
    bench.run(bench.Config.tiny())
    for engine, module in PEER_MODULES.items():
        try:
            __import__(module)
        except ImportError:
            continue  # not installed here: nothing to import early
        assert module in seen["modules"], engine



def test_each_round_runs_every_engine_once_in_a_shuffled_order():
    """One timed run of each engine per round, each right after an untimed run of the same
    engine; the order changes from round to round (seeded, so the same every time), so that
    no engine always runs right after the same one."""
    from compare.bench_peers import Case

    def record(settle):
        calls = []
        cases = {name: Case(lambda name=name: (lambda: calls.append(name))) for name in "abcd"}
        rows = bench.interleaved(cases, repeats=30, warmup=1, settle=settle)
        assert all(rows[name].value is not None for name in "abcd")
        return calls

    settled = record(True)
    assert settled[::2] == settled[1::2]  # each engine twice in a row: untimed, then timed
    calls = record(False)
    assert calls == settled[::2] == record(False)  # seeded
    rounds = [calls[i:i + 4] for i in range(0, len(calls), 4)]
    assert len(rounds) == 31 and all(sorted(r) == list("abcd") for r in rounds)
    assert len({tuple(r) for r in rounds}) > 10
    followers = {(a, b) for a, b in zip(calls, calls[1:])}
    assert {(a, b) for a in "abcd" for b in "abcd" if a != b} <= followers


def test_forward_mode_items(items):
    by = {i.key: i for i in items}
    jvp = by["jvp"]
    assert [r.engine for r in jvp.rows] == ["numpy", "minigrad", "torch"]
    assert all(r.status == "ok" and r.value > 0 for r in jvp.rows), jvp.rows
    assert jvp.row("minigrad").note == "minigrad.func.jvp"
    jac = by["jacobians"]
    assert [r.engine for r in jac.rows] == ["minigrad jacrev", "minigrad jacfwd", "torch jacrev",
                                            "torch jacfwd"]
    for row in jac.rows:
        assert row.status == "ok" and set(row.extra) == {"wide 2x8 ms", "tall 8x2 ms"}, row
    assert "one backward pass per output" in jac.notes[0]
    report = bench.report(bench.Config.tiny(), items, "threads")
    assert "jacrev is the faster on the wide function, jacfwd on the tall one" in report


def test_the_numpy_jvp_is_the_derivative_minigrad_computes():
    import numpy as np

    from compare.bench_forward import jvp_case
    from compare.bench_mlp import mlp_data

    data = mlp_data((12, 8, 8, 3), 4)
    by_hand = jvp_case("numpy", data).prepare()()
    out, tangent = jvp_case("minigrad", data).prepare()()
    np.testing.assert_allclose(by_hand, (out.item(), tangent.item()), rtol=1e-5)
